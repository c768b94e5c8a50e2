//! The layering of `src/` is a test, not a wish (ARCHITECTURE.md, "Layers").
//!
//! Every `crate::` path in the library's source (comments aside) is an edge from the module
//! that writes it to the module it names. A module may only use modules of its own layer
//! or of a layer below it, and the modules (a layer's direct children: `read::exec`,
//! `model::catalog`, `cmd::preview`, ...) must not form a cycle. Failing here means a
//! dependency points the wrong way: move the item to the layer that owns it. The files of
//! `src/` form no import circle either (`files_form_no_import_cycle`).
//!
//! Two rules on every file of `src/` as well: it starts with a `//!` header saying why the
//! module exists, and it stays readable: at most 400 lines of production code (tests blocks
//! and test files aside) and 600 lines in all. Each rule is a function over (path, text),
//! shown to fail on made-up violations below.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers from the bottom up; the base modules are the crate's top-level files.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "base",
        &[
            "error", "env", "fs", "shell", "suggest", "clock", "duration", "usage", "bounded",
            "redact", "signals", "pool", "term",
        ],
    ),
    ("model", &["model"]),
    ("output", &["output"]),
    ("stack", &["stack"]),
    ("read", &["read"]),
    ("target", &["target"]),
    ("session", &["session"]),
    ("cmd", &["cmd"]),
    ("cli", &["cli"]),
];

fn rank(module: &str) -> Option<(usize, &'static str)> {
    let top = module.split("::").next().unwrap_or_default();
    LAYERS
        .iter()
        .enumerate()
        .find(|(_, (_, tops))| tops.contains(&top))
        .map(|(i, (name, _))| (i, *name))
}

/// The node a path belongs to: `read::exec::allowlist::check` -> `read::exec`; a base
/// module is its own node (`error::Error` -> `error`).
fn node_of(path: &[&str], known: &BTreeSet<String>) -> Option<String> {
    let first = *path.first()?;
    if LAYERS[0].1.contains(&first) {
        return Some(first.to_string());
    }
    let two = path.iter().take(2).copied().collect::<Vec<_>>().join("::");
    if known.contains(&two) {
        Some(two)
    } else if known.contains(first) {
        Some(first.to_string())
    } else {
        None
    }
}

/// The module path of a source file: `src/read/exec/mod.rs` -> `read::exec`.
fn module_of(file: &Path, src: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Source text without `//` comments (doc comments included): a doc link is not a use.
fn code_only(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            // `//` inside a string literal (a URL) is rare in paths: keep lines with a quote
            // before the `//` whole.
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path named after `crate::` (or `super::`, resolved against `module`), with `use
/// crate::{a::B, c}` groups expanded one level.
fn referenced_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let text = code;
    for (start, prefix) in [("crate::", None), ("super::", Some(()))] {
        let mut from = 0;
        while let Some(pos) = text[from..].find(start) {
            let at = from + pos;
            from = at + start.len();
            if at > 0 && text[..at].chars().last().is_some_and(is_ident) {
                continue;
            }
            let mut base: Vec<String> = match prefix {
                None => vec![],
                Some(()) => {
                    // `module` is already the directory's path for a mod.rs file, so
                    // `super` is one level up in both cases.
                    let mut m = module.to_vec();
                    m.pop();
                    m
                }
            };
            let rest = &text[from..];
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    let item: String = item
                        .trim()
                        .chars()
                        .take_while(|c| is_ident(*c) || *c == ':')
                        .collect();
                    let mut p = base.clone();
                    p.extend(item.split("::").filter(|s| !s.is_empty()).map(String::from));
                    out.push(p);
                }
                continue;
            }
            let path: String = rest
                .chars()
                .take_while(|c| is_ident(*c) || *c == ':')
                .collect();
            base.extend(path.split("::").filter(|s| !s.is_empty()).map(String::from));
            out.push(base);
        }
    }
    out
}

