//! `discover --write`: the topology written to `stacks/NAME.yaml` by nestor itself, so that
//! onboarding a cluster never goes through a shell redirect (`> stacks/NAME.yaml`), which
//! creates the file before anything is read and leaves it empty when the read fails. The
//! destination is decided, and refused if it exists, before the cluster is read; the file
//! is created atomically, never over an existing one (`fs::write_new`).

use std::path::{Path, PathBuf};

use super::*;

/// `stacks/NAME.yaml` of the stacks directory, refused when something is already there.
pub(super) fn destination(
    invocation: &Invocation,
    args: &Args,
    stack: Option<&crate::stack::Topology>,
    kubeconfig: &Path,
) -> Result<PathBuf> {
    let name = stack_name(args, stack, kubeconfig)?;
    let dir = invocation.stacks.stacks_dir().map_err(|e| {
        e.with_hint("--write writes stacks/NAME.yaml: run it where a stacks/ directory is (or above it), or `mkdir stacks` first")
    })?;
    let path = dir.path.join(format!("{name}.yaml"));
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(Error::input(
            format!(
                "{} already exists: refusing to overwrite stack {name}",
                path.display()
            ),
            format!("to onboard another cluster, name it: `--name NAME` (the default, {name}, comes from the kubeconfig file's name or the stack); or move the existing file away"),
        ));
    }
    Ok(path)
}

/// Create the file (0600, atomically, never over one that appeared meanwhile) and say what
/// to do next.
pub(super) fn create(path: &Path, name: &str, text: &str) -> Result<()> {
    crate::fs::write_new(path, text.as_bytes())?;
    render::notice(&format!(
        "wrote {} (stack {name}): review its layers, then `kubectl nestor stack select {name}`",
        path.display()
    ));
    Ok(())
}
