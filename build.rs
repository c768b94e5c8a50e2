//! The commit `kubectl nestor version` prints (`NESTOR_COMMIT` for the crate), read from the
//! repository's own files — never by running git, so that a build from a published tarball
//! (no `.git`) or on a machine without git still works: it says `unknown` then. A release
//! built elsewhere may pass `NESTOR_COMMIT` (40 or fewer hex digits) in the environment.

use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=NESTOR_COMMIT");
    let given = std::env::var("NESTOR_COMMIT").ok().and_then(|c| hex(&c));
    let root = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let commit = given
        .or_else(|| root.and_then(|r| git_commit(&r)))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=NESTOR_COMMIT={commit}");
}

/// The first 12 hex digits of `s`, if it is a commit id.
fn hex(s: &str) -> Option<String> {
    let s = s.trim();
    let ok = (7..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit());
    ok.then(|| s.chars().take(12).collect())
}

/// `.git` a directory, or a file `gitdir: PATH` (a worktree, a submodule); HEAD a commit or
/// `ref: refs/...`, found loose (in the worktree's dir or the common one) or packed.
fn git_commit(root: &Path) -> Option<String> {
    let dotgit = root.join(".git");
    let gitdir = if dotgit.is_dir() {
        dotgit
    } else {
        let text = fs::read_to_string(&dotgit).ok()?;
        let dir = PathBuf::from(text.strip_prefix("gitdir:")?.trim());
        if dir.is_absolute() {
            dir
        } else {
            root.join(dir)
        }
    };
    let head_file = gitdir.join("HEAD");
    let head = fs::read_to_string(&head_file).ok()?;
    println!("cargo:rerun-if-changed={}", head_file.display());
    let Some(reference) = head.trim().strip_prefix("ref:").map(str::trim) else {
        return hex(&head);
    };
    let common = fs::read_to_string(gitdir.join("commondir"))
        .ok()
        .map(|c| gitdir.join(c.trim()))
        .unwrap_or_else(|| gitdir.clone());
    for dir in [&gitdir, &common] {
        let loose = dir.join(reference);
        if let Ok(id) = fs::read_to_string(&loose) {
            println!("cargo:rerun-if-changed={}", loose.display());
            return hex(&id);
        }
    }
    let packed_file = common.join("packed-refs");
    let packed = fs::read_to_string(&packed_file).ok()?;
    println!("cargo:rerun-if-changed={}", packed_file.display());
    packed.lines().find_map(|l| {
        let (id, name) = l.split_once(' ')?;
        (name.trim() == reference).then(|| hex(id))?
    })
}