#[test]
fn layers_point_down_and_modules_form_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    // The nodes: base modules and each layer's direct children.
    let mut known: BTreeSet<String> = BTreeSet::new();
    for f in &files {
        let m = module_of(f, &src);
        if let Some(first) = m.first() {
            known.insert(first.clone());
            if m.len() >= 2 {
                known.insert(format!("{}::{}", m[0], m[1]));
            }
        }
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut upward = Vec::new();
    let mut unplaced = BTreeSet::new();
    for f in &files {
        let module = module_of(f, &src);
        if module.is_empty() || module == ["main"] || module.first().is_some_and(|m| m == "bin") {
            continue; // lib.rs, main.rs and the binaries of src/bin/ only declare and call
        }
        let refs: Vec<&str> = module.iter().map(String::as_str).collect();
        let Some(from) = node_of(&refs, &known) else {
            continue;
        };
        let Some((from_rank, from_layer)) = rank(&from) else {
            unplaced.insert(from.clone());
            continue;
        };
        let Ok(text) = std::fs::read_to_string(f) else {
            panic!("cannot read {}", f.display());
        };
        for path in referenced_paths(&code_only(&text), &module) {
            let p: Vec<&str> = path.iter().map(String::as_str).collect();
            let Some(to) = node_of(&p, &known) else {
                continue;
            };
            if to == from {
                continue;
            }
            let Some((to_rank, to_layer)) = rank(&to) else {
                unplaced.insert(to.clone());
                continue;
            };
            if to_rank > from_rank {
                upward.push(format!(
                    "{} ({from_layer}) uses {} ({to_layer}, a layer above)",
                    f.strip_prefix(&src).unwrap_or(f).display(),
                    path.join("::")
                ));
            }
            edges.entry(from.clone()).or_default().insert(to);
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules in no layer (add them to LAYERS here and to ARCHITECTURE.md): {unplaced:?}"
    );
    assert!(
        upward.is_empty(),
        "a module uses a layer above it:\n{}",
        upward.join("\n")
    );
    let cycles = cycles(&edges);
    assert!(
        cycles.is_empty(),
        "import cycles between modules:\n{}",
        cycles
            .iter()
            .map(|c| c.join(" -> "))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The strongly connected components of more than one node (Tarjan).
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        if let Some(ws) = s.edges.get(v) {
            for w in ws {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low[v];
                    s.low.insert(v, lv.min(lw));
                } else if s.on_stack.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low[v];
                    s.low.insert(v, lv.min(iw));
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.reverse();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v.as_str());
        }
    }
    s.out
}

#[test]
fn the_checker_sees_a_cycle_and_an_upward_use() {
    // The detector itself must be able to fail: a made-up pair of modules using each other.
    let mut edges = BTreeMap::new();
    edges.insert(
        "read::a".to_string(),
        BTreeSet::from(["read::b".to_string()]),
    );
    edges.insert(
        "read::b".to_string(),
        BTreeSet::from(["read::a".to_string()]),
    );
    assert_eq!(cycles(&edges).len(), 1);
    let refs = referenced_paths(
        "use crate::{cli::Cli, model::plan};\nlet x = crate::read::exec::Runner::new();",
        &["model".into(), "state".into()],
    );
    let names: Vec<String> = refs.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        names,
        ["cli::Cli", "model::plan", "read::exec::Runner::new"]
    );
    assert!(rank("cli").map(|r| r.0) > rank("model").map(|r| r.0));
}

/// The longest a production file may be, in lines of code (non-blank, not a comment),
/// counting neither its `#[cfg(test)] mod ... { }` blocks nor its test files.
const MAX_CODE_LINES: usize = 400;
/// The longest any file in `src/` may be, tests and comments included.
const MAX_LINES: usize = 600;

/// A test-only file: `tests.rs`, `*_tests.rs`, or the test-only helpers `test_*.rs`.
fn is_test_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name == "tests.rs" || name.ends_with("_tests.rs") || name.starts_with("test_")
}

/// Why a module file breaks the header rule: every file starts (blank lines aside) with a
/// `//!` comment saying why the module exists.
fn header_violation(path: &Path, text: &str) -> Option<String> {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    (!first.starts_with("//!")).then(|| format!("{}: no `//!` header", path.display()))
}

