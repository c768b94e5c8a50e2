//! The README's "Try it" block, read as a new user meets it, the sections of the README and
//! of the `docs/` pages whose commands and outputs the tests run as written, and a fresh copy
//! of the repository as a clone would hold it: shared by `tests/cli/readme.rs` (the block's
//! test command is the line CI runs), `tests/cli/readme_output.rs` and `tests/e2e` (the
//! sections' blocks) and `tests/readme_build` (its first command, `cargo run`, rebuilds the
//! crate in that copy). Included by those binaries with `#[path]`.

#![allow(dead_code)]

use std::fs;
use std::path::Path;
use std::process::Command;

pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The lines of the first ```sh block under `## Try it`.
pub fn try_it() -> Vec<String> {
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

/// The section of `file` (a path from the repository root: `README.md`, `docs/gates.md`) under
/// the heading line `heading` (as written, `## Before you touch it`), up to the next heading
/// of its level or above; a `#` line inside a fenced block is no heading. Panics, naming
/// the file, when there is no such heading: a section the tests run must not vanish.
pub fn section(file: &str, heading: &str) -> String {
    let text =
        fs::read_to_string(format!("{ROOT}/{file}")).unwrap_or_else(|e| panic!("{file}: {e}"));
    let level = heading.chars().take_while(|c| *c == '#').count();
    let mut lines = text.lines();
    lines
        .by_ref()
        .find(|l| *l == heading)
        .unwrap_or_else(|| panic!("{file} has no `{heading}` section"));
    let mut fenced = false;
    let mut out = String::new();
    for line in lines {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !fenced && (1..=level).contains(&hashes) && line[hashes..].starts_with(' ') {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The fenced blocks of `section` whose info string is `lang` (```` ```console ````), in
/// order, each as its lines.
pub fn fenced(section: &str, lang: &str) -> Vec<Vec<String>> {
    let mut blocks = vec![];
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        if line.strip_prefix("```") == Some(lang) {
            blocks.push(
                lines
                    .by_ref()
                    .take_while(|l| !l.starts_with("```"))
                    .map(String::from)
                    .collect(),
            );
        } else if line.starts_with("```") {
            lines
                .by_ref()
                .take_while(|l| !l.starts_with("```"))
                .for_each(drop);
        }
    }
    blocks
}

/// A fresh copy of the repository as a clone would have it: the files git tracks, copied
/// from the work tree (so the test sees the current edit, and a file left out of git is
/// missing here as it would be in a clone), symlinks kept, modification times kept (the
/// copy's build in its own target dir stays incremental between runs). None when this is
/// not a git work tree.
pub fn fresh_copy(dest: &Path) -> Option<()> {
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
