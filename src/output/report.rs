//! The preview report: the `nestor/v1` `Preview` document and its human text. Pure: built
//! from the stack, the observation, the layer reports and the plan; printed by `render`.

use schemars::JsonSchema;
use serde::Serialize;

use crate::model::observation::{LimaInstance, LimaStatus, Node, Observation};
use crate::model::plan::Plan;
pub use crate::model::snapshot::TargetRef;
use crate::model::state::LayerReport;
use crate::output::layers::{self, Row};
use crate::output::layout::{cut, hang, wrap, Layout};
use crate::output::render::{self, escape, Paint, API_VERSION};

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Preview {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub stack: StackRef,
    /// `live` (read now) or `snapshot` (replayed from a saved observation).
    pub source: Source,
    /// The cluster read; `null` when Kubernetes probes were skipped.
    pub target: Option<TargetRef>,
    pub real: Real,
    pub plan: PlanDoc,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StackRef {
    pub name: String,
    pub target_kind: &'static str,
    pub file: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
pub(crate) enum Source {
    Live,
    Snapshot { file: String, taken_at: String },
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Real {
    /// Lima stacks only; absent (not empty) for prod: prod machines exist outside the tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vms: Option<Vec<VmRow>>,
    /// Why Kubernetes was not read (`null` when it was).
    pub kubernetes_skipped: Option<String>,
    pub nodes: NodesDoc,
    pub layers: Vec<LayerReport>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct VmRow {
    pub name: String,
    /// `Running`, `Stopped`, `Broken`, another limactl status, or `missing`.
    pub status: String,
    /// Why Lima says it is broken, as its JSON words it (absent when it gives no text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NodesDoc {
    pub declared: usize,
    pub registered: usize,
    pub ready: usize,
    /// The failed read, when the nodes could not be read.
    pub error: Option<String>,
    pub items: Vec<Node>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PlanDoc {
    /// True only when nothing is to install, repair, decide, create or start.
    pub empty: bool,
    #[serde(flatten)]
    pub plan: Plan,
}

impl Real {
    /// The REAL section: VMs (lima only), the nodes read, and one report per layer.
    pub(crate) fn new(
        vms: Option<Vec<VmRow>>,
        declared_nodes: usize,
        obs: &Observation,
        layers: Vec<LayerReport>,
    ) -> Real {
        let kubernetes_skipped = match &obs.nodes {
            Err(f) if f.kind == crate::model::observation::FailureKind::Skipped => {
                Some(f.message.clone())
            }
            _ => None,
        };
        let nodes = match &obs.nodes {
            Ok(items) => NodesDoc {
                declared: declared_nodes,
                registered: items.len(),
                ready: items.iter().filter(|n| n.ready).count(),
                error: None,
                items: items.clone(),
            },
            Err(f) => NodesDoc {
                declared: declared_nodes,
                registered: 0,
                ready: 0,
                error: Some(f.to_string()),
                items: vec![],
            },
        };
        Real {
            vms,
            kubernetes_skipped,
            nodes,
            layers,
        }
    }
}

impl Preview {
    /// When what the preview shows was read: the snapshot's time, or now for a live read
    /// (the reads have just ended).
    pub fn observed_at(&self) -> String {
        match &self.source {
            Source::Snapshot { taken_at, .. } => taken_at.clone(),
            Source::Live => crate::clock::now_rfc3339(),
        }
    }

    pub(crate) fn new(
        stack: StackRef,
        source: Source,
        target: Option<TargetRef>,
        real: Real,
        plan: Plan,
    ) -> Preview {
        Preview {
            api_version: API_VERSION,
            kind: "Preview",
            stack,
            source,
            target,
            real,
            plan: PlanDoc {
                empty: plan.is_empty(),
                plan,
            },
        }
    }

    /// The human report (SPEC §16): the stack and target, the outcome, then one line per
    /// layer with the evidence of those that are not present, every line within the width.
    pub(crate) fn text(&self, paint: Paint, layout: Layout) -> String {
        let mut out = String::new();
        let mut head = vec![vec![
            "stack".to_string(),
            format!("{} ({})", self.stack.name, self.stack.target_kind),
        ]];
        if let Some(t) = &self.target {
            head.push(vec![
                "target".to_string(),
                format!("{} (context {})", t.endpoint, t.context),
            ]);
            head.push(vec![
                "kubeconfig".to_string(),
                format!("{} (rule: {})", t.kubeconfig, t.rule_name()),
            ]);
        }
        for line in render::table(&head).lines() {
            out.push_str(&cut(line, layout.width));
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&self.plan_text(paint, layout));
        out.push('\n');
        let heading = match &self.source {
            Source::Live => "REAL (read live, not stored)".to_string(),
            Source::Snapshot { file, taken_at } => {
                format!("REAL (replayed from snapshot {file}, taken {taken_at}; not live)")
            }
        };
        // Wrapped, not cut: a replay's heading says which snapshot and when.
        for l in wrap(&heading, 0, layout.width) {
            out.push_str(&paint.bold(l.trim_start()));
            out.push('\n');
        }
        let mut rows = vec![];
        if let Some(vms) = &self.real.vms {
            let list: Vec<String> = vms
                .iter()
                .map(|v| match (v.status.as_str(), v.errors.is_empty()) {
                    ("Broken", true) => format!(
                        "{} Broken (no reason in its JSON: `limactl list {}` prints it)",
                        v.name, v.name
                    ),
                    (_, true) => format!("{} {}", v.name, v.status),
                    (_, false) => format!("{} {} ({})", v.name, v.status, v.errors.join("; ")),
                })
                .collect();
            rows.push(Row {
                label: "VMs".to_string(),
                text: if list.is_empty() {
                    "none declared".into()
                } else {
                    list.join(", ")
                },
            });
        }
        let nodes = &self.real.nodes;
        let nodes_line = match (&self.real.kubernetes_skipped, &nodes.error) {
            (Some(reason), _) => format!("not read: {reason}"),
            (None, Some(e)) => format!("read failed: {e}"),
            (None, None) => {
                let line = render::nodes_line(&nodes.items);
                if nodes.declared > 0 && nodes.declared != nodes.registered {
                    format!("{line} ({} declared)", nodes.declared)
                } else {
                    line
                }
            }
        };
        rows.push(Row {
            label: "nodes".to_string(),
            text: nodes_line,
        });
        out.push_str(&layers::block(&rows, &self.real.layers, paint, layout));
        out
    }

    /// `LAYER: CHECK fails` for a degraded layer: its first failing check not acknowledged,
    /// and how many more fail; its evidence is under the layer, never repeated in the plan.
    fn failing(&self, id: &str) -> String {
        let failing: Vec<&str> = self
            .real
            .layers
            .iter()
            .filter(|l| l.id == id)
            .flat_map(|l| &l.checks)
            .filter(|c| c.verdict == crate::model::state::Verdict::False && !c.acknowledged)
            .map(|c| c.id.as_str())
            .collect();
        match failing.as_slice() {
            [] => format!("{id}: see the layer above"),
            [one] => format!("{id}: {one} fails"),
            [first, rest @ ..] => format!(
                "{id}: {first} and {} more check{} fail",
                rest.len(),
                if rest.len() == 1 { "" } else { "s" }
            ),
        }
    }

    /// The outcome line (`PLAN: 2 to install, 1 to repair`, or `nothing to do`) and what to
    /// do, one row per action; the evidence behind each is under its layer, not repeated here.
    fn plan_text(&self, paint: Paint, layout: Layout) -> String {
        let p = &self.plan.plan;
        let mut counts = vec![];
        let mut count = |n: usize, what: &str| {
            if n > 0 {
                counts.push(format!("{n} {what}"));
            }
        };
        let vms = |n: usize| if n == 1 { "VM" } else { "VMs" };
        let looked = p.vms_broken.len() + p.vms_undecided.len();
        count(
            p.vms_to_create.len(),
            &format!("{} to create", vms(p.vms_to_create.len())),
        );
        count(
            p.vms_to_start.len(),
            &format!("{} to start", vms(p.vms_to_start.len())),
        );
        count(looked, &format!("{} to look at", vms(looked)));
        count(p.install.len(), "to install");
        count(p.repair.len(), "to repair");
        count(p.acknowledged.len(), "acknowledged");
        count(p.undecided.len(), "undecided");
        let outcome = if counts.is_empty() {
            "PLAN: nothing to do".to_string()
        } else {
            format!("PLAN: {}", counts.join(", "))
        };
        let mut out = format!("{}\n", cut(&paint.bold(&outcome), layout.width));
        let mut rows: Vec<(String, String)> = vec![];
        if !p.vms_to_create.is_empty() {
            rows.push(("create VMs".into(), p.vms_to_create.join(", ")));
        }
        if !p.vms_to_start.is_empty() {
            rows.push(("start VMs".into(), p.vms_to_start.join(", ")));
        }
        if !p.vms_broken.is_empty() {
            rows.push((
                format!("look at {}", p.vms_broken.join(", ")),
                "broken: look at `limactl list`; never recreated over".to_string(),
            ));
        }
        for v in &p.vms_undecided {
            rows.push((
                format!("look at {}", v.name),
                format!("status {}", v.status),
            ));
        }
        for s in &p.install {
            rows.push((format!("install {}", s.id), s.hint.clone()));
        }
        // Repairs and undecided layers share their hint: one row per hint, not per layer.
        // Under a repair row, each layer and its first failing check in a few words (SPEC
        // §16: the evidence is printed once, under the layer).
        let mut why: Vec<(usize, String)> = vec![];
        let verbs = [
            ("repair", &p.repair),
            ("acknowledged", &p.acknowledged),
            ("undecided", &p.undecided),
        ];
        for (verb, steps) in verbs {
            let mut hints: Vec<(&str, Vec<&crate::model::plan::PlanStep>)> = vec![];
            for s in steps {
                match hints.iter_mut().find(|(h, _)| *h == s.hint) {
                    Some((_, of)) => of.push(s),
                    None => hints.push((&s.hint, vec![s])),
                }
            }
            for (hint, of) in hints {
                let ids: Vec<&str> = of.iter().map(|s| s.id.as_str()).collect();
                let hint = hint.strip_prefix("acknowledged ").unwrap_or(hint);
                rows.push((format!("{verb} {}", ids.join(", ")), hint.to_string()));
                if verb == "repair" {
                    why.extend(of.iter().map(|s| (rows.len() - 1, self.failing(&s.id))));
                }
            }
        }
        let w = rows
            .iter()
            .map(|(l, _)| crate::output::layout::visible_width(l))
            .max()
            .unwrap_or(0);
        for (n, (label, text)) in rows.into_iter().enumerate() {
            let prefix = format!("  {}  ", crate::output::layout::pad(&label, w));
            for l in hang(&prefix, &escape(&text), w + 4, layout.width) {
                out.push_str(&l);
                out.push('\n');
            }
            for (_, reason) in why.iter().filter(|(row, _)| *row == n) {
                let line = format!("    {}", escape(reason));
                out.push_str(&crate::output::layout::cut(&line, layout.width));
                out.push('\n');
            }
        }
        out
    }
}

/// The VM section of a lima stack: each declared instance with its limactl status.
pub fn vm_rows(declared: &[String], instances: &[LimaInstance]) -> Vec<VmRow> {
    declared
        .iter()
        .map(|name| match instances.iter().find(|i| &i.name == name) {
            Some(i) => VmRow {
                name: name.clone(),
                status: i.status.as_str().to_string(),
                errors: if let LimaStatus::Unreadable(why) = &i.status {
                    vec![why.clone()]
                } else {
                    i.errors.clone()
                },
            },
            None => VmRow {
                name: name.clone(),
                status: "missing".to_string(),
                errors: vec![],
            },
        })
        .collect()
}
