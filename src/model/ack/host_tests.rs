//! A host-level layer's check acknowledged like any other (SPEC §6 v0.4, issue 34 item 6):
//! by its id, with a `detail:` naming the one host where it fails; never covering a host
//! that could not be read.

use super::*;
use crate::model::catalog::Catalog;
use crate::model::observation::host::{HostObservation, HostReading};
use crate::model::observation::{FailureKind, ReadFailure};
use crate::model::state::hosts::tests::{file, healthy, obs, reading, unit};
use crate::model::state::{evaluate, DeclaredNode};

fn phantom() -> HostReading {
    reading(
        unit("active", "success", None),
        unit("failed", "exit-code", Some(127)),
        file(9 * 86_400, 24_600_000),
    )
}

fn reports(o: HostObservation) -> Vec<LayerReport> {
    let catalog = Catalog::builtin().unwrap();
    let mut obs = crate::model::observation::Observation::skipped("not read");
    obs.hosts = o;
    let declared: Vec<DeclaredNode> = Vec::new();
    evaluate(&catalog, &["etcd-backup".to_string()], &declared, &obs)
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
    let day = crate::clock::parse_date("2026-12-02").unwrap();
    let today = Days {
        today: day,
        read: day,
    };
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
    let day = crate::clock::parse_date("2026-12-02").unwrap();
    let today = Days {
        today: day,
        read: day,
    };
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