/// The lines of code outside `#[cfg(test)] mod NAME { ... }` blocks (rustfmt's layout: the
/// block ends at the first `}` in column 0), blank lines and `//` comments not counted.
fn production_code_lines(text: &str) -> usize {
    let mut count = 0;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t == "#[cfg(test)]" {
            // Other attributes may sit between `#[cfg(test)]` and the `mod`.
            let mut attributes = 1;
            while lines
                .peek()
                .is_some_and(|n| n.trim_start().starts_with("#["))
            {
                lines.next();
                attributes += 1;
            }
            let block = lines
                .peek()
                .is_some_and(|n| n.starts_with("mod ") && n.trim_end().ends_with('{'));
            if block {
                for l in lines.by_ref() {
                    if l == "}" {
                        break;
                    }
                }
            } else {
                count += attributes;
            }
            continue;
        }
        if !t.is_empty() && !t.starts_with("//") {
            count += 1;
        }
    }
    count
}

/// Why a file breaks the size rule, if it does.
fn size_violation(path: &Path, text: &str) -> Option<String> {
    let lines = text.lines().count();
    if lines > MAX_LINES {
        return Some(format!(
            "{}: {lines} lines (at most {MAX_LINES} with tests)",
            path.display()
        ));
    }
    if is_test_file(path) {
        return None;
    }
    let code = production_code_lines(text);
    (code > MAX_CODE_LINES).then(|| {
        format!(
            "{}: {code} lines of production code (at most {MAX_CODE_LINES}): split it by what its parts are for",
            path.display()
        )
    })
}

#[test]
fn every_module_has_a_header_and_stays_small() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            panic!("cannot read {}", f.display());
        };
        let rel = f.strip_prefix(&src).unwrap_or(f);
        problems.extend(header_violation(rel, &text));
        problems.extend(size_violation(rel, &text));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_header_and_size_rules_fail_on_made_up_violations() {
    let p = Path::new("read/made_up.rs");
    // A header, after blank lines, passes; a plain comment or code first does not.
    assert_eq!(header_violation(p, "\n//! Why.\nfn f() {}\n"), None);
    assert!(header_violation(p, "// not a module header\nfn f() {}\n").is_some());
    assert!(header_violation(p, "use std::fs;\n").is_some());
    assert!(header_violation(p, "").is_some());

    let code = |n: usize| "let x = 1;\n".repeat(n);
    let tests = |n: usize| format!("#[cfg(test)]\nmod tests {{\n{}}}\n", code(n));
    // 400 lines of code pass, 401 do not; blank lines and comments are not code.
    let at_limit = format!("//! h\n{}", code(MAX_CODE_LINES - 1));
    assert_eq!(production_code_lines(&at_limit), MAX_CODE_LINES - 1);
    assert_eq!(size_violation(p, &at_limit), None);
    let over = format!("//! h\n{}", code(MAX_CODE_LINES + 1));
    assert!(size_violation(p, &over).is_some());
    let airy = format!("//! h\n{}", "// note\n\nlet x = 1;\n".repeat(150));
    assert_eq!(production_code_lines(&airy), 150);
    assert_eq!(size_violation(p, &airy), None);
    // A test block does not count as production code, but the whole file stays under 600.
    let with_tests = format!("//! h\n{}{}", code(300), tests(150));
    assert_eq!(production_code_lines(&with_tests), 300);
    assert_eq!(size_violation(p, &with_tests), None);
    let allowed = format!(
        "//! h\n{}#[cfg(test)]\n#[allow(clippy::unwrap_used)]\nmod tests {{\n{}}}\n",
        code(300),
        code(150)
    );
    assert_eq!(production_code_lines(&allowed), 300);
    let too_long = format!("//! h\n{}{}", code(300), tests(400));
    assert!(size_violation(p, &too_long).is_some());
    // `#[cfg(test)] mod tests;` (a file beside) hides nothing after it.
    let declared = format!(
        "//! h\n#[cfg(test)]\nmod tests;\n{}",
        code(MAX_CODE_LINES + 1)
    );
    assert!(size_violation(p, &declared).is_some());
    // Test files only have the 600-line ceiling.
    let t = Path::new("read/apiread/tests.rs");
    assert_eq!(size_violation(t, &code(500)), None);
    assert!(size_violation(t, &code(MAX_LINES + 1)).is_some());
    assert!(is_test_file(Path::new("model/state/hosts_tests.rs")));
    assert!(!is_test_file(Path::new("model/state/hosts.rs")));
}

