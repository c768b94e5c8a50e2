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

fn text_golden(kind: &str, columns: usize) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/cli/golden/text/{kind}.{columns}.txt"))
}

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
    let runs = commands(&saved_arg);
    let mut covered: Vec<String> = vec!["Snapshot".to_string()];
    golden(
        &golden_file("Snapshot"),
        &document(&bed, "Snapshot", &snapshot),
    );
    for (kind, args, code) in runs {
        let out = bed.cmd().args(&args).args(["-o", "json"]).run();
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

/// One command per document kind (without `-o json`), with its exit code: each run on the
/// prod dirqual bed (the replay cluster behind the real proxy path) or on the snapshot
/// `saved` it wrote. `Snapshot` is the saved file itself.
fn commands(saved: &str) -> Vec<(&'static str, Vec<&str>, i32)> {
    vec![
        ("Catalog", vec!["catalog", "list"], 0),
        ("CatalogLayer", vec!["catalog", "show", "ceph"], 0),
        ("Diff", vec!["diff", saved, saved], 0),
        ("Discovery", vec!["discover", "--no-input"], 0),
        ("Error", vec!["--stack", "nope", "preview"], 1),
        (
            "Gate",
            vec!["gate", "drain", "dirqual4", "--no-ssh", "--no-input"],
            5,
        ),
        ("GateRules", vec!["gate", "rules"], 0),
        ("Preview", vec!["preview", "--no-input", "--no-ssh"], 0),
        (
            "PreviewList",
            vec!["preview", "--all", "--no-input", "--no-ssh"],
            0,
        ),
        ("Stack", vec!["stack", "show"], 0),
        ("StackCurrent", vec!["stack", "current"], 0),
        ("StackList", vec!["stack", "list"], 0),
        ("Target", vec!["target", "--no-input"], 0),
        ("Version", vec!["version"], 0),
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
            ],
            0,
        ),
    ]
}

/// The text view of every command above (what a person reads; stdout, then stderr) at 80
/// and at 200 columns (`COLUMNS`, as a pipe into `less` or a CI log gets it): a line that
/// wraps badly, a column that moves, or a word changed shows as a line diff.
#[test]
fn every_text_view_at_80_and_200_columns_matches_its_golden_file() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let saved = bed.tmp.path().join("saved.json");
    let saved_arg = saved.display().to_string();
    bed.cmd()
        .args(["discover", "--no-input", "--save", &saved_arg, "-o", "json"])
        .run()
        .code(0);
    // The build's commit and platform (the text view of `version` names them; the macOS
    // job runs this test too).
    let version = bed.cmd().args(["version", "-o", "json"]).run();
    let version: Value = serde_json::from_slice(&version.stdout_bytes).expect("version -o json");
    let commit = version["commit"].as_str().unwrap_or("").to_string();
    let platform = version["platform"].as_str().unwrap_or("").to_string();
    for columns in [80, 200] {
        for (kind, args, code) in commands(&saved_arg) {
            let out = bed
                .cmd()
                .args(&args)
                .arg("--no-color")
                .env("COLUMNS", columns.to_string())
                .run();
            assert_eq!(
                out.status.code(),
                Some(code),
                "{kind} at {columns}: {args:?}\n{}",
                stderr_of(&out)
            );
            let text = format!(
                "$ kubectl nestor {}\n{}--- stderr\n{}",
                args.join(" "),
                stdout_of(&out),
                stderr_of(&out)
            );
            let mut text = text;
            for (value, placeholder) in [(&commit, "COMMIT"), (&platform, "OS/ARCH")] {
                if !value.is_empty() {
                    text = text.replace(value.as_str(), placeholder);
                }
            }
            let text = ages(&after_each_word(&stable(&bed.redact(&text)), "after ", "#"));
            golden(&text_golden(kind, columns), &text);
        }
    }
}
