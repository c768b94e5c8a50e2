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
    /// `NESTOR_READ_PATH`: how reads reach the cluster (`proxy`, the default, or `processes`:
    /// explicit only, never a fallback; docs/read-path.md says what it cannot guarantee).
    pub read_path: ReadPath,
}

/// How reads reach the API server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadPath {
    /// One `kubectl proxy`, parallel GETs over its unix socket.
    #[default]
    Proxy,
    /// One kubectl process per read.
    Processes,
}

impl ReadPath {
    /// `NESTOR_READ_PATH`: `proxy` or `processes`.
    pub fn parse(value: &str) -> Option<ReadPath> {
        match value {
            "proxy" => Some(ReadPath::Proxy),
            "processes" => Some(ReadPath::Processes),
            _ => None,
        }
    }
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
        let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let read_path = match non_empty("NESTOR_READ_PATH") {
            None => ReadPath::default(),
            Some(v) => ReadPath::parse(&v.to_string_lossy()).ok_or_else(|| {
                Error::input(
                    format!(
                        "NESTOR_READ_PATH={} is not a read path",
                        v.to_string_lossy()
                    ),
                    "use `proxy` (the default: one kubectl proxy, parallel GETs) or `processes` (one kubectl per read, for stub-kubectl tests: kubectl follows redirects there), or unset it",
                )
            })?,
        };
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
            read_path,
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
