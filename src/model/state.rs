//! One state per layer, with evidence: present, degraded, absent or unknown (SPEC §6).
//!
//! This is where "forbidden is not missing" is enforced: every check yields true, false or
//! unknown, a failed read always gives unknown, and only a layer whose detect checks all
//! evaluated false is absent. Pure: it reads an [`Observation`], never the cluster.

mod objects;
mod pods;
pub mod workloads;

use std::collections::BTreeSet;

use serde::Serialize;

use crate::model::catalog::{Catalog, Check, CheckKind, Count, Layer, NodesCheck};
use crate::model::observation::{Observation, ReadFailure};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Some detect check true, every health check true.
    Present,
    /// Some detect check true, a health check false: repair, never reinstall.
    Degraded,
    /// Every detect check evaluated false: install.
    Absent,
    /// A needed read failed or the layer is not observable: never install.
    Unknown,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Present => "present",
            State::Degraded => "degraded",
            State::Absent => "absent",
            State::Unknown => "unknown",
        }
    }
}

/// The state of one layer and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayerReport {
    pub id: String,
    pub title: String,
    pub state: State,
    /// What was found or missing, one line per check (duplicates removed).
    pub evidence: Vec<String>,
    /// The evidence that decided the state: the false health checks of a degraded layer,
    /// the failed reads of an unknown one, the detect checks of an absent one.
    pub reason: String,
    /// Host-level layers (SPEC §13): what each host of the group showed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<crate::model::host_state::HostEvidence>,
}

/// The value of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    True,
    False,
    Unknown,
}

/// Whether a check is used to detect a layer or to judge its health. Only workloads differ:
/// detect means "exists", healthy means "ready".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Detect,
    Healthy,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckOutcome {
    pub verdict: Verdict,
    pub evidence: String,
}

impl CheckOutcome {
    fn yes(evidence: impl Into<String>) -> Self {
        CheckOutcome {
            verdict: Verdict::True,
            evidence: evidence.into(),
        }
    }
    fn no(evidence: impl Into<String>) -> Self {
        CheckOutcome {
            verdict: Verdict::False,
            evidence: evidence.into(),
        }
    }
    fn failed(what: &str, failure: &ReadFailure) -> Self {
        CheckOutcome {
            verdict: Verdict::Unknown,
            evidence: format!("read of {what} failed: {}", failure.kind),
        }
    }
}

pub const NOT_OBSERVABLE: &str = "not observable through Kubernetes";

/// Evaluate the given layers, in the given order. `declared_nodes` are the node names of the
/// stack (what `nodes: {ready: all}` means); empty means "every registered node".
pub fn evaluate(
    catalog: &Catalog,
    layer_ids: &[String],
    declared_nodes: &[String],
    obs: &Observation,
) -> Vec<LayerReport> {
    layer_ids
        .iter()
        .map(|id| match catalog.get(id) {
            Some(layer) => evaluate_layer(layer, declared_nodes, obs),
            None => {
                let why = format!("layer `{id}` is not in the catalog");
                LayerReport {
                    id: id.clone(),
                    title: id.clone(),
                    state: State::Unknown,
                    evidence: vec![why.clone()],
                    reason: why,
                    hosts: Vec::new(),
                }
            }
        })
        .collect()
}

