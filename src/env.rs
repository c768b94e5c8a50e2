//! The process environment, captured once at start-up so every rule that depends on it
//! (stacks dir, `KUBECONFIG`, `~`, tool overrides) is a pure function of this snapshot.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

#[derive(Debug, Clone, Default)]
pub struct Environment {
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
    /// `KUBECONFIG` as exported (an empty value counts as unset, as kubectl does).
    pub kubeconfig: Option<OsString>,
    pub stacks_dir: Option<PathBuf>,
    /// `NESTOR_STACK`: the default of `--stack` in this shell (as kubie keeps one context per
    /// shell), where `stacks/current.yaml` is one per repository.
    pub stack: Option<String>,
    pub no_color: bool,
    /// `COLUMNS`, a positive number: the text's width when stdout is not a terminal.
    pub columns: Option<usize>,
    /// `NESTOR_NO_INPUT` set (to anything but `0` or `false`): the same as `--no-input`.
    pub no_input: bool,
    pub kubectl: Option<PathBuf>,
    pub limactl: Option<PathBuf>,
    pub ssh: Option<PathBuf>,
}

/// `NESTOR_READ_PATH` once chose between the proxy and one `kubectl get` per read; the
/// second path could not be held to the first one's rules (kubectl's client follows a
/// redirect with the credentials and turns `"items": null` into `[]`), so it is gone
/// (issue 21) and a shell that still sets the variable is told so rather than ignored.
pub const REMOVED_READ_PATH: &str = "NESTOR_READ_PATH";

/// The error for a set [`REMOVED_READ_PATH`] (to anything, even empty): exit 1, before
/// anything is read, spawned or written.
pub fn removed_read_path() -> Error {
    Error::input(
        "NESTOR_READ_PATH is no longer read: nestor reads a cluster only through kubectl proxy, its one read path",
        "unset NESTOR_READ_PATH",
    )
}

/// `KUBECTL_PATH`, which recent kubectl sets for the plugins it runs (read before the
/// command line is parsed, for the usage lines: see `cli::display_name`).
pub fn kubectl_path() -> Option<OsString> {
    std::env::var_os("KUBECTL_PATH")
}

impl Environment {
    pub fn capture() -> Result<Environment> {
        let cwd = std::env::current_dir().map_err(|e| {
            Error::input(
                format!("cannot read the current directory: {e}"),
                "cd into an existing directory",
            )
        })?;
        if std::env::var_os(REMOVED_READ_PATH).is_some() {
            return Err(removed_read_path());
        }
        let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        Ok(Environment {
            cwd,
            home: non_empty("HOME").map(PathBuf::from),
            kubeconfig: non_empty("KUBECONFIG"),
            stacks_dir: non_empty("NESTOR_STACKS_DIR").map(PathBuf::from),
            stack: non_empty("NESTOR_STACK").map(|v| v.to_string_lossy().into_owned()),
            no_color: non_empty("NO_COLOR").is_some(),
            columns: non_empty("COLUMNS")
                .and_then(|c| c.to_string_lossy().trim().parse::<usize>().ok())
                .filter(|c| *c > 0),
            no_input: non_empty("NESTOR_NO_INPUT").is_some_and(|v| no_input_value(&v)),
            kubectl: non_empty("NESTOR_KUBECTL").map(PathBuf::from),
            limactl: non_empty("NESTOR_LIMACTL").map(PathBuf::from),
            ssh: non_empty("NESTOR_SSH").map(PathBuf::from),
        })
    }

    /// `p` made absolute against the current directory.
    pub fn absolute(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.cwd.join(p)
        }
    }
}

/// `NESTOR_NO_INPUT=1` (or any value but `0`/`false`, any case) means `--no-input`, as
/// terraform's `TF_INPUT=0` does the opposite way round.
fn no_input_value(v: &std::ffi::OsStr) -> bool {
    let v = v.to_string_lossy();
    let v = v.trim();
    !(v == "0" || v.eq_ignore_ascii_case("false"))
}

/// Expand a leading `~` or `~/` with HOME. `~user` is not supported (refused).
pub fn expand_tilde(written: &str, env: &Environment) -> Result<PathBuf> {
    let rest = match written.strip_prefix('~') {
        None => return Ok(PathBuf::from(written)),
        Some(rest) => rest,
    };
    if !rest.is_empty() && !rest.starts_with('/') {
        return Err(Error::input(
            format!("`{written}`: only `~/` is expanded, not `~user`"),
            "write the path as ~/... or as an absolute path",
        ));
    }
    let home = env.home.as_ref().ok_or_else(|| {
        Error::input(
            format!("cannot expand `{written}`: HOME is not set"),
            "set HOME or write an absolute path",
        )
    })?;
    Ok(home.join(rest.trim_start_matches('/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nestor_no_input_values() {
        for on in ["1", "true", "yes", "TRUE"] {
            assert!(no_input_value(std::ffi::OsStr::new(on)), "{on}");
        }
        for off in ["0", "false", "False", " 0 "] {
            assert!(!no_input_value(std::ffi::OsStr::new(off)), "{off}");
        }
    }

    #[test]
    fn tilde_expansion() {
        let env = Environment {
            home: Some("/home/op".into()),
            ..Environment::default()
        };
        assert_eq!(
            expand_tilde("~/.kube/a.config", &env).ok(),
            Some(PathBuf::from("/home/op/.kube/a.config"))
        );
        assert_eq!(
            expand_tilde("~", &env).ok(),
            Some(PathBuf::from("/home/op"))
        );
        assert_eq!(
            expand_tilde("rel/x", &env).ok(),
            Some(PathBuf::from("rel/x"))
        );
        assert!(expand_tilde("~bob/x", &env).is_err());
        let no_home = Environment::default();
        let e = expand_tilde("~/x", &no_home).err().map(|e| e.message);
        assert_eq!(e.as_deref(), Some("cannot expand `~/x`: HOME is not set"));
    }
}
