//! Every document kind `kubectl nestor schema` lists, produced by the command that writes
//! it and compared whole with a golden file (issue 30 item 4): a field renamed, dropped or
//! added in any `nestor/v1` document shows here as a line diff, not only as a schema error.
//! The golden files live in `tests/cli/golden/documents/KIND.json`; after a deliberate
//! change, `SNAPSHOTS=overwrite cargo test --test cli document_kinds::` rewrites them.

use crate::harness::{golden, stable};
use crate::support::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

const ENDPOINT: &str = "https://10.67.2.11:6443";

fn golden_file(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/cli/golden/documents/{kind}.json"))
}

/// The kinds `kubectl nestor schema` lists (one per line), in its order.
fn schema_kinds(bed: &Bed) -> Vec<String> {
    let out = bed.cmd().args(["schema"]).run();
    out.code(0);
    stdout_of(&out).lines().map(str::to_string).collect()
}

/// `text` of a run that must write a `kind` document: valid JSON of that kind, checked
/// against its schema, with the run's variable parts (temp dir, times, the build's commit,
/// the platform)
/// replaced by placeholders.
fn document(bed: &Bed, kind: &str, text: &str) -> String {
    let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{kind}: {e}\n{text}"));
    assert_eq!(v["kind"], kind, "{v}");
    crate::doc_schema::check(&v);
    let mut text = text.to_string();
    // The build's commit and the machine's platform (the macOS job runs this test too).
    for (field, placeholder) in [("commit", "COMMIT"), ("platform", "OS/ARCH")] {
        if let Some(value) = v[field].as_str().filter(|s| !s.is_empty()) {
            text = text.replace(&format!("\"{value}\""), &format!("\"{placeholder}\""));
        }
    }
    let text = after_each_word(&stable(&bed.redact(&text)), "\"elapsedMs\": ", "#");
    ages(&text)
}

/// Each run of digits right after `marker` replaced by `with` (a count the clock decides).
fn after_each_word(text: &str, marker: &str, with: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(marker) {
        let (head, tail) = rest.split_at(at + marker.len());
        out.push_str(head);
        let digits = tail.len() - tail.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        out.push_str(if digits > 0 { with } else { "" });
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

/// An age in seconds (`checked 46s ago`) as `#s ago`: the fixture's time is fixed, the
/// run's is not, so the seconds move from run to run; ages in minutes or more stay.
fn ages(text: &str) -> String {
    let pieces: Vec<&str> = text.split("s ago").collect();
    let last = pieces.len() - 1;
    let mut out = String::new();
    for (i, piece) in pieces.iter().enumerate() {
        let kept = piece.trim_end_matches(|c: char| c.is_ascii_digit());
        if i < last && kept.len() < piece.len() {
            out.push_str(kept);
            out.push('#');
        } else {
            out.push_str(piece);
        }
        if i < last {
            out.push_str("s ago");
        }
    }
    out
}

/// One command per kind, each run on the prod dirqual bed (the replay cluster behind the
/// real proxy path) or on files it wrote; every kind of the schema list must have one.
#[test]
fn every_document_kind_matches_its_golden_file() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let saved = bed.tmp.path().join("saved.json");
    let saved_arg = saved.display().to_string();
    let save = bed
        .cmd()
        .args(["discover", "--no-input", "--save", &saved_arg, "-o", "json"])
        .run();
    save.code(0);
    let snapshot = std::fs::read_to_string(&saved).expect("the saved snapshot");
    let runs: Vec<(&str, Vec<&str>, i32)> = vec![
        ("Catalog", vec!["catalog", "list", "-o", "json"], 0),
        (
            "CatalogLayer",
            vec!["catalog", "show", "ceph", "-o", "json"],
            0,
        ),
        (
            "Diff",
            vec!["diff", &saved_arg, &saved_arg, "-o", "json"],
            0,
        ),
        ("Discovery", vec!["discover", "--no-input", "-o", "json"], 0),
        ("Error", vec!["--stack", "nope", "preview", "-o", "json"], 1),
        (
            "Gate",
            vec![
                "gate",
                "drain",
                "dirqual4",
                "--no-ssh",
                "--no-input",
                "-o",
                "json",
            ],
            2,
        ),
        ("GateRules", vec!["gate", "rules", "-o", "json"], 0),
        (
            "Preview",
            vec!["preview", "--no-input", "--no-ssh", "-o", "json"],
            0,
        ),
        (
            "PreviewList",
            vec!["preview", "--all", "--no-input", "--no-ssh", "-o", "json"],
            0,
        ),
        ("Stack", vec!["stack", "show", "-o", "json"], 0),
        ("StackCurrent", vec!["stack", "current", "-o", "json"], 0),
        ("StackList", vec!["stack", "list", "-o", "json"], 0),
        ("Target", vec!["target", "--no-input", "-o", "json"], 0),
        ("Version", vec!["version", "-o", "json"], 0),
        (
            "Wait",
            vec![
                "wait",
                "k8s",
                "--for",
                "present",
                "--timeout",
                "5s",
                "--no-input",
                "-o",
                "json",
            ],
            0,
        ),
    ];
    let mut covered: Vec<String> = vec!["Snapshot".to_string()];
    golden(
        &golden_file("Snapshot"),
        &document(&bed, "Snapshot", &snapshot),
    );
    for (kind, args, code) in runs {
        let out = bed.cmd().args(&args).run();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{kind}: {args:?}\n{}",
            stderr_of(&out)
        );
        golden(&golden_file(kind), &document(&bed, kind, &stdout_of(&out)));
        covered.push(kind.to_string());
    }
    covered.sort();
    let mut kinds = schema_kinds(&bed);
    kinds.sort();
    assert_eq!(covered, kinds, "a document kind without its golden file");
}
