//! Reads the host-level layers (SPEC §13) over ssh: which hosts (the stack's Ansible
//! inventory, the reader `kubeconfig fetch` uses), the exact remote command of each check
//! (built from the catalog's validated fields, every word shell-quoted), one ssh per host
//! running all its checks, hosts in parallel, each bounded by `--request-timeout`.
//!
//! The remote string ssh hands the host's shell is, for each check:
//! `['sudo' '-n'] 'WORD' 'WORD'... 2>&1; echo nestor-exit-NONCE:$?;` — the merged output of
//! the command, then a marker with its exit status (see `probe::host`). `sudo -n` only where
//! the check says `sudo: true`, never when the ssh user is `root`. The allowlist
//! (`read::exec::hostcmd`) admits exactly these forms.
//!
//! Only the spawning goes through `exec`; everything else here builds argv or interprets
//! results.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{BuildHasher, Hasher};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{one_line, Result};
use crate::model::catalog::host::CONTROL_PLANE;
use crate::model::catalog::{Catalog, HostCheck, HostProbe};
use crate::model::observation::host::{
    self, classify_command_failure, HostFact, HostObservation, HostReading, NewestFile,
};
use crate::model::observation::{FailureKind, ReadFailure};
use crate::read::exec::{ExecError, Failure, Runner, Tool};
use crate::stack::inventory::Inventory;

/// `systemctl show --property=`: what the unit checks use.
pub const UNIT_PROPERTIES: &str = "LoadState,ActiveState,SubState,Result,ExecMainStatus";
/// `find -printf`: mtime (seconds since the epoch), size in bytes, path.
pub const FIND_FORMAT: &str = "%T@ %s %p\\n";

/// One host to read: how to reach it and the checks of every host layer that names it.
#[derive(Debug, Clone, PartialEq)]
pub struct HostJob {
    /// The inventory name (`dirqual1`), used in evidence.
    pub name: String,
    /// `[user@]address`, as passed to ssh.
    pub destination: String,
    pub user: Option<String>,
    /// The ssh argv up to and including the destination.
    pub ssh_options: Vec<String>,
    pub checks: Vec<HostCheck>,
}

/// The hosts the stack's host layers need: groups resolved, every host validated (a hostile
/// inventory value is an error here, before any ssh runs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostPlan {
    pub groups: BTreeMap<String, std::result::Result<Vec<String>, ReadFailure>>,
    pub jobs: Vec<HostJob>,
}

/// The host-level layers among `layer_ids`.
pub fn host_layers<'a>(
    catalog: &'a Catalog,
    layer_ids: &[String],
) -> Vec<&'a crate::model::catalog::Layer> {
    layer_ids
        .iter()
        .filter_map(|id| catalog.get(id))
        .filter(|l| l.host.is_some())
        .collect()
}

/// Build the plan: each host layer's group resolved in `inventory` (`control_plane` is the
/// stack's control-plane group, as `kubeconfig fetch` picks it), then one job per host with
/// the union of its checks. `repo_root` anchors relative key paths (as Ansible does), `home`
/// expands `~` in them.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    catalog: &Catalog,
    layer_ids: &[String],
    inventory: &Inventory,
    control_group: Option<&str>,
    repo_root: &Path,
    home: Option<&Path>,
    timeout: Duration,
    batch: bool,
) -> Result<HostPlan> {
    let mut out = HostPlan::default();
    let mut checks: BTreeMap<String, Vec<HostCheck>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for layer in host_layers(catalog, layer_ids) {
        let Some(spec) = &layer.host else { continue };
        let group = if spec.group == CONTROL_PLANE {
            inventory.control_group_name(control_group)
        } else {
            Ok(spec.group.clone())
        };
        let hosts = group.and_then(|g| inventory.hosts_of(&g)).map_err(|e| {
            ReadFailure::new(
                FailureKind::Skipped,
                format!("{}; hint: {}", e.message, e.hint),
            )
        });
        if let Ok(hosts) = &hosts {
            for h in hosts {
                if !order.contains(h) {
                    order.push(h.clone());
                }
                let list = checks.entry(h.clone()).or_default();
                for c in &spec.checks {
                    if !list.iter().any(|x| x.key() == c.key()) {
                        list.push(c.clone());
                    }
                }
            }
        }
        out.groups.insert(spec.group.clone(), hosts);
    }
    for name in order {
        let target = inventory.ssh_target(&name, home)?;
        let key = target.key.as_ref().map(|k| {
            if k.is_absolute() {
                k.clone()
            } else {
                repo_root.join(k)
            }
        });
        let (destination, ssh_options) = crate::read::ssh::connection(
            &target,
            key.as_deref(),
            timeout,
            batch,
            &name,
            inventory.path(),
        )?;
        out.jobs.push(HostJob {
            checks: checks.remove(&name).unwrap_or_default(),
            name,
            destination,
            user: target.user,
            ssh_options,
        });
    }
    Ok(out)
}

