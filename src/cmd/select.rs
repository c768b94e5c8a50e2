//! `stack select NAME`: make NAME the active stack by pointing `stacks/current.yaml` at
//! `NAME.yaml` (a new relative symlink renamed over the old one: never a moment without a
//! link, never a link to an invalid topology). For a prod stack it then makes sure the
//! target can be chosen: it offers to add the `kubeconfig:` line (a text edit that keeps
//! every other byte), and to fetch that kubeconfig when it is absent or its cluster
//! unreachable. Without a terminal (or with `--no-input`) it never writes the topology and
//! never contacts a cluster: it only says what to do.

use std::fs;
use std::path::Path;

use crate::cmd::context::Invocation;
use crate::error::{Error, Exit, Result};
use crate::output::prompt;
use crate::output::render;
use crate::session::Session;
use crate::stack::{self, edit, schema, TargetKind, Topology, CURRENT};

pub fn run(invocation: &Invocation, name: &str) -> Result<Exit> {
    if !schema::is_dns1123_label(name) || name == "current" {
        return Err(Error::input(
            format!("`{name}` is not a stack name"),
            "a stack name is a DNS-1123 label naming stacks/<name>.yaml (see `kubectl nestor stack list`); `current` is the active-stack link itself",
        ));
    }
    let dir = invocation.stacks.stacks_dir()?;
    let file = stack::select_file(Some(name), &dir, &invocation.env)?;
    // Never point current.yaml at a file that does not load.
    let t = Topology::load(&file, &dir.path)?;
    if t.kind() == TargetKind::Lima {
        // A bench that would read prod is never made the active stack (SPEC §14).
        crate::target::isolation::checked_bench(&t, &invocation.env)?;
    }
    switch_current(&dir.path, name)?;
    invocation.printer.out(&format!(
        "selected stack {name} ({}): {} -> {name}.yaml\n",
        t.kind().as_str(),
        dir.path.join(CURRENT).display()
    ))?;
    warn_exported_kubeconfig(invocation, &t)?;
    if t.kind() == TargetKind::Lima {
        return Ok(Exit::Ok);
    }
    let t = if t.raw.kubeconfig.is_none() {
        match offer_kubeconfig_line(invocation, &t)? {
            Some(edited) => edited,
            None => return Ok(Exit::Ok),
        }
    } else {
        t
    };
    check_kubeconfig(invocation, &t)
}

/// An exported `KUBECONFIG` wins over the topology (rule env): selecting a stack does not
/// change what the next commands read while it is exported, so say so now, not at the next
/// `preview`'s mismatch. Silent when it already is the stack's own file (`stack env`).
fn warn_exported_kubeconfig(invocation: &Invocation, t: &Topology) -> Result<()> {
    let Some(value) = &invocation.env.kubeconfig else {
        return Ok(());
    };
    let shown = value.to_string_lossy();
    let name = t.name();
    if t.kind() == TargetKind::Lima {
        render::notice(&format!(
            "note: KUBECONFIG is exported ({shown}); lima stack {name} ignores it: its bench kubeconfig is authoritative (rule lima-bench)"
        ));
        return Ok(());
    }
    let declared = t.declared_kubeconfig(&invocation.env)?;
    let mut parts = std::env::split_paths(value).filter(|p| !p.as_os_str().is_empty());
    let exported = match (parts.next(), parts.next()) {
        (Some(one), None) => Some(invocation.env.absolute(&one)),
        _ => None,
    };
    if exported.is_some() && exported == declared {
        return Ok(());
    }
    let own = match &declared {
        Some(d) => format!("its kubeconfig {}", d.display()),
        None => "the kubeconfig it would declare".to_string(),
    };
    let fix = match &declared {
        Some(_) => format!("`unset KUBECONFIG`, or `eval \"$(kubectl nestor stack env {name})\"`"),
        None => "`unset KUBECONFIG`".to_string(),
    };
    render::notice(&format!(
        "warning: KUBECONFIG is exported ({shown}) and overrides stack {name}'s selection: rule env wins over the topology, so the next commands read that file's cluster, not {own}; {fix}"
    ));
    Ok(())
}

