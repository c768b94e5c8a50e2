//! The one test bed of the cli and e2e binaries: [`Dirs`], a scratch repository (`repo/`,
//! `repo/stacks/`), HOME and a `bin/` first on PATH, with everything a run needs from them
//! written once — a stack file, the active-stack symlink, a private file (0600), the
//! environment of a run (cwd, HOME, PATH, the temp dir redacted as `/t`) and the tree that
//! proves nothing was written. The cli bed (`tests/cli/support.rs`, `Bed`: recording stubs
//! in `bin/`) and the e2e bed (`tests/e2e/support.rs`, `E2e`: the real kubectl and a replay
//! server) each add only their own part and deref to it. Included with `#[path]`.

#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::harness::{Outcome, Run};

/// The bed's directories under one temp dir: `repo/` (the cwd of every run), `repo/stacks/`,
/// `home/` (HOME) and `bin/` (first on PATH).
pub struct Dirs {
    pub tmp: tempfile::TempDir,
    pub repo: PathBuf,
    pub stacks: PathBuf,
    pub home: PathBuf,
    pub bin: PathBuf,
}

impl Dirs {
    /// The four directories, made.
    pub fn new() -> Dirs {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().to_path_buf();
        let dirs = Dirs {
            repo: root.join("repo"),
            stacks: root.join("repo/stacks"),
            home: root.join("home"),
            bin: root.join("bin"),
            tmp,
        };
        for d in [&dirs.stacks, &dirs.home, &dirs.bin] {
            fs::create_dir_all(d).expect("mkdir");
        }
        dirs
    }

    /// `stacks/NAME.yaml` holding `yaml`; its path.
    pub fn write_stack(&self, name: &str, yaml: &str) -> PathBuf {
        write_stack(&self.stacks, name, yaml)
    }

    /// `stacks/current.yaml` made a symlink to `NAME.yaml` (what `stack select` writes).
    pub fn select(&self, name: &str) {
        select(&self.stacks, name);
    }

    /// `program` run from the repo root with the bed's HOME and PATH (`bin/` first, then
    /// `/usr/bin:/bin`), the temp dir shown as `/t`; the rest of the developer's
    /// environment is scrubbed by the harness (`harness::scrub`).
    pub fn run(&self, program: impl AsRef<std::ffi::OsStr>) -> Run {
        let mut r = Run::new(program);
        r.current_dir(&self.repo)
            .env("HOME", &self.home)
            .env("PATH", self.path())
            .redact(self.tmp.path().display().to_string(), "/t");
        r
    }

    /// The PATH of every run: `bin/` first.
    pub fn path(&self) -> String {
        format!("{}:/usr/bin:/bin", self.bin.display())
    }

    /// `text` with this bed's temp dir shown as `/t` (what [`Dirs::run`]'s runs redact).
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.tmp.path().display().to_string(), "/t")
    }

    /// `out` with this bed's temp dir shown as `/t`, for exact expectations.
    pub fn stable(&self, out: Outcome) -> Outcome {
        out.redacted(&self.tmp.path().display().to_string(), "/t")
    }

    /// Every file under the temp dir but those under `skip` ([`tree_of`]).
    pub fn tree(&self, skip: &[PathBuf], dirs: bool) -> Vec<(PathBuf, Vec<u8>)> {
        tree_of(self.tmp.path(), skip, dirs)
    }
}

/// `text` written to `path` (parents made) with mode 0600, as a kubeconfig must be; its path.
pub fn write_private(path: &Path, text: &str) -> PathBuf {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("mkdir");
    }
    fs::write(path, text).expect("write private file");
    fs::set_permissions(path, fs::Permissions::from_mode(0o600)).expect("chmod");
    path.to_path_buf()
}

/// `stacks/NAME.yaml` holding `yaml`; its path.
pub fn write_stack(stacks: &Path, name: &str, yaml: &str) -> PathBuf {
    let p = stacks.join(format!("{name}.yaml"));
    fs::write(&p, yaml).expect("write stack");
    p
}

/// `stacks/current.yaml` made a symlink to `NAME.yaml` (what `stack select` writes).
pub fn select(stacks: &Path, name: &str) {
    let link = stacks.join("current.yaml");
    let _ = fs::remove_file(&link);
    std::os::unix::fs::symlink(format!("{name}.yaml"), link).expect("symlink");
}

/// Every file under `root` but those under `skip` (path, bytes; a symlink as its target;
/// with `dirs`, each directory as `<dir>` too), sorted: compared before and after a run,
/// it proves nothing was written.
pub fn tree_of(root: &Path, skip: &[PathBuf], dirs: bool) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = vec![];
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if skip.iter().any(|s| p.starts_with(s)) {
                continue;
            }
            let Ok(meta) = fs::symlink_metadata(&p) else {
                continue;
            };
            if meta.is_dir() {
                if dirs {
                    out.push((p.clone(), b"<dir>".to_vec()));
                }
                stack.push(p);
            } else if meta.file_type().is_symlink() {
                let target = fs::read_link(&p).unwrap_or_default();
                out.push((p, target.into_os_string().into_encoded_bytes()));
            } else {
                out.push((p.clone(), fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// `YYYY-MM-DD` of today (UTC) plus `offset` days, as nestor judges a live reading: the
/// date part of the replay crate's RFC 3339 clock (`nestor_replay::when`).
pub fn day(offset: i64) -> String {
    let mut t = nestor_replay::when::from_now(offset * 86_400);
    t.truncate(10);
    t
}