/// Evaluate one layer of the catalog.
pub fn evaluate_layer(layer: &Layer, declared_nodes: &[String], obs: &Observation) -> LayerReport {
    let report = |state, evidence: Vec<String>, reason: String| LayerReport {
        id: layer.id.clone(),
        title: layer.title.clone(),
        state,
        evidence: dedup(evidence),
        reason,
        hosts: Vec::new(),
    };
    if let Some(spec) = &layer.host {
        use crate::model::host_state::{self, HostState};
        let h = host_state::evaluate(spec, &obs.hosts);
        let state = match h.state {
            HostState::Present => State::Present,
            HostState::Degraded => State::Degraded,
            HostState::Absent => State::Absent,
            HostState::Unknown => State::Unknown,
        };
        return LayerReport {
            id: layer.id.clone(),
            title: layer.title.clone(),
            state,
            evidence: h.evidence,
            reason: h.reason,
            hosts: h.hosts,
        };
    }
    if !layer.observable {
        return report(
            State::Unknown,
            vec![NOT_OBSERVABLE.to_string()],
            NOT_OBSERVABLE.to_string(),
        );
    }
    let run = |checks: &[Check], phase| -> Vec<CheckOutcome> {
        checks
            .iter()
            .map(|c| evaluate_check(c, phase, declared_nodes, obs))
            .collect()
    };
    let detect = run(&layer.detect, Phase::Detect);
    let all = |o: &[CheckOutcome]| o.iter().map(|o| o.evidence.clone()).collect::<Vec<_>>();
    if !detect.iter().any(|o| o.verdict == Verdict::True) {
        let evidence = all(&detect);
        return if detect.iter().any(|o| o.verdict == Verdict::Unknown) {
            report(State::Unknown, evidence, joined(&detect, Verdict::Unknown))
        } else {
            let reason = evidence.join("; ");
            report(State::Absent, evidence, reason)
        };
    }
    let healthy = run(&layer.healthy, Phase::Healthy);
    let mut evidence: Vec<String> = detect
        .iter()
        .filter(|o| o.verdict == Verdict::True)
        .map(|o| o.evidence.clone())
        .collect();
    evidence.extend(all(&healthy));
    if healthy.iter().any(|o| o.verdict == Verdict::False) {
        report(State::Degraded, evidence, joined(&healthy, Verdict::False))
    } else if healthy.iter().any(|o| o.verdict == Verdict::Unknown) {
        report(State::Unknown, evidence, joined(&healthy, Verdict::Unknown))
    } else {
        report(State::Present, evidence, "detected and healthy".to_string())
    }
}

fn joined(outcomes: &[CheckOutcome], verdict: Verdict) -> String {
    dedup(
        outcomes
            .iter()
            .filter(|o| o.verdict == verdict)
            .map(|o| o.evidence.clone())
            .collect(),
    )
    .join("; ")
}

fn dedup(lines: Vec<String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    lines
        .into_iter()
        .filter(|l| seen.insert(l.clone()))
        .collect()
}

/// Evaluate one check against the observation.
pub fn evaluate_check(
    check: &Check,
    phase: Phase,
    declared_nodes: &[String],
    obs: &Observation,
) -> CheckOutcome {
    match &check.kind {
        CheckKind::ApiGroup(group) => match &obs.api_groups {
            Err(f) => CheckOutcome::failed("API groups", f),
            Ok(groups) if groups.contains(group) => {
                CheckOutcome::yes(format!("API group {group} served"))
            }
            Ok(_) => CheckOutcome::no(format!("API group {group} not served")),
        },
        CheckKind::Namespace(ns) => match &obs.namespaces {
            Err(f) => CheckOutcome::failed("namespaces", f),
            Ok(list) => match list.iter().find(|n| &n.name == ns) {
                Some(n) if n.phase == "Active" || n.phase.is_empty() => {
                    CheckOutcome::yes(format!("namespace {ns} exists"))
                }
                Some(n) => CheckOutcome::yes(format!("namespace {ns} exists ({})", n.phase)),
                None => CheckOutcome::no(format!("no namespace {ns}")),
            },
        },
        CheckKind::StorageClass {
            provisioner,
            default,
        } => storage_class(obs, provisioner.as_deref(), *default),
        CheckKind::Workload(w) => workloads::workload(obs, phase, w),
        CheckKind::Resource(r) => objects::resource(obs, r),
        CheckKind::Condition(c) => objects::condition(obs, c),
        CheckKind::All(a) => objects::all(obs, a),
        CheckKind::Count(c) => objects::count(obs, c),
        CheckKind::Tolerate(t) => objects::tolerate(obs, t),
        CheckKind::PodFlags(p) => pods::pod_flags(obs, phase, p),
        CheckKind::Nodes(n) => nodes(obs, *n, declared_nodes),
    }
}

/// At most this many objects are named in one line of evidence; the rest are counted.
pub const MAX_NAMED: usize = 5;