/// The words of one check's command, unquoted.
pub fn command_words(probe: &HostProbe) -> Vec<String> {
    match probe {
        HostProbe::Unit { unit, .. } => vec![
            "systemctl".into(),
            "show".into(),
            unit.clone(),
            format!("--property={UNIT_PROPERTIES}"),
        ],
        HostProbe::NewestFile { dir, pattern, .. } => [
            "find",
            dir,
            "-maxdepth",
            "1",
            "-type",
            "f",
            "-name",
            pattern,
            "-printf",
            FIND_FORMAT,
        ]
        .map(String::from)
        .to_vec(),
        HostProbe::Sshd { .. } => vec!["sshd".into(), "-T".into()],
    }
}

/// One word for a POSIX shell: single-quoted, a `'` inside written `'\''`.
pub fn sh_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The remote command words (after the destination) for `checks`.
pub fn remote_words(checks: &[HostCheck], user: Option<&str>, nonce: &str) -> Vec<String> {
    let mut words = Vec::new();
    for c in checks {
        if c.sudo && user != Some("root") {
            words.extend([sh_quote("sudo"), sh_quote("-n")]);
        }
        words.extend(command_words(&c.probe).iter().map(|w| sh_quote(w)));
        words.extend([
            "2>&1;".to_string(),
            "echo".to_string(),
            format!("{}$?;", host::marker(nonce)),
        ]);
    }
    words
}

/// 16 hex digits, fresh per run (the std hasher is seeded from the OS's randomness).
pub fn nonce() -> String {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.write_u32(std::process::id());
    format!("{:016x}", h.finish())
}

/// Read every host of the plan, in parallel; each ssh is bounded by the runner's timeout.
pub fn read(runner: &Runner, plan: &HostPlan) -> HostObservation {
    let mut obs = HostObservation {
        groups: plan.groups.clone(),
        ..HostObservation::default()
    };
    let results: Vec<(String, std::result::Result<HostReading, ReadFailure>)> =
        std::thread::scope(|s| {
            let handles: Vec<_> = plan
                .jobs
                .iter()
                .map(|job| (job.name.clone(), s.spawn(move || read_one(runner, job))))
                .collect();
            handles
                .into_iter()
                .map(|(name, h)| {
                    let r = h.join().unwrap_or_else(|_| {
                        Err(ReadFailure::new(
                            FailureKind::ApiError,
                            "the ssh thread panicked",
                        ))
                    });
                    (name, r)
                })
                .collect()
        });
    obs.hosts.extend(results);
    obs
}

fn now_secs() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// One ssh to one host, all its checks.
pub fn read_one(runner: &Runner, job: &HostJob) -> std::result::Result<HostReading, ReadFailure> {
    let nonce = nonce();
    let mut argv = job.ssh_options.clone();
    argv.extend(remote_words(&job.checks, job.user.as_deref(), &nonce));
    let out = runner
        .run(Tool::Ssh, &argv)
        .map_err(|e| ssh_failure(e, &job.destination))?;
    let now = now_secs();
    let sections = host::split_sections(&out.stdout, &nonce, job.checks.len())
        .map_err(|m| ReadFailure::new(FailureKind::BadOutput, m))?;
    let mut reading = HostReading::default();
    for (check, section) in job.checks.iter().zip(sections) {
        reading
            .checks
            .insert(check.key(), interpret(check, &section, now));
    }
    Ok(reading)
}

