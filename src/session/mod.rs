//! The session: the one place a command gets its target and its reads from (SPEC §4-§5, §14).
//! [`resolve`] then [`Resolved::open`] (`open.rs`) resolve the kubeconfig, refuse a bench
//! that points at prod, run nestor's pre-check, apply the target policy (a prompt when one
//! is allowed, the declared endpoint otherwise, the bench for lima, nothing for a file the
//! operator named with no stack), obtain kubectl's agreement and yield the pinned session
//! ([`Opened`]); the policy that ran is the document's `target.confirmedBy`
//! ([`Confirmation`]). No command decides the policy: the confirmation enum is matched here
//! and nowhere else. The whole read pipeline of a stack (plan, hosts, open, read, reachable,
//! judge) is `observe.rs`'s, the hosts' part `hosts.rs`'s: commands ask for an observation
//! and render it. `stack select` and `kubeconfig fetch` verify a written file through
//! [`Session::verify`].
//!
//! Files: this one, `Ground` and `Prompt` (what a session opens from) and `Session` (the pinned
//! target: `read`, kube reads beside the host reads; `nodes`; `reachable`; `target_ref`;
//! `verify`); `open.rs`, `resolve` -> `Resolved` -> `Opened` (`open_live`, `open_gate`,
//! `replay`); `early.rs`, kubectl's `config view` and the pinned proxy started at once;
//! `hosts.rs`, whether and how the host-level layers are read; `observe.rs`, the pipeline
//! (`preview`, `Watch`/`Polls`, `Survey`); `acks.rs`, the acknowledgements. The gates:
//! `gate.rs` (`run`, the one gate read path), `gate_answers.rs` (each answer decoded),
//! `gate_drain.rs`, `gate_upgrade.rs`, `gate_components.rs`, `gate_layers.rs` (a component's
//! later layers, read by preview's pipeline) and `gate_hosts.rs` (the host rules over ssh).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::env::Environment;
use crate::error::{Error, Result};
use crate::model::catalog::ReadPlan;
use crate::model::observation::{Observation, ReadRequest, Scope};
use crate::model::snapshot::{Confirmation, TargetRef};
use crate::read::exec::Runner;
use crate::read::kubectl::Kubectl;
use crate::read::reader::{self, Reader};
use crate::stack::Topology;
use crate::target::kubeconfig::KubeTarget;
use crate::target::{authority, confirm, Chosen, Rule};

mod acks;
mod early;
pub mod gate;
mod gate_answers;
mod gate_components;
mod gate_drain;
mod gate_hosts;
mod gate_layers;
mod gate_upgrade;
pub mod hosts;
pub mod observe;
mod open;

pub use hosts::Hosts;
pub use open::{replay, resolve, Opened, Resolved};

/// Whether the operator may be asked (`[y/N]`): an explicit input of the target policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prompt {
    /// Someone can answer: stdin and stderr are terminals, no `--no-input`.
    Allowed,
    /// Never ask (`--no-input`, no terminal, the fleet): the declared endpoint decides.
    Never,
}

/// What a session is opened from: the process runner, the captured environment, the
/// `--kubeconfig` flag and whether a prompt is possible.
#[derive(Clone, Copy)]
pub struct Ground<'r> {
    pub runner: &'r Runner,
    pub env: &'r Environment,
    pub kubeconfig: Option<&'r std::path::Path>,
    pub prompt: Prompt,
}

/// A confirmed, pinned target: every kubectl call of the command goes through it.
pub use crate::read::reader::Round;

pub struct Session<'r> {
    /// Which kubeconfig, by which rule.
    pub chosen: Chosen,
    /// What nestor's pre-check and kubectl agree the file names.
    pub agreed: KubeTarget,
    /// The stack's declared `endpoint:`, as written (`None`: none, or no stack).
    declared: Option<String>,
    runner: &'r Runner,
    kubectl: Kubectl<'r>,
    confirmation: Confirmation,
    /// The nodes read for the prompt, reused by the first read.
    seen: RefCell<Option<Observation>>,
    /// The proxy started while kubectl's view was checked, for the first reader.
    early: RefCell<early::Early>,
}

