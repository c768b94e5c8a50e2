//! What the host checks read (SPEC §13), as data, and the pure parsers of the three remote
//! commands' output. Each check is its own ssh running exactly one command: its stdout is
//! that command's stdout, its stderr is separate, its exit status is ssh's (see
//! `read::hosts`).
//!
//! Formats relied on (documented in docs/host-checks.md):
//! - `systemctl show UNIT --property=A,B`: `Key=value` lines, in systemd's order, not the
//!   requested one; a property the unit type lacks is not printed; a unit that does not exist
//!   still exits 0, with `LoadState=not-found` (systemd issue #1105).
//! - `find DIR -maxdepth 1 -type f -name PAT -printf '%T@ %s %p\n'`: one line per file,
//!   `SECONDS.FRACTION SIZE PATH`; a missing or unreadable DIR exits 1 with
//!   `find: 'DIR': No such file or directory` / `Permission denied`.
//! - `sshd -T`: `keyword value` lines, keyword lowercase; some keywords repeat.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{read_map_serde, FailureKind, Read, ReadFailure, ReadMapRepr};

/// Most bytes of one check's stdout (or stderr) nestor reads; more is a failed read.
pub const MAX_HOST_OUTPUT: usize = 1 << 20;

/// Everything read on the hosts, in one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostObservation {
    /// Why the hosts were not read at all (`--no-ssh`, a lima bench, no inventory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Catalog group → the inventory hosts it names, or why they are not known.
    #[serde(default, with = "read_map_serde")]
    #[schemars(with = "ReadMapRepr<Vec<String>>")]
    pub groups: BTreeMap<String, Read<Vec<String>>>,
    /// Inventory host → what its checks read, or why the host could not be read.
    #[serde(default, with = "read_map_serde")]
    #[schemars(with = "ReadMapRepr<HostReading>")]
    pub hosts: BTreeMap<String, Read<HostReading>>,
}

impl HostObservation {
    pub fn is_empty(&self) -> bool {
        self.skipped.is_none() && self.groups.is_empty() && self.hosts.is_empty()
    }

    pub fn skipped(reason: impl Into<String>) -> HostObservation {
        HostObservation {
            skipped: Some(reason.into()),
            ..HostObservation::default()
        }
    }
}

/// One host's results, by check key (`unit etcd-snapshot.timer`, see `HostCheck::key`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema, Deserialize)]
pub struct HostReading {
    #[serde(with = "read_map_serde")]
    #[schemars(with = "ReadMapRepr<HostFact>")]
    pub checks: BTreeMap<String, Read<HostFact>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HostFact {
    Unit(UnitState),
    NewestFile(NewestFile),
    Sshd(SshdConfig),
}

/// The few `systemctl show` properties the checks use.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnitState {
    /// `loaded`, `not-found`, `masked`, `error`, ...
    pub load_state: String,
    /// `active`, `inactive`, `failed`, `activating`, ...
    pub active_state: String,
    #[serde(default)]
    pub sub_state: String,
    /// The last run's result: `success`, `exit-code`, `signal`, `timeout`, ... (empty for a
    /// unit type without one).
    #[serde(default)]
    pub result: String,
    /// The main process's exit status of the last run (services only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec_main_status: Option<i64>,
}

impl UnitState {
    pub fn exists(&self) -> bool {
        self.load_state != "not-found"
    }
}

/// The newest matching file of a directory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewestFile {
    /// False when `find` reported the directory missing.
    pub dir_exists: bool,
    /// How many files matched.
    pub matching: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newest: Option<FileSeen>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileSeen {
    /// The file name (last path component).
    pub name: String,
    /// Seconds between its mtime and the moment it was read (negative: in the future).
    pub age_secs: i64,
    pub size: u64,
}

/// The `sshd -T` values of the keywords the checks name (nothing else is kept).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
pub struct SshdConfig {
    pub values: BTreeMap<String, Vec<String>>,
}

/// `text` (stderr, or output that did not parse) on one line, escaped, at most
/// [`crate::error::QUOTE_MAX`] characters of the escaped text: how host output is quoted in
/// evidence ([`crate::error::capped_line`]).
pub fn summary(text: &str) -> String {
    crate::error::capped_line(text)
}