/// One check's section → its fact, or why it failed.
fn interpret(
    check: &HostCheck,
    section: &host::Section,
    now: f64,
) -> std::result::Result<HostFact, ReadFailure> {
    let text = &section.text;
    if let HostProbe::NewestFile { dir, .. } = &check.probe {
        if section.status != 0
            && text.contains("No such file or directory")
            && text.contains(dir.as_str())
            && !text.contains("sudo:")
        {
            return Ok(HostFact::NewestFile(NewestFile::default()));
        }
    }
    if section.status != 0 {
        return Err(
            classify_command_failure(section.status, text).unwrap_or_else(|| {
                ReadFailure::new(
                    FailureKind::ApiError,
                    format!("exit status {}: {}", section.status, one_line(text)),
                )
            }),
        );
    }
    let bad = |m: String| ReadFailure::new(FailureKind::BadOutput, m);
    match &check.probe {
        HostProbe::Unit { .. } => host::parse_unit(text).map(HostFact::Unit).map_err(bad),
        HostProbe::NewestFile { .. } => Ok(HostFact::NewestFile(host::parse_find(text, now))),
        HostProbe::Sshd { expect } => {
            let keys: BTreeSet<String> = expect.keys().cloned().collect();
            host::parse_sshd(text, &keys)
                .map(HostFact::Sshd)
                .map_err(bad)
        }
    }
}

/// What a failed ssh means, as a failed read with its hint: unreachable, refused, the host key,
/// timed out. Never "absent".
pub fn ssh_failure(e: ExecError, destination: &str) -> ReadFailure {
    let (code, stderr) = match &e.failure {
        Failure::Exit { code, stderr } => (*code, stderr.clone()),
        Failure::TimedOut { after, .. } => {
            return ReadFailure::new(
                FailureKind::Timeout,
                format!(
                    "ssh to {destination} did not finish within {:.0}s; hint: check the host, or raise --request-timeout",
                    after.as_secs_f64()
                ),
            )
        }
        Failure::Refused { reason } => {
            return ReadFailure::new(
                FailureKind::ApiError,
                format!("refused to run a non-read-only command: {reason}"),
            )
        }
        _ => {
            let err = e.into_error();
            return ReadFailure::new(
                FailureKind::ApiError,
                format!("{}; hint: {}", err.message, err.hint),
            );
        }
    };
    let lower = stderr.to_ascii_lowercase();
    let has = |n: &str| lower.contains(&n.to_ascii_lowercase());
    let said = one_line(&stderr);
    if has("REMOTE HOST IDENTIFICATION HAS CHANGED") || has("Host key verification failed") {
        return ReadFailure::new(
            FailureKind::Unauthorized,
            format!("ssh to {destination}: host key verification failed ({said}); hint: nestor never weakens host-key checking: verify the host's key out of band, then connect once with ssh"),
        );
    }
    if code == 255 && crate::read::ssh::UNREACHABLE.iter().any(|n| has(n)) {
        let kind = if has("timed out") {
            FailureKind::Timeout
        } else {
            FailureKind::Unreachable
        };
        return ReadFailure::new(
            kind,
            format!("unreachable over ssh ({said}); hint: check that the host is up and the inventory's ansible_host/ansible_port"),
        );
    }
    if code == 255 && has("Permission denied") {
        return ReadFailure::new(
            FailureKind::Unauthorized,
            format!("ssh to {destination}: authentication refused ({said}); hint: check ansible_user and ansible_ssh_private_key_file, and that your key is loaded (`ssh-add -l`)"),
        );
    }
    ReadFailure::new(
        FailureKind::ApiError,
        format!("ssh to {destination} failed with exit code {code}: {said}"),
    )
}

/// Hosts not read, for every host layer: `reason` is shown as their evidence.
pub fn skipped(reason: &str) -> HostObservation {
    HostObservation::skipped(reason)
}

#[cfg(test)]
#[path = "hosts_tests.rs"]
mod tests;
