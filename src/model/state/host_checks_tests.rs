//! Host checks have stable ids too (SPEC §6 v0.4, issue 34 item 6): each check of a
//! host-level layer over every host of its group, false where it fails on some host (the
//! hosts are its findings, what an acknowledgement's `detail:` names), unknown where a host
//! could not answer it (acknowledging one: `src/model/ack/host_tests.rs`).

use super::tests::{eval, file, healthy, obs, reading, unit};
use super::*;
use crate::model::observation::{FailureKind, ReadFailure};

fn phantom() -> HostReading {
    reading(
        unit("active", "success", None),
        unit("failed", "exit-code", Some(127)),
        file(9 * 86_400, 24_600_000),
    )
}

fn ids_and_verdicts(l: &HostLayer) -> Vec<(Verdict, &str, Vec<String>)> {
    l.checks
        .iter()
        .map(|c| (c.verdict, c.evidence.as_str(), c.findings.clone()))
        .collect()
}

#[test]
fn each_host_check_is_folded_over_the_hosts_with_the_failing_hosts_as_findings() {
    let r = eval(&obs(vec![
        ("dirqual1", Ok(phantom())),
        ("dirqual2", Ok(healthy())),
    ]));
    assert_eq!(r.state, State::Degraded);
    let got = ids_and_verdicts(&r);
    assert_eq!(
        got,
        [
            (
                Verdict::True,
                "dirqual1: etcd-snapshot.timer active; dirqual2: etcd-snapshot.timer active",
                vec![]
            ),
            (
                Verdict::False,
                "dirqual1: last run of etcd-snapshot.service failed (exit-code, status 127)",
                vec!["dirqual1".to_string()]
            ),
            (
                Verdict::False,
                "dirqual1: newest etcd-x.db is 9d old (maxAge 26h)",
                vec!["dirqual1".to_string()]
            ),
            (
                Verdict::True,
                "dirqual1: etcdutl in /usr/local/bin, crictl in /usr/bin; dirqual2: etcdutl in /usr/local/bin, crictl in /usr/bin",
                vec![]
            ),
        ]
    );
}

#[test]
fn a_host_that_cannot_answer_makes_each_check_unknown_never_true() {
    let down = Err(ReadFailure::new(
        FailureKind::Unreachable,
        "unreachable over ssh (Connection refused)",
    ));
    let r = eval(&obs(vec![("dirqual1", Ok(healthy())), ("dirqual2", down)]));
    assert_eq!(r.state, State::Unknown);
    assert!(r.checks.iter().all(|c| c.verdict == Verdict::Unknown));
    assert_eq!(
        r.checks[0].evidence,
        "dirqual2: unreachable over ssh (Connection refused)"
    );
    let skipped = HostObservation {
        skipped: Some("--no-ssh: host layers not read".into()),
        ..HostObservation::default()
    };
    let r = eval(&skipped);
    assert_eq!(r.checks.len(), 4);
    assert!(r.checks.iter().all(|c| c.verdict == Verdict::Unknown
        && c.evidence == "control_plane: --no-ssh: host layers not read"));
}
