//! Local writes, all through one door: a temporary file beside the target, fsync, then an
//! atomic rename, through a symlink if the path is one (the link stays a link). Used by
//! `stack select` (the topology edit keeps the file's mode), `kubeconfig fetch` and
//! snapshots (private: 0600 before a byte is written). Also the guard that keeps a
//! kubeconfig out of a git work tree, and the backup kept before one is replaced.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{Error, Result};

/// The permissions of the file written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Perm {
    /// The mode of the file replaced (0600 for a new file).
    Keep,
    /// 0600, whatever the file had.
    Private,
}

/// Write `bytes` to `path` atomically, keeping the mode of the file replaced (a new file is
/// 0600). The owner is not copied (that would need privileges). On failure the original
/// file is left as it was and the error names the path and the OS error.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    write(path, bytes, Perm::Keep)
}

/// Write `bytes` to `path` atomically with mode 0600: the temporary file is private before
/// any byte is written, so no moment exists where another user could read it.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    write(path, bytes, Perm::Private)
}

fn write(path: &Path, bytes: &[u8], perm: Perm) -> Result<()> {
    let target = final_target(path)?;
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
    let permissions = match perm {
        Perm::Private => Some(fs::Permissions::from_mode(0o600)),
        Perm::Keep => match fs::metadata(&target) {
            Ok(m) if m.is_file() => Some(m.permissions()),
            // Not a file (a directory, say): the rename below fails and says why.
            Ok(_) => None,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(fail("read the permissions of", e)),
        },
    };
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // tempfile creates the file 0600; a private write sets it again before writing.
    let tmp = tempfile::Builder::new()
        .prefix(".nestor-")
        .tempfile_in(&dir)
        .map_err(|e| fail("write", e))?;
    // A signal during the write removes the temp file (crate::signals): nothing is left
    // behind by an interrupted write.
    let slot = crate::signals::track_temp(tmp.path());
    let written = fill_and_rename(tmp, bytes, perm, permissions, &target, &fail);
    crate::signals::untrack_temp(slot);
    written?;
    // Make the rename itself durable. The new content is already in place, so a directory
    // that refuses fsync (some filesystems do) is not worth failing the command for.
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Write, chmod, fsync, rename. On error the temporary file is dropped, hence removed; the
/// original is untouched.
fn fill_and_rename(
    mut tmp: tempfile::NamedTempFile,
    bytes: &[u8],
    perm: Perm,
    permissions: Option<fs::Permissions>,
    target: &Path,
    fail: &dyn Fn(&str, std::io::Error) -> Error,
) -> Result<()> {
    if perm == Perm::Private {
        if let Some(p) = &permissions {
            tmp.as_file()
                .set_permissions(p.clone())
                .map_err(|e| fail("set the permissions of", e))?;
        }
    }
    tmp.write_all(bytes).map_err(|e| fail("write", e))?;
    if perm == Perm::Keep {
        if let Some(p) = permissions {
            tmp.as_file()
                .set_permissions(p)
                .map_err(|e| fail("set the permissions of", e))?;
        }
    }
    tmp.as_file().sync_all().map_err(|e| fail("write", e))?;
    tmp.persist(target).map_err(|e| fail("replace", e.error))?;
    Ok(())
}

/// Create `path` with `bytes`, atomically, never over an existing file (or symlink): the
/// bytes go to a private temporary file beside it, which is then linked into place only if
/// nothing is there (`persist_noclobber`), so a concurrent or earlier file is never replaced
/// and a failure leaves nothing behind. The new file is 0600.
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let exists = || {
        Error::input(
            format!(
                "{} already exists: refusing to overwrite it",
                path.display()
            ),
            "choose another name with `--name NAME`, or move the existing file away first",
        )
    };
    if fs::symlink_metadata(path).is_ok() {
        return Err(exists());
    }
    let fail = |what: &str, e: std::io::Error| {
        Error::input(
            format!("cannot {what} {}: {e}", path.display()),
            format!(
                "check that the directory of {} exists and is writable; nothing was written",
                path.display()
            ),
        )
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".nestor-")
        .tempfile_in(&dir)
        .map_err(|e| fail("write", e))?;
    let slot = crate::signals::track_temp(tmp.path());
    let written = tmp
        .as_file()
        .set_permissions(fs::Permissions::from_mode(0o600))
        .and_then(|_| tmp.write_all(bytes))
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(|e| fail("write", e))
        .and_then(|_| {
            tmp.persist_noclobber(path).map(|_| ()).map_err(|e| {
                if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                    exists()
                } else {
                    fail("create", e.error)
                }
            })
        });
    crate::signals::untrack_temp(slot);
    written?;
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The final target of `path` if it is a symlink (a chain is followed), else `path`: a
/// write replaces the file the link points at and the link stays a link.
pub fn final_target(path: &Path) -> Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path).map_err(|e| {
            let to = fs::read_link(path)
                .map(|t| t.display().to_string())
                .unwrap_or_else(|_| "?".into());
            Error::input(
                format!("cannot follow the symlink {} -> {to}: {e}", path.display()),
                format!(
                    "point {} at an existing file, or remove the link",
                    path.display()
                ),
            )
        }),
        _ => Ok(path.to_path_buf()),
    }
}

