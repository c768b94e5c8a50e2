//! The README's "Try it" block as a new user meets it (its first command, `cargo run` in a
//! fresh copy, rebuilds the whole crate: that test is its own binary in tier 2,
//! `tests/readme_build`)
//! and its test command, `bash scripts/test.sh`, being the very
//! line `.ci/run` runs, whose install step is run here on a machine without sshd, kubectl,
//! zsh or fish: a scratch PATH with recording `apt-get` and `sudo` stubs.
//! (The "On your own cluster" block runs through the real kubectl: tests/e2e/quickstart.rs.)

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common_readme::{try_it, ROOT};
use crate::harness::text_snap;
use snapbox::str;

/// The README's test command is one line, and it is the line `.ci/run` runs: the two
/// cannot drift.
#[test]
fn the_readme_test_command_is_the_one_ci_runs() {
    let lines = try_it();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[1], "bash scripts/test.sh");
    let ci = fs::read_to_string(format!("{ROOT}/.ci/run")).expect(".ci/run");
    assert!(
        ci.lines().any(|l| l.trim() == lines[1]),
        ".ci/run does not run `{}`",
        lines[1]
    );
    let own = ci
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .find(|l| l.contains("apt-get") || l.starts_with("cargo test --workspace"));
    assert_eq!(
        own, None,
        ".ci/run installs or tests on its own again: that is scripts/test.sh's job"
    );
    // The sshd the script checks for is the one the sshd tests run.
    let script = fs::read_to_string(format!("{ROOT}/scripts/test.sh")).expect("test.sh");
    assert!(
        script.contains(&format!("${{NESTOR_TEST_SSHD:-{}}}", crate::sshd::SSHD)),
        "scripts/test.sh does not look for {}",
        crate::sshd::SSHD
    );
}

/// The README is a front door (issue 50): at most 3,000 words, counted as `wc -w` counts
/// them, and every relative link in it, or in a page of `docs/`, reaches a file that exists
/// and, with a `#fragment` into a markdown page, a heading of that page (GitHub's anchors):
/// the reference moved to `docs/` stays one click away.
#[test]
fn the_readme_is_a_front_door() {
    let readme = fs::read_to_string(format!("{ROOT}/README.md")).expect("README.md");
    let words = readme.split_ascii_whitespace().count();
    assert!(
        words <= 3000,
        "README.md has {words} words (at most 3000): move the reference to docs/"
    );
    let mut pages = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(format!("{ROOT}/docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| p.strip_prefix(ROOT).expect("under ROOT").to_path_buf())
        .collect();
    docs.sort();
    pages.extend(docs);
    let mut broken = vec![];
    let mut to_docs = 0;
    for page in &pages {
        let text = fs::read_to_string(Path::new(ROOT).join(page)).expect("page");
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (file, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                page.clone()
            } else {
                page.parent().expect("parent").join(file)
            };
            if page == Path::new("README.md") && target.starts_with("docs") {
                to_docs += 1;
            }
            let on_disk = Path::new(ROOT).join(&target);
            if !on_disk.exists() {
                broken.push(format!(
                    "{}: {link}: no file {}",
                    page.display(),
                    target.display()
                ));
                continue;
            }
            if !fragment.is_empty()
                && target.extension().is_some_and(|e| e == "md")
                && !anchors(&fs::read_to_string(&on_disk).expect("target")).contains(fragment)
            {
                broken.push(format!(
                    "{}: {link}: no heading #{fragment}",
                    page.display()
                ));
            }
        }
    }
    assert_eq!(broken, Vec::<String>::new(), "broken relative links");
    assert!(to_docs > 0, "the README links to no page of docs/");
}

/// The targets of the markdown links `[text](target)` of `text`, outside fenced blocks and
/// code spans.
fn links(text: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    let prose: String = prose.split('`').step_by(2).collect();
    prose
        .split("](")
        .skip(1)
        .filter_map(|rest| {
            rest.split_once(')')
                .map(|(target, _)| target.trim().to_string())
        })
        .collect()
}

/// The anchors GitHub gives the headings of a markdown page: lowercased, every character but
/// letters, digits, `-`, `_` and spaces dropped, spaces made `-`; a repeated one gets `-1`,
/// `-2`, ...
fn anchors(text: &str) -> std::collections::BTreeSet<String> {
    let mut seen = std::collections::BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if fenced || !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let slug: String = line[hashes..]
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut unique = slug.clone();
        let mut n = 0;
        while seen.contains(&unique) {
            n += 1;
            unique = format!("{slug}-{n}");
        }
        seen.insert(unique);
    }
    seen
}

/// A scratch machine for scripts/test.sh's install step: a PATH holding only what the
/// script itself needs (dirname, env), recording `apt-get` and `sudo` stubs, an `id` that
/// says who we are, and the tools named in `present`.
struct Scratch {
    tmp: tempfile::TempDir,
}

