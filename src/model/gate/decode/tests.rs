//! The decoders on real-shaped fixtures, and the shapes that are failed reads.

use super::*;

macro_rules! fixture {
    ($name:literal) => {
        include_str!(concat!("../../../../tests/fixtures/gate/", $name))
    };
}

#[test]
fn pdbs_keep_the_disruption_controllers_status() {
    let p = pdbs(fixture!("pdbs.json")).unwrap_or_default();
    let primary = p.iter().find(|p| p.name == "pg-main-primary");
    assert_eq!(
        primary.map(|p| (
            p.disruptions_allowed,
            p.current_healthy,
            p.desired_healthy,
            p.expected_pods
        )),
        Some((0, 1, 1, 1))
    );
    let web = p
        .iter()
        .find(|p| p.name == "web")
        .and_then(|p| p.selector.clone());
    let labels = |v: &str| [("app".to_string(), v.to_string())].into_iter().collect();
    assert_eq!(
        web.as_ref()
            .map(|s| (s.matches(&labels("web")), s.matches(&labels("db")))),
        Some((true, false))
    );
}

#[test]
fn pods_keep_owners_volumes_and_requests() {
    let p = pods(fixture!("pods-dirqual2.json")).unwrap_or_default();
    assert_eq!(p.len(), 6);
    let pg = &p[1];
    assert_eq!(pg.reference(), "cnpg/pg-main-2");
    assert_eq!(
        pg.volumes,
        [
            ("pgdata".to_string(), VolumeKind::Claim("pg-main-2".into())),
            ("scratch-data".to_string(), VolumeKind::EmptyDir),
            ("shm".to_string(), VolumeKind::EmptyDir),
        ]
    );
    assert_eq!(
        pg.requests,
        Resources {
            cpu_milli: 500,
            memory_bytes: 1 << 30
        }
    );
    assert!(p[0].is_daemonset() && !p[4].is_daemonset());
    assert!(p[5].is_finished() && pg.ready);
    assert_eq!(p[4].volumes[0].1, VolumeKind::Other);
}

#[test]
fn nodes_keep_roles_versions_and_allocatable() {
    let n = nodes(fixture!("nodes.json")).unwrap_or_default();
    let cp = &n[0];
    assert!(cp.is_control_plane() && cp.ready && !n[1].is_control_plane());
    assert_eq!(cp.kubelet_version, "v1.34.8");
    assert_eq!(cp.container_runtime_version, "containerd://1.7.22");
    assert_eq!(cp.hard_taints, ["node-role.kubernetes.io/control-plane"]);
    assert_eq!(
        cp.allocatable,
        Resources {
            cpu_milli: 4000,
            memory_bytes: 7_901_552 * 1024
        }
    );
    assert_eq!(n[3].kubelet_version, "v1.33.5");
}

