//! `kubeconfig fetch`: repatriate a prod stack's kubeconfig (SPEC §7). ssh to the first host
//! of the inventory's control-plane group, read `admin_conf` (`sudo -n cat`, plain `cat` as
//! root), check it is a plain kubeconfig that kubectl reads as nestor does and that runs or
//! reads nothing local (`target::fetched`), write the topology's declared `kubeconfig:` (0600,
//! atomically, never inside a git work tree, never over a different file without an
//! interactive yes and a backup), then verify it with `kubectl get nodes`.
//!
//! The fetched bytes are the cluster's admin credentials: they go to the file and nowhere
//! else — not to stdout, not into an error, not into `-v` output.

use std::path::Path;

use crate::cmd::context::Invocation;
use crate::error::{Error, Exit, Result};
use crate::output::prompt;
use crate::output::render;
use crate::read::admin_conf::{self, SshFetch};
use crate::read::exec::Tool;
use crate::session::Session;
use crate::stack::endpoint;
use crate::stack::inventory::Inventory;
use crate::stack::{TargetKind, Topology};
use crate::target::fetched;
use crate::target::{self, kubeconfig};

/// `kubeconfig --help` examples, in kubectl's style.
pub const KUBECONFIG_EXAMPLES: &str = "\
Examples:
  # Fetch the active stack's kubeconfig from its control-plane host
  kubectl nestor kubeconfig fetch";

const FETCH_EXAMPLES: &str = "\
Examples:
  # Fetch the active stack's kubeconfig from its control-plane host (ssh, read-only)
  kubectl nestor kubeconfig fetch

  # Another stack's
  kubectl nestor kubeconfig fetch --stack dirqual";

#[derive(Debug, clap::Subcommand)]
pub enum KubeconfigCommand {
    /// ssh to the control-plane host of the inventory, read admin_conf and write the stack's declared kubeconfig (0600).
    #[command(
        after_help = FETCH_EXAMPLES,
        long_about = "Repatriate the kubeconfig of a prod stack (--stack, else the active stack).\n\nssh to the first host of the inventory's control-plane group runs exactly `[-p PORT] [-i KEY] -o ConnectTimeout=N [-o BatchMode=yes] [USER@]HOST sudo -n cat ADMIN_CONF` (plain `cat` as root); host-key checking is never weakened. The bytes must be a kubeconfig with a cluster, a user and a resolvable current-context. They are written to the topology's `kubeconfig:` with mode 0600, atomically, never inside a git work tree. A different existing file is replaced only after an interactive yes, and kept as FILE.bak-YYYYMMDDTHHMMSSZ. Then `kubectl get nodes` verifies the new file."
    )]
    Fetch,
}

/// `kubeconfig fetch` for `--stack`, else the active stack.
pub fn run(invocation: &Invocation) -> Result<Exit> {
    let t = invocation.stacks.topology(None)?;
    fetch(invocation, &t)
}

/// What happened to the destination file.
enum Written {
    Created,
    Unchanged,
    Replaced { backup: String },
}

