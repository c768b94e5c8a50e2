//! The sections of the README and of `docs/output.md` that show nestor's output, run: each
//! `console` block's `$ kubectl nestor ARGS` line is run (the built binary, from the
//! repository root, no colour) and the lines of the block must appear in its stdout in that
//! order, exactly — `...` alone stands for any lines, `...` inside a line for any text.

use snapbox::str;

use crate::common_readme::{fenced, section};
use crate::harness::text_snap;
use crate::support::*;

/// The sections whose `console` blocks are run: (file, heading).
const SECTIONS: [(&str, &str); 3] = [
    ("README.md", "## Reading the output"),
    ("docs/output.md", "## Reading the output"),
    ("docs/output.md", "## JSON contract for scripts"),
];

/// The `console` blocks of the sections [`SECTIONS`].
fn blocks() -> Vec<Vec<String>> {
    SECTIONS
        .iter()
        .flat_map(|(file, heading)| {
            let blocks = fenced(&section(file, heading), "console");
            assert!(
                !blocks.is_empty(),
                "no console block under `{heading}` in {file}"
            );
            blocks
        })
        .collect()
}

/// `want` matches `line`: equal, or its `...`-separated parts in order.
fn matches(want: &str, line: &str) -> bool {
    if !want.contains("...") {
        return want == line;
    }
    let parts: Vec<&str> = want.split("...").collect();
    let mut rest = line;
    for (i, p) in parts.iter().enumerate() {
        let at = if i == 0 {
            rest.starts_with(p).then_some(0)
        } else {
            rest.find(p)
        };
        match at {
            Some(at) => rest = &rest[at + p.len()..],
            None => return false,
        }
    }
    parts
        .last()
        .is_none_or(|p| p.is_empty() || line.ends_with(p))
}

/// Every line of `want` in `got`, in order; `...` lines skip any number of lines, and
/// without one the lines must follow each other.
fn assert_shown(want: &[String], got: &str, command: &str) {
    let got: Vec<&str> = got.lines().collect();
    let mut at = 0;
    let mut gap = true;
    for w in want {
        if w == "..." {
            gap = true;
            continue;
        }
        let found = if gap {
            (at..got.len()).find(|&i| matches(w, got[i]))
        } else {
            (at < got.len() && matches(w, got[at])).then_some(at)
        };
        match found {
            Some(i) => at = i + 1,
            None => panic!(
                "block of `{command}`: `{w}` not shown (after line {at}):\n{}",
                got.join("\n")
            ),
        }
        gap = false;
    }
}

#[test]
fn readme_output_examples_are_what_nestor_prints() {
    let blocks = blocks();
    assert!(
        blocks.len() >= 6,
        "layout, --explain, junit, Error, schema, schema KIND: {blocks:?}"
    );
    for shown in ["--explain", "-o junit", "schema Preview"] {
        assert!(
            blocks.iter().any(|b| b[0].contains(shown)),
            "no example of `{shown}` in {SECTIONS:?}"
        );
    }
    let bed = Bed::new();
    for block in &blocks {
        let command = block.first().expect("a command line");
        let args: Vec<&str> = command
            .strip_prefix("$ kubectl nestor ")
            .unwrap_or_else(|| panic!("a block starts with `$ kubectl nestor`: {command}"))
            .split_whitespace()
            .collect();
        let out = bed
            .cmd()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(&args)
            .env("NO_COLOR", "1")
            .env_remove("COLUMNS")
            .run();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{}",
            stderr_of(&out)
        );
        assert_shown(&block[1..], &stdout_of(&out), command);
    }
    assert!(
        bed.calls("kubectl").is_empty(),
        "the examples read no cluster"
    );
}

#[test]
fn the_readme_matcher_can_fail() {
    assert!(matches("a...c", "abc") && !matches("a...c", "abd"));
    assert!(matches(
        "kubeconfig .../x does not exist",
        "kubeconfig /t/h/x does not exist"
    ));
    let lines = ["a".to_string(), "b".to_string()];
    assert!(std::panic::catch_unwind(|| assert_shown(&lines, "b\na\n", "x")).is_err());
    assert_shown(&lines, "a\nb\n", "x");
}

/// Colour (SPEC §8, §16): decided by anstream for stdout — `CLICOLOR_FORCE` paints even a
/// pipe, `NO_COLOR` and `--no-color` win over it, a pipe alone is never painted.
#[test]
fn colour_follows_clicolor_force_and_no_color() {
    let bed = Bed::new();
    let run = |env: &[(&str, &str)], extra: &[&str]| {
        let mut c = bed.cmd();
        c.current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([
                "preview",
                "--stack",
                "examples/demo/stacks/dirqual.yaml",
                "--snapshot",
                "examples/demo/dirqual.snapshot.json",
            ])
            .args(extra)
            .env_remove("CLICOLOR_FORCE")
            .env_remove("CLICOLOR");
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.run();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        stdout_of(&out)
    };
    // Forced: the states painted (`\u{1b}[32mpresent\u{1b}[0m`), the rest the same.
    let forced = run(&[("CLICOLOR_FORCE", "1")], &[]);
    text_snap(
        &forced,
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:6443 (context kubernetes-admin@dirqual)
kubeconfig  ~/.kube/dirqual.config (rule: snapshot)

[1mPLAN: 2 to install[0m
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml

[1mREAL (replayed from snapshot examples/demo/dirqual.snapshot.json, taken[0m
[1m2026-12-02T13:13:13Z; not live)[0m
  nodes                dirqual1..4, 4/4 Ready
  k8s         [32mpresent[0m  5 checks hold
  cni         [32mpresent[0m  5 checks hold
  ceph        [32mpresent[0m  9 checks hold
  storage     [32mpresent[0m  3 checks hold
  monitoring  [32mpresent[0m  6 checks hold
  gitops      [32mpresent[0m  9 checks hold
  registry    [32mpresent[0m  2 checks hold
  dataops     [32mpresent[0m  7 checks hold
  datalake    [31mabsent[0m   not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs       [31mabsent[0m   not found
    ✗ API group cert-manager.io not served

"#]],
    );
    // A pipe is not painted: the same text without one escape.
    let plain = run(&[], &[]);
    text_snap(
        &plain,
        str![[r#"
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
    assert_eq!(
        run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], &[]),
        plain
    );
    assert_eq!(run(&[("CLICOLOR_FORCE", "1")], &["--no-color"]), plain);
}