/// Lines joined with `; `, the first [`MAX_NAMED`] of them, then `and N more`.
fn capped(lines: Vec<String>) -> String {
    let n = lines.len();
    let mut shown: Vec<String> = lines.into_iter().take(MAX_NAMED).collect();
    if n > MAX_NAMED {
        shown.push(format!("and {} more", n - MAX_NAMED));
    }
    shown.join("; ")
}

fn storage_class(
    obs: &Observation,
    provisioner: Option<&str>,
    default: Option<bool>,
) -> CheckOutcome {
    let list = match &obs.storage_classes {
        Err(f) => return CheckOutcome::failed("storageclasses", f),
        Ok(list) => list,
    };
    let found: Vec<String> = list
        .iter()
        .filter(|s| provisioner.is_none_or(|p| s.provisioner == p))
        .filter(|s| default.is_none_or(|d| s.default == d))
        .map(|s| {
            let flag = if s.default { ", default" } else { "" };
            format!("StorageClass {} ({}{flag})", s.name, s.provisioner)
        })
        .collect();
    if found.is_empty() {
        let adjective = match default {
            Some(true) => "default ",
            Some(false) => "non-default ",
            None => "",
        };
        let with = provisioner
            .map(|p| format!(" with provisioner {p}"))
            .unwrap_or_default();
        CheckOutcome::no(format!("no {adjective}StorageClass{with}"))
    } else {
        CheckOutcome::yes(found.join(", "))
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn nodes(obs: &Observation, check: NodesCheck, declared: &[String]) -> CheckOutcome {
    let list = match &obs.nodes {
        Err(f) => return CheckOutcome::failed("nodes", f),
        Ok(list) => list,
    };
    let (count, want_ready) = match check {
        NodesCheck::Ready(c) => (c, true),
        NodesCheck::Registered(c) => (c, false),
    };
    let word = if want_ready { "Ready" } else { "registered" };
    match count {
        Count::AtLeast(n) => {
            let have = list.iter().filter(|node| !want_ready || node.ready).count();
            let text = format!("{} {word}", plural(have, "node"));
            if have >= n as usize {
                CheckOutcome::yes(text)
            } else {
                CheckOutcome::no(format!("{text} (want at least {n})"))
            }
        }
        Count::All => {
            let (targets, label): (Vec<&str>, &str) = if declared.is_empty() {
                (list.iter().map(|n| n.name.as_str()).collect(), "nodes")
            } else {
                (
                    declared.iter().map(String::as_str).collect(),
                    "declared nodes",
                )
            };
            if targets.is_empty() {
                return CheckOutcome::no("no node registered");
            }
            let mut problems = Vec::new();
            for name in &targets {
                match list.iter().find(|n| n.name == *name) {
                    None => problems.push(format!("{name} not registered")),
                    Some(n) if want_ready && !n.ready => problems.push(format!("{name} NotReady")),
                    Some(_) => {}
                }
            }
            let good = targets.len() - problems.len();
            let summary = format!("{good}/{} {label} {word}", targets.len());
            if problems.is_empty() {
                CheckOutcome::yes(summary)
            } else {
                CheckOutcome::no(format!("{summary}: {}", problems.join(", ")))
            }
        }
    }
}

/// Observations shared by the state and plan tests, built from the kubectl fixtures.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod fixtures {
    use crate::model::observation::*;

    /// The SPEC §1 incident cluster: prod "dirqual", 4 Ready nodes, Ceph HEALTH_OK, CNPG 3/3,
    /// monitoring, gitops and registry in place; no object store, no cert-manager.
    pub fn dirqual() -> Observation {
        let k = |f: &str| -> &'static str {
            match f {
                "nodes" => include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/kubectl/nodes-dirqual.json"
                )),
                "api" => include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/kubectl/api-versions.txt"
                )),
                "ns" => include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/kubectl/namespaces.json"
                )),
                "sc" => include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/kubectl/storageclasses.json"
                )),
                "ds" => include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/kubectl/daemonsets.json"
                )),
                "deploy" => include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/kubectl/deployments.json"
                )),
                "sts" => include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/kubectl/statefulsets.json"
                )),
                "ceph" => include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/kubectl/cephclusters.json"
                )),
                "store" => include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/kubectl/cephobjectstores-empty.json"
                )),
                "cnpg" => include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/kubectl/cnpg-clusters.json"
                )),
                "prom" => include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/kubectl/prometheuses.json"
                )),
                "am" => include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/kubectl/alertmanagers.json"
                )),
                "apps" => include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/kubectl/applications.json"
                )),
                _ => unreachable!(),
            }
        };
        let mut obs = Observation::skipped("not read");
        let catalog = crate::model::catalog::Catalog::builtin().unwrap();
        let all: Vec<String> = catalog.ids().into_iter().map(String::from).collect();
        obs.keep = catalog.object_fields(&all);
        for (req, f) in [
            (ReadRequest::Nodes, "nodes"),
            (ReadRequest::ApiGroups, "api"),
            (ReadRequest::Namespaces, "ns"),
            (ReadRequest::StorageClasses, "sc"),
            (ReadRequest::DaemonSets, "ds"),
            (ReadRequest::Deployments, "deploy"),
            (ReadRequest::StatefulSets, "sts"),
            (
                ReadRequest::Resource("cephclusters.ceph.rook.io".into()),
                "ceph",
            ),
            (
                ReadRequest::Resource("cephobjectstores.ceph.rook.io".into()),
                "store",
            ),
            (
                ReadRequest::Resource("clusters.postgresql.cnpg.io".into()),
                "cnpg",
            ),
            (
                ReadRequest::Resource("prometheuses.monitoring.coreos.com".into()),
                "prom",
            ),
            (
                ReadRequest::Resource("alertmanagers.monitoring.coreos.com".into()),
                "am",
            ),
            (
                ReadRequest::Resource("applications.argoproj.io".into()),
                "apps",
            ),
        ] {
            obs.record(&req, Ok(k(f)));
        }
        obs
    }

    pub fn declared() -> Vec<String> {
        (1..=4).map(|i| format!("dirqual{i}")).collect()
    }

    pub fn layers() -> Vec<String> {
        [
            "k8s",
            "cni",
            "ceph",
            "storage",
            "monitoring",
            "gitops",
            "registry",
            "dataops",
            "datalake",
            "certs",
        ]
        .map(String::from)
        .to_vec()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::fixtures::{declared, dirqual, layers};
    use super::*;
    use crate::model::catalog::{WorkloadCheck, WorkloadKind};
    use crate::model::observation::{parse_deployments, parse_nodes, FailureKind};

    fn catalog() -> Catalog {
        Catalog::builtin().unwrap()
    }

    fn states(reports: &[LayerReport]) -> Vec<(&str, State)> {
        reports.iter().map(|r| (r.id.as_str(), r.state)).collect()
    }

    fn report<'a>(reports: &'a [LayerReport], id: &str) -> &'a LayerReport {
        reports.iter().find(|r| r.id == id).unwrap()
    }

    #[test]
    fn incident_cluster_states() {
        let reports = evaluate(&catalog(), &layers(), &declared(), &dirqual());
        assert_eq!(
            states(&reports),
            [
                ("k8s", State::Present),
                ("cni", State::Present),
                ("ceph", State::Present),
                ("storage", State::Present),
                ("monitoring", State::Present),
                ("gitops", State::Present),
                ("registry", State::Present),
                ("dataops", State::Present),
                ("datalake", State::Absent),
                ("certs", State::Absent),
            ]
        );
        assert_eq!(
            report(&reports, "k8s").evidence,
            ["4 nodes registered", "4/4 declared nodes Ready"]
        );
        assert_eq!(
            report(&reports, "cni").evidence,
            [
                "API group cilium.io served",
                "DaemonSet kube-system/cilium rolled out (4/4 available)",
                "Deployment kube-system/cilium-operator rolled out (2/2 available)"
            ]
        );
        assert_eq!(
            report(&reports, "ceph").evidence,
            [
                "API group ceph.rook.io served",
                "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK",
                "3/3 Deployment rook-ceph/rook-ceph-mon-* rolled out (rook-ceph-mon-a, rook-ceph-mon-b, rook-ceph-mon-c)",
                "3 Deployment rook-ceph/rook-ceph-mon-* (want at least 3: CephCluster rook-ceph/rook-ceph .spec.mon.count)",
                "3/3 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0, rook-ceph-osd-1, rook-ceph-osd-2)"
            ]
        );
        assert_eq!(
            report(&reports, "dataops").evidence,
            [
                "API group postgresql.cnpg.io served",
                "Cluster dataops/pg-dagster .status.readyInstances = 3",
                "Cluster dataops/pg-dagster .status.phase = Cluster in healthy state",
                "2/2 Deployment dataops/dagster-* rolled out (dagster-daemon, dagster-dagster-webserver)",
                "2/2 Deployment dataops/marquez* rolled out (marquez, marquez-web)"
            ]
        );
        assert_eq!(
            report(&reports, "gitops").evidence[5..],
            [
                "2/2 Application .status.sync.status = Synced",
                "2/2 Application .status.health.status = Healthy"
            ]
        );
        assert_eq!(
            report(&reports, "datalake").evidence,
            [
                "no CephObjectStore in rook-ceph",
                "no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket"
            ]
        );
        assert_eq!(
            report(&reports, "certs").evidence,
            ["API group cert-manager.io not served"]
        );
        assert_eq!(
            report(&reports, "registry").evidence,
            [
                "namespace registry exists",
                "Deployment registry/registry rolled out (1/1 available)"
            ]
        );
    }

    #[test]
    fn ceph_health_warn_is_degraded() {
        let mut obs = dirqual();
        obs.record(
            &crate::model::observation::ReadRequest::Resource("cephclusters.ceph.rook.io".into()),
            Ok(include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/cephclusters-health-warn.json"
            ))),
        );
        let reports = evaluate(&catalog(), &["ceph".to_string()], &declared(), &obs);
        assert_eq!(reports[0].state, State::Degraded);
        assert_eq!(
            reports[0].reason,
            "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: OSD_DOWN (1 osds down), PG_DEGRADED (Degraded data redundancy: 1123/3369 objects degraded (33.333%), 57 pgs degraded) not on the benign list (RECENT_MGR_MODULE_CRASH)"
        );
    }

    #[test]
    fn forbidden_cephclusters_is_unknown_not_absent() {
        let mut obs = dirqual();
        obs.resources.insert(
            "cephclusters.ceph.rook.io".into(),
            Err(ReadFailure::from_kubectl_stderr(
                "Error from server (Forbidden): cephclusters.ceph.rook.io is forbidden: User \"reader\" cannot list resource \"cephclusters\" in API group \"ceph.rook.io\" at the cluster scope",
            )),
        );
        let reports = evaluate(&catalog(), &["ceph".to_string()], &declared(), &obs);
        assert_eq!(reports[0].state, State::Unknown);
        assert_eq!(
            reports[0].reason,
            "read of cephclusters.ceph.rook.io failed: Forbidden"
        );
    }

    #[test]
    fn failed_api_groups_make_every_cr_layer_unknown() {
        let mut obs = dirqual();
        obs.api_groups = Err(ReadFailure::new(FailureKind::Timeout, "i/o timeout"));
        let reports = evaluate(&catalog(), &layers(), &declared(), &obs);
        assert_eq!(
            states(&reports),
            [
                ("k8s", State::Present),
                // The cilium DaemonSet still proves the CNI exists and is ready.
                ("cni", State::Present),
                ("ceph", State::Unknown),
                ("storage", State::Present),
                ("monitoring", State::Unknown),
                ("gitops", State::Unknown),
                ("registry", State::Present),
                ("dataops", State::Unknown),
                ("datalake", State::Unknown),
                ("certs", State::Unknown),
            ]
        );
        assert_eq!(
            report(&reports, "datalake").reason,
            "read of API groups failed: Timeout"
        );
        assert!(!reports.iter().any(|r| r.state == State::Absent));
    }

    #[test]
    fn no_read_ever_gives_absent() {
        let obs = Observation::skipped("bench kubeconfig absent");
        let reports = evaluate(&catalog(), &layers(), &declared(), &obs);
        assert!(
            reports.iter().all(|r| r.state == State::Unknown),
            "{reports:?}"
        );
        assert_eq!(
            report(&reports, "k8s").reason,
            "read of nodes failed: Skipped"
        );
    }

    #[test]
    fn group_not_served_is_a_clean_empty_list() {
        let mut obs = dirqual();
        obs.resources.clear(); // never read: the group decides
        obs.api_groups = Ok(["".to_string(), "apps".to_string()].into_iter().collect());
        let reports = evaluate(&catalog(), &["datalake".to_string()], &declared(), &obs);
        assert_eq!(reports[0].state, State::Absent);
        assert_eq!(reports[0].evidence[0], "no CephObjectStore in rook-ceph");
    }

    #[test]
    fn resource_not_read_is_unknown() {
        let mut obs = dirqual();
        obs.resources.remove("cephclusters.ceph.rook.io");
        let reports = evaluate(&catalog(), &["ceph".to_string()], &declared(), &obs);
        assert_eq!(reports[0].state, State::Unknown);
        assert_eq!(reports[0].reason, "cephclusters.ceph.rook.io was not read");
    }

    #[test]
    fn k8s_not_ready_and_not_registered_nodes() {
        let mut obs = dirqual();
        obs.nodes = Ok(parse_nodes(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/nodes-dirqual3-notready.json"
        )))
        .unwrap());
        let reports = evaluate(&catalog(), &["k8s".to_string()], &declared(), &obs);
        assert_eq!(reports[0].state, State::Degraded);
        assert_eq!(
            reports[0].reason,
            "2/4 declared nodes Ready: dirqual3 NotReady, dirqual4 not registered"
        );
    }

    #[test]
    fn k8s_without_declared_nodes_uses_registered_ones() {
        let reports = evaluate(&catalog(), &["k8s".to_string()], &[], &dirqual());
        assert_eq!(reports[0].state, State::Present);
        assert_eq!(reports[0].evidence[1], "4/4 nodes Ready");
    }

    #[test]
    fn no_node_at_all_is_absent_k8s() {
        let mut obs = dirqual();
        obs.nodes = Ok(vec![]);
        let reports = evaluate(&catalog(), &["k8s".to_string()], &declared(), &obs);
        assert_eq!(reports[0].state, State::Absent);
        assert_eq!(reports[0].reason, "0 nodes registered (want at least 1)");
    }

    #[test]
    fn cert_manager_webhook_not_ready_is_degraded() {
        let mut obs = dirqual();
        let mut groups = obs.api_groups.clone().unwrap();
        groups.insert("cert-manager.io".into());
        obs.api_groups = Ok(groups);
        let mut deploys = parse_deployments(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/deployments-cert-manager.json"
        )))
        .unwrap();
        let ids = ["certs".to_string()];
        obs.deployments = Ok(deploys.clone());
        obs.record(
            &crate::model::observation::ReadRequest::Resource(
                "clusterissuers.cert-manager.io".into(),
            ),
            Ok(include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/clusterissuers.json"
            ))),
        );
        let reports = evaluate(&catalog(), &ids, &declared(), &obs);
        assert_eq!(reports[0].state, State::Present);
        assert_eq!(
            reports[0].evidence,
            [
                "API group cert-manager.io served",
                "Deployment cert-manager/cert-manager rolled out (1/1 available)",
                "Deployment cert-manager/cert-manager-cainjector rolled out (1/1 available)",
                "Deployment cert-manager/cert-manager-webhook rolled out (1/1 available)",
                "ClusterIssuer platform-ca Ready",
            ]
        );
        if let Some(r) = deploys[2].rollout.as_mut() {
            r.available = 0;
        }
        obs.deployments = Ok(deploys);
        let reports = evaluate(&catalog(), &ids, &declared(), &obs);
        assert_eq!(reports[0].state, State::Degraded);
        assert_eq!(
            reports[0].reason,
            "Deployment cert-manager/cert-manager-webhook: rollout in progress: 0/1 updated available"
        );
    }

    #[test]
    fn workload_without_kind_and_a_failed_read() {
        let mut obs = dirqual();
        obs.statefulsets = Err(ReadFailure::new(FailureKind::Forbidden, "no"));
        let check = Check::from(CheckKind::Workload(WorkloadCheck {
            kind: None,
            namespace: "registry".into(),
            name: None,
            name_prefix: None,
        }));
        // Found in a successful read: exists. Readiness of every match cannot be proven.
        assert_eq!(
            evaluate_check(&check, Phase::Detect, &[], &obs),
            CheckOutcome::yes("Deployment registry/registry rolled out (1/1 available)")
        );
        assert_eq!(
            evaluate_check(&check, Phase::Healthy, &[], &obs).verdict,
            Verdict::Unknown
        );
        let empty_ns = Check::from(CheckKind::Workload(WorkloadCheck {
            kind: Some(WorkloadKind::DaemonSet),
            namespace: "registry".into(),
            name: None,
            name_prefix: None,
        }));
        assert_eq!(
            evaluate_check(&empty_ns, Phase::Healthy, &[], &obs),
            CheckOutcome::no("no DaemonSet in registry")
        );
    }

    #[test]
    fn a_namespace_outside_a_scoped_workload_read_is_unknown_never_absent() {
        let mut obs = dirqual();
        obs.workload_scope.insert(
            "daemonsets".into(),
            ["kube-system".to_string()].into_iter().collect(),
        );
        let in_scope = Check::from(CheckKind::Workload(WorkloadCheck {
            kind: Some(WorkloadKind::DaemonSet),
            namespace: "kube-system".into(),
            name: Some("cilium".into()),
            name_prefix: None,
        }));
        assert_eq!(
            evaluate_check(&in_scope, Phase::Healthy, &[], &obs).verdict,
            Verdict::True
        );
        let outside = Check::from(CheckKind::Workload(WorkloadCheck {
            kind: Some(WorkloadKind::DaemonSet),
            namespace: "monitoring".into(),
            name: None,
            name_prefix: None,
        }));
        assert_eq!(
            evaluate_check(&outside, Phase::Detect, &[], &obs),
            CheckOutcome {
                verdict: Verdict::Unknown,
                evidence: "daemonsets in monitoring were not read".into()
            }
        );
    }

    #[test]
    fn dataops_instances_mismatch_and_missing_field() {
        let mut obs = dirqual();
        let mut objs = match &obs.resources["clusters.postgresql.cnpg.io"] {
            Ok(o) => o.clone(),
            Err(_) => unreachable!(),
        };
        objs[0]
            .fields
            .insert(".status.readyInstances".into(), "2".into());
        let mut second = objs[0].clone();
        second.name = "pg-marquez".into();
        second.fields.remove(".status.readyInstances");
        objs.push(second);
        obs.resources
            .insert("clusters.postgresql.cnpg.io".into(), Ok(objs));
        let reports = evaluate(&catalog(), &["dataops".to_string()], &declared(), &obs);
        assert_eq!(reports[0].state, State::Degraded);
        assert_eq!(
            reports[0].reason,
            "Cluster dataops/pg-dagster .status.readyInstances = 2 (want .status.instances = 3); Cluster dataops/pg-marquez has no .status.readyInstances"
        );
    }

    #[test]
    fn host_level_layers_are_unknown() {
        let ids = ["etcd-backup", "sshd-hardening", "nope"].map(String::from);
        let reports = evaluate(&catalog(), &ids, &declared(), &dirqual());
        assert_eq!(
            reports
                .iter()
                .map(|r| r.reason.as_str())
                .collect::<Vec<_>>(),
            [
                "hosts of group `control_plane` not read",
                "hosts of group `all` not read",
                "layer `nope` is not in the catalog"
            ]
        );
        assert!(reports.iter().all(|r| r.state == State::Unknown));
    }

    #[test]
    fn storage_without_default_is_degraded() {
        let mut obs = dirqual();
        if let Ok(sc) = &mut obs.storage_classes {
            sc.iter_mut().for_each(|s| s.default = false);
        }
        let reports = evaluate(&catalog(), &["storage".to_string()], &declared(), &obs);
        assert_eq!(reports[0].state, State::Degraded);
        assert_eq!(
            reports[0].reason,
            "no default StorageClass with provisioner rook-ceph.rbd.csi.ceph.com"
        );
    }
}
