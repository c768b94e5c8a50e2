//! The README's "Try it" block as a new user meets it: its first command run LITERALLY
//! (`cargo run` included, through `sh`) in a fresh copy of the repository — the files git
//! tracks, nothing built — and its test command, `bash scripts/test.sh`, being the very
//! line `.ci/run` runs, whose install step is run here on a machine without sshd, kubectl,
//! zsh or fish: a scratch PATH with recording `apt-get` and `sudo` stubs.
//! (The "On your own cluster" block runs through the real kubectl: tests/e2e/quickstart.rs.)

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::*;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The lines of the first ```sh block under `## Try it`.
fn try_it() -> Vec<String> {
    let readme = fs::read_to_string(format!("{ROOT}/README.md")).expect("README.md");
    let section = readme
        .split("\n## Try it\n")
        .nth(1)
        .expect("README has a \"Try it\" section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a ```sh block in that section");
    block.lines().map(String::from).collect()
}

/// A fresh copy of the repository as a clone would have it: the files git tracks, copied
/// from the work tree (so the test sees the current edit, and a file left out of git is
/// missing here as it would be in a clone), symlinks kept, modification times kept (the
/// copy's build in its own target dir stays incremental between runs). None when this is
/// not a git work tree.
fn fresh_copy(dest: &Path) -> Option<()> {
    let out = Command::new("git")
        .args(["-C", ROOT, "ls-files", "-z"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    if dest.exists() {
        fs::remove_dir_all(dest).expect("remove the previous copy");
    }
    for name in out.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let rel = Path::new(std::str::from_utf8(name).expect("utf-8 path"));
        let (src, dst) = (Path::new(ROOT).join(rel), dest.join(rel));
        let Ok(meta) = fs::symlink_metadata(&src) else {
            continue; // deleted in the work tree, not yet in git: a clone would have it, a commit would not
        };
        fs::create_dir_all(dst.parent().expect("parent")).expect("mkdir");
        if meta.file_type().is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&src).expect("readlink"), &dst)
                .expect("symlink");
        } else {
            fs::copy(&src, &dst).expect("copy");
            let f = fs::File::options().write(true).open(&dst).expect("open");
            f.set_modified(meta.modified().expect("mtime"))
                .expect("set mtime");
        }
    }
    Some(())
}

/// The README's first command, as written, in a fresh copy: `cargo run` must pick the
/// plugin among the two binaries (`default-run`), and the demo needs no cluster: a stub
/// kubectl first on PATH records that it is never called.
#[test]
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
    assert!(
        stdout.contains("REAL (replayed from snapshot examples/demo/dirqual.snapshot.json"),
        "{stdout}"
    );
    assert!(stdout.contains("dirqual1..4, 4/4 Ready"), "{stdout}");
    assert!(stdout.contains("PLAN: 2 to install\n"), "{stdout}");
    assert!(!stdout.contains("VM"), "{stdout}");
    assert!(
        bed.calls("kubectl").is_empty(),
        "{:?}",
        bed.calls("kubectl")
    );
}

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

    /// `bash scripts/test.sh --install-only` on this machine: (exit code, stdout, stderr,
    /// the recorded calls).
    fn install(&self) -> (Option<i32>, String, String, Vec<String>) {
        let out = Command::new("/bin/bash")
            .args([&format!("{ROOT}/scripts/test.sh"), "--install-only"])
            .env_clear()
            .env("PATH", self.bin())
            .env("NESTOR_TEST_SSHD", self.sshd())
            .stdin(Stdio::null())
            .output()
            .expect("bash");
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
    assert!(
        stdout.contains(&format!("== installing {packages} (Debian packages)")),
        "{stdout}"
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
    assert!(stdout.contains("nothing to install"), "{stdout}");
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
