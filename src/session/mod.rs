//! The session: the one place a command gets its target from (SPEC §4-§5, §14). One function,
//! [`Session::open`], resolves the kubeconfig, refuses a bench that points at prod, runs
//! nestor's pre-check, applies the target policy (a prompt when interactive, the declared
//! endpoint otherwise, the bench for lima, nothing for a file the operator named with no
//! stack), obtains kubectl's agreement and yields the pinned [`Kubectl`]; the policy that ran
//! is the document's `target.confirmedBy` ([`Confirmation`]). No command decides the policy:
//! the confirmation enum is matched here and nowhere else. `preview --snapshot` gets its
//! replay's confirmation from [`replay`]; `stack select` and `kubeconfig fetch` verify a
//! written file through [`Session::verify`].

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::env::Environment;
use crate::error::{Error, Result};
use crate::model::catalog::ReadPlan;
use crate::model::observation::host::HostObservation;
use crate::model::observation::{Observation, ReadRequest, Scope};
use crate::model::snapshot::{Confirmation, Snapshot, TargetRef};
use crate::output::render;
use crate::read::exec::Runner;
use crate::read::kubectl::Kubectl;
use crate::read::reader::{self, Reader};
use crate::stack::{TargetKind, Topology};
use crate::target::kubeconfig::KubeTarget;
use crate::target::{self, authority, confirm, Chosen, Rule};

mod early;

/// What a session is opened from: the process runner, the captured environment, the
/// `--kubeconfig` flag and whether a prompt is possible.
#[derive(Clone, Copy)]
pub struct Ground<'r> {
    pub runner: &'r Runner,
    pub env: &'r Environment,
    pub kubeconfig: Option<&'r Path>,
    pub interactive: bool,
}

/// A confirmed, pinned target: every kubectl call of the command goes through [`Session::kubectl`].
pub struct Session<'r> {
    pub resolution: Chosen,
    /// What nestor's pre-check and kubectl agree the file names.
    pub kc: KubeTarget,
    kubectl: Kubectl<'r>,
    confirmation: Confirmation,
    /// The nodes read for the prompt, reused by the first read.
    seen: RefCell<Option<Observation>>,
    /// The proxy started while kubectl's view was checked, for the first reader.
    early: RefCell<early::Early>,
}

/// The policy for `stack`: none for a file named without a stack, the bench for lima, a
/// prompt when someone can answer, the declared endpoint otherwise.
fn policy(stack: Option<&Topology>, interactive: bool) -> Confirmation {
    match stack.map(Topology::kind) {
        None => Confirmation::Unconfirmed,
        Some(TargetKind::Lima) => Confirmation::Bench,
        Some(TargetKind::Prod) if interactive => Confirmation::Prompt,
        Some(TargetKind::Prod) => Confirmation::Endpoint,
    }
}

