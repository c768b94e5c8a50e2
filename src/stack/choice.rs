//! Which stack a run names and where the stacks live (`--stack`, `--stacks-dir`,
//! `NESTOR_STACK`, `NESTOR_STACKS_DIR`, the active `stacks/current.yaml`), and the loading of
//! that stack's topology. Owned by the invocation as one value, so a command asks it for its
//! stack in one call into `stack/` (ARCHITECTURE.md, "Data flow of `preview`"); and
//! [`select_file`], the stack file a name, a path or the active link means.

use std::path::{Path, PathBuf};

use std::fs;

use super::{list_or_none, schema, stem, StacksDir, Topology, CURRENT};
use crate::env::Environment;
use crate::error::{Error, Result};

/// Where the stack of a command came from (`stack current` says it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackSource {
    /// `--stack NAME|PATH`.
    Flag,
    /// `NESTOR_STACK` in the environment.
    Env,
    /// `stacks/current.yaml`, the repository's active stack.
    Active,
}

impl StackSource {
    /// The name in documents: `flag`, `env`, `active`.
    pub fn name(self) -> &'static str {
        match self {
            StackSource::Flag => "flag",
            StackSource::Env => "env",
            StackSource::Active => "active",
        }
    }

    /// How a stacks directory found from a stack path was found.
    fn dir_found_by(self) -> &'static str {
        match self {
            StackSource::Flag => "the directory of --stack",
            StackSource::Env => "the directory of NESTOR_STACK",
            StackSource::Active => "the directory of the active stack",
        }
    }
}

/// The stack flags of one run with the environment they are read against.
#[derive(Debug, Clone)]
pub struct Choice {
    /// `--stack NAME|PATH`.
    pub flag: Option<String>,
    /// `--stacks-dir DIR`.
    pub dir_flag: Option<PathBuf>,
    /// `--kubeconfig` or `KUBECONFIG` given: a command that works on a bare kubeconfig
    /// needs no stack.
    pub explicit_kubeconfig: bool,
    pub env: Environment,
}

impl Choice {
    /// The stack this command names, and how: `--stack`, else `NESTOR_STACK` (its default in
    /// this shell); `None`: the active stack (`stacks/current.yaml`) applies.
    pub fn named(&self) -> Option<(&str, StackSource)> {
        match (&self.flag, &self.env.stack) {
            (Some(flag), _) => Some((flag, StackSource::Flag)),
            (None, Some(env)) => Some((env, StackSource::Env)),
            (None, None) => None,
        }
    }

    /// A stack or a stacks directory is named (flag or environment): failing to find it is
    /// an error, never a fallback.
    pub fn explicit(&self) -> bool {
        self.named().is_some() || self.dir_flag.is_some() || self.env.stacks_dir.is_some()
    }

    /// The stacks directory. A `--stack PATH` (or `NESTOR_STACK=PATH`) without
    /// `--stacks-dir`/`NESTOR_STACKS_DIR` uses the file's own directory, so its relative
    /// paths resolve next to it.
    pub fn stacks_dir(&self) -> Result<StacksDir> {
        if self.dir_flag.is_none() && self.env.stacks_dir.is_none() {
            if let Some((arg, source)) = self.named().filter(|(s, _)| looks_like_path(s)) {
                let file = self.env.absolute(Path::new(arg));
                if let Some(parent) = file.parent().filter(|p| p.is_dir()) {
                    return Ok(StacksDir {
                        path: parent.to_path_buf(),
                        found_by: source.dir_found_by(),
                    });
                }
            }
        }
        StacksDir::locate(self.dir_flag.as_deref(), &self.env)
    }

    /// The stack named on the command line (`name`), else `--stack`, else `NESTOR_STACK`,
    /// else the active one.
    pub fn topology(&self, name: Option<&str>) -> Result<Topology> {
        let dir = self.stacks_dir()?;
        let file = match name {
            Some(n) => select_file(Some(n), &dir, &self.env)?,
            None => self.select_file(self.named().map(|(s, _)| s), &dir)?,
        };
        Topology::load(&file, &dir.path)
    }

    /// [`select_file`] for the stack this command names (`chosen`, from [`Choice::named`]):
    /// a name that came from `NESTOR_STACK` says so, since the operator did not type it here.
    pub fn select_file(&self, chosen: Option<&str>, dir: &StacksDir) -> Result<PathBuf> {
        let from_env = self.flag.is_none() && chosen.is_some();
        select_file(chosen, dir, &self.env).map_err(|e| {
            if from_env {
                let message = format!(
                    "{} (NESTOR_STACK={})",
                    e.message,
                    chosen.unwrap_or_default()
                );
                let hint = format!(
                    "{}; or `unset NESTOR_STACK` to use the active stack",
                    e.hint
                );
                Error::new(e.exit, message, hint)
            } else {
                e
            }
        })
    }