/// ARCHITECTURE.md's claim that a check kind over existing reads is four product files is a
/// patch that must still apply and build: `docs/examples/new-check-kind.patch` (the made-up
/// `namespaceGone:` kind) touches `check.rs`, `state.rs` and adds one module under each, and
/// `cargo check` of the library with it applied passes. Run on a copy of the crate, with a
/// target directory of its own under `target/` (the outer `cargo test` holds the default one).
#[test]
#[ignore = "tier 2, builds the crate: bash scripts/test.sh runs it (-- --include-ignored)"]
fn a_new_check_kind_is_four_product_files_and_builds() {
    applies_and_builds(
        "docs/examples/new-check-kind.patch",
        &[
            "src/model/catalog/check.rs",
            "src/model/catalog/check/namespace_gone.rs",
            "src/model/state.rs",
            "src/model/state/namespace_gone.rs",
        ],
        "target/new-check-kind",
    );
}

/// docs/gates.md's claim that a gate rule over facts already read is three product files:
/// `docs/examples/new-gate-rule.patch` (the made-up `drain-not-cordoned`) adds a row to the
/// rule table (`rules.rs`), its entry to `rules.yaml` and its function to the drain rules,
/// and the library builds with it.
#[test]
#[ignore = "tier 2, builds the crate: bash scripts/test.sh runs it (-- --include-ignored)"]
fn a_new_gate_rule_is_three_product_files_and_builds() {
    applies_and_builds(
        "docs/examples/new-gate-rule.patch",
        &[
            "src/model/gate/drain/mod.rs",
            "src/model/gate/rules.rs",
            "src/model/gate/rules.yaml",
        ],
        "target/new-gate-rule",
    );
}

/// `patch` touches exactly `files`, applies to a copy of the crate and `cargo check` of the
/// library passes with it (warnings denied), in the target directory `target`.
fn applies_and_builds(patch: &str, files: &[&str], target: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let patch = root.join(patch);
    let text = std::fs::read_to_string(&patch).expect("the example patch");
    let touched: BTreeSet<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("+++ b/"))
        .collect();
    assert_eq!(touched, files.iter().copied().collect::<BTreeSet<&str>>());
    let copy = tempfile::tempdir().expect("tempdir");
    for file in ["Cargo.toml", "Cargo.lock", "build.rs", "README.md"] {
        std::fs::copy(root.join(file), copy.path().join(file)).expect(file);
    }
    for dir in ["src", "crates/replay/src", "examples"] {
        copy_tree(&root.join(dir), &copy.path().join(dir));
    }
    std::fs::copy(
        root.join("crates/replay/Cargo.toml"),
        copy.path().join("crates/replay/Cargo.toml"),
    )
    .expect("replay manifest");
    let apply = std::process::Command::new("git")
        .args(["apply", "--verbose"])
        .arg(&patch)
        .current_dir(copy.path())
        .output()
        .expect("git apply");
    assert!(
        apply.status.success(),
        "{}",
        String::from_utf8_lossy(&apply.stderr)
    );
    let check = std::process::Command::new(env!("CARGO"))
        .args([
            "check",
            "--offline",
            "--quiet",
            "--lib",
            "-p",
            "kubectl-nestor",
        ])
        .env("CARGO_TARGET_DIR", root.join(target))
        .env("RUSTFLAGS", "-D warnings")
        .current_dir(copy.path())
        .output()
        .expect("cargo check");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// The text without its `#[cfg(test)] mod NAME { ... }` blocks (rustfmt's layout, as
