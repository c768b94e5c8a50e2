//! kubectl-nestor: reads the real state of a Kubernetes stack and prints what is really missing.
//!
//! Data flow, one module per step:
//! `topology` (stack files) → `target` (which cluster, which kubeconfig) → `exec` (the only
//! code that spawns processes, behind a read-only allowlist) → `probe` (pure parsers of
//! kubectl/limactl JSON) → `state` (one state per layer) → `plan` (what is missing) →
//! `render` (text, JSON, YAML). `observe` runs the reads: through one `kubectl proxy`
//! (`proxy`, `http`, `apiread`) or one kubectl per read. `cli` and `config` turn argv into a validated context;
//! `cmd` holds one file per subcommand; `run` maps the result to an exit code.

pub mod apiread;
pub mod catalog;
pub mod cli;
pub mod clock;
pub mod cmd;
pub mod config;
pub mod error;
pub mod exec;
pub mod fetch;
pub mod http;
pub mod inventory;
pub mod kubectl;
pub mod layers;
pub mod observe;
pub mod paths;
pub mod plan;
pub mod probe;
pub mod prompt;
pub mod proxy;
pub mod render;
pub mod report;
pub mod run;
pub mod snapshot;
pub mod state;
pub mod suggest;
pub mod target;
pub mod topology;
