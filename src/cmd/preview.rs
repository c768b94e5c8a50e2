//! `preview`: the real state of the stack, read live (or replayed from a snapshot), and the
//! plan of what is really missing. For prod, the target is confirmed before any result is
//! printed: by the operator at a prompt, or by the declared endpoint without one.

use std::path::{Path, PathBuf};

use crate::cmd::context::Invocation;
use crate::cmd::hosts::Hosts;
use crate::error::{Error, Exit, Result};
use crate::model::catalog::ReadPlan;
use crate::model::catalog::Workloads;
use crate::model::observation::host::HostObservation;
use crate::model::observation::{LimaInstance, Observation, ReadRequest};
use crate::model::plan::{self, Plan};
use crate::model::snapshot::Snapshot;
use crate::model::state;
use crate::output::render::Format;
use crate::output::render::{self, Paint};
use crate::output::report::{self, Preview, Real, Source, StackRef, TargetRef};
use crate::read::reader;
use crate::session::{self, Session};
use crate::stack::{TargetKind, Topology};

/// `preview --help` examples, in kubectl's style.
pub const EXAMPLES: &str = "\
Examples:
  # The real state of the active stack and the plan of what is really missing
  kubectl nestor preview

  # Another stack, for this command only
  kubectl nestor preview --stack dirqual

  # In a script: no prompt; exit 0 nothing to do, 2 work to do, 5 something undecided
  kubectl nestor preview --no-input --detailed-exitcode -o json

  # Replay a snapshot saved by `discover --save` (no cluster, no kubectl)
  kubectl nestor preview --stack dirqual --snapshot dirqual.snapshot.json

  # Save what was read, to compare later with `kubectl nestor diff`
  kubectl nestor preview --save dirqual.snapshot.json

  # The fleet: every stack, one line each; exit code of the worst
  kubectl nestor preview --all";

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Exit 2 when there is something to install, repair, create or start; 5 when there is nothing to do but something nestor could not tell (undecided); 0 only when nothing is to do and everything is decided.
    #[arg(long)]
    pub detailed_exitcode: bool,
    /// Replay an observation saved by `discover --save FILE` (or `preview --save FILE`) instead of reading live (no kubectl call).
    #[arg(long, value_name = "FILE")]
    pub snapshot: Option<PathBuf>,
    /// Do not read host-level layers over ssh (etcd-backup, sshd-hardening): they stay unknown, "not read: --no-ssh".
    #[arg(long)]
    pub no_ssh: bool,
    /// Save what was read live as a snapshot, for `diff` and `preview --snapshot` (prod stacks).
    #[arg(long, value_name = "FILE", conflicts_with = "snapshot")]
    pub save: Option<PathBuf>,
    /// Beside each evidence line, the read-only kubectl command that shows the same thing by hand (text and JSON: `real.layers[].explain`); every evidence line is shown.
    #[arg(long)]
    pub explain: bool,
    /// The fleet: every stack of the stacks directory, read in parallel without a prompt (each prod target confirmed by its `endpoint:`), one line each and a total; the exit code is the worst.
    #[arg(long, conflicts_with_all = ["snapshot", "save"])]
    pub all: bool,
}

/// What was read, from where.
struct Reading {
    obs: Observation,
    target: Option<TargetRef>,
    vms: Option<Vec<LimaInstance>>,
    source: Source,
}

pub fn run(ctx: &Invocation, args: &Args) -> Result<Exit> {
    let stack = ctx.topology(None)?;
    if args.save.is_some() {
        if args.snapshot.is_some() {
            return Err(Error::input(
                "--save writes what was read live: it cannot be combined with --snapshot",
                "drop --snapshot to save a live read, or copy the snapshot file itself",
            ));
        }
        if stack.kind() == TargetKind::Lima {
            return Err(Error::input(
                format!(
                    "stack {} is a lima bench: --save writes prod observations only",
                    stack.name()
                ),
                "drop --save: the bench is read live (limactl and its own kubeconfig)",
            ));
        }
    }
    let built = build(ctx, &stack, args.snapshot.as_deref(), args.no_ssh)?;
    if let (Some(path), Some(target)) = (&args.save, &built.preview.target) {
        let path = ctx.env.absolute(path);
        Snapshot::new(target.clone(), built.observation.clone()).save(&path)?;
        render::notice(&format!("snapshot saved to {}", path.display()));
    }
    let mut preview = built.preview;
    if args.explain {
        crate::cmd::explain::add(
            &mut preview,
            &built.catalog,
            built.hosts.as_ref(),
            &stack.declared_nodes(),
            &built.observation,
        );
    }
    match ctx.format() {
        Format::Text => {
            render::out(&preview.text(Paint { on: ctx.color() }, ctx.layout(args.explain)))?
        }
        Format::Junit => render::junit(&crate::output::junit::report(&[
            crate::output::junit::Suite::Read(&preview, observed_at(&preview)),
        ]))?,
        f => render::observed(f, &preview, &observed_at(&preview))?,
    }
    if !args.detailed_exitcode {
        return Ok(Exit::Ok);
    }
    Ok(match preview.plan.plan.outcome() {
        plan::Outcome::Settled => Exit::Ok,
        plan::Outcome::Work => Exit::PlanNotEmpty,
        plan::Outcome::Undecided => Exit::Undecided,
    })
}

/// One stack, read (or replayed) and judged; nothing printed but the target's notices and,
/// interactively, the confirmation. `preview`, `preview --all` and `diff -` build on it.
pub struct Built {
    pub preview: Preview,
    /// What was read, as a snapshot would hold it.
    pub observation: Observation,
    /// The catalog the layers were judged by (for `--explain`).
    pub catalog: crate::model::catalog::Catalog,
    /// The hosts read over ssh, when some were (for `--explain`).
    pub hosts: Option<crate::read::hosts::HostPlan>,
}

