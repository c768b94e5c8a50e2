//! The command line, as clap reads it. `///` comments are the `--help` text. Validation and
//! resolution happen afterwards in `config` (two-step parsing, as in `just` and ripgrep).
//!
//! kubectl passes no global flag to a plugin: write `kubectl nestor --kubeconfig F preview`,
//! not `kubectl --kubeconfig F nestor preview`.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

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

#[derive(Debug, Clone, Args)]
pub struct Global {
    /// Stack for this command: a name in the stacks directory or a path to a topology file (default: the active stack, stacks/current.yaml).
    #[arg(long, global = true, value_name = "NAME|PATH")]
    pub stack: Option<String>,

    /// Stacks directory (default: $NESTOR_STACKS_DIR, else the first stacks/ walking up from here).
    #[arg(long, global = true, value_name = "DIR")]
    pub stacks_dir: Option<PathBuf>,

    /// Kubeconfig file of the target: overrides KUBECONFIG and the topology's kubeconfig.
    #[arg(long, global = true, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// Output format: human text, or the versioned nestor/v1 document as JSON or YAML.
    #[arg(short = 'o', long, global = true, value_enum, default_value_t = Format::Text)]
    pub output: Format,

    /// Never prompt; a prod target is then confirmed by comparing its endpoint with the topology's.
    #[arg(long, global = true)]
    pub no_input: bool,

    /// No colour, even on a terminal (NO_COLOR is honoured too).
    #[arg(long, global = true)]
    pub no_color: bool,

    /// Bound for each request and each subprocess, e.g. 10s, 500ms, 1m.
    #[arg(long, global = true, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub request_timeout: Duration,

    /// Print each subprocess command line on stderr, secrets redacted.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Yaml,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The real state of the stack, read live, and the plan of what is really missing.
    Preview {
        /// Exit 2 when there is something to install, repair, create or start; 5 when there is nothing to do but something nestor could not tell (undecided); 0 only when nothing is to do and everything is decided.
        #[arg(long)]
        detailed_exitcode: bool,
        /// Replay an observation saved by `discover --save FILE` instead of reading live (no kubectl call).
        #[arg(long, value_name = "FILE")]
        snapshot: Option<PathBuf>,
    },
    /// The live cluster's inventory: nodes, namespaces, storage classes, API groups, layers detected.
    Discover {
        /// Save what was read as a snapshot for `preview --snapshot FILE`.
        #[arg(long, value_name = "FILE")]
        save: Option<PathBuf>,
        /// Print a stack YAML skeleton of what was found instead of the inventory.
        #[arg(long)]
        emit_topology: bool,
    },
    /// Resolve and verify the target: rule, kubeconfig, context, endpoint, reachability, nodes.
    Target,
    /// List, show and use stack topologies.
    #[command(subcommand)]
    Stack(StackCommand),
    /// Repatriate a prod stack's kubeconfig from its control-plane host.
    #[command(subcommand)]
    Kubeconfig(KubeconfigCommand),
    /// Print a shell completion script.
    Completion {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the version.
    Version,
}

#[derive(Debug, Subcommand)]
pub enum StackCommand {
    /// The stacks with their kind and declared kubeconfig; `*` marks the active one.
    List,
    /// One parsed topology (default: the active stack).
    Show {
        /// Stack name (default: --stack, else the active stack).
        name: Option<String>,
    },
    /// Print `export KUBECONFIG='...'` for the stack, for `eval "$(kubectl nestor stack env)"`.
    Env {
        /// Stack name (default: --stack, else the active stack).
        name: Option<String>,
    },
    /// Make NAME the active stack (stacks/current.yaml); for prod, offer to declare and fetch its kubeconfig.
    #[command(
        long_about = "Make NAME the active stack: stacks/current.yaml becomes a symlink to NAME.yaml, switched atomically.\n\nFor a prod stack without `kubeconfig:` it asks `Add \"kubeconfig: ~/.kube/NAME.config\" to FILE? [y/N]` and adds that one line, leaving every other byte of the file as it was. When the declared kubeconfig is absent or its cluster unreachable it offers `kubeconfig fetch`. With --no-input (or without a terminal) it never writes the topology and never contacts a cluster: it prints the line to add."
    )]
    Select {
        /// Stack name: stacks/NAME.yaml.
        name: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum KubeconfigCommand {
    /// ssh to the control-plane host of the inventory, read admin_conf and write the stack's declared kubeconfig (0600).
    #[command(
        long_about = "Repatriate the kubeconfig of a prod stack (--stack, else the active stack).\n\nssh to the first host of the inventory's control-plane group runs exactly `[-p PORT] [-i KEY] -o ConnectTimeout=N [-o BatchMode=yes] [USER@]HOST sudo -n cat ADMIN_CONF` (plain `cat` as root); host-key checking is never weakened. The bytes must be a kubeconfig with a cluster, a user and a resolvable current-context. They are written to the topology's `kubeconfig:` with mode 0600, atomically, never inside a git work tree. A different existing file is replaced only after an interactive yes, and kept as FILE.bak-YYYYMMDDTHHMMSSZ. Then `kubectl get nodes` verifies the new file."
    )]
    Fetch,
}

/// `10s`, `500ms`, `2m`, or a bare number of seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a duration (e.g. 10s, 500ms, 1m)"))?;
    let secs = match unit {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "m" => value * 60.0,
        _ => return Err(format!("`{s}`: unit must be ms, s or m")),
    };
    if !(secs > 0.0 && secs <= 3600.0) {
        return Err(format!("`{s}` must be more than 0 and at most 1h"));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("5h").is_err());
    }

    #[test]
    fn cli_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
