//! The plan: the difference between the stack's declared layers and the real state.
//!
//! Absent layers are installed in `after:` order; degraded layers are repaired, never
//! reinstalled; unknown layers are undecided, never installed. For a lima stack the plan
//! also says which VMs to create or start. A plan with anything undecided is not empty: a
//! harness must not read "nothing to do" when nestor could not tell. [`Plan::outcome`] tells
//! the three cases apart for `--detailed-exitcode` (0, 2, 5).

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::Serialize;

use crate::model::ack;
use crate::model::catalog::Catalog;
use crate::model::observation::{LimaInstance, LimaStatus};
use crate::model::state::{LayerReport, State, NOT_OBSERVABLE};

/// One layer in the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanStep {
    pub id: String,
    pub title: String,
    /// What to do: the catalog's install hint, or how to approach a repair / an unknown.
    pub hint: String,
    /// Why the layer is in this list (the deciding evidence).
    pub reason: String,
}

/// A declared VM whose lima status is neither Running, Stopped nor Broken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UndecidedVm {
    pub name: String,
    pub status: String,
}

/// The lima part of a plan (empty for prod stacks).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VmPlan {
    pub to_create: Vec<String>,
    pub to_start: Vec<String>,
    pub broken: Vec<String>,
    pub undecided: Vec<UndecidedVm>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// Absent layers, in `after:` order (ties: declared order).
    pub install: Vec<PlanStep>,
    /// Degraded layers: repair in place.
    pub repair: Vec<PlanStep>,
    /// Degraded layers whose every failing check the topology acknowledges (SPEC §6 v0.4):
    /// still degraded, no work until the acknowledgement ends.
    pub acknowledged: Vec<PlanStep>,
    /// Unknown layers: nothing is planned for them.
    pub undecided: Vec<PlanStep>,
    pub vms_to_create: Vec<String>,
    pub vms_to_start: Vec<String>,
    pub vms_broken: Vec<String>,
    pub vms_undecided: Vec<UndecidedVm>,
}

/// What a plan amounts to, for `--detailed-exitcode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Nothing to do and every layer decided (exit 0).
    Settled,
    /// Something to install, repair, create or start (exit 2).
    Work,
    /// Nothing to do that nestor knows of, but something undecided (exit 5).
    Undecided,
}

pub(crate) const REPAIR_HINT: &str = "repair in place; never reinstall over an existing layer";
pub(crate) const UNKNOWN_HINT: &str = "not planned: fix the failed read and run again";
/// An undecided layer nothing failed for: its reads were skipped by the stack or a flag
/// (`inventory: none`, `--no-ssh`), its reason `not read: WHY` under the layer.
pub(crate) const NOT_READ_HINT: &str =
    "not planned: not read, nothing failed (why: under the layer)";

impl Plan {
    /// Build the plan from layer reports (in declared order) and the VM part.
    pub fn build(catalog: &Catalog, reports: &[LayerReport], vms: VmPlan) -> Plan {
        let step = |r: &LayerReport, hint: String| PlanStep {
            id: r.id.clone(),
            title: r.title.clone(),
            hint,
            reason: r.reason.clone(),
        };
        let install_hint = |id: &str| {
            catalog
                .get(id)
                .map(|l| l.install.clone())
                .unwrap_or_default()
        };
        let of = |state: State| reports.iter().filter(move |r| r.state == state);

        let (acknowledged, repair): (Vec<&LayerReport>, Vec<&LayerReport>) =
            of(State::Degraded).partition(|r| ack::fully_acknowledged(r));
        let repair = repair
            .into_iter()
            .map(|r| step(r, REPAIR_HINT.to_string()))
            .collect();
        let acknowledged = acknowledged
            .into_iter()
            .map(|r| step(r, ack::words(r)))
            .collect();
        let undecided = of(State::Unknown)
            .map(|r| {
                let hint = if r.reason == NOT_OBSERVABLE {
                    format!("check on the hosts; install hint: {}", install_hint(&r.id))
                } else if r.reason.starts_with("not read: ") {
                    NOT_READ_HINT.to_string()
                } else {
                    UNKNOWN_HINT.to_string()
                };
                step(r, hint)
            })
            .collect();

        // Kahn's algorithm over the absent layers; among the ready ones, declared order first.
        let absent: Vec<&LayerReport> = of(State::Absent).collect();
        let ids: BTreeSet<&str> = absent.iter().map(|r| r.id.as_str()).collect();
        let deps: Vec<BTreeSet<String>> = absent
            .iter()
            .map(|r| {
                catalog
                    .ancestors(&r.id)
                    .into_iter()
                    .filter(|a| ids.contains(a.as_str()))
                    .collect()
            })
            .collect();
        let mut done: BTreeSet<String> = BTreeSet::new();
        let mut install = Vec::with_capacity(absent.len());
        while install.len() < absent.len() {
            // The catalog is acyclic, so some pending layer always has its deps done; the
            // fallback keeps this loop total even if it were not.
            let next = (0..absent.len())
                .filter(|&i| !done.contains(&absent[i].id))
                .find(|&i| deps[i].iter().all(|d| done.contains(d)))
                .or_else(|| (0..absent.len()).find(|&i| !done.contains(&absent[i].id)));
            let Some(i) = next else { break };
            done.insert(absent[i].id.clone());
            install.push(step(absent[i], install_hint(&absent[i].id)));
        }

        Plan {
            install,
            repair,
            acknowledged,
            undecided,
            vms_to_create: vms.to_create,
            vms_to_start: vms.to_start,
            vms_broken: vms.broken,
            vms_undecided: vms.undecided,
        }
    }

