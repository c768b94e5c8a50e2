//! The host rules on real-shaped facts: `drain-time-sync` over the nodes that stay,
//! `k8s-node-cgroup-v2` only when VERSION needs it, and the control-plane certificates
//! (`k8s-certs-expired`, `k8s-certs-expiring`) from kubeadm-shaped PEM files — each in its GO
//! form, its NO-GO form and its unread form (undecided: never GO).

use std::collections::BTreeMap;

use super::cert::parse_certificate;
use super::facts::{CertFile, PerHost};
use super::host::TimeSync;
use super::tests::{cluster, drain, eval, outcome, seen};
use super::upgrade_tests::ready_for_135;
use super::version::Version;
use super::*;
use crate::model::observation::{FailureKind, ReadFailure};

const VALID: &[u8] = include_bytes!("../../../tests/fixtures/gate/pki/apiserver-valid.crt");
const EXPIRED: &[u8] = include_bytes!("../../../tests/fixtures/gate/pki/apiserver-expired.crt");
const CA: &[u8] = include_bytes!("../../../tests/fixtures/gate/pki/ca.crt");

/// dirqual1 (the control-plane node of `nodes.json`): `apiserver.crt` is `apiserver`, the
/// cluster CA is `ca.crt`; the table's other files are not there.
pub(crate) fn control_plane_certs(apiserver: &[u8]) -> PerHost<Vec<CertFile>> {
    let files = builtin()
        .certificates
        .files
        .iter()
        .map(|path| {
            let bytes = match path.as_str() {
                "/etc/kubernetes/pki/apiserver.crt" => Some(apiserver),
                "/etc/kubernetes/pki/ca.crt" => Some(CA),
                _ => None,
            };
            let read = match bytes.map(parse_certificate) {
                Some(Ok(c)) => Ok(Some(c)),
                Some(Err(e)) => panic!("{e}"),
                None => Ok(None),
            };
            CertFile {
                path: path.clone(),
                read,
            }
        })
        .collect();
    BTreeMap::from([("dirqual1".to_string(), Ok(files))])
}

fn k8s(v: &str) -> Request {
    Request {
        gate: Gate::UpgradeKubernetes,
        node: None,
        version: Version::parse(v),
    }
}

fn timeout() -> ReadFailure {
    ReadFailure::new(
        FailureKind::Timeout,
        "ssh to 10.67.2.13 did not finish within 10s; hint: check the host, or raise --request-timeout",
    )
}

#[test]
fn time_sync_holds_on_the_nodes_that_stay_and_never_without_one() {
    let mut f = cluster();
    if let Ok(h) = &mut f.host_time_sync {
        // The drained node is not read: its clock does not hold the mons' quorum.
        h.remove("dirqual2");
    }
    let o = outcome(&eval(&drain("dirqual2"), &f), RuleId::DrainTimeSync).clone();
    assert_eq!(
        (o.status, o.note.as_str()),
        (
            Status::Holds,
            "NTPSynchronized=yes on the 3 nodes that stay"
        )
    );
    // A node that stays and was not read (no inventory host of that name) is undecided.
    if let Ok(h) = &mut f.host_time_sync {
        h.remove("dirqual4");
    }
    let ev = eval(&drain("dirqual2"), &f);
    let o = outcome(&ev, RuleId::DrainTimeSync);
    assert_eq!(
        (o.status, o.note.as_str()),
        (Status::Unknown, "not read on dirqual4 (not read)")
    );
    assert_eq!(ev.verdict.line(), "CANNOT TELL: drain-time-sync undecided");
    // One host's ssh timed out: undecided, with the host and the reason.
    if let Ok(h) = &mut f.host_time_sync {
        h.insert("dirqual4".into(), Err(timeout()));
    }
    let ev = eval(&drain("dirqual2"), &f);
    assert_eq!(
        outcome(&ev, RuleId::DrainTimeSync).note,
        "not read on dirqual4 (Timeout: ssh to 10.67.2.13 did not finish within 10s; hint: check the host, or raise --request-timeout)"
    );
    assert_eq!(ev.verdict.exit(), crate::error::Exit::Undecided);
    // The nodes unread: undecided too, never GO.
    f.nodes = Err(ReadFailure::new(
        FailureKind::Forbidden,
        "nodes is forbidden",
    ));
    let ev = eval(&drain("dirqual2"), &f);
    assert_eq!(outcome(&ev, RuleId::DrainTimeSync).status, Status::Unknown);
}