    /// Like [`Choice::topology`], but `None` when no stack is named and none can be found
    /// while an explicit kubeconfig is given: commands that work on a bare kubeconfig.
    pub fn optional_topology(&self) -> Result<Option<Topology>> {
        match self.topology(None) {
            Ok(t) => Ok(Some(t)),
            Err(_) if !self.explicit() && self.explicit_kubeconfig && self.no_active_stack() => {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    fn no_active_stack(&self) -> bool {
        match self.stacks_dir() {
            Err(_) => true,
            Ok(dir) => std::fs::symlink_metadata(dir.path.join(CURRENT)).is_err(),
        }
    }
}

/// Which stack file a command is about: `--stack NAME|PATH`, else the active link.
pub fn select_file(stack: Option<&str>, dir: &StacksDir, env: &Environment) -> Result<PathBuf> {
    if let Some(arg) = stack {
        if looks_like_path(arg) {
            let path = env.absolute(Path::new(arg));
            if !path.is_file() {
                return Err(Error::input(
                    format!("stack file {} does not exist", path.display()),
                    "pass a stack name from `kubectl nestor stack list` or an existing file",
                ));
            }
            return Ok(path);
        }
        if !schema::is_dns1123_label(arg) {
            let hint = match dir.near_file(arg) {
                Some(near) => format!(
                    "stack names are lowercase DNS-1123 labels, compared exactly: the file here is {} (`kubectl nestor stack list` shows the names)",
                    near.display()
                ),
                None => "stack names are DNS-1123 labels (see `kubectl nestor stack list`); a path needs a '/' or a .yaml suffix".to_string(),
            };
            return Err(Error::input(format!("`{arg}` is not a stack name"), hint));
        }
        let file_name = format!("{arg}.yaml");
        let path = dir.path.join(&file_name);
        if let Err(actual) = dir.exact_entry(&file_name) {
            return Err(Error::input(
                format!(
                    "no stack `{arg}`: the file here is {}, whose name differs in case (a case-insensitive file system would open it for {file_name})",
                    actual.display()
                ),
                format!(
                    "stack names are compared exactly: rename it, `mv {} {}`",
                    crate::shell::quote(&actual.display().to_string()),
                    crate::shell::quote(&path.display().to_string())
                ),
            ));
        }
        if !path.is_file() {
            if let Some(near) = dir.near_file(arg) {
                return Err(Error::input(
                    format!(
                        "no stack `{arg}` in {}: {} is not read (stack files end in .yaml)",
                        dir.path.display(),
                        near.display()
                    ),
                    format!(
                        "rename it, `mv {} {}`",
                        crate::shell::quote(&near.display().to_string()),
                        crate::shell::quote(&path.display().to_string())
                    ),
                ));
            }
            let names: Vec<String> = dir.stack_files()?.iter().filter_map(|p| stem(p)).collect();
            return Err(Error::input(
                format!(
                    "no stack `{arg}` in {}{}",
                    dir.path.display(),
                    crate::suggest::did_you_mean(arg, names.iter().map(String::as_str))
                ),
                format!("stacks here: {}", list_or_none(&names)),
            ));
        }
        return Ok(path);
    }
    let link = dir.path.join(CURRENT);
    match fs::symlink_metadata(&link) {
        Err(_) => Err(Error::input(
            format!("no active stack: {} does not exist", link.display()),
            "run `kubectl nestor stack select NAME`, pass --stack NAME, or `export NESTOR_STACK=NAME` for this shell",
        )),
        Ok(meta) if !meta.file_type().is_symlink() => Err(Error::input(
            format!("{} is not a symlink", link.display()),
            "it must point at `<name>.yaml`: remove it and run `kubectl nestor stack select NAME`",
        )),
        Ok(_) => {
            let target = fs::read_link(&link).map_err(|e| {
                Error::input(
                    format!("cannot read link {}: {e}", link.display()),
                    "run `kubectl nestor stack select NAME`",
                )
            })?;
            let resolved = if target.is_absolute() {
                target.clone()
            } else {
                dir.path.join(&target)
            };
            if !resolved.is_file() {
                return Err(Error::input(
                    format!(
                        "{} points at {}, which does not exist",
                        link.display(),
                        target.display()
                    ),
                    "run `kubectl nestor stack select NAME` to point it at an existing stack",
                ));
            }
            Ok(resolved)
        }
    }
}

/// `--stack` names a file (not a stack name) when it has a '/' or a YAML suffix.
pub fn looks_like_path(arg: &str) -> bool {
    arg.contains('/') || arg.ends_with(".yaml") || arg.ends_with(".yml")
}