/// The fetch flow for one stack (also offered by `stack select`).
pub fn fetch(invocation: &Invocation, t: &Topology) -> Result<Exit> {
    if t.kind() == TargetKind::Lima {
        return Err(Error::input(
            format!(
                "stack {} is a lima bench: its kubeconfig ({}) is written by the bench harness, not fetched",
                t.name(),
                t.bench_kubeconfig(&invocation.env)?.display()
            ),
            "bring the bench up with its harness; `kubeconfig fetch` repatriates the kubeconfig of prod stacks",
        ));
    }
    let dest = t
        .declared_kubeconfig(&invocation.env)?
        .ok_or_else(|| target::not_declared(t.name()))?;
    if let Some(flag) = &invocation.global.kubeconfig {
        render::notice(&format!(
            "--kubeconfig {} is not used by `kubeconfig fetch`: it writes the topology's kubeconfig {}",
            flag.display(),
            dest.display()
        ));
    }
    if let Some(tree) = crate::fs::git_work_tree(&dest) {
        return Err(Error::input(
            format!(
                "refusing to write kubeconfig {} inside the git work tree {}: it holds the cluster's admin credentials",
                dest.display(),
                tree.display()
            ),
            format!(
                "declare a path outside any repository in {}, e.g. `kubeconfig: ~/.kube/{}.config`",
                t.file.display(),
                t.name()
            ),
        ));
    }
    // A kubeconfig's place only (never `~/.bashrc`, never a FIFO), before any ssh.
    fetched::destination(&invocation.env, &dest, &t.file)?;

    if t.has_no_inventory() {
        return Err(Error::input(
            format!(
                "stack {} says `inventory: none`: no host to read the admin kubeconfig from",
                t.name()
            ),
            format!(
                "point `inventory:` in {} at the Ansible inventory of the control plane, or write the kubeconfig yourself and declare it as `kubeconfig:`",
                t.file.display()
            ),
        ));
    }
    let inventory_path = t.inventory(&invocation.env)?;
    let inventory = Inventory::load(&inventory_path)?;
    for w in inventory.warnings() {
        render::notice(&format!("warning: {w}"));
    }
    let (host_name, ssh) = inventory.control_plane_host(
        t.raw.control_group.as_deref(),
        invocation.env.home.as_deref(),
    )?;
    let key = ssh.key.as_ref().map(|k| {
        if k.is_absolute() {
            k.clone()
        } else {
            t.repo_root.join(k)
        }
    });
    // What the allowlist admits for the fetch's `cat`, said before any ssh as the operator's
    // error: a key, `/etc/shadow` or a hidden file is never read, whatever the topology says.
    if !crate::read::exec::allowlist::is_kubeconfig_path(t.admin_conf()) {
        return Err(Error::input(
            format!(
                "admin_conf `{}` in {} is not a kubeconfig path: nestor reads only a kubeconfig over ssh",
                crate::term::escape_capped(t.admin_conf(), 120),
                t.file.display()
            ),
            "point `admin_conf:` at the kubeadm admin kubeconfig (default /etc/kubernetes/admin.conf): a *.conf, *.yaml, *.yml or *.kubeconfig file, or one named config or kubeconfig, outside ~/.ssh, never a key or a hidden file",
        ));
    }
    let SshFetch { destination, argv } = admin_conf::ssh_argv(
        &ssh,
        key.as_deref(),
        invocation.runner.timeout,
        !invocation.interactive,
        t.admin_conf(),
        &host_name,
        &inventory_path,
    )?;
    render::notice(&format!(
        "reading {} on {host_name} ({destination}) over ssh",
        t.admin_conf()
    ));
    // Cut at the kubeconfig bound (1 MiB) while it is read, not at the process layer's cap.
    let mut fetching = invocation.runner.clone();
    fetching.admin_conf = Some(t.admin_conf().to_string());
    let out = fetching
        .run_capped(Tool::Ssh, &argv, crate::bounded::MAX_BYTES)
        .map_err(|e| admin_conf::ssh_error(e, &destination, &ssh.host, ssh.port, t.admin_conf()))?;
    let source = format!("{destination}:{}", t.admin_conf());
    let mut bytes = out.stdout;
    let mut kube_target = fetched::validate(&bytes, &source)?;

    if let Some(host) = endpoint::host(&kube_target.server).filter(|h| !admin_conf::resolves(h)) {
        match t.raw.endpoint.as_ref().map(|e| e.to_string()) {
            Some(ep) if invocation.interactive => {
                render::notice(&format!(
                    "the fetched kubeconfig's server {} names host `{host}`, which does not resolve here",
                    kube_target.server
                ));
                if prompt::confirm(&format!(
                    "Rewrite its server to the topology's endpoint {ep}?"
                )) {
                    bytes = rewrite(&bytes, &kube_target.server, &ep, &source)?;
                    kube_target = fetched::validate(&bytes, &source)?;
                }
            }
            Some(ep) => render::notice(&format!(
                "warning: the fetched kubeconfig's server {} names host `{host}`, which does not resolve here; the topology's endpoint is {ep} (run `kubectl nestor kubeconfig fetch` in a terminal to rewrite it)",
                kube_target.server
            )),
            None => render::notice(&format!(
                "warning: the fetched kubeconfig's server {} names host `{host}`, which does not resolve here (declare `endpoint:` in {} to be offered a rewrite)",
                kube_target.server,
                t.file.display()
            )),
        }
    }
    if let Some(ep) = t.raw.endpoint.as_ref().map(|e| e.to_string()) {
        if !endpoint::same(&ep, &kube_target.server) {
            render::notice(&format!(
                "warning: the fetched server {} differs from the topology's endpoint {ep}: non-interactive prod commands will refuse this target",
                kube_target.server
            ));
        }
    }

    // kubectl's own reading of the bytes must agree with nestor's before they are written.
    fetched::kubectl_agrees(
        &invocation.runner,
        &invocation.env,
        &bytes,
        &kube_target,
        &source,
    )?;
    let written = write(invocation, &dest, &bytes)?;
    let state = match &written {
        Written::Created => "written, mode 0600".to_string(),
        Written::Unchanged => "unchanged: same content as the fetched one".to_string(),
        Written::Replaced { backup } => {
            format!("replaced, mode 0600; previous file kept as {backup}")
        }
    };
    let paint = render::Paint {
        on: invocation.printer.color(),
    };
    invocation.printer.out(
        &[
            field("stack", &format!("{} (prod)", t.name())),
            field(
                "source",
                &format!(
                    "{source} (host {host_name} of {})",
                    inventory_path.display()
                ),
            ),
            field("kubeconfig", &format!("{} ({state})", dest.display())),
            field("context", &kube_target.context),
            field("endpoint", &kube_target.server),
        ]
        .concat(),
    )?;

    // The verification read follows the target policy (SPEC §5): without a prompt the server
    // must be the topology's endpoint before kubectl runs; then kubectl's own reading of the
    // written file must agree, and the read is pinned to it.
    let session =
        Session::verify(invocation.ground(), t, dest.clone(), false).inspect_err(|_| {
            render::notice(&format!(
                "{} was written but is not verified: the target check refused it",
                dest.display()
            ))
        })?;
    let found = session.nodes()?;
    let mut text = field(
        "verified",
        &format!(
            "nodes read through kubectl proxy: {}",
            crate::output::render::nodes_line(&found)
        ),
    );
    text.push_str(&render::node_table(&found, paint));
    invocation.printer.out(&text)?;
    Ok(Exit::Ok)
}