fn dir_error(what: &str, path: &Path, e: &std::io::Error) -> Error {
    Error::input(
        format!("cannot {what} {}: {e}", path.display()),
        format!(
            "check that {} is a writable directory of yours; nothing was replaced",
            path.parent().unwrap_or(Path::new("/")).display()
        ),
    )
}

/// The git work tree `path` would be written into, if any: the first ancestor (of the path
/// as written, and of its real location once symlinks are followed) holding a `.git`
/// directory or file.
pub fn git_work_tree(path: &Path) -> Option<PathBuf> {
    let mut candidates = vec![path.to_path_buf()];
    if let Some(real) = path
        .ancestors()
        .find(|a| a.exists())
        .and_then(|a| fs::canonicalize(a).ok())
    {
        candidates.push(real);
    }
    candidates.iter().find_map(|c| {
        c.ancestors()
            .find(|a| fs::symlink_metadata(a.join(".git")).is_ok())
            .map(Path::to_path_buf)
    })
}

/// `FILE.bak-YYYYMMDDTHHMMSSZ` (UTC) next to `file`.
pub fn backup_path(file: &Path, at: SystemTime) -> PathBuf {
    let secs = at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let mut name = file.as_os_str().to_os_string();
    name.push(format!(".bak-{}", utc_stamp(secs)));
    PathBuf::from(name)
}

/// Seconds since the epoch as `YYYYMMDDTHHMMSSZ`.
pub fn utc_stamp(unix_secs: u64) -> String {
    crate::clock::compact(i64::try_from(unix_secs).unwrap_or(0))
}

/// Create the missing directories of `dir` with mode 0700 (existing ones are left as they are).
pub fn create_private_dirs(dir: &Path) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| dir_error("create the directory", dir, &e))
}

/// Keep `bytes` (the file about to be replaced) as `backup`, mode 0600, never overwriting an
/// existing file.
pub fn write_backup(backup: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(backup)
        .map_err(|e| dir_error("create the backup", backup, &e))?;
    let result = f
        .set_permissions(fs::Permissions::from_mode(0o600))
        .and_then(|_| f.write_all(bytes))
        .and_then(|_| f.sync_all());
    if let Err(e) = result {
        let _ = fs::remove_file(backup);
        return Err(dir_error("write the backup", backup, &e));
    }
    Ok(())
}

