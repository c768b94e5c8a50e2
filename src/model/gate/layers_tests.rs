//! `cilium|rook-layers-after-present` on the facts the session gives it (each later layer's
//! state as preview judged it): GO when every later layer is present (an acknowledgement never opens a gate),
//! NO-GO naming each absent or degraded one with preview's line, undecided (never GO) for an
//! unknown layer or a stack that cannot be judged; the table's componentLayers rows.

use super::facts::{LaterLayer, LayerState, LayersAfter};
use super::tests::{cluster, outcome};
use super::version::Version;
use super::*;
use crate::model::observation::ReadFailure;

fn later(id: &str, state: LayerState, reason: &str, acknowledged: bool) -> LaterLayer {
    LaterLayer {
        id: id.into(),
        state,
        reason: reason.into(),
        acknowledged,
    }
}

/// The cilium gate to 1.19.1 on `cluster()` (every other rule holds) with these layers
/// after cni.
fn cilium(after: Vec<LaterLayer>, not_judged: &[&str]) -> Evaluation {
    let mut f = cluster();
    f.layers_after = Ok(LayersAfter {
        layer: "cni".into(),
        after,
        not_judged: not_judged.iter().map(|s| s.to_string()).collect(),
    });
    let req = Request {
        gate: Gate::UpgradeCilium,
        node: None,
        version: Version::parse("1.19.1"),
    };
    evaluate(&req, &f, builtin())
}

fn rule(ev: &Evaluation) -> (Status, String, Vec<(String, String, String)>) {
    let o = outcome(ev, RuleId::CiliumLayersAfterPresent);
    let findings = o
        .findings
        .iter()
        .map(|f| (f.subject.clone(), f.evidence.clone(), f.clears.clone()))
        .collect();
    (o.status, o.note.clone(), findings)
}

#[test]
fn every_later_layer_present_is_go() {
    let ev = cilium(
        vec![
            later("ceph", LayerState::Present, "9 checks hold", false),
            later("storage", LayerState::Present, "4 checks hold", false),
        ],
        &["etcd-backup"],
    );
    assert_eq!(ev.verdict, Verdict::Go);
    assert_eq!(
        rule(&ev),
        (
            Status::Holds,
            "2 layers after cni present: ceph, storage; host-level, not judged (preview reads them over ssh): etcd-backup".into(),
            vec![]
        )
    );
    let ev = cilium(vec![], &[]);
    assert_eq!(ev.verdict, Verdict::Go);
    assert_eq!(rule(&ev).1, "no layer after cni in the stack");
}

/// SPEC §6 and issue 49 item 5: an acknowledgement never opens a gate. A degraded layer
/// whose every finding is acknowledged is still a blocker, the acknowledgement shown beside
/// it (v0.4 counted it present, so acknowledging `hubble/relay` turned NO-GO into GO).
#[test]
fn an_acknowledged_degraded_layer_still_blocks_the_gate() {
    let ev = cilium(
        vec![
            later("ceph", LayerState::Present, "9 checks hold", false),
            later("storage", LayerState::Degraded, "claims Pending", true),
        ],
        &[],
    );
    assert_eq!(ev.verdict, Verdict::NoGo { blockers: 1 });
    let (status, _, findings) = rule(&ev);
    assert_eq!(status, Status::Fails);
    assert_eq!(
        findings,
        [(
            "layer storage".to_string(),
            "degraded (acknowledged): claims Pending".to_string(),
            "repair storage first: its findings are acknowledged for preview, but an acknowledgement never opens a gate".to_string()
        )]
    );
}

#[test]
fn an_absent_or_degraded_later_layer_is_a_blocker_each() {
    let ev = cilium(
        vec![
            later(
                "ceph",
                LayerState::Degraded,
                "HEALTH_WARN: MON_DISK_LOW",
                false,
            ),
            later(
                "monitoring",
                LayerState::Unknown,
                "read of deployments failed",
                false,
            ),
            later(
                "certs",
                LayerState::Absent,
                "API group cert-manager.io not served",
                false,
            ),
        ],
        &[],
    );
    assert_eq!(ev.verdict, Verdict::NoGo { blockers: 2 });
    assert_eq!(
        rule(&ev),
        (
            Status::Fails,
            String::new(),
            vec![
                (
                    "layer ceph".into(),
                    "degraded: HEALTH_WARN: MON_DISK_LOW".into(),
                    "repair ceph first (kubectl nestor preview shows what it lacks), then upgrade".into()
                ),
                (
                    "layer certs".into(),
                    "absent: API group cert-manager.io not served".into(),
                    "install certs first (kubectl nestor preview's plan), or remove it from the stack's layers:".into()
                ),
            ]
        )
    );
}