impl<'r> Session<'r> {
    /// Open the session of `stack` (`None`: a bare kubeconfig). `resolved` sees the chosen
    /// kubeconfig before any process runs (a command's notice, or its refusal of an absent
    /// bench). `None` when a lima stack's bench kubeconfig does not exist yet: nothing to
    /// read Kubernetes from. For a prod stack with a prompt, the operator sees the target and
    /// its nodes and says yes before this returns.
    pub fn open(
        ground: Ground<'r>,
        stack: Option<&Topology>,
        resolved: impl FnOnce(&Chosen) -> Result<()>,
    ) -> Result<Option<Session<'r>>> {
        Session::open_for(ground, stack, None, resolved)
    }

    /// [`Session::open`] for a command whose first read is `plan`: its proxy starts while
    /// kubectl's `config view` runs (the prompt's nodes read instead, when there is one), and
    /// serves nothing before kubectl's view agrees with the pre-check.
    pub fn open_for(
        ground: Ground<'r>,
        stack: Option<&Topology>,
        plan: Option<&ReadPlan>,
        resolved: impl FnOnce(&Chosen) -> Result<()>,
    ) -> Result<Option<Session<'r>>> {
        let resolution = target::resolve(stack, ground.kubeconfig, ground.env)?;
        for n in &resolution.notices {
            render::notice(n);
        }
        // The bench never reads prod (SPEC §14), whatever the command. The bench kubeconfig
        // is read once, by the check, and the session is pinned to that reading: a file
        // swapped after the check cannot change the checked target (kubectl's own view of
        // the file must then agree with it byte for byte, or the command is refused).
        let checked = match stack {
            Some(stack) => target::isolation::check_lima(stack, &resolution.path, ground.env)?,
            None => None,
        };
        resolved(&resolution)?;
        let confirmation = policy(stack, ground.interactive);
        if confirmation == Confirmation::Bench && checked.is_none() {
            // Absent at the check: nothing to read Kubernetes from (a file appearing later
            // is not read, it was not checked).
            return Ok(None);
        }
        let nodes = [ReadRequest::Nodes];
        let default_scope = Scope::default();
        let first = match (confirmation, plan) {
            (Confirmation::Prompt, Some(_)) => Some((&nodes[..], &default_scope)),
            (_, Some(plan)) => Some((&plan.requests[..], &plan.scope)),
            (_, None) => None,
        };
        let session = Session::pinned(ground, stack, resolution, confirmation, first, checked)?;
        if let (Some(stack), Confirmation::Prompt) = (stack, confirmation) {
            session.ask(stack)?;
        }
        Ok(Some(session))
    }

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
        let confirmation = if !ground.interactive || (endpoint_if_declared && declared) {
            Confirmation::Endpoint
        } else {
            Confirmation::Unconfirmed
        };
        let resolution = Chosen {
            rule: Rule::Topology,
            path,
            notices: vec![],
        };
        Session::pinned(ground, Some(stack), resolution, confirmation, None, None)
    }

    /// Pre-check (`prechecked`: the isolation check's own reading of the file, never read
    /// again), the endpoint rule before any kubectl when it is the policy, then kubectl's
    /// own reading, which must agree (the proxy of `first`, the first batch, starting
    /// meanwhile); every later kubectl call is pinned to the result.
    fn pinned(
        ground: Ground<'r>,
        stack: Option<&Topology>,
        resolution: Chosen,
        confirmation: Confirmation,
        first: Option<(&[ReadRequest], &Scope)>,
        prechecked: Option<KubeTarget>,
    ) -> Result<Session<'r>> {
        let kc = match prechecked {
            Some(kc) => kc,
            None => authority::precheck_chosen(&resolution.path, resolution.rule)?,
        };
        crate::target::context::unchanged(stack, &resolution, &kc, ground.env)?;
        match (confirmation, stack) {
            (Confirmation::Endpoint, Some(stack)) => confirm::by_endpoint(
                stack,
                &kc.server,
                &confirm::Provenance::kubeconfig(&resolution),
            )?,
            (Confirmation::Endpoint, None)
            | (Confirmation::Prompt, _)
            | (Confirmation::Bench, _)
            | (Confirmation::Snapshot, _)
            | (Confirmation::Unconfirmed, _) => {}
        }
        // Pinned to the pre-check's target, which is what kubectl must agree to: the agreed
        // target is that very value (checked below), so the pin never changes.
        let pin = authority::pin_of(&kc);
        let kubectl = Kubectl::new(ground.runner, &resolution.path, pin.clone(), ground.env);
        let (kc, early) = early::agree_while_starting(
            ground.runner,
            ground.env,
            &resolution.path,
            &kubectl,
            kc,
            first,
        )?;
        if authority::pin_of(&kc) != pin {
            return Err(Error::internal(
                "kubectl's agreed target is not the pre-checked one",
            ));
        }
        Ok(Session {
            resolution,
            kc,
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
        if let Some(e) = reader::unreachable_error(&obs, &self.kc.server) {
            return Err(e);
        }
        confirm::ask(stack, &self.resolution, &self.kc, obs.nodes.as_ref())?;
        *self.seen.borrow_mut() = Some(obs);
        Ok(())
    }

    /// A reader for one batch (its proxy stopped when the batch is done).
    /// The first one gets the proxy started while kubectl's view was checked.
    pub fn reader(&self) -> Reader<'_> {
        Reader::new(&self.kubectl).with_early(self.early.take())
    }

    /// A reader keeping one proxy across batches (`wait`'s polls).
    pub fn polling_reader(&self) -> Reader<'_> {
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
                    self.kc.server,
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

    /// Run `plan`'s kube reads through `reader` (in parallel with `hosts`, the host-level
    /// reads, when given) into one observation. The first read reuses the prompt's nodes. A
    /// failed read is data; only a missing tool or a refused argv is an error.
    pub fn read(
        &self,
        reader: &Reader,
        plan: &ReadPlan,
        hosts: Option<&(dyn Fn() -> HostObservation + Sync)>,
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
        // The second round (SPEC §6 v0.3): the pods of the workloads that are not rolled out.
        let second = |o: &Observation| crate::model::state::why::pod_reads(&plan.workloads, o);
        let Some(hosts) = hosts else {
            reader.read_rounds(&remaining, scope, &mut obs, &second)?;
            return Ok(obs);
        };
        let (kube, host_obs) = std::thread::scope(|threads| {
            let host_thread = threads.spawn(hosts);
            let kube = reader.read_rounds(&remaining, scope, &mut obs, &second);
            let host_obs = host_thread.join().unwrap_or_else(|_| {
                HostObservation::skipped("not read: the host reading thread panicked")
            });
            (kube, host_obs)
        });
        kube?;
        obs.hosts = host_obs;
        Ok(obs)
    }

    /// Exit 4 when the nodes read shows the API server unreachable.
    pub fn reachable(&self, obs: &Observation) -> Result<()> {
        match reader::unreachable_error(obs, &self.kc.server) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The target in every document's shape, with the policy that ran.
    pub fn target_ref(&self) -> TargetRef {
        TargetRef {
            rule: Some(self.resolution.rule),
            kubeconfig: self.resolution.path.display().to_string(),
            context: self.kc.context.clone(),
            endpoint: self.kc.server.clone(),
            confirmed_by: self.confirmation,
        }
    }
}

