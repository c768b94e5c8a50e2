//! Opening a stack's target, as values the commands match (SPEC §4-§5, §14, §18): first
//! [`resolve`] (which file, the bench isolation check; no process), then
//! [`Resolved::open`], which is [`Opened::Live`] (confirmed and pinned) or
//! [`Opened::NoCluster`] (a lima bench whose kubeconfig the harness has not written); a
//! snapshot's replay is [`Opened::Replay`] ([`replay`]). A command does what it must before
//! any process runs between the two steps; nothing calls back into it.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::catalog::ReadPlan;
use crate::model::observation::{Observation, ReadRequest, Scope};
use crate::model::snapshot::{Confirmation, Snapshot, TargetRef};
use crate::output::render;
use crate::stack::{TargetKind, Topology};
use crate::target::kubeconfig::KubeTarget;
use crate::target::{self, confirm, Chosen, Rule};

use super::{Ground, Prompt, Session};

/// What a stack's target opened as.
// One value per command, made once and moved into its reading: the size is no cost.
#[allow(clippy::large_enum_variant)]
pub enum Opened<'r> {
    /// Confirmed and pinned: read through the session.
    Live(Session<'r>),
    /// A lima bench not bootstrapped yet: its kubeconfig does not exist.
    NoCluster(NoCluster),
    /// A saved observation (`preview --snapshot`): no process at all.
    Replay(Replay),
}

/// A lima bench without its kubeconfig: nothing to read Kubernetes from (a file appearing
/// later is not read, it was not checked).
pub struct NoCluster {
    pub chosen: Chosen,
}

impl NoCluster {
    /// Why Kubernetes was not read: the cluster is not bootstrapped yet (SPEC §18).
    pub fn evidence(&self) -> String {
        format!(
            "no bench kubeconfig at {}: the harness writes it after kubeadm init",
            self.chosen.path.display()
        )
    }

    /// What was observed: no Kubernetes read at all, for [`NoCluster::evidence`].
    pub fn observation(&self) -> Observation {
        Observation::skipped(&self.evidence())
    }

    /// The refusal of a command that needs the cluster (`discover`, `target`).
    pub fn refusal(&self, what: &str) -> Error {
        Error::input(
            format!(
                "bench kubeconfig {} does not exist: {what}",
                self.chosen.path.display()
            ),
            "bring the bench up with its harness; nestor never falls back to ~/.kube/config",
        )
    }
}

/// A snapshot replayed: what it holds and the target it was read from.
pub struct Replay {
    pub file: PathBuf,
    pub snapshot: Snapshot,
    pub target: TargetRef,
}

/// The target chosen for a stack (or a bare kubeconfig), checked against the bench's
/// isolation rule; no process has run.
pub struct Resolved<'r, 's> {
    pub(super) ground: Ground<'r>,
    pub(super) stack: Option<&'s Topology>,
    pub chosen: Chosen,
    /// The isolation check's own reading of a lima stack's kubeconfig (`None`: absent).
    checked: Option<KubeTarget>,
}

/// Resolve `stack`'s kubeconfig (`None`: a bare kubeconfig), print the resolution's notices,
/// and refuse a bench pointing at prod (SPEC §14), whatever the command. The bench
/// kubeconfig is read once, by that check, and the session is pinned to that reading: a
/// file swapped after the check cannot change the checked target.
pub fn resolve<'r, 's>(
    ground: Ground<'r>,
    stack: Option<&'s Topology>,
) -> Result<Resolved<'r, 's>> {
    let chosen = target::resolve(stack, ground.kubeconfig, ground.env)?;
    for n in &chosen.notices {
        render::notice(n);
    }
    let checked = match stack {
        Some(stack) => target::isolation::check_lima(stack, &chosen.path, ground.env)?,
        None => None,
    };
    Ok(Resolved {
        ground,
        stack,
        chosen,
        checked,
    })
}

