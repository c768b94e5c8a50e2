//! `preview`: the real state of the stack, read live (or replayed from a snapshot), and the
//! plan of what is really missing. For prod, the target is confirmed before any result is
//! printed: by the operator at a prompt, or by the declared endpoint without one.

use std::path::PathBuf;

use crate::cmd::context::Invocation;
use crate::error::{Error, Exit, Result};
use crate::model::plan;
use crate::model::snapshot::Snapshot;
use crate::output::render::Format;
use crate::output::render::{self, Paint};
use crate::session::observe;
use crate::stack::TargetKind;

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

pub fn run(invocation: &Invocation, args: &Args) -> Result<Exit> {
    let stack = invocation.stacks.topology(None)?;
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
    let built = observe::preview(
        invocation.ground(),
        &stack,
        args.snapshot.as_deref(),
        args.no_ssh,
    )?;
    if let (Some(path), Some(target)) = (&args.save, &built.preview.target) {
        let path = invocation.env.absolute(path);
        Snapshot::new(target.clone(), built.observation.clone()).save(&path)?;
        render::notice(&format!("snapshot saved to {}", path.display()));
    }
    let mut preview = built.preview;
    if args.explain {
        crate::cmd::explain::add(
            &mut preview,
            &stack.catalog,
            built.hosts.as_ref(),
            &stack.declared_nodes(),
            &built.observation,
        );
    }
    match invocation.global.output {
        Format::Text => invocation.printer.out(&preview.text(
            Paint {
                on: invocation.printer.color(),
            },
            invocation.layout.showing_all(args.explain),
        ))?,
        Format::Junit => invocation.printer.junit(&crate::output::junit::report(&[
            crate::output::junit::Suite::Read(&preview, preview.observed_at()),
        ]))?,
        f @ (Format::Json | Format::Yaml) => {
            invocation
                .printer
                .observed(f, &preview, &preview.observed_at())?
        }
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