/// `production_code_lines` reads it): a test module's `super::` is its file, not the parent.
fn without_test_blocks(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" {
            while lines
                .peek()
                .is_some_and(|n| n.trim_start().starts_with("#["))
            {
                lines.next();
            }
            if lines
                .peek()
                .is_some_and(|n| n.starts_with("mod ") && n.trim_end().ends_with('{'))
            {
                for l in lines.by_ref() {
                    if l == "}" {
                        break;
                    }
                }
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The import edges between the files of `src/` (production code only): a file uses the
/// file of the longest module path it names through `crate::` or `super::`.
fn file_edges(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.retain(|f| !is_test_file(f));
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(f, src).join("::")).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let module = module_of(f, src);
        let from = module.join("::");
        if from.is_empty() || from == "main" || from.starts_with("bin") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(f) else {
            panic!("cannot read {}", f.display());
        };
        let code = code_only(&without_test_blocks(&text));
        for path in referenced_paths(&code, &module) {
            let to = (1..=path.len())
                .rev()
                .map(|n| path[..n].join("::"))
                .find(|p| modules.contains(p));
            if let Some(to) = to.filter(|t| *t != from && !from.starts_with(&format!("{t}::"))) {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

/// No two files of `src/` import each other, directly or around a circle (issue 46, 50):
/// a circle of files is one idea split in two; move what both need to a file of its own.
/// A child naming its parent module (`super::Thing`, re-exported there) is no edge: the
/// parent declares the child, it does not use it.
#[test]
fn files_form_no_import_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let cycles = cycles(&file_edges(&src));
    assert!(
        cycles.is_empty(),
        "import cycles between files of src/:\n{}",
        cycles
            .iter()
            .map(|c| c.join(" -> "))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The file checker can fail: two made-up files that use each other form a circle, and the
/// real tree's edges include one known import (a rule module uses `check.rs`).
#[test]
fn the_file_checker_sees_a_circle_of_two_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("model")).expect("mkdir");
    std::fs::write(
        src.join("model/a.rs"),
        "//! a\nuse super::b::B;\npub struct A;\n",
    )
    .expect("a.rs");
    std::fs::write(
        src.join("model/b.rs"),
        "//! b\nuse crate::model::a::A;\npub struct B;\n#[cfg(test)]\nmod tests {\n    use super::super::a::A;\n}\n",
    )
    .expect("b.rs");
    std::fs::write(src.join("model/mod.rs"), "//! m\nmod a;\nmod b;\n").expect("mod.rs");
    assert_eq!(
        cycles(&file_edges(&src)),
        [vec!["model::a".to_string(), "model::b".to_string()]]
    );
    let real = file_edges(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(real["model::gate::drain::budgets"].contains("model::gate::check"));
}

/// ARCHITECTURE.md is a ten-minute map (issue 50): at most [`MAP_WORDS`] words (counted as
/// `wc -w` counts), no paragraph over [`MAP_PARAGRAPH_WORDS`], and every repository path it
/// names in backticks exists (from the repository root, or from `src/` as the map names the
/// files of a module: `read/http.rs`). docs/testing.md, the contributor's guide, is held to
/// the same word count; its measurements live in a dated file of their own.
#[test]
fn the_map_is_short_and_names_only_paths_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).expect(p);
    let faults = map_faults(&read("ARCHITECTURE.md"), root);
    assert!(
        faults.is_empty(),
        "ARCHITECTURE.md is no ten-minute map:\n{}",
        faults.join("\n")
    );
    let testing = map_words(&read("docs/testing.md"));
    assert!(
        testing <= MAP_WORDS,
        "docs/testing.md holds {testing} words, more than {MAP_WORDS}: move what is not a \
         contributor's guide (measurements, history) to a dated docs/measurements-*.md"
    );
}

/// The map's checker can fail: a made-up map with a paragraph one word too long, a list item
/// over the limit, a path that does not exist and one too many words in all; a code fence
/// counts toward the words but holds no paragraph and no path.
#[test]
fn the_map_checker_fails_on_a_long_paragraph_a_missing_path_and_too_many_words() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let long = "word ".repeat(MAP_PARAGRAPH_WORDS + 1);
    let fine = "word ".repeat(MAP_PARAGRAPH_WORDS);
    let map = format!(
        "# Map\n\n{fine}\n\n`read/http.rs` and `src/pool.rs` and `docs/testing.md` exist.\n\n\
         - an item\n- {long}\n\n```\n{long} `read/nowhere.rs`\n```\n\n\
         `read/nowhere.rs`, `/api/v1/nodes` and `a::b` and `kubectl get`\n"
    );
    let faults = map_faults(&map, root);
    assert_eq!(faults.len(), 2, "{faults:#?}");
    assert!(
        faults[0].starts_with("a paragraph of 152 words"),
        "{faults:#?}"
    );
    assert_eq!(
        faults[1],
        "`read/nowhere.rs` names no file of the repository"
    );
    // A paragraph of exactly the limit passes (the heading is a paragraph of its own).
    assert_eq!(map_words(&map_paragraphs(&map)[1]), MAP_PARAGRAPH_WORDS);
    let too_long = format!("{map}\n{}", "word\n\n".repeat(MAP_WORDS));
    assert!(map_faults(&too_long, root)[0].contains("words in all"));
}

const MAP_WORDS: usize = 2_500;
const MAP_PARAGRAPH_WORDS: usize = 150;

/// Words as `wc -w` counts them: runs of non-whitespace.
fn map_words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// The paragraphs of a Markdown text outside its code fences: text between blank lines, a
/// heading, a list item (`- `, `* `, `1. `) and a table row each a paragraph of its own.
fn map_paragraphs(text: &str) -> Vec<String> {
    fn end(current: &mut String, paragraphs: &mut Vec<String>) {
        if !current.trim().is_empty() {
            paragraphs.push(current.clone());
        }
        current.clear();
    }
    let mut paragraphs = Vec::new();
    let mut current = String::new();
    let mut fenced = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") {
            end(&mut current, &mut paragraphs);
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let numbered = t
            .split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if t.is_empty()
            || t.starts_with("- ")
            || t.starts_with("* ")
            || t.starts_with('|')
            || t.starts_with('#')
            || numbered
        {
            end(&mut current, &mut paragraphs);
        }
        current.push_str(t);
        current.push('\n');
        if t.starts_with('#') {
            end(&mut current, &mut paragraphs);
        }
    }
    end(&mut current, &mut paragraphs);
    paragraphs
}

