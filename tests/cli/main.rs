//! The one integration-test binary: CLI flows with stub tools on PATH (see `support`).

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

mod bounded;
mod budget;
mod budget_kept;
mod budget_reads;
mod catalog;
mod catalog_rule;
mod completion;
mod completion_gate;
mod confirmed_by;
mod contract;
mod current;
mod document_kinds;
mod error_paths;
mod fanout;
mod fetch;
mod fetch_admin_conf;
mod foundation;
mod gate;
mod harness_checks;
mod help;
mod hosts;
mod krew;
mod laptop;
mod lima;
mod lima_fleet;
mod lima_nodes;
mod packaging;
mod preview;
mod rbac;
mod readme;
mod readme_output;
mod schema;
mod select;
mod signals;
mod snapshot_checks;
mod sshd;
mod sshd_bed;
mod test_counts;
mod usage_errors;
mod yaml11;
