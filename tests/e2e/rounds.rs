//! The round structure of every command that reads a cluster (SPEC §11, issue 47): one round
//! of parallel GETs, plus at most one for what the first names. Measured twice, through the
//! real kubectl against the replay server with a latency injected into every answer: from the
//! server's audit (a request that arrives a latency after the one before it went out in a
//! later round) and from `-v`'s `round N:` lines. A new check that adds a round fails here,
//! not in a benchmark months later.

use crate::bed_or_skip;
use crate::support::*;
use nestor_replay::{fixtures, Config};

/// Every answer waits this long: a round's requests arrive within a few milliseconds of each
/// other, the next round's only after an answer, a latency later.
const LATENCY_MS: u64 = 300;

/// Every layer of the built-in catalog (the host-level ones are read over ssh, skipped here
/// with `--no-ssh`).
const FULL_CATALOG: &str = "[k8s, cni, ceph, storage, datalake, gateway, certs, monitoring, gitops, registry, dataops, etcd-backup, audit-log, encryption-at-rest, sshd-hardening, os-hardening, pod-security, kube-proxy-replacement, hubble, cni-encryption, network-policy]";

fn bed(fixture: &str, layers: &str) -> Option<E2e> {
    let fixture = fixtures::by_name(fixture).expect("fixture");
    let bed = E2e::with_config(Config::new(fixture).latency_ms(LATENCY_MS))?;
    bed.write_stack(
        "dirqual",
        &dirqual_topology(&bed.server.url()).replace(LAYERS, layers),
    );
    Some(bed)
}

/// The rounds the server saw: its requests (kubectl's own `GET /version`, which the Cloud SDK
/// dispatcher sends before any command, left out) grouped by arrival, a new round wherever a
/// request arrived more than half a latency after the one before it. Each round's paths.
fn rounds_seen(bed: &E2e) -> Vec<Vec<String>> {
    let mut audit: Vec<_> = bed
        .server
        .audit()
        .into_iter()
        .filter(|e| e.path != "/version")
        .collect();
    audit.sort_by_key(|e| e.unix_ms);
    let mut rounds: Vec<Vec<String>> = Vec::new();
    let mut last: Option<u64> = None;
    for e in audit {
        let next = last.is_none_or(|t| e.unix_ms.saturating_sub(t) > LATENCY_MS / 2);
        if next {
            rounds.push(Vec::new());
        }
        last = Some(e.unix_ms);
        if let Some(r) = rounds.last_mut() {
            r.push(format!("{} {}", e.path, e.query));
        }
    }
    rounds
}

/// `-v`'s round lines (`round N: K reads, G GETs at once ...`; a gate's own GETs and the
/// layers' reads beside them each say their round): the numbers N, each once.
fn rounds_said(stderr: &str) -> Vec<u32> {
    let mut said: Vec<u32> = stderr
        .lines()
        .filter_map(|l| l.split_once("kubectl-nestor: round ").map(|(_, r)| r))
        .filter_map(|r| r.split_once(':'))
        .filter(|(_, rest)| rest.contains("GETs at once"))
        .filter_map(|(n, _)| n.parse().ok())
        .collect();
    said.dedup();
    said
}

/// Run `args` with `-v` on `bed`, exiting `code`: the rounds the server saw, which `-v` must
/// have said too.
fn rounds_of(bed: &E2e, args: &[&str], code: i32) -> Vec<Vec<String>> {
    bed.server.clear_audit();
    let mut all = args.to_vec();
    all.extend(["--no-input", "-o", "json", "-v"]);
    let r = bed.run(&all);
    r.code(code);
    let seen = rounds_seen(bed);
    let said = rounds_said(&r.stderr);
    let numbered: Vec<u32> = (1..=seen.len() as u32).collect();
    assert_eq!(
        said, numbered,
        "-v said rounds {said:?}; the server saw {seen:#?}\nstderr:\n{}",
        r.stderr
    );
    seen
}

#[test]
fn preview_on_the_full_catalog_reads_in_two_rounds() {
    let bed = bed_or_skip!(bed("dirqual-full", FULL_CATALOG));
    let seen = rounds_of(&bed, &["preview", "--no-ssh"], 0);
    assert_eq!(seen.len(), 2, "{seen:#?}");
    // The first round holds discovery beside every list and custom resource: nothing waits
    // for discovery.
    let first = seen[0].join("\n");
    for path in [
        "/apis ",
        "/api/v1/nodes ",
        "/apis/ceph.rook.io/v1/cephclusters ",
        "/apis/cert-manager.io/v1/certificates ",
        "/apis/apps/v1/namespaces/rook-ceph/deployments ",
    ] {
        assert!(
            first.contains(path),
            "{path} not in the first round:\n{first}"
        );
    }
    // The second only what the first named: the EndpointSlices of the webhook that fails closed.
    assert!(
        seen[1].iter().all(|p| p.contains("/endpointslices ")),
        "{seen:#?}"
    );
}

#[test]
fn a_degraded_cluster_reads_pods_and_events_in_the_same_second_round() {
    let bed = bed_or_skip!(bed("degraded", LAYERS));
    let seen = rounds_of(&bed, &["preview", "--no-ssh"], 0);
    assert_eq!(seen.len(), 2, "{seen:#?}");
    let second = seen[1].join("\n");
    assert!(second.contains("/pods "), "{second}");
    assert!(second.contains("/events "), "{second}");
}

#[test]
fn every_gate_reads_in_one_round() {
    let bed = bed_or_skip!(bed("dirqual-gates", LAYERS));
    for (args, code) in [
        (vec!["gate", "drain", "dirqual2", "--no-ssh"], 0),
        (vec!["gate", "upgrade", "kubernetes", "1.32", "--no-ssh"], 0),
    ] {
        let seen = rounds_of(&bed, &args, code);
        assert_eq!(seen.len(), 1, "{args:?}: {seen:#?}");
    }
    // The component gates judge the layers after the component too: preview's reads beside
    // the gate's own, in the same round.
    for (what, version, layers) in [
        ("cilium", "1.18.5", "[k8s, cni, monitoring]"),
        ("rook", "1.16.7", "[k8s, cni, ceph, storage]"),
    ] {
        bed.write_stack(
            "dirqual",
            &dirqual_topology(&bed.server.url()).replace(LAYERS, layers),
        );
        let seen = rounds_of(&bed, &["gate", "upgrade", what, version], 0);
        assert_eq!(seen.len(), 1, "{what}: {seen:#?}");
    }
}