/// One `label  value` line, labels aligned (the output is printed in two steps: what was
/// written first, so a failed verification still shows it).
fn field(label: &str, value: &str) -> String {
    format!("{label:<10}  {value}\n")
}

fn rewrite(bytes: &[u8], old: &str, new: &str, source: &str) -> Result<Vec<u8>> {
    let edited = admin_conf::rewrite_server(bytes, old, new);
    let ok = edited
        .as_deref()
        .and_then(|b| kubeconfig::parse(b, Path::new(source)).ok())
        .is_some_and(|k| k.server == new);
    match edited {
        Some(e) if ok => Ok(e),
        _ => Err(Error::input(
            format!("cannot rewrite the server of the kubeconfig fetched from {source} to {new}: no plain `server: {old}` line to edit; nothing was written"),
            "run the fetch with --no-input to keep the server as it is, then edit it with `kubectl config set-cluster` yourself",
        )),
    }
}

/// Put `bytes` at `dest`: create (0700 parent, 0600 file), leave an identical file alone,
/// replace a different one only after an interactive yes, keeping a backup.
fn write(invocation: &Invocation, dest: &Path, bytes: &[u8]) -> Result<Written> {
    // Bounded and regular only: a destination that is a FIFO or `/dev/zero` is refused (it
    // read without a cap), and one over the kubeconfig cap is not a kubeconfig to replace.
    let limit = crate::bounded::MAX_BYTES + 1;
    let read = crate::bounded::read_prefix(dest, limit).and_then(|b| {
        if b.len() as u64 >= limit {
            Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "larger than a kubeconfig can be: refused",
            ))
        } else {
            Ok(b)
        }
    });
    match read {
        Ok(existing) if existing == bytes => Ok(Written::Unchanged),
        Ok(existing) => {
            let real = crate::fs::final_target(dest)?;
            let backup = crate::fs::backup_path(&real, std::time::SystemTime::now());
            let refused = |why: &str| {
                Error::input(
                    format!(
                        "{} already exists with different content; {why}, nothing was written",
                        dest.display()
                    ),
                    format!(
                        "run `kubectl nestor kubeconfig fetch` in a terminal and answer yes to replace it (the old file is kept as {}.bak-YYYYMMDDTHHMMSSZ), or move it away first",
                        real.display()
                    ),
                )
            };
            if !invocation.interactive {
                return Err(refused("it is replaced only after an interactive yes"));
            }
            let question = format!(
                "Replace {}, whose content differs? The current file is kept as {}.",
                dest.display(),
                backup.display()
            );
            if !prompt::confirm(&question) {
                return Err(refused("you said no"));
            }
            crate::fs::write_backup(&backup, &existing)?;
            crate::fs::write_private(dest, bytes)?;
            Ok(Written::Replaced {
                backup: backup.display().to_string(),
            })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let real = crate::fs::final_target(dest)?;
            if let Some(parent) = real.parent().filter(|p| !p.as_os_str().is_empty()) {
                crate::fs::create_private_dirs(parent)?;
            }
            crate::fs::write_private(&real, bytes)?;
            Ok(Written::Created)
        }
        Err(e) => Err(Error::input(
            format!(
                "cannot read the existing kubeconfig {}: {e}",
                dest.display()
            ),
            "it must be a regular file of yours (or absent); nothing was written",
        )),
    }
}
