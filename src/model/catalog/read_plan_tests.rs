//! Tests of the workloads a read plan keeps: every workload check's namespace and name or
//! prefix, by the read it needs; none for `discover`, which keeps every workload.

use super::*;
use crate::model::observation::WorkloadName;

#[test]
fn the_plan_keeps_the_workloads_its_checks_select_and_discover_keeps_all() {
    let c = Catalog::builtin().unwrap();
    let ids: Vec<String> = ["registry", "ceph"].map(String::from).to_vec();
    let plan = c.read_plan(&ids, Workloads::InTheirNamespaces);
    let deployments = &plan.scope.workload_names[&ReadRequest::Workloads(WorkloadKind::Deployment)];
    let name = |namespace: &str, name: Option<&str>, prefix: Option<&str>| WorkloadName {
        namespace: namespace.into(),
        name: name.map(String::from),
        prefix: prefix.map(String::from),
    };
    // registry: every workload of its namespace; ceph: its mons and OSDs by prefix.
    assert!(deployments.contains(&name("registry", None, None)));
    assert!(deployments.contains(&name("rook-ceph", None, Some("rook-ceph-osd-"))));
    assert!(deployments.contains(&name("rook-ceph", None, Some("rook-ceph-mon-"))));
    // Every selection of a workload read is one a check makes, each once.
    let checks: Vec<&WorkloadCheck> = plan.workloads.iter().flatten().collect();
    for n in deployments {
        assert!(checks
            .iter()
            .any(|w| w.namespace == n.namespace && w.name == n.name && w.name_prefix == n.prefix));
        assert_eq!(deployments.iter().filter(|m| *m == n).count(), 1);
    }
    let everywhere = c.read_plan(&ids, Workloads::Everywhere);
    assert!(everywhere.scope.workload_names.is_empty());
}