#[test]
fn pvs_crds_ceph_readyz_and_images() {
    let local = pvs(fixture!("pvs-local.json")).unwrap_or_default();
    assert_eq!(
        local
            .first()
            .map(|p| (p.local, p.pinned_hosts.clone(), p.claim.clone())),
        Some((
            true,
            vec!["dirqual2".to_string()],
            Some(("cnpg".into(), "pg-main-2".into()))
        ))
    );
    let c = crds(fixture!("crds-unserved.json")).unwrap_or_default();
    assert_eq!(c[0].stored_versions, ["v2alpha1", "v2"]);
    assert_eq!(c[0].versions.iter().filter(|v| v.served).count(), 1);
    let ceph = ceph_clusters(fixture!("cephclusters-warn.json"))
        .ok()
        .and_then(|all| all.into_iter().next());
    assert_eq!(
        ceph.as_ref()
            .map(|c| (c.health.as_str(), c.checks.len(), c.mon_count)),
        Some(("HEALTH_WARN", 3, 3))
    );
    // No status.version in this fixture: empty, never a made-up version.
    assert_eq!(ceph.as_ref().map(|c| c.version.as_str()), Some(""));
    let full = ceph_clusters(fixture!("cephclusters.json"))
        .ok()
        .and_then(|all| all.into_iter().next());
    assert_eq!(
        full.map(|c| c.version),
        Some("19.2.0-0".to_string()),
        "status.version.version as Rook writes it"
    );
    assert_eq!(ceph.and_then(|c| c.last_checked), Some(1_796_161_202));
    let r = readyz(fixture!("readyz-failed.txt")).unwrap_or_default();
    assert_eq!(
        r.iter()
            .filter(|c| !c.ok)
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>(),
        ["etcd"]
    );
    let img =
        workload_images(fixture!("cilium-deployments.json"), "Deployment").unwrap_or_default();
    assert_eq!(img[0].workload, "Deployment kube-system/cilium-operator");
    let rook = rook_versions(fixture!("rook-deployments.json")).unwrap_or_default();
    assert_eq!(
        rook.iter()
            .filter_map(|r| r.rook_version.as_deref())
            .collect::<Vec<_>>(),
        ["v1.14.9"; 3]
    );
    assert_eq!(
        count_items(r#"{"kind":"FlowSchemaList","items":[{"metadata":{"name":"a"}},{}]}"#).ok(),
        Some(2)
    );
}

#[test]
fn the_wrong_shape_is_a_failed_read_never_an_empty_list() {
    let e = |r: Result<Vec<Pdb>>| r.err().map(|e| e.message).unwrap_or_default();
    // The one List decoder's refusals (model::observation's), the gates' as preview's.
    let refusals: Vec<String> = [
        r#"{"kind":"ConfigMapList","items":[]}"#,
        r#"{"kind":"PodDisruptionBudgetList","apiVersion":"policy/v1","items":null}"#,
        "{}",
        r#"{"kind":"List","apiVersion":"v1","items":[{"kind":"Pod"}]}"#,
        r#"{"kind":"PodDisruptionBudgetList","apiVersion":"v1","items":[]}"#,
    ]
    .into_iter()
    .map(|shape| e(pdbs(shape)))
    .collect();
    assert_eq!(
        refusals,
        [
            "the answer was (no apiVersion) ConfigMapList, not policy/v1 PodDisruptionBudgetList",
            "malformed answer to PodDisruptionBudgetList: invalid type: null or missing `items`",
            "the answer was an object without apiVersion, kind or name, not policy/v1 PodDisruptionBudgetList",
            "the answer was a List with an item of kind Pod, not a list of PodDisruptionBudget objects",
            "the answer was v1 PodDisruptionBudgetList, not policy/v1 PodDisruptionBudgetList",
        ]
    );
    assert!(readyz("ok").is_err());
    let bad_quantity = r#"{"kind":"PodList","items":[{"spec":{"containers":[{"resources":{"requests":{"cpu":"lots"}}}]}}]}"#;
    assert_eq!(
        pods(bad_quantity)
            .err()
            .map(|e| e.message)
            .unwrap_or_default(),
        "`lots` is not a Kubernetes quantity"
    );
}

#[test]
fn a_removed_apis_list_counts_its_items_whatever_its_kind() {
    let list = r#"{"kind":"FlowSchemaList","apiVersion":"flowcontrol.apiserver.k8s.io/v1beta3","metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"exempt"}},{"metadata":{"name":"catch-all"}}]}"#;
    assert_eq!(count_items(list).ok(), Some(2));
    assert_eq!(
        count_items(r#"{"kind":"FlowSchemaList","items":[]}"#).ok(),
        Some(0)
    );
    assert!(count_items(r#"{"kind":"Status","items":[]}"#).is_err());
    assert!(count_items(r#"{"kind":"FlowSchemaList"}"#).is_err());
    assert!(count_items("not json").is_err());
}

/// Streamed, each fact is charged before it is kept: a list whose facts cross the budget is
/// refused naming the read and the budget, the budget never crossed.
#[test]
fn a_list_over_the_budget_is_refused_naming_the_read() {
    let node = |i: usize| {
        format!(
            r#"{{"metadata":{{"name":"n{i:04}-{}"}},"status":{{"nodeInfo":{{"kubeletVersion":"v1.31.4"}}}}}}"#,
            "a".repeat(1000)
        )
    };
    let items: Vec<String> = (0..2000).map(node).collect();
    let text = format!(
        r#"{{"kind":"NodeList","apiVersion":"v1","items":[{}]}}"#,
        items.join(",")
    );
    let budget = crate::pool::Budget::new(1 << 20);
    let to = Charged {
        what: "GET /api/v1/nodes",
        budget: &budget,
    };
    let e = read_nodes(text.as_bytes(), to).map(|n| n.len());
    assert_eq!(
        e.map_err(|e| e.message),
        Err("over nestor's memory budget of 1 MiB for one read of a cluster: GET /api/v1/nodes not kept (it holds more than nestor keeps)".to_string())
    );
    assert!(budget.used() <= 1 << 20 && budget.used() > 900 << 10);
    let roomy = crate::pool::Budget::new(8 << 20);
    let kept = read_nodes(
        text.as_bytes(),
        Charged {
            what: "GET /api/v1/nodes",
            budget: &roomy,
        },
    );
    assert_eq!(kept.map(|n| n.len()).ok(), Some(2000));
    assert_eq!(read_count_items(text.as_bytes()).ok(), Some(2000));
}

/// Issue 31 item 3: a gate's list buffers each item whole before decoding it; one item of
/// 6 MiB (an unused annotation, even) against a 1 MiB budget is stopped while it is read, at
/// what the budget has left plus the largest object, never buffered whole.
#[test]
fn one_item_past_what_the_budget_has_left_is_stopped_while_it_is_read() {
    let text = format!(
        r#"{{"kind":"NodeList","apiVersion":"v1","items":[{{"metadata":{{"name":"n1","annotations":{{"x":"{}"}}}},"status":{{"nodeInfo":{{"kubeletVersion":"v1.31.4"}}}}}}]}}"#,
        "a".repeat(6 << 20)
    );
    let budget = crate::pool::Budget::new(1 << 20);
    let to = Charged {
        what: "GET /api/v1/nodes",
        budget: &budget,
    };
    let e = read_nodes(text.as_bytes(), to).map(|n| n.len());
    assert_eq!(
        e.map_err(|e| e.message),
        Err("over nestor's memory budget of 1 MiB for one read of a cluster: an item of GET /api/v1/nodes is larger than what the budget has left (not decoded further)".to_string())
    );
    assert_eq!(budget.used(), 0);
    let roomy = crate::pool::Budget::new(16 << 20);
    let to = Charged {
        what: "GET /api/v1/nodes",
        budget: &roomy,
    };
    assert_eq!(
        read_nodes(text.as_bytes(), to).map(|n| n.len()).ok(),
        Some(1)
    );
}

/// Issue 49: a 40 MB `/readyz?verbose` took 161 MiB (and was GO). A small text answer is
/// refused past `MAX_TEXT_BYTES`, whatever the budget has left; the few KB a real one
/// holds are read.
#[test]
fn a_huge_readyz_is_refused_while_it_is_read() {
    let budget = crate::pool::Budget::new(64 << 20);
    let to = Charged {
        what: "GET /readyz?verbose",
        budget: &budget,
    };
    let huge = "[+]ping ok\n".repeat(4 << 20);
    let e = text_from(huge.as_bytes(), to).map(|t| t.len());
    assert_eq!(
        e.map_err(|e| e.message),
        Err(
            "GET /readyz?verbose: answer over 4 MiB: not read (it is a few KB on any cluster)"
                .to_string()
        )
    );
    assert!(budget.used() <= MAX_TEXT_BYTES);
    let real = "[+]ping ok\n[+]etcd ok\nreadyz check passed\n";
    let to = Charged {
        what: "GET /readyz?verbose",
        budget: &budget,
    };
    assert_eq!(text_from(real.as_bytes(), to).ok().as_deref(), Some(real));
}
