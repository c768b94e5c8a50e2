//! The hermetic kubectl environment (SPEC §4, §9): nothing outside the stack's declaration may
//! redirect a kubectl that nestor runs. Every kubectl child gets its environment cleaned here —
//! the variables that choose a kubeconfig, a server, a proxy or a preference file are
//! removed, and kubectl's preference file (`kuberc`, kubectl 1.33+) is switched off through
//! its feature variable (older kubectls ignore it) — and a discovery cache directory that is
//! never inside a repository, whatever `HOME` is.
//!
//! What is kept: `PATH`, `HOME`, locale and whatever a credential plugin of the operator's own
//! kubeconfig needs (cloud SDK variables, `SSH_AUTH_SOCK`, ...): those choose credentials,
//! never the cluster, and the cluster is pinned on the command line anyway.

use std::path::{Path, PathBuf};

/// Variables removed from every kubectl child's environment, and why.
pub const REMOVED: &[&str] = &[
    // Choose the kubeconfig (nestor passes `--kubeconfig` explicitly).
    "KUBECONFIG",
    // The server kubectl falls back to for a cluster without `server:`.
    "KUBERNETES_MASTER",
    // In-cluster configuration (a kubectl run inside a pod falls back to it).
    "KUBERNETES_SERVICE_HOST",
    "KUBERNETES_SERVICE_PORT",
    // The preference file's path (kubectl 1.33+).
    "KUBERC",
    // The discovery cache's directory (nestor passes `--cache-dir` explicitly).
    "KUBECACHEDIR",
    // Proxies route every request elsewhere; a kubeconfig's own `proxy-url` is refused by
    // the target check, so nothing but the declared server is ever dialled.
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
];

/// Variables set for every kubectl child: the preference file off (`kuberc` is read only when
/// this feature variable allows it; kubectl before 1.33 has no such file and ignores it).
pub const SET: &[(&str, &str)] = &[("KUBECTL_KUBERC", "false")];

/// The Go garbage collector's target for kubectl children when the operator set none
/// (docs/read-path.md, "Performance"): kubectl allocates a few tens of MB while it starts, and
/// with Go's default (`GOGC=100`, a first collection at a 4 MB heap) it collects several times
/// before it can serve — about a quarter of a proxy's start on 2 CPUs. At 1000 the first
/// collection waits for a 40 MB heap, so a start-up runs none; memory stays bounded (a heap
/// at most 11 times what is live, unlike `off`, which a long `wait` proxy could not afford,
/// and which a kubectl built before Go 1.19 could not cap with `GOMEMLIMIT`).
pub const GOGC: &str = "1000";

/// Apply the hermetic environment to a command about to run kubectl. `GOGC` is only a
/// default: an operator's own `GOGC` (a small machine) is kept.
pub fn apply(command: &mut std::process::Command) {
    apply_with(command, std::env::var_os("GOGC").is_some());
}

/// [`apply`], told whether the operator's environment sets `GOGC` (kept then: a child
/// inherits it).
fn apply_with(command: &mut std::process::Command, operator_gogc: bool) {
    for v in REMOVED {
        command.env_remove(v);
    }
    for (k, v) in SET {
        command.env(k, v);
    }
    if !operator_gogc {
        command.env("GOGC", GOGC);
    }
}

/// kubectl's discovery cache directory for this run. kubectl's own default,
/// `$HOME/.kube/cache`, when HOME is an absolute directory outside any repository (the cache
/// stays warm across runs); otherwise (HOME unset, relative, or inside a git work tree) a
/// private per-user directory under the system temp dir, never the current directory.
pub fn cache_dir(home: Option<&Path>) -> PathBuf {
    match home {
        Some(h) if h.is_absolute() && !inside_repo(h) => h.join(".kube").join("cache"),
        _ => fallback_cache_dir(),
    }
}

/// True when `dir` or one of its ancestors holds a `.git` (a work tree or a bare-ish layout).
fn inside_repo(dir: &Path) -> bool {
    dir.ancestors().any(|d| d.join(".git").exists())
}

/// `/tmp/kubectl-nestor-<uid>/cache` (the system temp dir when it is absolute), made 0700
/// and checked to be ours: another user's directory at that path is never used (a poisoned
/// discovery cache could remap resource names), a fresh private one is made instead.
pub fn fallback_cache_dir() -> PathBuf {
    let tmp = Some(std::env::temp_dir())
        .filter(|t| t.is_absolute() && !inside_repo(t))
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    let uid = current_uid();
    let base = tmp.join(format!("kubectl-nestor-{uid}"));
    if private_dir(&base, uid) {
        return base.join("cache");
    }
    // Someone else's, or not a directory: a fresh private one for this run.
    match tempfile::Builder::new()
        .prefix("kubectl-nestor-")
        .tempdir_in(&tmp)
    {
        Ok(d) => d.keep().join("cache"),
        Err(_) => base.join("cache"),
    }
}

/// Make `dir` (0700) if absent; true when it is a real directory owned by `uid`, mode 0700.
fn private_dir(dir: &Path, uid: u32) -> bool {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let _ = std::fs::DirBuilder::new().mode(0o700).create(dir);
    match std::fs::symlink_metadata(dir) {
        Ok(m) => m.is_dir() && m.uid() == uid && m.mode() & 0o077 == 0,
        Err(_) => false,
    }
}

#[allow(unsafe_code)]
fn current_uid() -> u32 {
    // SAFETY: getuid(2) has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_never_lands_in_a_repo_or_the_current_directory() {
        let d = tempfile::tempdir().expect("tempdir");
        let home = d.path().join("home");
        std::fs::create_dir_all(&home).expect("mkdir");
        assert_eq!(cache_dir(Some(&home)), home.join(".kube/cache"));
        // HOME inside a git work tree.
        let repo = d.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
        let inside = repo.join("relhome");
        let c = cache_dir(Some(&inside));
        assert!(!c.starts_with(&repo), "{}", c.display());
        assert!(c.is_absolute());
        // Relative and unset.
        for home in [Some(Path::new("relhome")), None] {
            let c = cache_dir(home);
            assert!(c.is_absolute(), "{}", c.display());
            assert!(c.starts_with(std::env::temp_dir()) || c.starts_with("/tmp"));
        }
    }

    #[test]
    fn the_environment_is_cleaned() {
        let mut c = std::process::Command::new("env");
        c.env("KUBERNETES_MASTER", "http://127.0.0.1:8080")
            .env("KUBECONFIG", "/x")
            .env("HTTPS_PROXY", "http://p:3128")
            .env("KUBECTL_KUBERC", "true");
        apply(&mut c);
        let out = c.output().expect("env runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("KUBERNETES_MASTER"), "{text}");
        assert!(!text.contains("KUBECONFIG"), "{text}");
        assert!(!text.contains("HTTPS_PROXY"), "{text}");
        assert!(text.contains("KUBECTL_KUBERC=false"), "{text}");
    }

    #[test]
    fn kubectl_gets_gogc_1000_unless_the_operator_set_gogc() {
        let env_of = |operator: Option<&str>| {
            let mut c = std::process::Command::new("env");
            c.env_remove("GOGC");
            if let Some(v) = operator {
                c.env("GOGC", v);
            }
            apply_with(&mut c, operator.is_some());
            let out = c.output().expect("env runs");
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let none = env_of(None);
        assert!(none.lines().any(|l| l == "GOGC=1000"), "{none}");
        let own = env_of(Some("50"));
        assert!(own.lines().any(|l| l == "GOGC=50"), "{own}");
        assert!(!own.lines().any(|l| l == "GOGC=1000"), "{own}");
    }
}