/// `preview --snapshot FILE`: no process at all; the snapshot's recorded endpoint must be the
/// stack's (confirmed by `snapshot`).
pub fn replay(stack: &Topology, file: &Path) -> Result<(Snapshot, TargetRef)> {
    let snap = Snapshot::load(file)?;
    confirm::by_endpoint(
        stack,
        &snap.target.endpoint,
        &confirm::Provenance::snapshot(file),
    )?;
    let target = TargetRef {
        rule: Some(Rule::Snapshot),
        kubeconfig: snap.target.kubeconfig.clone(),
        context: snap.target.context.clone(),
        endpoint: snap.target.endpoint.clone(),
        confirmed_by: Confirmation::Snapshot,
    };
    Ok((snap, target))
}

/// Whether `server` is `stack`'s declared `endpoint:` (discover reads a prod stack's hosts
/// only from its own cluster).
pub fn is_declared_endpoint(stack: &Topology, server: &str) -> bool {
    stack
        .raw
        .endpoint
        .as_ref()
        .is_some_and(|e| crate::stack::endpoint::same(&e.to_string(), server))
}

/// An error for a command that needs a cluster when there is none.
pub fn no_bench(resolution: &Chosen, what: &str) -> Error {
    Error::input(
        format!(
            "bench kubeconfig {} does not exist: {what}",
            resolution.path.display()
        ),
        "bring the bench up with its harness; nestor never falls back to ~/.kube/config",
    )
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
        assert_eq!(policy(None, true), Confirmation::Unconfirmed);
        assert_eq!(policy(None, false), Confirmation::Unconfirmed);
    }
}