#[test]
fn an_unknown_layer_or_a_stack_that_cannot_be_judged_is_undecided() {
    let ev = cilium(
        vec![
            later("ceph", LayerState::Present, "", false),
            later(
                "monitoring",
                LayerState::Unknown,
                "read of deployments failed: Forbidden",
                false,
            ),
        ],
        &[],
    );
    assert_eq!(
        ev.verdict,
        Verdict::CannotTell {
            undecided: vec![RuleId::CiliumLayersAfterPresent]
        }
    );
    assert_eq!(
        rule(&ev).1,
        "unknown: monitoring: read of deployments failed: Forbidden"
    );
    let mut f = cluster();
    f.layers_after = Err(ReadFailure::skipped("stack s declares no cni layer"));
    let req = Request {
        gate: Gate::UpgradeCilium,
        node: None,
        version: Version::parse("1.19.1"),
    };
    let ev = evaluate(&req, &f, builtin());
    assert_eq!(
        ev.verdict,
        Verdict::CannotTell {
            undecided: vec![RuleId::CiliumLayersAfterPresent]
        }
    );
    assert_eq!(
        rule(&ev).1,
        "layers-after not read: stack s declares no cni layer"
    );
}

/// Each gated component names one layer of the built-in catalog; a row twice, a missing
/// row or a layer that is not an id is refused.
#[test]
fn component_layers_are_strict() {
    let t = builtin();
    let catalog = crate::model::catalog::Catalog::builtin().ok();
    for (c, want) in [(Component::Cilium, "cni"), (Component::Rook, "ceph")] {
        assert_eq!(t.layer_of(c), Some(want));
        assert!(
            catalog.as_ref().and_then(|k| k.get(want)).is_some(),
            "{want}"
        );
    }
    let base = include_str!("rules.yaml");
    for (from, to, says) in [
        (
            "  - {component: rook, layer: ceph}\n",
            "",
            "componentLayers: no row for rook",
        ),
        (
            "  - {component: rook, layer: ceph}\n",
            "  - {component: cilium, layer: ceph}\n",
            "componentLayers: cilium names one layer, once",
        ),
        (
            "  - {component: rook, layer: ceph}\n",
            "  - {component: rook, layer: Ceph}\n",
            "componentLayers: rook names one layer, once",
        ),
    ] {
        let text = base.replacen(from, to, 1);
        assert_ne!(text, base);
        let e = parse(&text, "r.yaml")
            .err()
            .map(|e| e.message)
            .unwrap_or_default();
        assert!(e.contains(says), "{says}: {e}");
    }
    let text = base.replacen(
        "{component: rook, layer: ceph}",
        "{component: rook, layr: ceph}",
        1,
    );
    let e = parse(&text, "r.yaml")
        .err()
        .map(|e| e.message)
        .unwrap_or_default();
    assert!(e.contains("did you mean `layer`"), "{e}");
}

/// `--explain`'s fact for the read: each later layer and its state, or why none was judged.
#[test]
fn the_explain_fact_names_each_later_layer_and_its_state() {
    let mut f = cluster();
    assert_eq!(explain::fact(&f, Read::LayersAfter), "no layer after cni");
    f.layers_after = Ok(LayersAfter {
        layer: "cni".into(),
        after: vec![
            later("ceph", LayerState::Present, "", false),
            later("certs", LayerState::Absent, "not found", false),
        ],
        not_judged: vec![],
    });
    assert_eq!(
        explain::fact(&f, Read::LayersAfter),
        "2 layers after cni: ceph present, certs absent"
    );
    f.layers_after = Err(ReadFailure::skipped("no stack"));
    assert_eq!(explain::fact(&f, Read::LayersAfter), "not read: no stack");
}