/// Read `stack` under the context's target policy (a prompt when interactive, the declared
/// endpoint otherwise) and build its `Preview`.
pub fn build(
    ctx: &Invocation,
    stack: &Topology,
    snapshot: Option<&Path>,
    no_ssh: bool,
) -> Result<Built> {
    let catalog = crate::model::catalog::catalog_for(stack.catalog_path().as_deref())?;
    let layer_ids = stack.layer_ids();
    // Workloads only in the namespaces the checks name: the same verdicts for a fraction of
    // the bytes (every deployment of a big cluster weighs megabytes). The nodes are always
    // shown, and read for the confirmation.
    let plan = catalog
        .read_plan(&layer_ids, Workloads::InTheirNamespaces)
        .first(ReadRequest::Nodes);
    let mut host_plan = None;
    let reading = match (stack.kind(), snapshot) {
        (TargetKind::Prod, Some(file)) => replay(stack, file)?,
        (TargetKind::Lima, Some(_)) => {
            return Err(Error::input(
                format!(
                    "stack {} is a lima bench: --snapshot replays prod observations only",
                    stack.name()
                ),
                "drop --snapshot: the bench is read live (limactl and its own kubeconfig)",
            ))
        }
        (TargetKind::Prod, None) => {
            // Validated before any process runs: a hostile inventory never reaches ssh.
            let hosts = Hosts::prepare(ctx, stack, &catalog, &layer_ids, no_ssh)?;
            let reading = live_prod(ctx, stack, &plan, &hosts)?;
            if let Hosts::Read(plan) = hosts {
                host_plan = Some(plan);
            }
            reading
        }
        (TargetKind::Lima, None) => {
            let mut reading = live_lima(ctx, stack, &plan)?;
            if !plan.host_layers.is_empty() {
                reading.obs.hosts = HostObservation::skipped(
                    "not read: host-level layers are read on prod stacks only",
                );
            }
            reading
        }
    };
    let declared = stack.declared_nodes();
    let reports = state::evaluate(&catalog, &layer_ids, &declared, &reading.obs);
    let instances = stack.instance_names();
    let (vm_plan, vm_rows) = match &reading.vms {
        Some(found) => (
            plan::vm_plan(&instances, found),
            Some(report::vm_rows(&instances, found)),
        ),
        None => (plan::VmPlan::default(), None),
    };
    let plan = Plan::build(&catalog, &reports, vm_plan);
    let preview = Preview::new(
        StackRef {
            name: stack.name().to_string(),
            target_kind: stack.kind().as_str(),
            file: stack.file.display().to_string(),
        },
        reading.source,
        reading.target,
        Real::new(vm_rows, declared.len(), &reading.obs, reports),
        plan,
    );
    Ok(Built {
        preview,
        observation: reading.obs,
        catalog,
        hosts: host_plan,
    })
}

/// When what the preview shows was read: the snapshot's time, or now for a live read (the
/// reads have just ended).
pub(crate) fn observed_at(preview: &Preview) -> String {
    match &preview.source {
        Source::Snapshot { taken_at, .. } => taken_at.clone(),
        Source::Live => crate::clock::now_rfc3339(),
    }
}

/// Prod, live: the session (resolved, confirmed, pinned), then the reads, the hosts over ssh
/// in parallel. No result is printed before the confirmation.
fn live_prod(
    ctx: &Invocation,
    stack: &Topology,
    plan: &ReadPlan,
    hosts: &Hosts,
) -> Result<Reading> {
    let Some(session) = Session::open_for(ctx.ground(), Some(stack), Some(plan), |_| Ok(()))?
    else {
        return Err(Error::internal("a prod stack always has a target"));
    };
    let obs = session.read(&session.reader(), plan, Some(&|| hosts.read(ctx)))?;
    session.reachable(&obs)?;
    Ok(Reading {
        target: Some(session.target_ref()),
        obs,
        vms: None,
        source: Source::Live,
    })
}

/// Lima, live: limactl and kubectl in parallel; Kubernetes skipped without a bench kubeconfig.
fn live_lima(ctx: &Invocation, stack: &Topology, plan: &ReadPlan) -> Result<Reading> {
    let Some(session) = Session::open_for(ctx.ground(), Some(stack), Some(plan), |_| Ok(()))?
    else {
        let path = stack.bench_kubeconfig(&ctx.env)?;
        let reason = format!(
            "bench kubeconfig absent ({}): Kubernetes probes skipped",
            path.display()
        );
        return Ok(Reading {
            obs: Observation::skipped(&reason),
            target: None,
            vms: Some(reader::lima_instances(&ctx.runner)?),
            source: Source::Live,
        });
    };
    let (vms, kube) = std::thread::scope(|threads| {
        let vms = threads.spawn(|| reader::lima_instances(&ctx.runner));
        let kube = session.read(&session.reader(), plan, None);
        let vms = vms
            .join()
            .unwrap_or_else(|_| Err(Error::internal("the limactl thread panicked")));
        (vms, kube)
    });
    Ok(Reading {
        obs: kube?,
        target: Some(session.target_ref()),
        vms: Some(vms?),
        source: Source::Live,
    })
}

/// Prod, replayed: no process at all; the snapshot's endpoint must be the stack's.
fn replay(stack: &Topology, file: &Path) -> Result<Reading> {
    let (snap, target) = session::replay(stack, file)?;
    Ok(Reading {
        target: Some(target),
        vms: None,
        source: Source::Snapshot {
            file: file.display().to_string(),
            taken_at: snap.taken_at.clone(),
        },
        obs: snap.observation,
    })
}
