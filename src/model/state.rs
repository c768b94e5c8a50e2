//! One state per layer, with evidence: present, degraded, absent or unknown (SPEC §6).
//!
//! This is where "forbidden is not missing" is enforced: every check yields true, false or
//! unknown, a failed read always gives unknown, and only a layer whose detect checks all
//! evaluated false is absent. Pure: it reads an [`Observation`], never the cluster.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;

use crate::model::catalog::{
    Catalog, Check, Count, Expect, Layer, NodesCheck, ResourceCheck, WorkloadKind,
};
use crate::model::observation::{CustomObject, Observation, ReadFailure, Workload};

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
    };
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
    match check {
        Check::ApiGroup(group) => match &obs.api_groups {
            Err(f) => CheckOutcome::failed("API groups", f),
            Ok(groups) if groups.contains(group) => {
                CheckOutcome::yes(format!("API group {group} served"))
            }
            Ok(_) => CheckOutcome::no(format!("API group {group} not served")),
        },
        Check::Namespace(ns) => match &obs.namespaces {
            Err(f) => CheckOutcome::failed("namespaces", f),
            Ok(list) => match list.iter().find(|n| &n.name == ns) {
                Some(n) if n.phase == "Active" || n.phase.is_empty() => {
                    CheckOutcome::yes(format!("namespace {ns} exists"))
                }
                Some(n) => CheckOutcome::yes(format!("namespace {ns} exists ({})", n.phase)),
                None => CheckOutcome::no(format!("no namespace {ns}")),
            },
        },
        Check::StorageClass {
            provisioner,
            default,
        } => storage_class(obs, provisioner.as_deref(), *default),
        Check::Workload {
            kind,
            namespace,
            name,
        } => workload(obs, phase, *kind, namespace, name.as_deref()),
        Check::Resource(r) => resource(obs, r),
        Check::Nodes(n) => nodes(obs, *n, declared_nodes),
    }
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

fn workloads_of(obs: &Observation, kind: WorkloadKind) -> &Result<Vec<Workload>, ReadFailure> {
    match kind {
        WorkloadKind::DaemonSet => &obs.daemonsets,
        WorkloadKind::Deployment => &obs.deployments,
        WorkloadKind::StatefulSet => &obs.statefulsets,
    }
}

fn workload(
    obs: &Observation,
    phase: Phase,
    kind: Option<WorkloadKind>,
    namespace: &str,
    name: Option<&str>,
) -> CheckOutcome {
    let kinds: Vec<WorkloadKind> = kind.map_or(WorkloadKind::ALL.to_vec(), |k| vec![k]);
    let mut matches: Vec<(WorkloadKind, &Workload)> = Vec::new();
    let mut failure: Option<CheckOutcome> = None;
    for k in kinds {
        let label = k.read_request().label().to_string();
        let unread = obs
            .workload_scope
            .get(&label)
            .is_some_and(|read| !read.contains(namespace));
        match workloads_of(obs, k) {
            // Read in other namespaces only: nothing is known about this one.
            Ok(_) if unread => {
                failure.get_or_insert_with(|| CheckOutcome {
                    verdict: Verdict::Unknown,
                    evidence: format!("{label} in {namespace} were not read"),
                });
            }
            Err(f) => {
                failure.get_or_insert_with(|| CheckOutcome::failed(k.read_request().label(), f));
            }
            Ok(list) => matches.extend(
                list.iter()
                    .filter(|w| w.namespace == namespace && name.is_none_or(|n| w.name == n))
                    .map(|w| (k, w)),
            ),
        }
    }
    let show = |(k, w): &(WorkloadKind, &Workload)| {
        format!(
            "{} {}/{} {}/{} ready",
            k.as_str(),
            w.namespace,
            w.name,
            w.ready,
            w.desired
        )
    };
    let selector = match (kind, name) {
        (Some(k), Some(n)) => format!("{} {namespace}/{n}", k.as_str()),
        (Some(k), None) => format!("{} in {namespace}", k.as_str()),
        (None, Some(n)) => format!("workload {namespace}/{n}"),
        (None, None) => format!("workload in {namespace}"),
    };
    let listed =
        |ws: &[(WorkloadKind, &Workload)]| ws.iter().map(show).collect::<Vec<_>>().join(", ");
    let not_ready: Vec<_> = matches
        .iter()
        .filter(|(_, w)| !(w.ready == w.desired && w.desired >= 1))
        .cloned()
        .collect();
    match phase {
        Phase::Detect if !matches.is_empty() => CheckOutcome::yes(listed(&matches)),
        Phase::Healthy if !not_ready.is_empty() => CheckOutcome::no(listed(&not_ready)),
        _ => match failure {
            Some(f) => f,
            None if matches.is_empty() => CheckOutcome::no(format!("no {selector}")),
            None => CheckOutcome::yes(listed(&matches)),
        },
    }
}