#[test]
fn time_sync_no_go_names_the_node_and_ntp() {
    let mut f = cluster();
    if let Ok(h) = &mut f.host_time_sync {
        h.insert(
            "dirqual3".into(),
            Ok(TimeSync {
                synchronized: false,
                ntp: Some(false),
                time: None,
            }),
        );
    }
    let ev = eval(&drain("dirqual2"), &f);
    let o = outcome(&ev, RuleId::DrainTimeSync);
    assert_eq!(o.findings.len(), 1);
    assert_eq!(o.findings[0].subject, "node dirqual3");
    assert_eq!(
        o.findings[0].evidence,
        "timedatectl show: NTPSynchronized=no; NTP=no: no time service is enabled"
    );
    assert_eq!(ev.verdict.line(), "NO-GO: 1 blocker");
}

#[test]
fn cgroup_rule_is_asked_only_when_version_needs_it() {
    let mut f = cluster();
    // 1.34 needs no cgroup v2: the rule holds from the table, whatever was read.
    f.host_cgroup = Ok(BTreeMap::new());
    let o = outcome(&eval(&k8s("1.34.2"), &f), RuleId::K8sNodeCgroupV2).clone();
    assert_eq!(
        (o.status, o.note.as_str()),
        (Status::Holds, "the table needs no cgroup v2 up to 1.34")
    );
    // 1.35 does: an empty read is not "every node on v2".
    let o = outcome(&eval(&k8s("1.35.0"), &f), RuleId::K8sNodeCgroupV2).clone();
    assert_eq!(
        (o.status, o.note.as_str()),
        (Status::Unknown, "node dirqual1: its cgroups were not read")
    );
    let f = cluster();
    let o = outcome(&eval(&k8s("1.35.0"), &f), RuleId::K8sNodeCgroupV2).clone();
    assert_eq!(
        (o.status, o.note.as_str()),
        (Status::Holds, "4 nodes on cgroup v2 (1.35 needs it)")
    );
}

#[test]
fn certificates_valid_hold_on_the_control_plane() {
    let f = ready_for_135();
    let ev = eval(&k8s("1.35.0"), &f);
    assert_eq!(ev.verdict, Verdict::Go);
    let o = outcome(&ev, RuleId::K8sCertsExpired);
    assert_eq!(
        (o.status, o.note.as_str()),
        (
            Status::Holds,
            "2 certificates, none expired; the first to expire: /etc/kubernetes/pki/ca.crt on 2036-11-30T08:45:00Z"
        )
    );
    let o = outcome(&ev, RuleId::K8sCertsExpiring);
    assert_eq!(
        (o.status, o.note.as_str()),
        (Status::Holds, "2 certificates: none expires within 30 days")
    );
}

#[test]
fn an_expired_certificate_is_a_blocker_with_its_path_and_not_after() {
    let mut f = ready_for_135();
    f.host_certs = Ok(control_plane_certs(EXPIRED));
    let ev = eval(&k8s("1.35.0"), &f);
    let o = outcome(&ev, RuleId::K8sCertsExpired);
    assert_eq!(o.status, Status::Fails);
    assert_eq!(
        o.findings,
        vec![Finding::new(
            "node dirqual1 /etc/kubernetes/pki/apiserver.crt",
            "notAfter 2025-06-01T00:00:00Z: expired 548 days ago",
            "renew it on dirqual1 first (`kubeadm certs renew apiserver`, then restart the static pods that use it)",
        )]
    );
    assert_eq!(ev.verdict, Verdict::NoGo { blockers: 1 });
    // Expired is not "expiring".
    assert_eq!(outcome(&ev, RuleId::K8sCertsExpiring).status, Status::Holds);
}

#[test]
fn a_certificate_within_the_window_is_a_warning() {
    let mut f = ready_for_135();
    // 20 days before the API server certificate's notAfter (2036-11-30T09:00:00Z).
    let not_after = parse_certificate(VALID)
        .map(|c| c.not_after)
        .unwrap_or_default();
    f.observed_at = Some(not_after - 20 * 86_400);
    let ev = eval(&k8s("1.35.0"), &f);
    let o = outcome(&ev, RuleId::K8sCertsExpiring);
    assert_eq!(o.status, Status::Fails);
    let evidence: Vec<&str> = o.findings.iter().map(|x| x.evidence.as_str()).collect();
    // The CA expires 15 minutes before it: both are in the window.
    assert_eq!(
        evidence,
        [
            "notAfter 2036-11-30T09:00:00Z: expires in 20 days (within the table's 30 days)",
            "notAfter 2036-11-30T08:45:00Z: expires in 19 days (within the table's 30 days)"
        ]
    );
    assert_eq!(
        o.findings[1].clears,
        "kubeadm upgrade does not renew a CA: plan its rotation (Manual Rotation of CA Certificates)"
    );
    // A warning never changes the verdict.
    assert_eq!(outcome(&ev, RuleId::K8sCertsExpired).status, Status::Holds);
}