/// A backticked span that looks like a repository path: no space, only path characters, not
/// absolute (an API or a host path), and holding a `/` or ending in a file type of the tree.
fn map_path(span: &str) -> bool {
    !span.is_empty()
        && !span.starts_with('/')
        && span
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && (span.contains('/')
            || [".rs", ".md", ".sh", ".yaml"]
                .iter()
                .any(|e| span.ends_with(e)))
}

/// What makes `map` no ten-minute map: too many words, a paragraph over the limit, a path it
/// names that is neither under `root` nor under `root/src`.
fn map_faults(map: &str, root: &Path) -> Vec<String> {
    let mut faults = Vec::new();
    let words = map_words(map);
    if words > MAP_WORDS {
        faults.push(format!("{words} words in all, more than {MAP_WORDS}"));
    }
    let mut missing = BTreeSet::new();
    for p in map_paragraphs(map) {
        let n = map_words(&p);
        if n > MAP_PARAGRAPH_WORDS {
            let start: String = p.chars().take(80).collect();
            faults.push(format!(
                "a paragraph of {n} words (at most {MAP_PARAGRAPH_WORDS}): {start}..."
            ));
        }
        for span in p.split('`').skip(1).step_by(2).filter(|s| map_path(s)) {
            if !root.join(span).exists() && !root.join("src").join(span).exists() {
                missing.insert(span.to_string());
            }
        }
    }
    faults.extend(
        missing
            .into_iter()
            .map(|s| format!("`{s}` names no file of the repository")),
    );
    faults
}

/// The files of the replay crate (`crates/replay/src/`, the test API server) form no import
/// circle either (issue 50): builders (builders, platform, clusters, versions) know no
/// scenario, each scenario module uses builders only, and the one registry
/// (`fixtures.rs`) names them all. The same edges as `files_form_no_import_cycle`'s; it can
/// fail: a copy of the crate in which the builders call the registry back is one circle.
#[test]
fn replay_files_form_no_import_cycle() {
    let replay = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/replay/src");
    let edges = file_edges(&replay);
    assert!(
        edges["fixtures"].contains("scenarios") && edges["scenarios"].contains("builders"),
        "the checker reads the replay crate's imports: {edges:?}"
    );
    let found = cycles(&edges);
    assert!(
        found.is_empty(),
        "import cycles between files of crates/replay/src/:\n{}",
        found
            .iter()
            .map(|c| c.join(" -> "))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let dir = tempfile::tempdir().expect("tempdir");
    copy_tree(&replay, dir.path());
    let builders = dir.path().join("builders.rs");
    let text = std::fs::read_to_string(&builders).expect("builders.rs");
    std::fs::write(
        &builders,
        text.replacen("\nuse ", "\nuse crate::fixtures::by_name;\nuse ", 1),
    )
    .expect("write builders.rs");
    let circles = cycles(&file_edges(dir.path()));
    assert_eq!(circles.len(), 1, "{circles:?}");
    assert!(["builders", "fixtures", "scenarios"]
        .iter()
        .all(|f| circles[0].contains(&f.to_string())));
}
