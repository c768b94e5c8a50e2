//! The command line, as clap reads it. `///` comments are the `--help` text. Validation and
//! resolution happen afterwards in `cmd::context` (two-step parsing, as in `just` and ripgrep).
//!
//! kubectl passes no global flag to a plugin: write `kubectl nestor --kubeconfig F preview`,
//! not `kubectl --kubeconfig F nestor preview`.

use clap::{Parser, Subcommand};

use crate::cmd;
use crate::cmd::context::Global;

pub mod run;

#[derive(Debug, Parser)]
#[command(
    name = "kubectl-nestor",
    version,
    about = "Tell the truth about a Kubernetes stack: what is really there, read live, and what is really missing.",
    long_about = "Tell the truth about a Kubernetes stack: what is really there, read live, and what is really missing.\n\nRun as a kubectl plugin: `kubectl nestor ...`. Flags go after `nestor`. nestor never changes a cluster: it runs kubectl, limactl and ssh through a read-only allowlist.",
    after_help = "Exit codes: 0 success, 1 error, 2 work to do (--detailed-exitcode), 3 target refused, 4 cluster unreachable, 5 nothing to do but something undecided (--detailed-exitcode)."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The real state of the stack, read live, and the plan of what is really missing.
    Preview(cmd::preview::Args),
    /// The live cluster's inventory: nodes, namespaces, storage classes, API groups, layers detected.
    Discover(cmd::discover::Args),
    /// Resolve and verify the target: rule, kubeconfig, context, endpoint, reachability, nodes.
    Target,
    /// List, show and use stack topologies.
    #[command(subcommand)]
    Stack(cmd::stack::StackCommand),
    /// Repatriate a prod stack's kubeconfig from its control-plane host.
    #[command(subcommand)]
    Kubeconfig(cmd::fetch::KubeconfigCommand),
    /// Print a shell completion script.
    Completion {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the version.
    Version,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