    /// Work to do: a layer to install or repair, a VM to create, start or look at (broken).
    pub(crate) fn has_work(&self) -> bool {
        !(self.install.is_empty()
            && self.repair.is_empty()
            && self.vms_to_create.is_empty()
            && self.vms_to_start.is_empty()
            && self.vms_broken.is_empty())
    }

    /// Something nestor could not tell: an unknown layer, a VM in a status it does not know.
    pub(crate) fn has_undecided(&self) -> bool {
        !(self.undecided.is_empty() && self.vms_undecided.is_empty())
    }

    /// Which of the three a harness must tell apart: work wins over undecided (the undecided
    /// ones are listed with the work), and only a plan with neither is settled.
    pub(crate) fn outcome(&self) -> Outcome {
        if self.has_work() {
            Outcome::Work
        } else if self.has_undecided() {
            Outcome::Undecided
        } else {
            Outcome::Settled
        }
    }

    /// True only when there is nothing to install, repair or decide and no VM to act on.
    pub(crate) fn is_empty(&self) -> bool {
        self.install.is_empty()
            && self.repair.is_empty()
            && self.undecided.is_empty()
            && self.vms_to_create.is_empty()
            && self.vms_to_start.is_empty()
            && self.vms_broken.is_empty()
            && self.vms_undecided.is_empty()
    }
}

