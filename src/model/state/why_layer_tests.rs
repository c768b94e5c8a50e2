//! The second round's cap is per layer (SPEC §9 "Bounded per run", issue 31 item 2): a
//! layer of several workload checks inspects the pods of at most five workloads in all, in
//! the order its checks name them; the evidence of the others says their pods were not
//! inspected, and counts those past the five it names.

use super::*;
use crate::model::catalog::{WorkloadCheck, WorkloadKind};
use crate::model::state::Phase;

/// Deployments `PREFIX-NNNN` in `ns`, mid-rollout, with their own selector.
fn deployments(obs: &mut Observation, groups: &[(&str, usize)]) {
    let items: Vec<serde_json::Value> = groups
        .iter()
        .flat_map(|(prefix, n)| (0..*n).map(move |i| format!("{prefix}-{i:04}")))
        .map(|name| {
            serde_json::json!({
                "apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": name, "namespace": "ns", "generation": 2},
                "spec": {"replicas": 3, "selector": {"matchLabels": {"app": name}}},
                "status": {"observedGeneration": 2, "replicas": 4, "updatedReplicas": 1,
                           "readyReplicas": 3, "availableReplicas": 1}
            })
        })
        .collect();
    let list =
        serde_json::json!({"apiVersion": "apps/v1", "kind": "DeploymentList", "items": items});
    obs.record(
        &ReadRequest::Workloads(WorkloadKind::Deployment),
        Ok(&list.to_string()),
    );
}

fn check(prefix: &str) -> WorkloadCheck {
    WorkloadCheck {
        kind: Some(WorkloadKind::Deployment),
        namespace: "ns".into(),
        name: None,
        name_prefix: Some(format!("{prefix}-")),
    }
}

fn pods(selector: &str) -> ReadRequest {
    ReadRequest::Pods {
        namespace: "ns".into(),
        selector: selector.into(),
    }
}

#[test]
fn the_second_round_inspects_at_most_five_workloads_per_layer() {
    let mut obs = Observation::skipped("not read");
    deployments(&mut obs, &[("osd", 3), ("mgr", 4), ("mon", 2)]);
    // One layer of three checks: 3 + 4 + 2 not rolled out, five inspected in all.
    let layer = vec![check("osd"), check("mgr"), check("mon")];
    let reads = pod_reads(std::slice::from_ref(&layer), &obs);
    let want = [
        "app=mgr-0000",
        "app=mgr-0001",
        "app=osd-0000",
        "app=osd-0001",
        "app=osd-0002",
    ];
    assert_eq!(reads, want.map(pods).to_vec());
    // The same checks as three layers: each its own five.
    let layers: Vec<Vec<WorkloadCheck>> = layer.iter().map(|c| vec![c.clone()]).collect();
    assert_eq!(pod_reads(&layers, &obs).len(), 9);

    for read in &reads {
        obs.record(
            read,
            Ok(r#"{"apiVersion":"v1","kind":"PodList","items":[]}"#),
        );
    }
    let evidence = |prefix: &str| {
        super::super::workloads::workload(&obs, Phase::Healthy, &check(prefix)).evidence
    };
    let line = |name: &str| format!("Deployment ns/{name}: rollout in progress: 1/3 updated");
    assert_eq!(
        evidence("mgr"),
        format!(
            "0/4 Deployment ns/mgr-* rolled out; {}; {}; {}{NOT_INSPECTED}; {}{NOT_INSPECTED}",
            line("mgr-0000"),
            line("mgr-0001"),
            line("mgr-0002"),
            line("mgr-0003")
        )
    );
    assert_eq!(
        evidence("mon"),
        format!(
            "0/2 Deployment ns/mon-* rolled out; {}{NOT_INSPECTED}; {}{NOT_INSPECTED}",
            line("mon-0000"),
            line("mon-0001")
        )
    );
    assert_eq!(
        NOT_INSPECTED,
        "; its pods not inspected (the second round reads those of 5 workloads per layer)"
    );
}
