//! Which stack a run names and where the stacks live (`--stack`, `--stacks-dir`,
//! `NESTOR_STACK`, `NESTOR_STACKS_DIR`, the active `stacks/current.yaml`), and the loading of
//! that stack's topology. Owned by the invocation as one value, so a command asks it for its
//! stack in one call into `stack/` (ARCHITECTURE.md, "Data flow of `preview`").

use std::path::{Path, PathBuf};

use super::{select_file, StacksDir, Topology, CURRENT};
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
    /// `--kubeconfig` given: a command that works on a bare kubeconfig needs no stack.
    pub kubeconfig_flag: bool,
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
            if let Some((arg, source)) = self.named().filter(|(s, _)| super::looks_like_path(s)) {
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
        let explicit_kubeconfig = self.kubeconfig_flag || self.env.kubeconfig.is_some();
        match self.topology(None) {
            Ok(t) => Ok(Some(t)),
            Err(_) if !self.explicit() && explicit_kubeconfig && self.no_active_stack() => Ok(None),
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
