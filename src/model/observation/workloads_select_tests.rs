//! Tests of a workload read that keeps only what the checks select: the others dropped as
//! the list arrives, never kept nor charged, their kinds still checked.

use super::*;

fn deployments(n: usize) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"kind":"Deployment","metadata":{{"namespace":"kube-system","name":"filler-{i}","labels":{{"app":"x"}}}},"spec":{{"replicas":1,"template":{{"spec":{{"containers":[{{"name":"c","image":"registry.k8s.io/pause:3.9"}}]}}}}}},"status":{{"readyReplicas":1}}}}"#
            )
        })
        .chain([r#"{"kind":"Deployment","metadata":{"namespace":"kube-system","name":"coredns"},"spec":{"replicas":2},"status":{"readyReplicas":2}}"#.to_string()])
        .collect();
    format!(
        r#"{{"kind":"DeploymentList","apiVersion":"apps/v1","items":[{}]}}"#,
        items.join(",")
    )
}

fn coredns() -> Vec<WorkloadName> {
    vec![WorkloadName {
        namespace: "kube-system".into(),
        name: Some("coredns".into()),
        prefix: None,
    }]
}

#[test]
fn a_workload_no_check_selects_is_dropped_as_it_arrives_never_charged() {
    let text = deployments(20_000);
    // Every item kept would cross this budget; the one selected fits many times over.
    let budget = Budget::new(64 << 10);
    let kept = read_deployments(text.as_bytes(), &budget, Some(&coredns())).unwrap();
    let names: Vec<&str> = kept.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["coredns"]);
    assert!(budget.used() < 1024, "{}", budget.used());
    // Unfiltered, the same list is over that budget: a failed read naming it.
    let e = read_deployments(text.as_bytes(), &Budget::new(64 << 10), None).unwrap_err();
    assert_eq!(
        e.message,
        "over nestor's memory budget of 0 MiB for one read of a cluster: GET /apis/apps/v1/deployments not kept (it holds more than nestor keeps)"
    );
}

#[test]
fn a_prefix_or_a_whole_namespace_selects_and_a_dropped_items_kind_is_still_checked() {
    let text = deployments(3);
    let prefix = [WorkloadName {
        namespace: "kube-system".into(),
        name: None,
        prefix: Some("filler-".into()),
    }];
    let unbounded = Budget::new(usize::MAX);
    let kept = read_deployments(text.as_bytes(), &unbounded, Some(&prefix)).unwrap();
    assert_eq!(kept.len(), 3);
    let everything = [WorkloadName {
        namespace: "kube-system".into(),
        name: None,
        prefix: None,
    }];
    let kept = read_deployments(text.as_bytes(), &unbounded, Some(&everything)).unwrap();
    assert_eq!(kept.len(), 4);
    let elsewhere = [WorkloadName {
        namespace: "rook-ceph".into(),
        name: None,
        prefix: None,
    }];
    assert!(
        read_deployments(text.as_bytes(), &unbounded, Some(&elsewhere))
            .unwrap()
            .is_empty()
    );
    let secret = text.replacen(
        r#""kind":"Deployment","metadata":{"namespace":"kube-system","name":"filler-1""#,
        r#""kind":"Secret","metadata":{"namespace":"kube-system","name":"filler-1""#,
        1,
    );
    assert_eq!(
        read_deployments(secret.as_bytes(), &unbounded, Some(&coredns()))
            .unwrap_err()
            .message,
        "the answer was a List with an item of kind Secret, not a list of Deployment objects"
    );
}
