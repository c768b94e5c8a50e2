//! `--help` of every command, golden: the exact text is stored in `tests/cli/golden/help/`
//! (`SNAPSHOTS=overwrite cargo test --test cli help::` rewrites it after a deliberate
//! change). Every command has an `Examples:` section in kubectl's style, and the usage line
//! names the program the way it was run: `kubectl nestor` through kubectl, `kubectl-nestor`
//! when typed by its name.

use snapbox::str;

use crate::support::{golden_check, Run};
use std::fs;
use std::path::Path;

use clap::CommandFactory;

/// Every public command path: `[]` (the root), `["preview"]`, `["stack", "list"]`, ...
fn command_paths() -> Vec<Vec<String>> {
    fn walk(c: &clap::Command, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        out.push(prefix.clone());
        for sub in c.get_subcommands().filter(|s| !s.is_hide_set()) {
            if sub.get_name() == "help" {
                continue;
            }
            let mut path = prefix.clone();
            path.push(sub.get_name().to_string());
            walk(sub, path, out);
        }
    }
    let mut out = vec![];
    let mut root = nestor::cli::Cli::command();
    root.build();
    walk(&root, vec![], &mut out);
    out
}

/// `kubectl-nestor PATH... --help` with argv[0] = `argv0`, in a clean environment.
fn help(path: &[String], argv0: &str, kubectl_path: Option<&str>) -> String {
    let mut c = Run::nestor();
    c.arg0(argv0)
        .args(path)
        .arg("--help")
        .env_clear()
        .env("PATH", "/usr/bin:/bin");
    if let Some(k) = kubectl_path {
        c.env("KUBECTL_PATH", k);
    }
    let out = c.run();
    out.code(0);
    out.no_stderr();
    out.stdout.clone()
}

fn golden_file(path: &[String]) -> std::path::PathBuf {
    let name = if path.is_empty() {
        "kubectl-nestor".to_string()
    } else {
        format!("kubectl-nestor-{}", path.join("-"))
    };
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cli/golden/help")
        .join(format!("{name}.txt"))
}