impl<'r> Session<'r> {
    /// The verification read of a kubeconfig just written or declared (`stack select`,
    /// `kubeconfig fetch`): rule topology; its server must be the declared endpoint when
    /// `endpoint_if_declared` (select) or when nobody can be asked (fetch), before kubectl
    /// runs; never a prompt (the operator already answered the command's own questions).
    pub fn verify(
        ground: Ground<'r>,
        stack: &Topology,
        path: PathBuf,
        endpoint_if_declared: bool,
    ) -> Result<Session<'r>> {
        let declared = stack.raw.endpoint.is_some();
        let confirmation = if ground.prompt == Prompt::Never || (endpoint_if_declared && declared) {
            Confirmation::Endpoint
        } else {
            Confirmation::Unconfirmed
        };
        let chosen = Chosen {
            rule: Rule::Topology,
            path,
            notices: vec![],
        };
        Session::pinned(ground, Some(stack), chosen, confirmation, None, None)
    }

    /// Pre-check (`prechecked`: the isolation check's own reading of the file, never read
    /// again), the endpoint rule before any kubectl when it is the policy, then kubectl's
    /// own reading, which must agree (the proxy of `accept`, the first batch's or a gate's
    /// accept-paths, starting meanwhile); every later kubectl call is pinned to the result.
    fn pinned(
        ground: Ground<'r>,
        stack: Option<&Topology>,
        chosen: Chosen,
        confirmation: Confirmation,
        accept: Option<Vec<String>>,
        prechecked: Option<KubeTarget>,
    ) -> Result<Session<'r>> {
        let prechecked = match prechecked {
            Some(target) => target,
            None => authority::precheck_chosen(&chosen.path, chosen.rule)?,
        };
        crate::target::context::unchanged(stack, &chosen, &prechecked, ground.env)?;
        match (confirmation, stack) {
            (Confirmation::Endpoint, Some(stack)) => confirm::by_endpoint(
                stack,
                &prechecked.server,
                &confirm::Provenance::kubeconfig(&chosen),
            )?,
            (Confirmation::Endpoint, None)
            | (Confirmation::Prompt, _)
            | (Confirmation::Bench, _)
            | (Confirmation::Snapshot, _)
            | (Confirmation::Unconfirmed, _) => {}
        }
        // Pinned to the pre-check's target, which is what kubectl must agree to: the agreed
        // target is that very value (checked below), so the pin never changes.
        let pin = authority::pin_of(&prechecked);
        let kubectl = Kubectl::new(ground.runner, &chosen.path, pin.clone(), ground.env);
        let (agreed, early) = early::agree_while_starting(
            ground.runner,
            ground.env,
            &chosen.path,
            &kubectl,
            prechecked,
            accept,
        )?;
        if authority::pin_of(&agreed) != pin {
            return Err(Error::internal(
                "kubectl's agreed target is not the pre-checked one",
            ));
        }
        Ok(Session {
            chosen,
            agreed,
            declared: stack.and_then(|s| s.raw.endpoint.as_ref().map(|e| e.to_string())),
            runner: ground.runner,
            kubectl,
            confirmation,
            seen: RefCell::new(None),
            early: RefCell::new(early),
        })
    }

    /// The prompt: the nodes read through a reader of its own (its proxy is gone before the
    /// question: nothing runs while the operator thinks), then `[y/N]`.
    fn ask(&self, stack: &Topology) -> Result<()> {
        let mut obs = Observation::skipped("not read");
        self.reader()
            .read_into(&[ReadRequest::Nodes], &Scope::default(), &mut obs)?;
        if let Some(e) = reader::unreachable_error(&obs, &self.agreed.server) {
            return Err(e);
        }
        confirm::ask(stack, &self.chosen, &self.agreed, obs.nodes.as_ref())?;
        *self.seen.borrow_mut() = Some(obs);
        Ok(())
    }

    /// A reader for one batch (its proxy stopped when the batch is done).
    /// The first one gets the proxy started while kubectl's view was checked.
    fn reader(&self) -> Reader<'_> {
        Reader::new(&self.kubectl).with_early(self.early.take())
    }

    /// A reader keeping one proxy across batches (`wait`'s polls).
    fn polling_reader(&self) -> Reader<'_> {
        Reader::keeping_proxy(&self.kubectl).with_early(self.early.take())
    }

    /// The nodes (`target`, and the verification read of `stack select` and `kubeconfig
    /// fetch`): the prompt's when it read them, else one read through a proxy like every
    /// cluster read (never kubectl's own client, which follows a redirect with the
    /// credentials). Unreachable is exit 4; any other failed read exit 1, quoted.
    pub fn nodes(&self) -> Result<Vec<crate::model::observation::Node>> {
        if let Some(nodes) = self.prompted_nodes() {
            return Ok(nodes);
        }
        let mut obs = Observation::skipped("not read");
        self.reader()
            .read_into(&[ReadRequest::Nodes], &Scope::default(), &mut obs)?;
        self.reachable(&obs)?;
        obs.nodes.map_err(|f| {
            Error::input(
                format!(
                    "cannot read the nodes of {}: {}",
                    self.agreed.server,
                    crate::error::one_line(&f.message)
                ),
                "check that the kubeconfig's user may list nodes (`kubectl auth can-i list nodes`)",
            )
        })
    }

    /// The nodes the prompt showed, if there was one.
    pub fn prompted_nodes(&self) -> Option<Vec<crate::model::observation::Node>> {
        self.seen
            .borrow()
            .as_ref()
            .and_then(|o| o.nodes.as_ref().ok().cloned())
    }

    /// Run `plan`'s kube reads (in parallel with the host-level reads of `hosts`) into one
    /// observation, through a reader of this batch only.
    pub fn read(&self, plan: &ReadPlan, hosts: &Hosts) -> Result<Observation> {
        self.read_with(&self.reader(), plan, hosts, &|_| Vec::new())
    }

    /// [`Session::read`], with what `also` asks for once the first round is read in the
    /// second round (`preview`: the Warning Events of a degraded layer's failing objects;
    /// nothing, and no request, when no layer is degraded).
    pub fn read_then(&self, plan: &ReadPlan, hosts: &Hosts, also: &Round) -> Result<Observation> {
        self.read_with(&self.reader(), plan, hosts, also)
    }

    /// [`Session::read`] through `proxy`, a gate's (its accept-paths include the plan's),
    /// at most `in_flight` GETs at once while the gate reads its own requests through it: no
    /// host read, no Events.
    pub(super) fn read_through(
        &self,
        proxy: &crate::read::proxy::ApiProxy,
        plan: &ReadPlan,
        in_flight: usize,
    ) -> Result<Observation> {
        let reader = Reader::lending(&self.kubectl, proxy, in_flight);
        self.read_with(&reader, plan, &Hosts::None, &|_| Vec::new())
    }

    /// [`Session::read`] through `reader`. The first read reuses the prompt's nodes. A
    /// failed read is data; only a missing tool or a refused argv is an error.
    fn read_with(
        &self,
        reader: &Reader,
        plan: &ReadPlan,
        hosts: &Hosts,
        also: &Round,
    ) -> Result<Observation> {
        let (requests, scope) = (&plan.requests, &plan.scope);
        // The nodes the prompt read (or failed to read: that failure is the answer) are not
        // read again.
        let seen = self.seen.borrow_mut().take();
        let done: BTreeSet<ReadRequest> = match seen {
            Some(_) => [ReadRequest::Nodes].into_iter().collect(),
            None => BTreeSet::new(),
        };
        let mut obs = seen.unwrap_or_else(|| Observation::skipped("not read"));
        let remaining = reader::remaining(requests, &done);
        // The second round (SPEC §11), named by the first: the pods of the workloads that are
        // not rolled out (SPEC §6 v0.3); the EndpointSlices of the Services of webhooks that
        // fail closed (v0.4); what `also` names.
        let second = |o: &Observation| {
            let mut reads = crate::model::state::why::pod_reads(&plan.workloads, o);
            reads.extend(crate::model::state::webhooks::endpoint_reads(
                &scope.webhook_namespaces,
                o,
            ));
            reads.extend(also(o));
            reads
        };
        let Hosts::Read(_) = hosts else {
            reader.read_rounds(&remaining, scope, &mut obs, &second)?;
            if let Hosts::Skipped(_) = hosts {
                obs.hosts = hosts.read(self.runner);
            }
            return Ok(obs);
        };
        let (host_obs, kube) = crate::pool::beside(
            || hosts.read(self.runner),
            || reader.read_rounds(&remaining, scope, &mut obs, &second),
        );
        let host_obs = host_obs.unwrap_or_else(|| {
            crate::model::observation::host::HostObservation::skipped(
                "read failed: the host reading thread panicked",
            )
        });
        kube?;
        obs.hosts = host_obs;
        Ok(obs)
    }

    /// The stack's declared endpoint, and whether the agreed server is it (`None`: nothing
    /// declared).
    pub fn declared_endpoint(&self) -> Option<(&str, bool)> {
        self.declared
            .as_deref()
            .map(|e| (e, crate::stack::endpoint::same(e, &self.agreed.server)))
    }

    /// Exit 4 when the nodes read shows the API server unreachable.
    pub fn reachable(&self, obs: &Observation) -> Result<()> {
        match reader::unreachable_error(obs, &self.agreed.server) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The target in every document's shape, with the policy that ran.
    pub fn target_ref(&self) -> TargetRef {
        TargetRef {
            rule: Some(self.chosen.rule),
            kubeconfig: self.chosen.path.display().to_string(),
            context: self.agreed.context.clone(),
            endpoint: self.agreed.server.clone(),
            confirmed_by: self.confirmation,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confirmation_is_written_as_documents_show_it() {
        for (c, text) in [
            (Confirmation::Prompt, "\"prompt\""),
            (Confirmation::Endpoint, "\"endpoint\""),
            (Confirmation::Bench, "\"bench\""),
            (Confirmation::Snapshot, "\"snapshot\""),
            (Confirmation::Unconfirmed, "null"),
        ] {
            let target = TargetRef {
                rule: Some(Rule::Topology),
                kubeconfig: "/k".into(),
                context: "c".into(),
                endpoint: "https://e:6443".into(),
                confirmed_by: c,
            };
            let json = serde_json::to_string(&target).unwrap_or_default();
            assert!(
                json.ends_with(&format!(",\"confirmedBy\":{text}}}")),
                "{json}"
            );
            let back: Option<TargetRef> = serde_json::from_str(&json).ok();
            assert_eq!(back, Some(target));
        }
        // A snapshot older than the fields: no rule, nothing confirmed.
        let old: Option<TargetRef> =
            serde_json::from_str(r#"{"kubeconfig":"/k","context":"c","endpoint":"e"}"#).ok();
        assert_eq!(
            old.as_ref().map(|t| (t.rule, t.confirmed_by)),
            Some((None, Confirmation::Unconfirmed))
        );
        assert_eq!(old.map(|t| t.rule_name()), Some(""));
    }

    #[test]
    fn policy_follows_the_stack_and_the_terminal() {
        assert_eq!(
            open::policy(None, Prompt::Allowed),
            Confirmation::Unconfirmed
        );
        assert_eq!(open::policy(None, Prompt::Never), Confirmation::Unconfirmed);
    }
}
