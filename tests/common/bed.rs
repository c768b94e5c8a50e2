//! What the cli bed (`tests/cli/support.rs`, `Bed`) and the e2e bed (`tests/e2e/support.rs`,
//! `E2e`) do alike, written once: a stack file in `stacks/`, the active-stack symlink, and
//! the snapshot of a tree that proves nothing was written. Included with `#[path]`.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

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