/// The policy for `stack`: none for a file named without a stack, the bench for lima, a
/// prompt when someone can answer, the declared endpoint otherwise.
pub(super) fn policy(stack: Option<&Topology>, prompt: Prompt) -> Confirmation {
    match (stack.map(Topology::kind), prompt) {
        (None, _) => Confirmation::Unconfirmed,
        (Some(TargetKind::Lima), _) => Confirmation::Bench,
        (Some(TargetKind::Prod), Prompt::Allowed) => Confirmation::Prompt,
        (Some(TargetKind::Prod), Prompt::Never) => Confirmation::Endpoint,
    }
}

impl<'r> Resolved<'r, '_> {
    /// Confirm and pin the target. `plan`: the command's first batch of reads, whose proxy
    /// starts while kubectl's `config view` runs (the prompt's nodes read instead, when there
    /// is one) and serves nothing before kubectl's view agrees with the pre-check. For a prod
    /// stack with a prompt, the operator sees the target and its nodes and says yes before
    /// this returns.
    pub fn open(self, plan: Option<&ReadPlan>) -> Result<Opened<'r>> {
        let first = plan.map(|p| {
            (!p.requests.is_empty())
                .then(|| crate::read::apiread::accept_paths(&p.requests, &p.scope))
        });
        self.open_accepting(first)
    }

    /// [`Resolved::open`] with the first proxy's accept-paths given (a gate's: its reads are
    /// no `ReadPlan`): `Some(None)` reads nothing first; with a prompt, the nodes go first.
    fn open_accepting(self, first: Option<Option<Vec<String>>>) -> Result<Opened<'r>> {
        let confirmation = policy(self.stack, self.ground.prompt);
        if confirmation == Confirmation::Bench && self.checked.is_none() {
            return Ok(Opened::NoCluster(NoCluster {
                chosen: self.chosen,
            }));
        }
        let nodes = || crate::read::apiread::accept_paths(&[ReadRequest::Nodes], &Scope::default());
        let accept = match (confirmation, first) {
            (Confirmation::Prompt, Some(_)) => Some(nodes()),
            (_, Some(accept)) => accept,
            (_, None) => None,
        };
        let session = Session::pinned(
            self.ground,
            self.stack,
            self.chosen,
            confirmation,
            accept,
            self.checked,
        )?;
        if let (Some(stack), Confirmation::Prompt) = (self.stack, confirmation) {
            session.ask(stack)?;
        }
        Ok(Opened::Live(session))
    }

    /// [`Resolved::open`] for a command that needs the cluster: no bench kubeconfig is its
    /// refusal, saying `what` cannot be done.
    pub fn open_live(self, plan: Option<&ReadPlan>, what: &str) -> Result<Session<'r>> {
        Self::live(self.open(plan)?, what)
    }

    /// [`Resolved::open_live`] for a gate: its proxy (exactly `accept`) starts while kubectl's
    /// `config view` runs, as preview's first batch does; the gate takes it
    /// (`Session::gate_proxy`).
    pub fn open_gate(self, accept: Vec<String>, what: &str) -> Result<Session<'r>> {
        Self::live(self.open_accepting(Some(Some(accept)))?, what)
    }

    fn live(opened: Opened<'r>, what: &str) -> Result<Session<'r>> {
        match opened {
            Opened::Live(session) => Ok(session),
            Opened::NoCluster(none) => Err(none.refusal(what)),
            Opened::Replay(_) => Err(Error::internal("a live target opened as a replay")),
        }
    }
}

/// `preview --snapshot FILE`: no process at all; the snapshot's recorded endpoint must be the
/// stack's (confirmed by `snapshot`).
pub fn replay<'r>(stack: &Topology, file: &Path) -> Result<Opened<'r>> {
    let snapshot = Snapshot::load(file)?;
    confirm::by_endpoint(
        stack,
        &snapshot.target.endpoint,
        &confirm::Provenance::snapshot(file),
    )?;
    let target = TargetRef {
        rule: Some(Rule::Snapshot),
        kubeconfig: snapshot.target.kubeconfig.clone(),
        context: snapshot.target.context.clone(),
        endpoint: snapshot.target.endpoint.clone(),
        confirmed_by: Confirmation::Snapshot,
    };
    Ok(Opened::Replay(Replay {
        file: file.to_path_buf(),
        snapshot,
        target,
    }))
}