/// `Key=value` lines of `systemctl show`.
fn key_values(text: &str) -> BTreeMap<&str, &str> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect()
}

/// Parse `systemctl show UNIT --property=LoadState,ActiveState,...`.
pub fn parse_unit(text: &str) -> Result<UnitState, String> {
    let kv = key_values(text);
    let get = |k: &str| kv.get(k).map(|v| v.to_string());
    let (Some(load_state), Some(active_state)) = (get("LoadState"), get("ActiveState")) else {
        return Err(format!(
            "no LoadState/ActiveState in the output of systemctl show: {}",
            summary(text)
        ));
    };
    Ok(UnitState {
        load_state,
        active_state,
        sub_state: get("SubState").unwrap_or_default(),
        result: get("Result").unwrap_or_default(),
        exec_main_status: kv.get("ExecMainStatus").and_then(|v| v.parse().ok()),
    })
}

/// Parse `find ... -printf '%T@ %s %p\n'` read at `now` (seconds since the epoch). A file
/// name holding a newline splits into lines that do not parse: they are skipped, never
/// taken as another file.
pub fn parse_find(text: &str, now: f64) -> NewestFile {
    let mut out = NewestFile {
        dir_exists: true,
        ..NewestFile::default()
    };
    let mut best: Option<(f64, FileSeen)> = None;
    for line in text.lines() {
        let mut parts = line.splitn(3, ' ');
        let (Some(t), Some(s), Some(p)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let (Ok(mtime), Ok(size)) = (t.parse::<f64>(), s.parse::<u64>()) else {
            continue;
        };
        if !mtime.is_finite() || !p.starts_with('/') {
            continue;
        }
        out.matching += 1;
        if best.as_ref().is_none_or(|(m, _)| mtime > *m) {
            let name = p.rsplit('/').next().unwrap_or(p).to_string();
            let seen = FileSeen {
                name,
                age_secs: (now - mtime).floor() as i64,
                size,
            };
            best = Some((mtime, seen));
        }
    }
    out.newest = best.map(|(_, f)| f);
    out
}

/// Parse `sshd -T`, keeping only `keys`.
pub fn parse_sshd(text: &str, keys: &BTreeSet<String>) -> Result<SshdConfig, String> {
    let mut values: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut lines = 0;
    for line in text.lines() {
        let Some((k, v)) = line.trim().split_once(' ') else {
            continue;
        };
        lines += 1;
        if keys.contains(k) {
            values
                .entry(k.to_string())
                .or_default()
                .push(v.trim().to_ascii_lowercase());
        }
    }
    if lines == 0 {
        return Err(format!(
            "sshd -T printed no `keyword value` line: {}",
            summary(text)
        ));
    }
    Ok(SshdConfig { values })
}

/// What a failed command's exit status and stderr mean: `sudo` asking for a password, a
/// permission refused, a missing program (127). `None` when nothing is recognised.
pub fn classify_command_failure(status: i32, text: &str) -> Option<ReadFailure> {
    let lower = text.to_ascii_lowercase();
    let has = |n: &str| lower.contains(n);
    if has("sudo:")
        && (has("password is required")
            || has("terminal is required")
            || has("no tty present")
            || has("askpass"))
    {
        return Some(ReadFailure::new(
            FailureKind::Forbidden,
            "sudo asks for a password (nestor runs `sudo -n` and never types one); hint: allow this command without a password in sudoers, or set ansible_user: root",
        ));
    }
    if has("sudo:") && (has("not in the sudoers") || has("not allowed to execute")) {
        return Some(ReadFailure::new(
            FailureKind::Forbidden,
            format!(
                "sudo refused: {}; hint: allow this command for the ssh user in sudoers",
                summary(text)
            ),
        ));
    }
    if has("permission denied") {
        return Some(ReadFailure::new(
            FailureKind::Forbidden,
            format!(
                "permission denied: {}; hint: the check needs `sudo: true` in the catalog, or a user allowed to read it",
                summary(text)
            ),
        ));
    }
    if status == 127 || has("command not found") {
        return Some(ReadFailure::new(
            FailureKind::NotFound,
            format!("program missing on the host: {}", summary(text)),
        ));
    }
    None
}

#[cfg(test)]
#[path = "host_tests.rs"]
mod tests;
