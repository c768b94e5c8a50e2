//! kubectl-nestor: reads the real state of a Kubernetes stack and prints what is really
//! missing, read-only. `ARCHITECTURE.md` at the repository root is the map.
//!
//! The modules are layers, listed from the top: a module uses only the ones below it
//! (`tests/architecture.rs` fails the build otherwise).
//!
//! - `cli`: argv to exit code (clap, dispatch).
//! - `cmd`: one file per subcommand, orchestration only; `cmd::context` is the validated
//!   configuration every command starts from.
//! - `session`: the one target policy; every command's pinned kubectl and reads.
//! - `target`: which kubeconfig a command reads and why.
//! - `read`: everything that touches the outside: `read::exec` (the only spawner, behind
//!   the allowlist), kubectl, the proxy and its HTTP client, limactl, ssh.
//! - `stack`: the operator's files: topology, schema, in-place edit, Ansible inventory.
//! - `output`: text, JSON and YAML rendering, the report, prompts.
//! - `model`: pure data and decisions: observations and their parsers, the catalog, layer
//!   states, the plan, the snapshot format.
//! - base: `error`, `env` (the captured process environment), `fs` (atomic writes), `pool` (the one bounded worker pool),
//!   `shell` (quoting), `bounded` (size and depth limits of input files), `redact`
//!   (credentials out of any text), `signals` (nothing left behind by a signal), `suggest`, `clock`, `duration` (the one duration parser and formatter), `usage` (nestor's own CPU and memory), `term` (terminal safety, the colour switch).

pub mod cli;
pub(crate) mod cmd;
pub(crate) mod session;
pub mod target;

pub mod read;

pub mod stack;

pub mod output;

pub mod model;

pub(crate) mod bounded;
pub(crate) mod clock;
pub(crate) mod duration;
pub mod env;
pub mod error;
pub(crate) mod fs;
pub(crate) mod pool;
pub(crate) mod redact;
pub mod shell;
pub mod signals;
pub(crate) mod suggest;
pub(crate) mod term;
pub(crate) mod usage;
