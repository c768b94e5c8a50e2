//! The validated configuration of one run: the CLI flags plus the captured environment,
//! resolving the stack and its target before any process is spawned.

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::Path;

use crate::cli::{Format, Global};
use crate::error::Result;
use crate::exec::Runner;
use crate::paths::Environment;
use crate::topology::{self, StacksDir, Topology};

pub struct Context {
    pub global: Global,
    pub env: Environment,
    pub runner: Runner,
}

impl Context {
    pub fn new(global: Global, env: Environment) -> Context {
        let runner = Runner::new(&env, global.request_timeout, global.verbose > 0);
        Context {
            global,
            env,
            runner,
        }
    }

    pub fn format(&self) -> Format {
        self.global.output
    }

    /// Prompts are allowed: not `--no-input` and stdin is a terminal.
    pub fn interactive(&self) -> bool {
        !self.global.no_input && std::io::stdin().is_terminal()
    }

    /// Colour only on a terminal, never with `--no-color` or `NO_COLOR`.
    pub fn color(&self) -> bool {
        !self.global.no_color && !self.env.no_color && std::io::stdout().is_terminal()
    }

    /// The stacks directory. A `--stack PATH` without `--stacks-dir`/`NESTOR_STACKS_DIR`
    /// uses the file's own directory, so its relative paths resolve next to it.
    pub fn stacks_dir(&self) -> Result<StacksDir> {
        if self.global.stacks_dir.is_none() && self.env.stacks_dir.is_none() {
            if let Some(arg) = self
                .global
                .stack
                .as_deref()
                .filter(|s| topology::looks_like_path(s))
            {
                let file = self.env.absolute(Path::new(arg));
                if let Some(parent) = file.parent().filter(|p| p.is_dir()) {
                    return Ok(StacksDir {
                        path: parent.to_path_buf(),
                        found_by: "the directory of --stack",
                    });
                }
            }
        }
        StacksDir::locate(self.global.stacks_dir.as_deref(), &self.env)
    }

    /// The stack named on the command line (`name`), else `--stack`, else the active one.
    pub fn topology(&self, name: Option<&str>) -> Result<Topology> {
        let dir = self.stacks_dir()?;
        let chosen = name.or(self.global.stack.as_deref());
        let file = topology::select_file(chosen, &dir, &self.env)?;
        Topology::load(&file, &dir.path, &known_layers)
    }

    /// Like [`Context::topology`], but `None` when no stack is named and none can be found
    /// while an explicit kubeconfig is given: commands that work on a bare kubeconfig.
    pub fn optional_topology(&self) -> Result<Option<Topology>> {
        let explicit_stack = self.global.stack.is_some()
            || self.global.stacks_dir.is_some()
            || self.env.stacks_dir.is_some();
        let explicit_kubeconfig = self.global.kubeconfig.is_some() || self.env.kubeconfig.is_some();
        match self.topology(None) {
            Ok(t) => Ok(Some(t)),
            Err(_) if !explicit_stack && explicit_kubeconfig && self.no_active_stack() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The target kubeconfig of `stack` (SPEC §4), its notices (an ignored KUBECONFIG, ...)
    /// printed on stderr.
    pub fn resolve_target(&self, stack: Option<&Topology>) -> Result<crate::target::Resolution> {
        let resolution =
            crate::target::resolve(stack, self.global.kubeconfig.as_deref(), &self.env)?;
        for n in &resolution.notices {
            crate::render::notice(n);
        }
        Ok(resolution)
    }

    fn no_active_stack(&self) -> bool {
        match self.stacks_dir() {
            Err(_) => true,
            Ok(dir) => std::fs::symlink_metadata(dir.path.join(topology::CURRENT)).is_err(),
        }
    }
}

/// Every valid layer id: the built-in catalog plus the stack's `catalog:` file.
pub fn known_layers(catalog: Option<&Path>) -> Result<BTreeSet<String>> {
    crate::layers::known_ids(catalog)
}
