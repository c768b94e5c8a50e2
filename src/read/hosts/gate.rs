//! The gates' host reads (SPEC §17) over ssh: typed probes, never a free string. Each is one
//! fixed remote command, every word shell-quoted ([`super::sh_quote`]), admitted by the
//! allowlist's own grammar (`exec::allowlist::hostgate`, section 13's `find` for the cgroup
//! probe), never behind `sudo`:
//!
//! ```text
//! 'timedatectl' 'show'                                   (TimeSync)
//! 'find' '/sys/fs/cgroup' '-maxdepth' '1' '-type' 'f' '-name' 'cgroup.controllers' '-printf' '%T@ %s %p\n'
//! 'cat' '/etc/kubernetes/pki/[DIR/]NAME.crt'             (Cert: a `PkiPath`)
//! ```
//!
//! One ssh per probe, within the run's ssh bounds (`schedule`: [`crate::pool::SSH_IN_FLIGHT`],
//! [`MAX_SSH_PER_HOST`] of one host), each bounded by `--request-timeout` and its output cut
//! at the probe's cap while it is read. A host found down is not asked again. What the runs
//! mean is the session's and the model's (`model::gate::host`, `model::gate::cert`).

use super::run::RemoteRun;
use super::{sh_quote, FIND_FORMAT};
use crate::model::gate::cert::{PkiPath, MAX_CERT_BYTES};
use crate::model::gate::host::{CGROUP_DIR, CGROUP_FILE};
use crate::model::observation::{FailureKind, ReadFailure};
use crate::read::exec::Runner;

/// `timedatectl show` prints seven short lines: anything near this is not its answer.
const MAX_TIMEDATECTL_BYTES: u64 = 16 * 1024;
/// One `find` line for one file name.
const MAX_FIND_BYTES: u64 = 4 * 1024;

/// One host read of a gate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GateProbe {
    TimeSync,
    Cgroup,
    Cert(PkiPath),
}

impl GateProbe {
    /// The command's words, unquoted.
    pub(crate) fn words(&self) -> Vec<String> {
        match self {
            GateProbe::TimeSync => vec!["timedatectl".into(), "show".into()],
            GateProbe::Cgroup => [
                "find",
                CGROUP_DIR,
                "-maxdepth",
                "1",
                "-type",
                "f",
                "-name",
                CGROUP_FILE,
                "-printf",
                FIND_FORMAT,
            ]
            .map(String::from)
            .to_vec(),
            GateProbe::Cert(path) => vec!["cat".into(), path.as_str().to_string()],
        }
    }

    /// The most nestor reads of its output.
    fn cap(&self) -> u64 {
        match self {
            GateProbe::TimeSync => MAX_TIMEDATECTL_BYTES,
            GateProbe::Cgroup => MAX_FIND_BYTES,
            GateProbe::Cert(_) => MAX_CERT_BYTES as u64,
        }
    }
}

/// One host to read: the inventory name, `[user@]address` and the ssh argv up to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GateHost {
    pub name: String,
    pub destination: String,
    pub ssh_options: Vec<String>,
}

/// The whole ssh argv of `probe` on `host`: the connection argv, then the quoted words.
pub(crate) fn argv(host: &GateHost, probe: &GateProbe) -> Vec<String> {
    let mut argv = host.ssh_options.clone();
    argv.extend(probe.words().iter().map(|w| sh_quote(w)));
    argv
}

/// What one probe's ssh gave: the remote command's status and output, or why ssh failed.
pub(crate) type ProbeRun = Result<RemoteRun, ReadFailure>;

/// Run every probe of every host; results by host, in probe order.
pub(crate) fn run(runner: &Runner, jobs: &[(GateHost, Vec<GateProbe>)]) -> Vec<Vec<ProbeRun>> {
    let counts: Vec<usize> = jobs.iter().map(|(_, p)| p.len()).collect();
    super::schedule::run_ssh(&counts, |h, p| {
        let Some((host, probe)) = jobs.get(h).and_then(|(host, ps)| Some((host, ps.get(p)?)))
        else {
            return Err(ReadFailure::new(FailureKind::ApiError, "no such probe"));
        };
        run_one(runner, host, probe)
    })
}

fn run_one(runner: &Runner, host: &GateHost, probe: &GateProbe) -> ProbeRun {
    let argv = argv(host, probe);
    super::run::run_remote(runner, &argv, probe.cap(), &host.destination, |limit| {
        format!(
            "`{}` printed more than the {} KiB nestor reads of it: cut there, nothing of it used",
            probe
                .words()
                .first()
                .map(String::as_str)
                .unwrap_or_default(),
            limit >> 10
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host() -> GateHost {
        GateHost {
            name: "dirqual1".into(),
            destination: "ops@10.67.2.11".into(),
            ssh_options: [
                "-o",
                "ConnectTimeout=10",
                "-o",
                "BatchMode=yes",
                "ops@10.67.2.11",
            ]
            .map(String::from)
            .to_vec(),
        }
    }

    /// Every probe is admitted by the allowlist as built (the allowlist is checked on its own
    /// grammar, so a builder bug would be refused before anything is spawned).
    #[test]
    fn every_probe_is_one_allowlisted_form_each_word_quoted() {
        let cert =
            PkiPath::parse("/etc/kubernetes/pki/etcd/server.crt").unwrap_or_else(|e| panic!("{e}"));
        let cases = [
            (GateProbe::TimeSync, "'timedatectl' 'show'"),
            (
                GateProbe::Cgroup,
                r"'find' '/sys/fs/cgroup' '-maxdepth' '1' '-type' 'f' '-name' 'cgroup.controllers' '-printf' '%T@ %s %p\n'",
            ),
            (
                GateProbe::Cert(cert),
                "'cat' '/etc/kubernetes/pki/etcd/server.crt'",
            ),
        ];
        for (probe, remote) in cases {
            let argv = argv(&host(), &probe);
            assert_eq!(argv[..5], host().ssh_options[..]);
            assert_eq!(argv[5..].join(" "), remote);
            assert_eq!(
                crate::read::exec::allowlist::check(crate::read::exec::Tool::Ssh, &argv),
                Ok(()),
                "{remote}"
            );
        }
    }
}
