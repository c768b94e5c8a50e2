//! Local writes, all through one door: a temporary file beside the target, the original
//! permissions kept (0600 for a new file), fsync, then an atomic rename. Used by `stack
//! select` (topology edit), `kubeconfig fetch` and `discover --save`.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Write `bytes` to `path` atomically: a temporary file in the same directory, the original
/// permissions (mode) copied onto it, fsync, then a rename over the file.
///
/// If `path` is a symlink the edit happens at its final target and the link stays a link.
/// A file that does not exist yet is created with mode 0600. The owner is not copied (that
/// would need privileges): the file belongs to whoever runs nestor. On failure the original
/// file is left as it was and the error names the path and the OS error.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let target = resolve_symlink(path)?;
    let via = if target == path {
        String::new()
    } else {
        format!(" (target of the symlink {})", path.display())
    };
    let fail = |what: &str, e: std::io::Error| {
        Error::input(
            format!("cannot {what} {}{via}: {e}", target.display()),
            format!(
                "check that the directory of {} exists and is writable; the file was left unchanged",
                target.display()
            ),
        )
    };
    let permissions = match fs::metadata(&target) {
        Ok(m) if m.is_file() => Some(m.permissions()),
        // Not a file (a directory, say): the rename below fails and says why.
        Ok(_) => None,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(fail("read the permissions of", e)),
    };
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(&dir).map_err(|e| fail("write", e))?;
    tmp.write_all(bytes).map_err(|e| fail("write", e))?;
    if let Some(p) = permissions {
        tmp.as_file()
            .set_permissions(p)
            .map_err(|e| fail("set the permissions of", e))?;
    }
    tmp.as_file().sync_all().map_err(|e| fail("write", e))?;
    // On error the temporary file is dropped, hence removed; the original is untouched.
    tmp.persist(&target).map_err(|e| fail("replace", e.error))?;
    // Make the rename itself durable. The new content is already in place, so a directory
    // that refuses fsync (some filesystems do) is not worth failing the command for.
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The final target of `path` if it is a symlink (a chain is followed), else `path`.
fn resolve_symlink(path: &Path) -> Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path).map_err(|e| {
            let to = fs::read_link(path)
                .map(|t| t.display().to_string())
                .unwrap_or_else(|_| "?".into());
            Error::input(
                format!("cannot follow the symlink {} -> {to}: {e}", path.display()),
                format!("point {} at an existing file", path.display()),
            )
        }),
        _ => Ok(path.to_path_buf()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a panic is the failure report in tests
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};

    const ORIGINAL: &str = "name: dirqual\ntarget_kind: prod\n# a comment kept\n";

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().permissions().mode() & 0o7777
    }

    fn dir_entries(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn write_atomically_replaces_content_and_keeps_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("dirqual.yaml");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomically(&p, b"new\n").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new\n");
        assert_eq!(mode(&p), 0o600);
        assert_eq!(dir_entries(dir.path()), ["dirqual.yaml"]);
        // a new file gets 0600
        let q = dir.path().join("fresh.config");
        write_atomically(&q, b"x").unwrap();
        assert_eq!(mode(&q), 0o600);
    }

    #[test]
    fn write_atomically_through_a_symlink_edits_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let stacks = dir.path().join("stacks");
        fs::create_dir(&stacks).unwrap();
        let target = stacks.join("dirqual.yaml");
        fs::write(&target, ORIGINAL).unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
        let link = stacks.join("current.yaml");
        symlink("dirqual.yaml", &link).unwrap();

        let edited = format!("{ORIGINAL}kubeconfig: ~/.kube/dirqual.config\n").into_bytes();
        write_atomically(&link, &edited).unwrap();

        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_link(&link).unwrap(), Path::new("dirqual.yaml"));
        assert_eq!(fs::read(&target).unwrap(), edited);
        assert_eq!(mode(&target), 0o640);
        assert_eq!(dir_entries(&stacks), ["current.yaml", "dirqual.yaml"]);
    }

    #[test]
    fn write_atomically_to_a_missing_directory_fails_and_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("nope").join("dirqual.yaml");
        let e = write_atomically(&p, b"x").unwrap_err();
        assert!(
            e.message
                .starts_with(&format!("cannot write {}: ", p.display())),
            "{}",
            e.message
        );
        assert!(e.message.contains("os error 2"), "{}", e.message);
        assert!(e.hint.contains("left unchanged"), "{}", e.hint);
        assert!(!p.exists());
    }

    #[test]
    fn write_atomically_dangling_symlink_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("current.yaml");
        symlink("gone.yaml", &link).unwrap();
        let e = write_atomically(&link, b"x").unwrap_err();
        assert!(
            e.message.starts_with(&format!(
                "cannot follow the symlink {} -> gone.yaml",
                link.display()
            )),
            "{}",
            e.message
        );
        assert!(!dir.path().join("gone.yaml").exists());
    }

    #[test]
    fn write_atomically_failed_rename_leaves_the_original_intact() {
        // The rename fails for everyone, root included, when the target is a non-empty
        // directory: the temp file was written, the rename refused, the temp file removed.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("stacks");
        let target = d.join("dirqual.yaml");
        fs::create_dir_all(&target).unwrap();
        fs::write(target.join("keep"), ORIGINAL).unwrap();
        let e = write_atomically(&target, b"new").unwrap_err();
        assert!(
            e.message
                .starts_with(&format!("cannot replace {}: ", target.display())),
            "{}",
            e.message
        );
        assert!(e.message.contains("os error"), "{}", e.message);
        assert!(e.hint.contains("left unchanged"), "{}", e.hint);
        assert_eq!(fs::read(target.join("keep")).unwrap(), ORIGINAL.as_bytes());
        assert_eq!(dir_entries(&d), ["dirqual.yaml"]);
    }

    #[test]
    fn write_atomically_in_a_read_only_directory_leaves_the_original_intact() {
        let dir = tempfile::tempdir().unwrap();
        let ro = dir.path().join("ro");
        fs::create_dir(&ro).unwrap();
        let p = ro.join("dirqual.yaml");
        fs::write(&p, ORIGINAL).unwrap();
        fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
        // root ignores directory modes: nothing to prove then
        let root = fs::write(ro.join("probe"), b"").is_ok();
        let result = write_atomically(&p, b"new");
        fs::set_permissions(&ro, fs::Permissions::from_mode(0o755)).unwrap();
        if !root {
            let e = result.unwrap_err();
            assert!(
                e.message
                    .starts_with(&format!("cannot write {}: ", p.display())),
                "{}",
                e.message
            );
            assert!(e.message.contains("os error 13"), "{}", e.message);
            assert_eq!(fs::read(&p).unwrap(), ORIGINAL.as_bytes());
            assert_eq!(dir_entries(&ro), ["dirqual.yaml"]);
        }
    }
}