/// The VM part of a lima stack's plan: `declared` instance names against `limactl list`.
/// Running is fine, Stopped is to start, Broken is broken, missing is to create.
pub fn vm_plan(declared: &[String], instances: &[LimaInstance]) -> VmPlan {
    let mut plan = VmPlan::default();
    for name in declared {
        match instances
            .iter()
            .find(|i| &i.name == name)
            .map(|i| &i.status)
        {
            None => plan.to_create.push(name.clone()),
            Some(LimaStatus::Running) => {}
            Some(LimaStatus::Stopped) => plan.to_start.push(name.clone()),
            Some(LimaStatus::Broken) => plan.broken.push(name.clone()),
            Some(LimaStatus::Other(s)) => plan.undecided.push(UndecidedVm {
                name: name.clone(),
                status: s.clone(),
            }),
            Some(LimaStatus::Unreadable(why)) => plan.undecided.push(UndecidedVm {
                name: name.clone(),
                status: format!("unreadable in `limactl list --json`: {why}"),
            }),
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::observation::{parse_limactl_list, FailureKind, ReadFailure};
    use crate::model::state::evaluate;
    use crate::model::state::fixtures::{declared, dirqual, layers};

    fn catalog() -> Catalog {
        Catalog::builtin().unwrap()
    }

    fn ids(steps: &[PlanStep]) -> Vec<&str> {
        steps.iter().map(|s| s.id.as_str()).collect()
    }

    /// SPEC §1: on the healthy 4-node prod cluster only datalake and certs are missing.
    #[test]
    fn incident_dirqual_plans_only_datalake_and_certs() {
        let c = catalog();
        let reports = evaluate(&c, &layers(), &declared(), &dirqual());
        let plan = Plan::build(&c, &reports, VmPlan::default());
        assert_eq!(ids(&plan.install), ["datalake", "certs"]);
        assert_eq!(
            plan.install[0].hint,
            "ansible-playbook platform/datalake.yaml"
        );
        assert_eq!(
            plan.install[1].hint,
            "ansible-playbook platform/cert-manager.yaml"
        );
        assert_eq!(
            plan.install[1].reason,
            "API group cert-manager.io not served"
        );
        assert_eq!(plan.repair, []);
        assert_eq!(plan.undecided, []);
        assert_eq!(plan.vms_to_create, Vec::<String>::new());
        assert_eq!(plan.vms_to_start, Vec::<String>::new());
        assert!(!plan.is_empty());
    }

    #[test]
    fn ceph_health_warn_is_repair_not_install() {
        let c = catalog();
        let mut obs = dirqual();
        obs.record(
            &crate::model::observation::ReadRequest::Resource("cephclusters.ceph.rook.io".into()),
            Ok(include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/cephclusters-health-warn.json"
            ))),
        );
        let plan = Plan::build(
            &c,
            &evaluate(&c, &layers(), &declared(), &obs),
            VmPlan::default(),
        );
        assert_eq!(ids(&plan.install), ["datalake", "certs"]);
        assert_eq!(ids(&plan.repair), ["ceph"]);
        assert_eq!(plan.repair[0].hint, REPAIR_HINT);
        assert_eq!(
            plan.repair[0].reason,
            "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: OSD_DOWN (1 osds down), PG_DEGRADED (Degraded data redundancy: 1123/3369 objects degraded (33.333%), 57 pgs degraded) not on the benign list (RECENT_MGR_MODULE_CRASH)"
        );
    }

    #[test]
    fn forbidden_cephclusters_is_undecided_not_install() {
        let c = catalog();
        let mut obs = dirqual();
        obs.resources.insert(
            "cephclusters.ceph.rook.io".into(),
            Err(ReadFailure::new(FailureKind::Forbidden, "forbidden")),
        );
        let plan = Plan::build(
            &c,
            &evaluate(&c, &layers(), &declared(), &obs),
            VmPlan::default(),
        );
        assert_eq!(ids(&plan.install), ["datalake", "certs"]);
        assert_eq!(ids(&plan.undecided), ["ceph"]);
        assert_eq!(plan.undecided[0].hint, UNKNOWN_HINT);
        assert_eq!(
            plan.undecided[0].reason,
            "read of cephclusters.ceph.rook.io failed: Forbidden"
        );
    }

    #[test]
    fn unreachable_cluster_plans_no_install() {
        let c = catalog();
        let obs = crate::model::observation::Observation::skipped("connection refused");
        let plan = Plan::build(
            &c,
            &evaluate(&c, &layers(), &declared(), &obs),
            VmPlan::default(),
        );
        assert_eq!(plan.install, []);
        assert_eq!(plan.undecided.len(), 10);
        assert!(!plan.is_empty());
    }

    #[test]
    fn install_follows_after_order_then_declared_order() {
        let c = catalog();
        let obs = {
            let mut o = dirqual();
            o.nodes = Ok(vec![]);
            o.api_groups = Ok(["".to_string()].into_iter().collect());
            o.namespaces = Ok(vec![]);
            o.storage_classes = Ok(vec![]);
            o.daemonsets = Ok(vec![]);
            o.deployments = Ok(vec![]);
            o.statefulsets = Ok(vec![]);
            o
        };
        // Declared backwards on purpose.
        let declared_layers: Vec<String> = [
            "certs",
            "datalake",
            "registry",
            "storage",
            "ceph",
            "cni",
            "k8s",
            "sshd-hardening",
        ]
        .map(String::from)
        .to_vec();
        let reports = evaluate(&c, &declared_layers, &declared(), &obs);
        let plan = Plan::build(&c, &reports, VmPlan::default());
        assert_eq!(
            ids(&plan.install),
            ["k8s", "certs", "cni", "ceph", "storage", "datalake", "registry"]
        );
        assert_eq!(ids(&plan.undecided), ["sshd-hardening"]);
        // A host-level layer whose hosts were not read: undecided, never installed.
        assert_eq!(plan.undecided[0].hint, UNKNOWN_HINT);
        // Not read by the stack's or the operator's choice (`inventory: none`, `--no-ssh`):
        // nothing failed, and the plan does not say to fix a failed read (issue 51).
        let mut skipped = reports.clone();
        for r in skipped.iter_mut().filter(|r| r.id == "sshd-hardening") {
            r.reason = "not read: --no-ssh".into();
        }
        let plan = Plan::build(&c, &skipped, VmPlan::default());
        assert_eq!(plan.undecided[0].hint, NOT_READ_HINT);
    }

    #[test]
    fn healthy_cluster_plan_is_empty_only_without_undecided() {
        let c = catalog();
        let present: Vec<String> = layers()
            .into_iter()
            .filter(|l| l != "datalake" && l != "certs")
            .collect();
        let plan = Plan::build(
            &c,
            &evaluate(&c, &present, &declared(), &dirqual()),
            VmPlan::default(),
        );
        assert!(plan.is_empty(), "{plan:?}");
        let mut with_host = present.clone();
        with_host.push("etcd-backup".into());
        let plan = Plan::build(
            &c,
            &evaluate(&c, &with_host, &declared(), &dirqual()),
            VmPlan::default(),
        );
        assert_eq!(ids(&plan.undecided), ["etcd-backup"]);
        assert!(!plan.is_empty());
    }

    #[test]
    fn outcome_tells_settled_work_and_undecided_apart_and_work_wins() {
        let c = catalog();
        let plan_of = |ids: &[&str]| {
            let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
            Plan::build(
                &c,
                &evaluate(&c, &ids, &declared(), &dirqual()),
                VmPlan::default(),
            )
        };
        // dirqual: k8s and ceph present, datalake absent, etcd-backup not observable.
        assert_eq!(plan_of(&["k8s", "ceph"]).outcome(), Outcome::Settled);
        assert_eq!(plan_of(&["k8s", "datalake"]).outcome(), Outcome::Work);
        let undecided = plan_of(&["k8s", "etcd-backup"]);
        assert_eq!(undecided.outcome(), Outcome::Undecided);
        assert!(!undecided.has_work() && undecided.has_undecided());
        let both = plan_of(&["k8s", "datalake", "etcd-backup"]);
        assert_eq!(both.outcome(), Outcome::Work);
        assert_eq!(ids(&both.undecided), ["etcd-backup"]);
        let vms = |v: VmPlan| Plan::build(&c, &[], v).outcome();
        let broken = VmPlan {
            broken: vec!["node1".into()],
            ..VmPlan::default()
        };
        assert_eq!(vms(broken), Outcome::Work);
        let odd = VmPlan {
            undecided: vec![UndecidedVm {
                name: "node1".into(),
                status: "Paused".into(),
            }],
            ..VmPlan::default()
        };
        assert_eq!(vms(odd), Outcome::Undecided);
        assert_eq!(vms(VmPlan::default()), Outcome::Settled);
    }

    #[test]
    fn lima_vm_plan() {
        let instances = parse_limactl_list(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/limactl/list-bench.ndjson"
        )))
        .unwrap();
        let declared: Vec<String> = ["node1", "node2", "node3"].map(String::from).to_vec();
        let vms = vm_plan(&declared, &instances);
        assert_eq!(
            vms,
            VmPlan {
                to_create: vec!["node3".into()],
                to_start: vec!["node2".into()],
                broken: vec![],
                undecided: vec![],
            }
        );
        let plan = Plan::build(&catalog(), &[], vms);
        assert_eq!(plan.vms_to_start, ["node2"]);
        assert_eq!(plan.vms_to_create, ["node3"]);
        assert!(!plan.is_empty());
    }

    #[test]
    fn lima_broken_unknown_status_and_no_instances() {
        let instances = parse_limactl_list(
            "{\"name\":\"old\",\"status\":\"Broken\"}\n{\"name\":\"node5\",\"status\":\"Installing\"}\n",
        )
        .unwrap();
        let declared: Vec<String> = ["old", "node5"].map(String::from).to_vec();
        let vms = vm_plan(&declared, &instances);
        assert_eq!(vms.broken, ["old"]);
        assert_eq!(
            vms.undecided,
            [UndecidedVm {
                name: "node5".into(),
                status: "Installing".into()
            }]
        );
        assert_eq!(vm_plan(&declared, &[]).to_create, ["old", "node5"]);
        let all_running = parse_limactl_list(
            "{\"name\":\"old\",\"status\":\"Running\"}\n{\"name\":\"node5\",\"status\":\"Running\"}\n",
        )
        .unwrap();
        assert!(Plan::build(&catalog(), &[], vm_plan(&declared, &all_running)).is_empty());
    }
}
