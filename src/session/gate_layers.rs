//! `cilium|rook-layers-after-present` (SPEC §17 "the layer and the layers after it are
//! present"): the stack's layers declared after the component's own (the table's
//! `componentLayers` row: `cni`, `ceph`), read and judged by preview's own pipeline — the
//! catalog's read plan, `Session::read_with` (both rounds), `state::evaluate`, the topology's
//! acknowledgements — through the gate's proxy, whose accept-paths are extended by exactly
//! that plan's. No stack, or a stack without the component's layer: the rule cannot be
//! judged (its read is skipped, naming why: CANNOT TELL). Host-level layers (read over ssh by
//! preview) are named as not judged; the gate reads no host.

use crate::model::catalog::{ReadPlan, Workloads};
use crate::model::gate::facts::{LaterLayer, LayerState, LayersAfter};
use crate::model::gate::{self, Component};
use crate::model::observation::{Read, ReadFailure};
use crate::model::state;
use crate::read::proxy::ApiProxy;
use crate::stack::Topology;

use super::Session;

/// What the rule reads, decided from the stack before any process: the later layers and
/// their read plan, or why the rule cannot be judged.
pub struct LayersPlan<'s> {
    judged: Result<Judged<'s>, String>,
}

struct Judged<'s> {
    stack: &'s Topology,
    layer: String,
    /// The later layers read through Kubernetes, in the stack's order.
    ids: Vec<String>,
    not_judged: Vec<String>,
    plan: ReadPlan,
}

impl<'s> LayersPlan<'s> {
    /// The layers `stack` declares after `component`'s layer.
    pub fn new(component: Component, stack: Option<&'s Topology>) -> LayersPlan<'s> {
        LayersPlan {
            judged: judged(component, stack),
        }
    }

    /// The accept-paths the later layers' checks read (none when nothing is read).
    pub fn accept_paths(&self) -> Vec<String> {
        match &self.judged {
            Ok(j) if !j.plan.requests.is_empty() => {
                crate::read::apiread::accept_paths(&j.plan.requests, &j.plan.scope)
            }
            Ok(_) | Err(_) => Vec::new(),
        }
    }
}

fn judged(component: Component, stack: Option<&Topology>) -> Result<Judged<'_>, String> {
    let layer = gate::builtin()
        .layer_of(component)
        .ok_or_else(|| format!("the rule table names no layer for {}", component.as_str()))?;
    let stack = stack.ok_or_else(|| {
        format!(
            "no stack: the layers after {layer} are a stack's (name one with --stack, or select one)"
        )
    })?;
    let ids = stack.layer_ids();
    let Some(at) = ids.iter().position(|id| id == layer) else {
        return Err(format!(
            "stack {} declares no {layer} layer (its layers: {}): nothing says which layers come after {}",
            stack.name(),
            ids.join(", "),
            component.as_str()
        ));
    };
    let after = &ids[at + 1..];
    let host = |id: &String| stack.catalog.get(id).is_some_and(|l| l.host.is_some());
    let kube: Vec<String> = after.iter().filter(|id| !host(id)).cloned().collect();
    let not_judged = after.iter().filter(|id| host(id)).cloned().collect();
    let plan = stack.catalog.read_plan(&kube, Workloads::InTheirNamespaces);
    Ok(Judged {
        stack,
        layer: layer.to_string(),
        ids: kube,
        not_judged,
        plan,
    })
}

impl Session<'_> {
    /// Read and judge the later layers of `plan` through `proxy` (the gate's, at most
    /// `in_flight` GETs at once), as preview does: both read rounds, one state per layer, the
    /// acknowledgements applied.
    pub(super) fn layers_after(
        &self,
        proxy: &ApiProxy,
        plan: &LayersPlan,
        in_flight: usize,
    ) -> crate::error::Result<Read<LayersAfter>> {
        let j = match &plan.judged {
            Ok(j) => j,
            Err(why) => return Ok(Err(ReadFailure::skipped(why))),
        };
        let obs = if j.plan.requests.is_empty() {
            crate::model::observation::Observation::skipped("not read")
        } else {
            self.read_through(proxy, &j.plan, in_flight)?
        };
        let declared = j.stack.declared_nodes();
        let mut reports = state::evaluate(&j.stack.catalog, &j.ids, &declared, &obs);
        // Marked as preview marks them; the warnings about those that do not apply are
        // preview's to print (an acknowledgement of a layer the gate does not judge is not
        // one that "matches nothing").
        super::acks::mark(&j.stack.raw.acknowledged, &mut reports, &obs, false);
        Ok(Ok(LayersAfter {
            layer: j.layer.clone(),
            after: reports
                .iter()
                .map(|r| LaterLayer {
                    id: r.id.clone(),
                    state: match r.state {
                        state::State::Present => LayerState::Present,
                        state::State::Degraded => LayerState::Degraded,
                        state::State::Absent => LayerState::Absent,
                        state::State::Unknown => LayerState::Unknown,
                    },
                    reason: r.reason.clone(),
                    acknowledged: crate::model::ack::fully_acknowledged(r),
                })
                .collect(),
            not_judged: j.not_judged.clone(),
        }))
    }
}