/// Make `link` a symlink to `points_to` (written as given, usually relative), atomically:
/// the new link is made under a temporary name beside it, then renamed over `link`.
pub fn replace_symlink(link: &Path, points_to: &str) -> Result<()> {
    let dir = match link.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = link
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let fail = |what: String, e: std::io::Error| {
        Error::input(
            format!("{what}: {e}"),
            format!(
                "check that {} is writable; {} was left unchanged",
                dir.display(),
                link.display()
            ),
        )
    };
    for attempt in 0..100u32 {
        let tmp = dir.join(format!(".{name}.{}-{attempt}.tmp", std::process::id()));
        match std::os::unix::fs::symlink(points_to, &tmp) {
            Ok(()) => {
                if let Err(e) = fs::rename(&tmp, link) {
                    let _ = fs::remove_file(&tmp);
                    return Err(fail(format!("cannot replace {}", link.display()), e));
                }
                if let Ok(d) = fs::File::open(&dir) {
                    let _ = d.sync_all();
                }
                return Ok(());
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(fail(
                    format!("cannot create a symlink in {}", dir.display()),
                    e,
                ))
            }
        }
    }
    Err(Error::input(
        format!(
            "cannot create a temporary symlink in {}: too many leftovers",
            dir.display()
        ),
        format!("remove the stale .{name}.*.tmp links in {}", dir.display()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_new_creates_a_private_file_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("staging.yaml");
        write_new(&path, b"name: staging\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"name: staging\n");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let e = write_new(&path, b"other").unwrap_err();
        assert_eq!(
            e.message,
            format!(
                "{} already exists: refusing to overwrite it",
                path.display()
            )
        );
        assert!(e.hint.contains("--name"), "{}", e.hint);
        assert_eq!(fs::read(&path).unwrap(), b"name: staging\n");
        // A dangling symlink counts as there: nothing is written through it.
        let link = dir.path().join("link.yaml");
        std::os::unix::fs::symlink(dir.path().join("nowhere.yaml"), &link).unwrap();
        assert!(write_new(&link, b"x").is_err());
        assert!(!dir.path().join("nowhere.yaml").exists());
        // No temporary file left beside them.
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // A missing directory: an error, nothing created.
        let e = write_new(&dir.path().join("no/such/dir.yaml"), b"x").unwrap_err();
        assert!(e.message.starts_with("cannot write "), "{}", e.message);
    }
    use std::os::unix::fs::symlink;
    use std::time::Duration;

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

    #[test]
    fn git_work_trees_are_found_through_symlinks() {
        let d = tempfile::tempdir().unwrap();
        let repo = d.path().join("repo");
        fs::create_dir_all(repo.join(".git")).unwrap();
        fs::create_dir_all(repo.join("sub")).unwrap();
        assert_eq!(
            git_work_tree(&repo.join("sub/not/yet/k.config")),
            Some(repo.clone())
        );
        let home = d.path().join("home");
        fs::create_dir_all(&home).unwrap();
        assert_eq!(git_work_tree(&home.join(".kube/k.config")), None);
        // ~/.kube is a link into the repo
        std::os::unix::fs::symlink(repo.join("sub"), home.join(".kube")).unwrap();
        assert_eq!(
            git_work_tree(&home.join(".kube/k.config")),
            Some(fs::canonicalize(&repo).unwrap())
        );
        // a `.git` file (worktree, submodule) counts too
        let wt = d.path().join("wt");
        fs::create_dir_all(&wt).unwrap();
        fs::write(wt.join(".git"), "gitdir: /x\n").unwrap();
        assert_eq!(git_work_tree(&wt.join("k.config")), Some(wt));
    }

    #[test]
    fn backup_names_are_utc_timestamps() {
        assert_eq!(utc_stamp(0), "19700101T000000Z");
        assert_eq!(utc_stamp(951_782_400), "20000229T000000Z");
        assert_eq!(utc_stamp(1_709_251_199), "20240229T235959Z");
        assert_eq!(utc_stamp(1_735_689_600), "20250101T000000Z");
        assert_eq!(utc_stamp(4_107_542_400), "21000301T000000Z");
        let at = UNIX_EPOCH + Duration::from_secs(1_741_684_442);
        assert_eq!(
            backup_path(Path::new("/h/.kube/dirqual.config"), at),
            PathBuf::from("/h/.kube/dirqual.config.bak-20250311T091402Z")
        );
    }

    #[test]
    fn private_writes_are_0600_and_atomic() {
        let d = tempfile::tempdir().unwrap();
        let kube = d.path().join("home/.kube");
        create_private_dirs(&kube).unwrap();
        assert_eq!(mode(&kube), 0o700);
        let f = kube.join("a.config");
        write_private(&f, b"one").unwrap();
        assert_eq!((fs::read(&f).unwrap(), mode(&f)), (b"one".to_vec(), 0o600));
        // an existing looser file becomes 0600
        fs::set_permissions(&f, fs::Permissions::from_mode(0o644)).unwrap();
        write_private(&f, b"two").unwrap();
        assert_eq!((fs::read(&f).unwrap(), mode(&f)), (b"two".to_vec(), 0o600));
        // through a symlink: the link stays
        let link = kube.join("link.config");
        std::os::unix::fs::symlink("a.config", &link).unwrap();
        write_private(&link, b"three").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&f).unwrap(), b"three");
        let names: Vec<_> = fs::read_dir(&kube)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // a backup never overwrites
        let b = kube.join("a.config.bak-x");
        write_backup(&b, b"old").unwrap();
        assert_eq!((fs::read(&b).unwrap(), mode(&b)), (b"old".to_vec(), 0o600));
        assert!(write_backup(&b, b"again").is_err());
        assert_eq!(fs::read(&b).unwrap(), b"old");
    }
}