#[test]
fn every_help_matches_its_golden_text() {
    let mut differ = vec![];
    let mut expected_files = vec![];
    for path in command_paths() {
        // As kubectl runs a plugin: by the absolute path it found on PATH.
        let text = help(&path, env!("CARGO_BIN_EXE_kubectl-nestor"), None);
        let file = golden_file(&path);
        expected_files.push(file.clone());
        if let Err(e) = golden_check(&file, &text) {
            differ.push(format!("{}:\n{e}", file.display()));
        }
    }
    // No golden file left over for a command that is gone.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/golden/help");
    for entry in fs::read_dir(&dir).expect("golden dir").flatten() {
        if !expected_files.contains(&entry.path()) {
            differ.push(format!(
                "{}: no such command any more",
                entry.path().display()
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "--help changed (`SNAPSHOTS=overwrite cargo test --test cli help::` rewrites the files if that is deliberate):\n{}",
        differ.join("\n")
    );
}

/// kubectl's style: an `Examples:` section of `# what it does` lines, each followed by the
/// command, indented two spaces, blocks separated by a blank line.
#[test]
fn every_command_has_examples_in_kubectl_style() {
    for path in command_paths() {
        let text = help(&path, env!("CARGO_BIN_EXE_kubectl-nestor"), None);
        let examples = text
            .split("\nExamples:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{path:?} has no Examples: section:\n{text}"));
        let block: Vec<&str> = examples
            .lines()
            .take_while(|l| l.is_empty() || l.starts_with("  "))
            .collect();
        assert!(block.len() >= 2, "{path:?}: {block:?}");
        let mut expect_command = false;
        for line in &block {
            if line.is_empty() {
                assert!(!expect_command, "{path:?}: a comment without a command");
                continue;
            }
            let line = line.trim_start();
            if line.starts_with("# ") {
                expect_command = true;
            } else {
                assert!(
                    line.starts_with("kubectl nestor ")
                        || line.starts_with("kubectl-nestor ")
                        || line.starts_with("eval \"$(kubectl nestor ")
                        || line.starts_with("NESTOR_STACK=staging kubectl nestor ")
                        || line.starts_with("source <(kubectl-nestor "),
                    "{path:?}: {line}"
                );
                expect_command = false;
            }
        }
        // The command the examples are for is the one they run.
        if let Some(first) = path.first() {
            assert!(
                examples.contains(&format!("kubectl nestor {first}"))
                    || examples.contains(&format!("kubectl-nestor {first}")),
                "{path:?}:\n{examples}"
            );
        }
    }
}

#[test]
fn the_usage_line_names_the_program_as_it_was_run() {
    let preview = vec!["preview".to_string()];
    // Run as the plugin (argv[0] is the binary's path): `Usage: kubectl nestor preview`.
    let as_plugin = help(&preview, env!("CARGO_BIN_EXE_kubectl-nestor"), None);
    let usage = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("Usage: "))
            .map(str::to_string)
    };
    assert_eq!(
        usage(&as_plugin).as_deref(),
        Some("Usage: kubectl nestor preview [OPTIONS]"),
        "{as_plugin}"
    );
    // Typed as `kubectl-nestor`: the whole help, only its usage line differs.
    let typed = help(&preview, "kubectl-nestor", None);
    assert_eq!(
        typed,
        as_plugin.replace(
            "\nUsage: kubectl nestor preview [OPTIONS]\n",
            "\nUsage: kubectl-nestor preview [OPTIONS]\n"
        )
    );
    // Recent kubectl also says so in the environment: the plugin's help again.
    let flagged = help(&preview, "kubectl-nestor", Some("/usr/bin/kubectl"));
    assert_eq!(flagged, as_plugin);
    // A usage error says it too.
    let out = Run::nestor()
        .arg0("kubectl-nestor")
        .args(["preview", "--zzz"])
        .env_clear()
        .run();
    out.code(1);
    out.stderr_snap(str![[r#"
kubectl-nestor: error: unexpected argument '--zzz' found
hint: usage: kubectl-nestor preview [OPTIONS]; `kubectl-nestor preview --help` shows every flag, with examples

"#]]);
}

/// clap's usage errors keep nestor's two-line form (`error:` / `hint:`) and exit 1, not
/// clap's 2 (which means "plan not empty" here): the error line says what is wrong, the hint
/// clap's tip, the usage and the `--help` to read, named as the program was run.
#[test]
fn a_usage_error_is_two_lines_with_a_hint_and_exit_1() {
    let run = |args: &[&str]| {
        let out = Run::nestor()
            .arg0("kubectl-nestor")
            .args(args)
            .env_clear()
            .run();
        out.code(1).no_stdout();
        out.stderr.clone()
    };
    assert_eq!(
        run(&["prevue"]),
        "kubectl-nestor: error: unrecognized subcommand 'prevue'\n\
         hint: a similar subcommand exists: 'preview'; usage: kubectl-nestor [OPTIONS] <COMMAND>; \
         `kubectl-nestor --help` shows every flag, with examples\n"
    );
    assert_eq!(
        run(&["diff", "a.json"]),
        "kubectl-nestor: error: the following required arguments were not provided: <B>\n\
         hint: usage: kubectl-nestor diff <A> <B>; `kubectl-nestor diff --help` shows every flag, with examples\n"
    );
    // Whatever clap's rendering, two lines.
    for args in [
        &["-o", "xml", "version"][..],
        &["stack", "select"],
        &["wait"],
    ] {
        let err = run(args);
        assert_eq!(err.lines().count(), 2, "{args:?}: {err}");
        assert!(err.starts_with("kubectl-nestor: error: "), "{err}");
        assert!(
            err.lines().nth(1).is_some_and(|l| l.starts_with("hint: ")),
            "{err}"
        );
    }
}