/// Point `current.yaml` at `NAME.yaml`, atomically ([`crate::fs::replace_symlink`]). A
/// `current.yaml` that is not a symlink is someone's data: refused, left alone.
fn switch_current(stacks: &Path, name: &str) -> Result<()> {
    let link = stacks.join(CURRENT);
    if let Ok(meta) = fs::symlink_metadata(&link) {
        if !meta.file_type().is_symlink() {
            return Err(Error::input(
                format!(
                    "{} exists and is not a symlink: refusing to replace it",
                    link.display()
                ),
                format!(
                    "it should be the link to the active stack; move it away (it may hold data), then run `kubectl nestor stack select {name}` again"
                ),
            ));
        }
    }
    crate::fs::replace_symlink(&link, &format!("{name}.yaml"))
}

/// Offer to add `kubeconfig: ~/.kube/NAME.config`; the re-loaded topology if it was added.
fn offer_kubeconfig_line(invocation: &Invocation, t: &Topology) -> Result<Option<Topology>> {
    let name = t.name();
    let line = format!("kubeconfig: ~/.kube/{name}.config");
    let file = t.file.display();
    if !invocation.interactive {
        render::notice(&format!(
            "warning: prod stack {name} declares no kubeconfig, so its commands refuse to run (exit 3): add the line `{line}` to {file} (left unchanged: no prompt with --no-input or without a terminal)"
        ));
        return Ok(None);
    }
    if !prompt::confirm(&format!("Add \"{line}\" to {file}?")) {
        render::notice(&format!(
            "{file} left unchanged: add the line `{line}` yourself before running prod commands on {name}"
        ));
        return Ok(None);
    }
    let original = fs::read(&t.file).map_err(|e| {
        Error::input(
            format!("cannot read topology {file}: {e}"),
            "check that the file is readable",
        )
    })?;
    let edited = edit::add_kubeconfig_line(&original, name)?;
    crate::fs::write_atomically(&t.file, &edited)?;
    invocation
        .printer
        .out(&format!("added `{line}` to {file}\n"))?;
    Topology::load(&t.file, &t.stacks_dir).map(Some)
}

/// Interactive: when the declared kubeconfig is absent, not a usable kubeconfig, or its
/// cluster unreachable, offer `kubeconfig fetch`. Otherwise only a notice when it is absent.
fn check_kubeconfig(invocation: &Invocation, t: &Topology) -> Result<Exit> {
    let Some(path) = t.declared_kubeconfig(&invocation.env)? else {
        return Ok(Exit::Ok);
    };
    if !invocation.interactive {
        if !path.exists() {
            render::notice(&format!(
                "kubeconfig {} does not exist yet: fetch it with `kubectl nestor kubeconfig fetch`",
                path.display()
            ));
        }
        return Ok(Exit::Ok);
    }
    let problem = if path.exists() {
        // The verification read follows the target policy: nestor's pre-check, the declared
        // endpoint (a mismatch is never dialled), kubectl's agreement, then a pinned read.
        match Session::verify(invocation.ground(), t, path.clone(), true) {
            Err(e) => Some(e.message),
            Ok(session) => match session.nodes() {
                Ok(found) => {
                    invocation.printer.out(&format!(
                        "cluster {} reachable through {}: {}\n",
                        session.agreed.server,
                        path.display(),
                        crate::output::render::nodes_line(&found)
                    ))?;
                    None
                }
                Err(e) if e.exit == Exit::Unreachable => Some(e.message),
                Err(e) => {
                    render::notice(&format!("cannot check the cluster: {}", e.message));
                    None
                }
            },
        }
    } else {
        Some(format!("kubeconfig {} does not exist yet", path.display()))
    };
    let Some(problem) = problem else {
        return Ok(Exit::Ok);
    };
    render::notice(&problem);
    if prompt::confirm("Fetch it now with kubectl nestor kubeconfig fetch?") {
        return super::fetch::fetch(invocation, t);
    }
    render::notice("not fetched: run `kubectl nestor kubeconfig fetch` when the control-plane host is reachable over ssh");
    Ok(Exit::Ok)
}