impl Scratch {
    fn new(uid: u32, present: &[&str]) -> Scratch {
        let s = Scratch {
            tmp: tempfile::tempdir().expect("tempdir"),
        };
        fs::create_dir(s.bin()).expect("mkdir");
        for tool in ["dirname", "env"] {
            let real = ["/usr/bin", "/bin"]
                .iter()
                .map(|d| Path::new(d).join(tool))
                .find(|p| p.exists())
                .expect("dirname and env");
            std::os::unix::fs::symlink(real, s.bin().join(tool)).expect("symlink");
        }
        let log = s.log();
        s.stub("id", &format!("[ \"$1\" = -u ] && echo {uid}"));
        s.stub(
            "sudo",
            &format!(
                "printf 'sudo %s\\n' \"$*\" >> '{}'; exec \"$@\"",
                log.display()
            ),
        );
        s.stub(
            "apt-get",
            &format!(
                "printf 'apt-get %s (DEBIAN_FRONTEND=%s)\\n' \"$*\" \"$DEBIAN_FRONTEND\" >> '{}'",
                log.display()
            ),
        );
        for tool in present {
            if *tool == "sshd" {
                s.stub_at(&s.sshd(), "exit 0");
            } else {
                s.stub(tool, "exit 0");
            }
        }
        s
    }

    fn bin(&self) -> PathBuf {
        self.tmp.path().join("bin")
    }
    fn log(&self) -> PathBuf {
        self.tmp.path().join("calls.log")
    }
    /// Where the scratch machine's sshd would be (its `/usr/sbin/sshd`).
    fn sshd(&self) -> PathBuf {
        self.tmp.path().join("usr/sbin/sshd")
    }

    fn stub(&self, name: &str, body: &str) {
        self.stub_at(&self.bin().join(name), body);
    }
    fn stub_at(&self, path: &Path, body: &str) {
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("write stub");
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    /// `bash scripts/test.sh ARGS` on this machine with everything present and a recording
    /// `cargo`: the cargo command lines it ran.
    fn test_run(&self, args: &[&str]) -> Vec<String> {
        self.stub(
            "cargo",
            &format!("printf 'cargo %s\\n' \"$*\" >> '{}'", self.log().display()),
        );
        let head = ["/usr/bin/head", "/bin/head"]
            .iter()
            .find(|p| Path::new(p).exists())
            .expect("head");
        let _ = std::os::unix::fs::symlink(head, self.bin().join("head"));
        let out = self.script(args);
        assert!(out.status.success(), "{out:?}");
        let calls = fs::read_to_string(self.log()).unwrap_or_default();
        fs::remove_file(self.log()).expect("rm log");
        calls.lines().map(String::from).collect()
    }

    /// `bash scripts/test.sh ARGS` with only this machine's PATH and sshd.
    fn script(&self, args: &[&str]) -> std::process::Output {
        Command::new("/bin/bash")
            .arg(format!("{ROOT}/scripts/test.sh"))
            .args(args)
            .env_clear()
            .env("PATH", self.bin())
            .env("NESTOR_TEST_SSHD", self.sshd())
            .stdin(Stdio::null())
            .output()
            .expect("bash")
    }

    /// `bash scripts/test.sh --install-only` on this machine: (exit code, stdout, stderr,
    /// the recorded calls).
    fn install(&self) -> (Option<i32>, String, String, Vec<String>) {
        let out = self.script(&["--install-only"]);
        let calls = fs::read_to_string(self.log()).unwrap_or_default();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            calls.lines().map(String::from).collect(),
        )
    }
}

