//! The pure core: what was observed (`observation`, with the parsers of kubectl and limactl
//! output and the classification of failures), what the layers are (`catalog`), the one
//! state of each layer (`state`), what is missing (`plan`) and the saved form of an
//! observation (`snapshot`). No process, no network; files only where a catalog or a
//! snapshot is loaded by path.
//!
//! Also `ack.rs` (acknowledged findings), `diff.rs` (what changed between two observations)
//! and `gate/` (the gates' facts, rule table and pure evaluation).

pub mod ack;
pub mod catalog;
pub(crate) mod diff;
pub mod gate;
pub mod observation;
pub mod plan;
pub(crate) mod snapshot;
pub mod state;

/// The `apiVersion` of every document nestor writes (output and snapshots).
pub const API_VERSION: &str = "nestor/v1";
