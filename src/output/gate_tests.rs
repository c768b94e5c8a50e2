//! A gate's text, `Gate` document and JUnit report for one real-shaped NO-GO drain: the
//! CNPG primary on the node, Ceph's status unreadable, the host rules skipped.

use crate::model::gate::tests::{cluster, drain, forbidden};
use crate::model::gate::{builtin, evaluate, Facts, Gate};
use crate::model::observation::ReadFailure;
use crate::model::snapshot::{Confirmation, Rule, TargetRef};
use crate::output::documents::gate::{GateDoc, GateRulesDoc, Subject};
use crate::output::layout::Layout;
use crate::output::render::Paint;

fn no_go() -> Facts {
    let mut f = cluster();
    if let Ok(pods) = &mut f.node_pods {
        for p in pods.iter_mut().filter(|p| p.name == "pg-main-2") {
            p.labels
                .insert("cnpg.io/instanceRole".into(), "primary".into());
        }
    }
    f.ceph = Err(forbidden());
    f.host_time_sync = Err(ReadFailure::skipped("--no-ssh"));
    f
}

fn doc(f: &Facts) -> GateDoc {
    let ev = evaluate(&drain("dirqual2"), f, builtin());
    GateDoc::new(
        Some("dirqual".into()),
        TargetRef {
            rule: Some(Rule::Topology),
            kubeconfig: "~/.kube/dirqual.config".into(),
            context: "kubernetes-admin@dirqual".into(),
            endpoint: "https://10.67.2.11:6443".into(),
            confirmed_by: Confirmation::Endpoint,
        },
        Subject {
            gate: Gate::Drain,
            node: Some("dirqual2".into()),
            version: None,
        },
        &ev,
    )
}

#[test]
fn the_text_says_the_verdict_first_then_blockers_undecided_warnings_skipped_holds() {
    let text = super::text(&doc(&no_go()), Paint { on: false }, Layout::new(100, false));
    let expected = r#"NO-GO: 1 blocker
blockers:
  drain-pdb-blocks  PodDisruptionBudget cnpg/pg-main-primary
      CloudNativePG's primary budget: the primary of cluster pg-main runs here; disruptionsAllowed 0
      (currentHealthy 1, desiredHealthy 1, expectedPods 1); selects pg-main-2 on dirqual2
      clears: switch over first: `kubectl cnpg promote pg-main pg-main-3 -n cnpg`
undecided (never GO):
  drain-ceph-health  the read of ceph-cluster failed: Forbidden: poddisruptionbudgets.policy is
                     forbidden: User "viewer" cannot list resource
  drain-mon-majority  the read of ceph-cluster failed: Forbidden: poddisruptionbudgets.policy is
                      forbidden: User "viewer" cannot list resource
warnings:
  drain-emptydir  pod cnpg/pg-main-2
      emptyDir scratch-data, shm: its data is deleted with the pod
      clears: accept the loss (kubectl drain --delete-emptydir-data) or keep the data in a
      PersistentVolume
skipped:
  drain-time-sync  not read: --no-ssh
holds:
  drain-osd-hosts  without dirqual2's 1 OSD(s): 3 hosts left, CephBlockPool rook-ceph/replicapool n…
  drain-control-plane  dirqual2 is not a control-plane node
  drain-single-control-plane  dirqual2 is not a control-plane node
  drain-etcd-majority  no etcd member runs on dirqual2 (1 mirror pods)
  drain-node-bound-volumes  no pod on dirqual2 has a node-bound volume
  drain-unmanaged-pods  every pod's controller exists
  drain-capacity  needs 2.25 CPU, 6.2 GiB; 2 nodes have 14.25 CPU, 25.6 GiB free
"#;
    assert_eq!(text, expected);
    // Cluster strings never drive the terminal.
    let mut f = no_go();
    if let Ok(pods) = &mut f.node_pods {
        for p in pods.iter_mut().filter(|p| p.name == "pg-main-2") {
            p.name = "pg\u{1b}[2J".into();
        }
    }
    let text = super::text(&doc(&f), Paint { on: false }, Layout::new(100, false));
    assert!(
        text.contains("selects pg\\x1b[2J on dirqual2") && !text.contains('\u{1b}'),
        "{text}"
    );
}

