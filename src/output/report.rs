//! The preview report: the `nestor/v1` `Preview` document and its human text. Pure: built
//! from the stack, the observation, the layer reports and the plan; printed by `render`.

use serde::Serialize;

use crate::model::observation::{LimaInstance, Node, Observation};
use crate::model::plan::Plan;
pub use crate::model::snapshot::TargetRef;
use crate::model::state::{LayerReport, State};
use crate::output::render::{self, Paint, API_VERSION};

#[derive(Debug, Serialize)]
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

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StackRef {
    pub name: String,
    pub target_kind: &'static str,
    pub file: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
pub(crate) enum Source {
    Live,
    Snapshot { file: String, taken_at: String },
}

#[derive(Debug, Serialize)]
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

#[derive(Debug, Serialize)]
pub struct VmRow {
    pub name: String,
    /// `Running`, `Stopped`, `Broken`, another limactl status, or `missing`.
    pub status: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NodesDoc {
    pub declared: usize,
    pub registered: usize,
    pub ready: usize,
    /// The failed read, when the nodes could not be read.
    pub error: Option<String>,
    pub items: Vec<Node>,
}

#[derive(Debug, Serialize)]
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

    /// The human report.
    pub(crate) fn text(&self, paint: Paint) -> String {
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
        out.push_str(&render::table(&head));
        out.push('\n');
        let heading = match &self.source {
            Source::Live => "REAL (read live, not stored)".to_string(),
            Source::Snapshot { file, taken_at } => {
                format!("REAL (replayed from snapshot {file}, taken {taken_at}; not live)")
            }
        };
        out.push_str(&paint.bold(&heading));
        out.push('\n');
        let mut rows: Vec<Vec<String>> = vec![];
        if let Some(vms) = &self.real.vms {
            let list: Vec<String> = vms
                .iter()
                .map(|v| {
                    let status = match v.status.as_str() {
                        "Running" => paint.green(&v.status),
                        "missing" | "Broken" => paint.red(&v.status),
                        _ => paint.yellow(&v.status),
                    };
                    format!("{} {status}", v.name)
                })
                .collect();
            rows.push(vec![
                "  VMs".to_string(),
                String::new(),
                if list.is_empty() {
                    "none declared".into()
                } else {
                    list.join(", ")
                },
            ]);
        }
        let nodes = &self.real.nodes;
        let nodes_line = match (&self.real.kubernetes_skipped, &nodes.error) {
            (Some(reason), _) => format!("not read: {reason}"),
            (None, Some(e)) => paint.red(&format!("read failed: {e}")),
            (None, None) => {
                let line = render::nodes_line(&nodes.items);
                if nodes.declared > 0 && nodes.declared != nodes.registered {
                    format!("{line} ({} declared)", nodes.declared)
                } else {
                    line
                }
            }
        };
        rows.push(vec!["  nodes".to_string(), String::new(), nodes_line]);
        for l in &self.real.layers {
            let state = paint.state(l.state);
            let why = match l.state {
                State::Present => l.evidence.join("; "),
                _ => l.reason.clone(),
            };
            rows.push(vec![format!("  {}", l.id), state, why]);
        }
        out.push_str(&render::table(&rows));
        out.push('\n');
        out.push_str(&self.plan_text(paint));
        out
    }

    fn plan_text(&self, paint: Paint) -> String {
        let p = &self.plan.plan;
        let mut counts = vec![];
        let mut count = |n: usize, what: &str| {
            if n > 0 {
                counts.push(format!("{n} {what}"));
            }
        };
        count(p.vms_to_create.len(), "VM(s) to create");
        count(p.vms_to_start.len(), "VM(s) to start");
        count(
            p.vms_broken.len() + p.vms_undecided.len(),
            "VM(s) to look at",
        );
        count(p.install.len(), "layer(s) to install");
        count(p.repair.len(), "layer(s) to repair");
        count(p.undecided.len(), "undecided");
        let mut out = if counts.is_empty() {
            format!("{}\n", paint.bold("PLAN: nothing to install or repair"))
        } else {
            format!("{}\n", paint.bold(&format!("PLAN: {}", counts.join(", "))))
        };
        let mut rows: Vec<Vec<String>> = vec![];
        let vm_line = |label: &str, names: &[String]| {
            vec![format!("  {label}"), names.join(", "), String::new()]
        };
        if !p.vms_to_create.is_empty() {
            rows.push(vm_line("VMs to create", &p.vms_to_create));
        }
        if !p.vms_to_start.is_empty() {
            rows.push(vm_line("VMs to start", &p.vms_to_start));
        }
        if !p.vms_broken.is_empty() {
            rows.push(vec![
                "  VMs broken".to_string(),
                p.vms_broken.join(", "),
                "look at `limactl list`; never recreated over".to_string(),
            ]);
        }
        for v in &p.vms_undecided {
            rows.push(vec![
                "  VM undecided".to_string(),
                v.name.clone(),
                format!("status {}", v.status),
            ]);
        }
        for s in &p.install {
            rows.push(vec![
                format!("  install {}", s.id),
                s.title.clone(),
                s.hint.clone(),
            ]);
        }
        for s in &p.repair {
            rows.push(vec![
                format!("  repair {}", s.id),
                s.title.clone(),
                s.reason.clone(),
            ]);
        }
        for s in &p.undecided {
            rows.push(vec![
                format!("  undecided {}", s.id),
                s.title.clone(),
                s.reason.clone(),
            ]);
        }
        out.push_str(&render::table(&rows));
        out
    }
}

/// The VM section of a lima stack: each declared instance with its limactl status.
pub fn vm_rows(declared: &[String], instances: &[LimaInstance]) -> Vec<VmRow> {
    declared
        .iter()
        .map(|name| VmRow {
            name: name.clone(),
            status: instances
                .iter()
                .find(|i| &i.name == name)
                .map(|i| i.status.as_str().to_string())
                .unwrap_or_else(|| "missing".to_string()),
        })
        .collect()
}
