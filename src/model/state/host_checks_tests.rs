//! Host checks have stable ids too (SPEC §6 v0.4, issue 34 item 6): each check of a
//! host-level layer over every host of its group, false where it fails on some host (the
//! hosts are its findings, what an acknowledgement's `detail:` names), unknown where a host
//! could not answer it; and a failing one is acknowledged like any other check.
#![allow(clippy::unwrap_used)]

use super::tests::{eval, file, healthy, obs, reading, unit};
use super::*;
use crate::model::ack::{apply, fully_acknowledged, Acknowledgement};
use crate::model::catalog::Catalog;
use crate::model::observation::{FailureKind, ReadFailure};
use crate::model::state::{evaluate as evaluate_layers, DeclaredNode, LayerReport};

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

fn reports(o: HostObservation) -> Vec<LayerReport> {
    let catalog = Catalog::builtin().unwrap();
    let mut obs = crate::model::observation::Observation::skipped("not read");
    obs.hosts = o;
    let declared: Vec<DeclaredNode> = Vec::new();
    evaluate_layers(&catalog, &["etcd-backup".to_string()], &declared, &obs)
}

fn ack(check: &str, detail: Option<&str>) -> Acknowledgement {
    Acknowledgement {
        check: check.into(),
        detail: detail.map(String::from),
        reason: "dirqual1's disk is replaced on Friday".into(),
        until: "2026-12-31".into(),
        until_day: crate::clock::parse_date("2026-12-31").unwrap(),
        at: "stacks/dirqual.yaml:20".into(),
    }
}

#[test]
fn a_host_layers_checks_carry_ids_and_are_acknowledged_by_host() {
    let today = crate::clock::parse_date("2026-12-02").unwrap();
    let stale = || {
        let old = reading(
            unit("active", "success", None),
            unit("inactive", "success", Some(0)),
            file(9 * 86_400, 24_600_000),
        );
        obs(vec![("dirqual1", Ok(old)), ("dirqual2", Ok(healthy()))])
    };
    let mut r = reports(stale());
    let ids: Vec<&str> = r[0].checks.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "etcd-backup/timer",
            "etcd-backup/last-run",
            "etcd-backup/newest-snapshot",
            "etcd-backup/restore-tools"
        ]
    );
    // The detail names the one host where it fails: applied, the layer stays degraded.
    let warnings = apply(
        &[ack("etcd-backup/newest-snapshot", Some("dirqual1"))],
        &mut r,
        today,
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(r[0].state, State::Degraded);
    assert!(r[0].checks[2].acknowledged);
    assert!(fully_acknowledged(&r[0]));
    // Another host: matches nothing, said so.
    let mut r = reports(stale());
    let warnings = apply(
        &[ack("etcd-backup/newest-snapshot", Some("dirqual2"))],
        &mut r,
        today,
    );
    assert_eq!(
        warnings[0].message,
        "acknowledgement of etcd-backup/newest-snapshot matches nothing: the check does not find exactly `dirqual2`"
    );
    assert!(!fully_acknowledged(&r[0]));
}

#[test]
fn an_acknowledged_host_check_never_covers_a_host_that_could_not_be_read() {
    let today = crate::clock::parse_date("2026-12-02").unwrap();
    let down = Err(ReadFailure::new(
        FailureKind::Unreachable,
        "unreachable over ssh",
    ));
    let mut r = reports(obs(vec![("dirqual1", Ok(phantom())), ("dirqual2", down)]));
    let warnings = apply(&[ack("etcd-backup/last-run", None)], &mut r, today);
    // dirqual1 fails, dirqual2 could not be read: the layer is degraded, the finding on
    // dirqual1 is marked, but the layer stays under repair (dirqual2 is undecided).
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(r[0].state, State::Degraded);
    assert!(r[0].checks[1].acknowledged);
    assert!(!fully_acknowledged(&r[0]));
}
