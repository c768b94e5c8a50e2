//! The README's "Try it" block, read as a new user meets it, and a fresh copy of the
//! repository as a clone would hold it: shared by `tests/cli/readme.rs` (the block's test
//! command is the line CI runs) and `tests/readme_build` (its first command, `cargo run`,
//! rebuilds the crate in that copy). Included by both binaries with `#[path]`.

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
