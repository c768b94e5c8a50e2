//! One file per subcommand. Each returns the exit code it decided, or an error.
//!
//! A command holds its arguments, validates them, makes one call into the session with its
//! ground and renders what comes back; it parses no kubeconfig or catalog, spawns nothing and
//! composes no read. `context.rs`: the global flags and the `Invocation` (stacks directory and
//! stack choice, the `session::Ground`, the prompt policy, colour and width). Then one file per
//! subcommand: `preview.rs` (`explain.rs`: its `--explain`), `discover/` (`text.rs`: its human
//! output; `write.rs`: `--write`), `target.rs`, `stack.rs` (list, show, env and the dispatcher),
//! `current.rs`, `select.rs`, `fetch.rs` (`kubeconfig fetch`), `catalog.rs`, `gate.rs`
//! (`gate_explain.rs`: its `--explain`), `version.rs`, `schema.rs`, `fleet.rs` (`preview
//! --all`, one `observe::preview` per stack on bounded threads, `Prompt::Never`), `wait/`
//! (`progress.rs`: the live lines), `diff.rs`, `completion.rs` (the shell scripts) and
//! `complete.rs` (the completion engine behind `__complete`).

pub mod catalog;
pub mod complete;
pub mod completion;
pub mod context;
pub mod current;
pub mod diff;
pub mod discover;
pub mod explain;
pub mod fetch;
pub mod fleet;
pub mod gate;
pub mod gate_explain;
pub mod preview;
pub mod schema;
pub mod select;
pub mod stack;
pub mod target;
pub mod version;
pub mod wait;