#[test]
fn the_test_script_installs_what_a_fresh_machine_lacks_with_sudo_when_not_root() {
    let m = Scratch::new(1000, &[]);
    let (code, stdout, stderr, calls) = m.install();
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let packages = "openssh-server kubernetes-client zsh fish";
    assert_eq!(
        calls,
        vec![
            "sudo apt-get update -qq".to_string(),
            "apt-get update -qq (DEBIAN_FRONTEND=)".to_string(),
            format!("sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq {packages}"),
            format!("apt-get install -y -qq {packages} (DEBIAN_FRONTEND=noninteractive)"),
        ]
    );
    // The script's whole output: the one install line, naming the packages.
    text_snap(
        &stdout,
        str![[r#"
== installing openssh-server kubernetes-client zsh fish (Debian packages)

"#]],
    );
}

#[test]
fn the_test_script_installs_only_what_is_missing_and_as_root_without_sudo() {
    let m = Scratch::new(0, &["kubectl", "zsh"]);
    let (code, stdout, stderr, calls) = m.install();
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(
        calls,
        vec![
            "apt-get update -qq (DEBIAN_FRONTEND=)",
            "apt-get install -y -qq openssh-server fish (DEBIAN_FRONTEND=noninteractive)",
        ]
    );
}

#[test]
fn the_test_script_installs_nothing_when_everything_is_present() {
    let m = Scratch::new(1000, &["sshd", "kubectl", "zsh", "fish"]);
    let (code, stdout, stderr, calls) = m.install();
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(calls, Vec::<String>::new());
    text_snap(
        &stdout,
        str![[r#"
== nothing to install: /tmp/.tmpXXXXXX/usr/sbin/sshd, kubectl, zsh and fish are present

"#]],
    );
}

#[test]
fn the_test_script_without_apt_get_names_the_packages_and_stops() {
    let m = Scratch::new(1000, &["sshd", "zsh"]);
    fs::remove_file(m.bin().join("apt-get")).expect("rm");
    let (code, stdout, stderr, calls) = m.install();
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert_eq!(
        stderr,
        "scripts/test.sh: error: the tests need these Debian packages: kubernetes-client fish\n\
         hint: no apt-get here: install their equivalents with your package manager, then run this again\n"
    );
    assert_eq!(calls, Vec::<String>::new());
}

/// macOS (no apt-get, Homebrew): the same tools by their formula names (issue 32).
#[test]
fn the_test_script_on_macos_installs_with_homebrew() {
    let m = Scratch::new(501, &["sshd", "zsh"]);
    fs::remove_file(m.bin().join("apt-get")).expect("rm");
    m.stub(
        "brew",
        &format!("printf 'brew %s\\n' \"$*\" >> '{}'", m.log().display()),
    );
    let (code, stdout, stderr, calls) = m.install();
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(calls, ["brew install -q kubernetes-cli fish"]);
    assert_eq!(
        stdout,
        "== installing kubernetes-cli fish (Homebrew formulae)\n"
    );
}

/// Tier 2 (`#[ignore = "tier 2, ..."]`, docs/testing.md "Tiers") is left out of a bare
/// `cargo test`; the README's test command runs it: the script hands `--include-ignored` to
/// libtest after the caller's own arguments, behind the caller's `--` when there is one.
#[test]
fn the_test_script_runs_both_tiers_after_the_callers_arguments() {
    let m = Scratch::new(1000, &["sshd", "kubectl", "zsh", "fish"]);
    let cases: [(&[&str], &str); 3] = [
        (&[], "cargo test --workspace --locked --no-fail-fast -- --include-ignored"),
        (
            &["--test", "cli", "hosts::"],
            "cargo test --workspace --locked --no-fail-fast --test cli hosts:: -- --include-ignored",
        ),
        (
            &["--", "--test-threads", "1"],
            "cargo test --workspace --locked --no-fail-fast -- --test-threads 1 --include-ignored",
        ),
    ];
    for (args, want) in cases {
        assert_eq!(m.test_run(args), vec![want.to_string()], "{args:?}");
    }
}

/// Every ignored test in the repository is one of tier 2's three marks, right under its
/// `#[test]`: nothing else may hide a test from `cargo test`, each mark is in use, and every
/// step of the workflows that runs `cargo test` runs tier 2 too.
#[test]
fn every_ignored_test_is_tier_2_and_every_workflow_step_runs_it() {
    const MARKS: [&str; 3] = ["a real sshd", "at scale", "builds the crate"];
    let attribute = concat!("#[", "ignore");
    let mut used = [0usize; 3];
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> = ["src", "tests", "crates"]
        .iter()
        .map(|d| Path::new(ROOT).join(d))
        .collect();
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).expect("read_dir").flatten() {
            let path = entry.path();
            if path.is_dir() && !path.ends_with("target") {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    for file in &files {
        let text = fs::read_to_string(file).expect("read");
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(at) = line.find(attribute) else {
                continue;
            };
            if line.trim_start().starts_with("//") {
                continue;
            }
            let place = format!("{}:{}", file.display(), i + 1);
            let mark = MARKS.iter().position(|m| {
                line[at..]
                    == format!(
                        "{attribute} = \"tier 2, {m}: bash scripts/test.sh runs it (-- --include-ignored)\"]"
                    )
            });
            let Some(mark) = mark else {
                panic!("{place}: an ignore that is not a tier-2 mark: {line}");
            };
            assert_eq!(
                i.checked_sub(1).map(|p| lines[p].trim()),
                Some("#[test]"),
                "{place}: the mark goes right under #[test]"
            );
            used[mark] += 1;
        }
    }
    for (mark, n) in MARKS.iter().zip(used) {
        assert!(n > 0, "no test carries the tier-2 mark `{mark}`");
    }
    for workflow in ["ci.yml", "release.yml"] {
        let text =
            fs::read_to_string(format!("{ROOT}/.github/workflows/{workflow}")).expect("workflow");
        for line in text.lines().filter(|l| l.contains("cargo test")) {
            assert!(
                !line.trim_start().starts_with("run:") || line.ends_with(" -- --include-ignored"),
                "{workflow}: a test step without tier 2: {line}"
            );
        }
    }
}