#[test]
fn the_gate_document_is_valid_against_its_schema() {
    let d = doc(&no_go());
    let mut v = serde_json::to_value(&d).unwrap_or_default();
    v["nestorVersion"] = "0.4.0".into();
    v["observedAt"] = "2026-12-01T21:42:00Z".into();
    let schema = crate::output::schema::schema("Gate").unwrap_or_default();
    let validator = jsonschema::validator_for(&schema);
    let validator = validator.ok();
    assert!(
        validator.as_ref().is_some_and(|val| val.is_valid(&v)),
        "{v:#}"
    );
    assert_eq!(v["verdict"]["line"], "NO-GO: 1 blocker");
    assert_eq!(v["verdict"]["exitCode"], 2);
    assert_eq!(
        v["verdict"]["undecided"],
        serde_json::json!(["drain-ceph-health", "drain-mon-majority"])
    );
    // A field the schema does not name is refused.
    v["verdict"]["extra"] = true.into();
    assert!(validator.is_some_and(|val| !val.is_valid(&v)));
    let rules = serde_json::to_value(GateRulesDoc::new(&builtin().rules)).unwrap_or_default();
    assert_eq!(rules["rules"][0]["id"], "drain-pdb-blocks");
}

#[test]
fn junit_has_one_testcase_per_rule() {
    let xml = super::junit(&doc(&no_go()), "2026-12-01T21:42:00Z");
    let expected = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="kubectl-nestor" tests="12" failures="1" errors="0" skipped="3">
  <testsuite name="gate drain dirqual2" tests="12" failures="1" errors="0" skipped="3" timestamp="2026-12-01T21:42:00Z">
    <testcase name="drain-pdb-blocks" classname="nestor.gate.drain">
      <failure type="blocker" message="the eviction API lets every pod of NODE go (one budget each, allowing a disruption)">PodDisruptionBudget cnpg/pg-main-primary: CloudNativePG&apos;s primary budget: the primary of cluster pg-main runs here; disruptionsAllowed 0 (currentHealthy 1, desiredHealthy 1, expectedPods 1); selects pg-main-2 on dirqual2 (clears: switch over first: `kubectl cnpg promote pg-main pg-main-3 -n cnpg`)</failure>
    </testcase>
    <testcase name="drain-ceph-health" classname="nestor.gate.drain">
      <skipped message="unknown: the read of ceph-cluster failed: Forbidden: poddisruptionbudgets.policy is forbidden: User &quot;viewer&quot; cannot list resource"/>
    </testcase>
    <testcase name="drain-mon-majority" classname="nestor.gate.drain">
      <skipped message="unknown: the read of ceph-cluster failed: Forbidden: poddisruptionbudgets.policy is forbidden: User &quot;viewer&quot; cannot list resource"/>
    </testcase>
    <testcase name="drain-osd-hosts" classname="nestor.gate.drain"/>
    <testcase name="drain-control-plane" classname="nestor.gate.drain"/>
    <testcase name="drain-single-control-plane" classname="nestor.gate.drain"/>
    <testcase name="drain-etcd-majority" classname="nestor.gate.drain"/>
    <testcase name="drain-node-bound-volumes" classname="nestor.gate.drain"/>
    <testcase name="drain-unmanaged-pods" classname="nestor.gate.drain"/>
    <testcase name="drain-emptydir" classname="nestor.gate.drain">
      <system-out>warning: pod cnpg/pg-main-2: emptyDir scratch-data, shm: its data is deleted with the pod (clears: accept the loss (kubectl drain --delete-emptydir-data) or keep the data in a PersistentVolume)</system-out>
    </testcase>
    <testcase name="drain-capacity" classname="nestor.gate.drain"/>
    <testcase name="drain-time-sync" classname="nestor.gate.drain">
      <skipped message="skipped: not read: --no-ssh"/>
    </testcase>
  </testsuite>
</testsuites>
"#;
    assert_eq!(xml, expected);
}