#[test]
fn certificates_unread_are_undecided_never_go() {
    let mut f = ready_for_135();
    f.host_certs = Ok(BTreeMap::from([("dirqual1".to_string(), Err(timeout()))]));
    let ev = eval(&k8s("1.35.0"), &f);
    assert_eq!(
        outcome(&ev, RuleId::K8sCertsExpired).status,
        Status::Unknown
    );
    assert_eq!(
        ev.verdict,
        Verdict::CannotTell {
            undecided: vec![RuleId::K8sCertsExpired]
        }
    );
    // A control-plane node not read at all, or one file unreadable.
    f.host_certs = Ok(BTreeMap::new());
    let o = outcome(&eval(&k8s("1.35.0"), &f), RuleId::K8sCertsExpired).clone();
    assert_eq!(
        (o.status, o.note.as_str()),
        (Status::Unknown, "not read on dirqual1: not read")
    );
    let mut certs = control_plane_certs(VALID);
    if let Some(Ok(files)) = certs.get_mut("dirqual1") {
        files[0].read = Err(ReadFailure::new(
            FailureKind::BadOutput,
            "a PEM block that is not a CERTIFICATE: nothing of it was kept",
        ));
    }
    f.host_certs = Ok(certs);
    let o = outcome(&eval(&k8s("1.35.0"), &f), RuleId::K8sCertsExpired).clone();
    assert_eq!(
        (o.status, o.note.as_str()),
        (Status::Unknown, "not read on dirqual1 /etc/kubernetes/pki/apiserver.crt: BadOutput: a PEM block that is not a CERTIFICATE: nothing of it was kept")
    );
    // No file there at all: not a kubeadm control plane, undecided.
    let none: Vec<CertFile> = builtin()
        .certificates
        .files
        .iter()
        .map(|p| CertFile {
            path: p.clone(),
            read: Ok(None),
        })
        .collect();
    f.host_certs = Ok(BTreeMap::from([("dirqual1".to_string(), Ok(none))]));
    let o = outcome(&eval(&k8s("1.35.0"), &f), RuleId::K8sCertsExpired).clone();
    assert_eq!(o.note, "not read on dirqual1: none of the 10 certificate files is there (not a kubeadm control plane?)");
    // --no-ssh: skipped and named, not undecided.
    f.host_certs = Err(ReadFailure::skipped(NO_SSH));
    let o = outcome(&eval(&k8s("1.35.0"), &f), RuleId::K8sCertsExpired).clone();
    assert_eq!(
        (o.status, o.note.as_str()),
        (Status::Skipped, "not read: --no-ssh")
    );
}

#[test]
fn the_table_lists_only_public_certificate_paths() {
    let t = builtin();
    assert_eq!(t.certificates.warn_within_days, 30);
    assert!(t
        .certificates
        .files
        .iter()
        .all(|p| p.as_str().ends_with(".crt")));
    let text = include_str!("rules.yaml").replace(
        "    - /etc/kubernetes/pki/apiserver.crt\n",
        "    - /etc/kubernetes/pki/apiserver.key\n",
    );
    let e = parse(&text, "rules.yaml")
        .err()
        .map(|e| e.message)
        .unwrap_or_default();
    assert!(
        e.contains("`/etc/kubernetes/pki/apiserver.key` is not a certificate path nestor reads: only `*.crt` files (never a key, never a kubeconfig)"),
        "{e}"
    );
}

#[test]
fn time_sync_no_go_and_skipped_without_ssh() {
    let mut f = cluster();
    if let Ok(hosts) = &mut f.host_time_sync {
        hosts.insert(
            "dirqual3".into(),
            Ok(TimeSync {
                synchronized: false,
                ntp: Some(true),
                time: Some("Wed 2026-12-02 00:48:53 UTC".into()),
            }),
        );
    }
    let (status, evidence, verdict) = seen(&eval(&drain("dirqual2"), &f), RuleId::DrainTimeSync);
    assert_eq!(
        (status, verdict.as_str()),
        (Status::Fails, "NO-GO: 1 blocker")
    );
    assert_eq!(evidence, ["timedatectl show: NTPSynchronized=no; NTP=yes: a time service is on but has not synchronised the clock; its clock said Wed 2026-12-02 00:48:53 UTC"]);
    f.host_time_sync = Err(ReadFailure::skipped("--no-ssh"));
    let ev = eval(&drain("dirqual2"), &f);
    let o = outcome(&ev, RuleId::DrainTimeSync);
    assert_eq!(
        (o.status, o.note.as_str()),
        (Status::Skipped, "not read: --no-ssh")
    );
    assert_eq!(ev.verdict, Verdict::Go);
}
