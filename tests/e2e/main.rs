//! End-to-end tests: the REAL kubectl against the replay API server (`crates/replay`), the
//! plugin run as kubectl's own plugin discovery runs it for `kubectl nestor ...` (`discovery`
//! proves the two are the same; the README's lines go through kubectl as written; `readpath`
//! also runs the binary with its own variables, to compare its two read paths and watch its
//! proxy). The one integration binary with real components, beside `tests/cli` (stub tools):
//! see `support`.

#[path = "../common/bed.rs"]
mod common_bed;
#[path = "../common/readme.rs"]
mod common_readme;
#[path = "../common/sampled.rs"]
mod common_sampled;
#[path = "../common/signals.rs"]
mod common_signals;
#[path = "../common/sshd.rs"]
mod common_sshd;
#[path = "../common/schema.rs"]
mod doc_schema;
#[path = "../common/run.rs"]
mod harness;
mod support;
mod trap;

mod acknowledged;
mod answers;
mod api_health;
mod bounds;
mod claims;
mod context;
mod diff;
mod discovery;
mod documents;
mod drifts;
mod encryption;
mod events;
mod events_cluster;
mod explain;
mod failures;
mod fleet;
mod gate;
mod gate_components;
mod gate_eviction;
mod gate_explain;
mod gate_hostile;
mod gate_hosts;
mod gate_layers;
mod gate_osd;
mod gate_upgrade;
mod gateway;
mod golden_text;
mod health;
mod integrity;
mod inventory_none;
mod isolation;
mod junit;
mod nodes;
mod placement;
mod quickstart;
mod readonly;
mod readpath;
mod rounds;
mod scenarios;
mod truth;
mod usage_errors;
mod versions;
mod wait;
mod webhooks;
mod widths;
