//! The one integration-test binary: CLI flows with stub tools on PATH (see `support`).

#[path = "../common/signals.rs"]
mod common_signals;
#[path = "../common/schema.rs"]
mod doc_schema;
#[path = "../common/run.rs"]
mod harness;
mod support;

mod bounded;
mod budget;
mod catalog;
mod completion;
mod confirmed_by;
mod contract;
mod current;
mod fanout;
mod fetch;
mod foundation;
mod gate;
mod harness_checks;
mod help;
mod hosts;
mod krew;
mod laptop;
mod lima;
mod lima_nodes;
mod packaging;
mod preview;
mod readme;
mod readme_output;
mod schema;
mod select;
mod signals;
mod sshd;
mod usage_errors;
mod yaml11;
