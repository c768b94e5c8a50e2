//! The crate-rebuilding tier: the README's first command, as written (`cargo run`
//! included, through `sh`), in a fresh copy of the repository — the files git tracks,
//! nothing built — so its own build (about two minutes on 2 cores) is no part of the `cli`
//! binary. Tier 2 (docs/testing.md "Tiers"): scripts/test.sh, so `.ci/run`, runs it;
//! `cargo test --test readme_build -- --ignored` alone.

// Only what this one test uses of the shared bed is called.
#[path = "../common/bed.rs"]
mod common_bed;
#[path = "../common/readme.rs"]
mod common_readme;
#[allow(dead_code)]
#[path = "../common/signals.rs"]
mod common_signals;
#[path = "../common/schema.rs"]
mod doc_schema;
#[path = "../common/run.rs"]
mod harness;
#[allow(unused_imports)]
#[path = "../cli/support.rs"]
mod support;

use std::path::PathBuf;
use std::process::{Command, Stdio};

use common_readme::{fresh_copy, try_it};
use support::Bed;

/// The README's first command, as written, in a fresh copy: `cargo run` must pick the
/// plugin among the two binaries (`default-run`), and the demo needs no cluster: a stub
/// kubectl first on PATH records that it is never called.
#[test]
#[ignore = "tier 2, builds the crate: bash scripts/test.sh runs it (-- --include-ignored)"]
fn the_readme_first_command_runs_as_written_in_a_fresh_copy() {
    let lines = try_it();
    let first = &lines[0];
    assert!(first.starts_with("cargo run "), "{first}");
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme-fresh");
    let copy = scratch.join("kubectl-nestor");
    if fresh_copy(&copy).is_none() {
        eprintln!(
            "SKIP the_readme_first_command_runs_as_written_in_a_fresh_copy: not a git work tree"
        );
        return;
    }
    assert!(!copy.join("target").exists());
    let bed = Bed::new();
    let mut c = Command::new("/bin/sh");
    c.args(["-c", first])
        .current_dir(&copy)
        .stdin(Stdio::null())
        .env(
            "PATH",
            format!(
                "{}:{}",
                bed.bin.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        );
    // Nothing of this test run leaks in: cargo's variables for the test binary, the
    // developer's stack and kubeconfig.
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if (k.starts_with("CARGO_") && k != "CARGO_HOME")
            || k.starts_with("NESTOR_")
            || k == "KUBECONFIG"
        {
            c.env_remove(&*k);
        }
    }
    // The copy builds in a target dir of its own (the suite's binaries stay untouched),
    // from the registry cache this machine has.
    c.env("CARGO_TARGET_DIR", scratch.join("target"))
        .env("CARGO_NET_OFFLINE", "true");
    let out = c.output().expect("sh");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert_eq!(out.status.code(), Some(0), "{first}\n{stderr}");
    // The demo's whole report: `PLAN: 2 to install`, REAL replayed from
    // examples/demo/dirqual.snapshot.json, dirqual1..4, 4/4 Ready, no VM (a prod stack).
    harness::text_snap(
        &stdout,
        snapbox::str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:6443 (context kubernetes-admin@dirqual)
kubeconfig  ~/.kube/dirqual.config (rule: snapshot)

PLAN: 2 to install
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml

REAL (replayed from snapshot examples/demo/dirqual.snapshot.json, taken
2026-12-02T13:13:13Z; not live)
  nodes                dirqual1..4, 4/4 Ready
  k8s         present  5 checks hold
  cni         present  5 checks hold
  ceph        present  9 checks hold
  storage     present  3 checks hold
  monitoring  present  6 checks hold
  gitops      present  9 checks hold
  registry    present  2 checks hold
  dataops     present  7 checks hold
  datalake    absent   not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs       absent   not found
    ✗ API group cert-manager.io not served

"#]],
    );
    assert!(
        bed.calls("kubectl").is_empty(),
        "{:?}",
        bed.calls("kubectl")
    );
}