/// The objects of a custom resource type, or the outcome that replaces the check: the type's
/// group not served on a successful discovery read means an empty list, cleanly; a failed
/// discovery or resource read means unknown.
fn objects_of<'a>(
    obs: &'a Observation,
    r: &ResourceCheck,
) -> Result<&'a [CustomObject], CheckOutcome> {
    match &obs.api_groups {
        Err(f) => return Err(CheckOutcome::failed("API groups", f)),
        Ok(groups) if !groups.contains(r.group()) => return Ok(&[]),
        Ok(_) => {}
    }
    match obs.resources.get(&r.resource) {
        None => Err(CheckOutcome {
            verdict: Verdict::Unknown,
            evidence: format!("{} was not read", r.resource),
        }),
        Some(Err(f)) => Err(CheckOutcome::failed(&r.resource, f)),
        Some(Ok(list)) => Ok(list),
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn resource(obs: &Observation, r: &ResourceCheck) -> CheckOutcome {
    let objects = match objects_of(obs, r) {
        Ok(o) => o,
        Err(outcome) => return outcome,
    };
    let matching: Vec<&CustomObject> = objects
        .iter()
        .filter(|o| {
            r.namespace
                .as_ref()
                .is_none_or(|ns| o.namespace.as_ref() == Some(ns))
        })
        .filter(|o| r.name.as_ref().is_none_or(|n| &o.name == n))
        .collect();
    let kind = r
        .kind
        .clone()
        .or_else(|| {
            matching
                .first()
                .and_then(|o| o.object["kind"].as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| r.resource.clone());
    if matching.is_empty() {
        let selector = match (&r.namespace, &r.name) {
            (Some(ns), Some(n)) => format!("{kind} {ns}/{n}"),
            (Some(ns), None) => format!("{kind} in {ns}"),
            (None, Some(n)) => format!("{kind} {n}"),
            (None, None) => kind,
        };
        return CheckOutcome::no(format!("no {selector}"));
    }
    let id = |o: &CustomObject| match &o.namespace {
        Some(ns) => format!("{kind} {ns}/{}", o.name),
        None => format!("{kind} {}", o.name),
    };
    let (Some(field), Some(expect)) = (&r.field, &r.expect) else {
        let found: Vec<String> = matching
            .iter()
            .map(|o| format!("{} exists", id(o)))
            .collect();
        return CheckOutcome::yes(found.join("; "));
    };
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for o in matching {
        let Some(value) = field.get(&o.object) else {
            bad.push(format!("{} has no {field}", id(o)));
            continue;
        };
        let shown = format!("{} {field} = {}", id(o), text(value));
        let verdict = match expect {
            Expect::In(allowed) => {
                let want = match allowed.as_slice() {
                    [one] => one.clone(),
                    many => format!("one of {}", many.join(", ")),
                };
                (allowed.contains(&text(value)), want)
            }
            Expect::Equals(x) => (&text(value) == x, x.clone()),
            Expect::EqualsField(other) => match other.get(&o.object) {
                None => (false, format!("{other}, which is missing")),
                Some(ov) => (
                    ov == value || text(ov) == text(value),
                    format!("{other} = {}", text(ov)),
                ),
            },
        };
        match verdict {
            (true, _) => good.push(shown),
            (false, want) => bad.push(format!("{shown} (want {want})")),
        }
    }
    if bad.is_empty() {
        CheckOutcome::yes(good.join("; "))
    } else {
        CheckOutcome::no(bad.join("; "))
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
                _ => unreachable!(),
            }
        };
        let mut obs = Observation::skipped("not read");
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
    use crate::model::observation::{
        parse_custom_objects, parse_deployments, parse_nodes, FailureKind,
    };

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
                "DaemonSet kube-system/cilium 4/4 ready"
            ]
        );
        assert_eq!(
            report(&reports, "ceph").evidence,
            [
                "API group ceph.rook.io served",
                "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK"
            ]
        );
        assert_eq!(
            report(&reports, "dataops").evidence,
            [
                "API group postgresql.cnpg.io served",
                "Cluster dataops/pg-dagster .status.readyInstances = 3"
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
                "Deployment registry/registry 1/1 ready"
            ]
        );
    }

    #[test]
    fn ceph_health_warn_is_degraded() {
        let mut obs = dirqual();
        obs.resources.insert(
            "cephclusters.ceph.rook.io".into(),
            parse_custom_objects(include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/cephclusters-health-warn.json"
            )))
            .map_err(|_| ReadFailure::skipped("x")),
        );
        let reports = evaluate(&catalog(), &["ceph".to_string()], &declared(), &obs);
        assert_eq!(reports[0].state, State::Degraded);
        assert_eq!(
            reports[0].reason,
            "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN (want HEALTH_OK)"
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
        let reports = evaluate(&catalog(), &ids, &declared(), &obs);
        assert_eq!(reports[0].state, State::Present);
        assert_eq!(
            reports[0].evidence,
            [
                "API group cert-manager.io served",
                "Deployment cert-manager/cert-manager 1/1 ready",
                "Deployment cert-manager/cert-manager-cainjector 1/1 ready",
                "Deployment cert-manager/cert-manager-webhook 1/1 ready",
            ]
        );
        deploys[2].ready = 0;
        obs.deployments = Ok(deploys);
        let reports = evaluate(&catalog(), &ids, &declared(), &obs);
        assert_eq!(reports[0].state, State::Degraded);
        assert_eq!(
            reports[0].reason,
            "Deployment cert-manager/cert-manager-webhook 0/1 ready"
        );
    }

    #[test]
    fn workload_without_kind_and_a_failed_read() {
        let mut obs = dirqual();
        obs.statefulsets = Err(ReadFailure::new(FailureKind::Forbidden, "no"));
        let check = Check::Workload {
            kind: None,
            namespace: "registry".into(),
            name: None,
        };
        // Found in a successful read: exists. Readiness of every match cannot be proven.
        assert_eq!(
            evaluate_check(&check, Phase::Detect, &[], &obs),
            CheckOutcome::yes("Deployment registry/registry 1/1 ready")
        );
        assert_eq!(
            evaluate_check(&check, Phase::Healthy, &[], &obs).verdict,
            Verdict::Unknown
        );
        let empty_ns = Check::Workload {
            kind: Some(WorkloadKind::DaemonSet),
            namespace: "registry".into(),
            name: None,
        };
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
        let in_scope = Check::Workload {
            kind: Some(WorkloadKind::DaemonSet),
            namespace: "kube-system".into(),
            name: Some("cilium".into()),
        };
        assert_eq!(
            evaluate_check(&in_scope, Phase::Healthy, &[], &obs).verdict,
            Verdict::True
        );
        let outside = Check::Workload {
            kind: Some(WorkloadKind::DaemonSet),
            namespace: "monitoring".into(),
            name: None,
        };
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
        objs[0].object["status"]["readyInstances"] = serde_json::json!(2);
        let mut second = objs[0].clone();
        second.name = "pg-marquez".into();
        second.object["status"]
            .as_object_mut()
            .unwrap()
            .remove("readyInstances");
        objs.push(second);
        obs.resources
            .insert("clusters.postgresql.cnpg.io".into(), Ok(objs));
        let reports = evaluate(&catalog(), &["dataops".to_string()], &declared(), &obs);
        assert_eq!(reports[0].state, State::Degraded);
        assert_eq!(
            reports[0].reason,
            "Cluster dataops/pg-dagster .status.readyInstances = 2 (want .spec.instances = 3); Cluster dataops/pg-marquez has no .status.readyInstances"
        );
    }

    #[test]
    fn host_level_layers_are_unknown() {
        let ids = ["etcd-backup", "audit-log", "sshd-hardening", "nope"].map(String::from);
        let reports = evaluate(&catalog(), &ids, &declared(), &dirqual());
        assert_eq!(
            reports
                .iter()
                .map(|r| r.reason.as_str())
                .collect::<Vec<_>>(),
            [
                NOT_OBSERVABLE,
                NOT_OBSERVABLE,
                NOT_OBSERVABLE,
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
