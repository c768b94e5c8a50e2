//! The command line, as clap reads it. `///` comments are the `--help` text. Validation and
//! resolution happen afterwards in `cmd::context` (two-step parsing, as in `just` and ripgrep).
//!
//! kubectl passes no global flag to a plugin: write `kubectl nestor --kubeconfig F preview`,
//! not `kubectl --kubeconfig F nestor preview`.
//!
//! Files: this one, the clap tree (`Cli`, `Command`); `run.rs`, argv to exit code (the
//! `__complete` protocol answered before clap parses, errors printed as an `error:` line and a
//! `hint:` line, `-v`'s usage report, the dispatch); `usage.rs`, clap's usage errors in that
//! same two-line form, exit 1.

use std::ffi::OsStr;
use std::path::Path;

use clap::{Parser, Subcommand};

use crate::cmd;
use crate::cmd::context::Global;

pub mod run;
mod usage;

#[derive(Debug, Parser)]
#[command(
    name = "kubectl-nestor",
    version,
    about = "Tell the truth about a Kubernetes stack: what is really there, read live, and what is really missing.",
    long_about = "Tell the truth about a Kubernetes stack: what is really there, read live, and what is really missing.\n\nRun as a kubectl plugin: `kubectl nestor ...`. Flags go after `nestor`. nestor never changes a cluster: it runs kubectl, limactl and ssh through a read-only allowlist.",
    after_help = ROOT_EXAMPLES
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The real state of the stack, read live, and the plan of what is really missing; `--all`: every stack.
    #[command(after_help = cmd::preview::EXAMPLES)]
    Preview(cmd::preview::Args),
    /// Poll the real state until every named layer is healthy (or present); exit 5 on timeout.
    #[command(long_about = cmd::wait::LONG_ABOUT, after_help = cmd::wait::EXAMPLES)]
    Wait(cmd::wait::Args),
    /// What changed between two observations: nodes and layers (snapshot files, or `-` for a live read).
    #[command(long_about = cmd::diff::LONG_ABOUT, after_help = cmd::diff::EXAMPLES)]
    Diff(cmd::diff::Args),
    /// The live cluster's inventory: nodes, namespaces, storage classes, API groups, layers detected.
    #[command(after_help = cmd::discover::EXAMPLES)]
    Discover(cmd::discover::Args),
    /// Resolve and verify the target: rule, kubeconfig, context, endpoint, reachability, nodes.
    #[command(after_help = cmd::target::EXAMPLES)]
    Target,
    /// List, show and use stack topologies.
    #[command(subcommand, after_help = cmd::stack::EXAMPLES)]
    Stack(cmd::stack::StackCommand),
    /// What each layer detects and checks, and why: the stack's catalog (built-in plus overrides).
    #[command(subcommand, after_help = cmd::catalog::EXAMPLES)]
    Catalog(cmd::catalog::CatalogCommand),
    /// Before you touch it: may I drain a node or upgrade now? (`gate rules`: the rules and their sources).
    #[command(subcommand, after_help = cmd::gate::EXAMPLES)]
    Gate(cmd::gate::GateCommand),
    /// Repatriate a prod stack's kubeconfig from its control-plane host.
    #[command(subcommand, after_help = cmd::fetch::KUBECONFIG_EXAMPLES)]
    Kubeconfig(cmd::fetch::KubeconfigCommand),
    /// Print a shell completion script.
    #[command(after_help = COMPLETION_EXAMPLES)]
    Completion {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// The JSON Schema of a nestor/v1 document kind; no KIND: list the kinds.
    #[command(after_help = cmd::schema::EXAMPLES)]
    Schema(cmd::schema::Args),
    /// Print the version.
    #[command(after_help = cmd::version::EXAMPLES)]
    Version,
}

const ROOT_EXAMPLES: &str = "\
Examples:
  # What the active stack really lacks
  kubectl nestor preview

  # Point nestor at your own cluster: write its stack file (stacks/lab.yaml), make it active
  kubectl nestor discover --kubeconfig ~/.kube/lab.config --write
  kubectl nestor stack select lab

Exit codes: 0 success, 1 error, 2 work to do (--detailed-exitcode), 3 target refused, 4 cluster unreachable, 5 nothing to do but something undecided (--detailed-exitcode), or `wait` timed out.";

const COMPLETION_EXAMPLES: &str = "\
Examples:
  # Complete kubectl-nestor in this bash session
  source <(kubectl-nestor completion bash)

  # zsh, for every session
  kubectl-nestor completion zsh > \"${fpath[1]}/_kubectl-nestor\"";

/// The program name in usage lines: `kubectl nestor` when run as a kubectl plugin, else
/// `kubectl-nestor`. kubectl passes no flag that says so; what it does leave: it runs the
/// plugin by the absolute path it found on PATH (a person typing the name gives a bare
/// `kubectl-nestor`), and kubectl releases with kubernetes/kubernetes#138694 set
/// `KUBECTL_PATH`. (`KUBECTL_PLUGINS_CALLER` belonged to the plugin mechanism kubectl 1.12
/// replaced; no kubectl sets it any more.)
pub fn display_name(argv0: Option<&OsStr>, kubectl_path: Option<&OsStr>) -> &'static str {
    let by_kubectl = kubectl_path.is_some_and(|p| !p.is_empty())
        || argv0.is_some_and(|a| Path::new(a).is_absolute());
    if by_kubectl {
        "kubectl nestor"
    } else {
        "kubectl-nestor"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_name_says_kubectl_nestor_when_kubectl_ran_it() {
        let os = |s: &'static str| Some(OsStr::new(s));
        assert_eq!(
            display_name(os("/usr/local/bin/kubectl-nestor"), None),
            "kubectl nestor"
        );
        assert_eq!(display_name(os("kubectl-nestor"), None), "kubectl-nestor");
        assert_eq!(
            display_name(os("./target/release/kubectl-nestor"), None),
            "kubectl-nestor"
        );
        assert_eq!(
            display_name(os("kubectl-nestor"), os("/usr/bin/kubectl")),
            "kubectl nestor"
        );
        assert_eq!(display_name(os("kubectl-nestor"), os("")), "kubectl-nestor");
        assert_eq!(display_name(None, None), "kubectl-nestor");
    }

    #[test]
    fn cli_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
