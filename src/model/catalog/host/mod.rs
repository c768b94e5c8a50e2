//! Host checks (SPEC §13): what a host-level layer reads on the hosts of an inventory group,
//! as typed data. A check is never a command line: it names a systemd unit, a directory and a
//! file-name pattern, or sshd keywords, each validated here so that the remote command built
//! from it (in the read layer, word by word, each word shell-quoted) can hold nothing but
//! those safe characters.
//!
//! ```yaml
//! host:
//!   group: control_plane          # the stack's control-plane group (as `kubeconfig fetch`)
//!   checks:
//!     - unit: etcd-snapshot.timer
//!       active: true
//!     - unit: etcd-snapshot.service
//!       result: success
//!     - newestFile: /var/lib/etcd-backups/etcd-*.db
//!       maxAge: 26h
//!       minSize: 1
//!       sudo: true
//!     - executable: [etcdutl, crictl]  # a regular file of that name in /usr/bin,
//!                                      # /usr/local/bin or /usr/sbin (the `find` form)
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;

/// The catalog group meaning "the stack's control-plane group": the topology's
/// `control_group:`, else the first of the default control-plane groups of the inventory,
/// exactly the host `kubeconfig fetch` reads.
pub const CONTROL_PLANE: &str = "control_plane";

/// `max_age_secs` of a `newestFile` read that only asks "is there such a file" (`file:`,
/// `executable:`): any age.
pub const ANY_AGE: u64 = u64::MAX;

/// Where an `executable:` check looks for a program, each directory read with the existing
/// `find` form (SPEC §15: no new remote command): the package managers' and the installers'
/// places for etcdutl and crictl.
pub const EXECUTABLE_DIRS: [&str; 3] = ["/usr/bin", "/usr/local/bin", "/usr/sbin"];

/// Where a host-level layer is read and what it checks there.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// An inventory group (`all`, `control_plane`, or any group of the stack's inventory).
    pub group: String,
    /// The unit whose presence shows the layer installed on a host (`auditd.service` for
    /// os-hardening); without it, any checked unit that exists does.
    #[serde(default)]
    pub detect: Option<String>,
    pub checks: Vec<HostCheck>,
}

impl HostSpec {
    /// Every check with its stable id `LAYER/NAME` (SPEC §6 v0.4): the catalog's `name:`,
    /// else `host-N` by its place (1-based), as a Kubernetes check is `healthy-N`.
    pub fn named_checks(&self, layer: &str) -> Vec<(String, &HostCheck)> {
        self.checks
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let name = c.name.clone().unwrap_or_else(|| format!("host-{}", i + 1));
                (format!("{layer}/{name}"), c)
            })
            .collect()
    }
}

/// One check on every host of the group.
#[derive(Debug, Clone, PartialEq)]
pub struct HostCheck {
    pub probe: HostProbe,
    /// Run the command through `sudo -n` (never when the ssh user is `root`).
    pub sudo: bool,
    /// The operators' reason for this check (`why:`), shown by `catalog show`.
    pub why: Option<String>,
    /// The check's name in its stable id `LAYER/NAME` (SPEC §6 v0.4; `host-N` by its place
    /// when the catalog gives none).
    pub name: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum HostProbe {
    /// `systemctl show UNIT --property=...`: the unit exists (LoadState), and if asked, is
    /// active (ActiveState) and its last run succeeded (Result).
    Unit {
        unit: String,
        active: Option<bool>,
        result: Option<String>,
    },
    /// `find DIR -maxdepth 1 -type f -name PATTERN -printf '%T@ %s %p\n'`: the newest file is
    /// younger than `max_age_secs` and at least `min_size` bytes.
    NewestFile {
        dir: String,
        pattern: String,
        max_age_secs: u64,
        min_size: u64,
    },
    /// `sshd -T`: each keyword shows one of its expected values.
    Sshd {
        expect: BTreeMap<String, Vec<String>>,
    },
    /// Each program is a regular file in one of [`EXECUTABLE_DIRS`]: read as one `find DIR
    /// -maxdepth 1 -type f -name PROGRAM` per directory and program (see [`HostCheck::reads`]).
    Executable { programs: Vec<String> },
}

impl HostCheck {
    /// The name a host's result for this check is recorded under (in observations and
    /// snapshots): `unit etcd-snapshot.timer`, `newestFile /var/lib/x/etcd-*.db`, `sshd`.
    pub fn key(&self) -> String {
        match &self.probe {
            HostProbe::Unit { unit, .. } => format!("unit {unit}"),
            HostProbe::NewestFile { dir, pattern, .. } => format!("newestFile {dir}/{pattern}"),
            HostProbe::Sshd { .. } => "sshd".to_string(),
            HostProbe::Executable { programs } => format!("executable {}", programs.join(",")),
        }
    }

    /// The checks that are run on a host to answer this one, each one ssh with one SPEC §13
    /// form: itself, except for `executable:`, read as a `newestFile` of each program in each
    /// of [`EXECUTABLE_DIRS`] (any age, any size: only "is there such a file" is used).
    pub fn reads(&self) -> Vec<HostCheck> {
        match &self.probe {
            HostProbe::Executable { programs } => programs
                .iter()
                .flat_map(|p| {
                    EXECUTABLE_DIRS.iter().map(move |dir| HostCheck {
                        probe: executable_read(dir, p),
                        sudo: self.sudo,
                        why: None,
                        name: None,
                    })
                })
                .collect(),
            HostProbe::Unit { .. } | HostProbe::NewestFile { .. } | HostProbe::Sshd { .. } => {
                vec![self.clone()]
            }
        }
    }
}

/// The `find` read of one program in one directory (an `executable:` check's part).
pub fn executable_read(dir: &str, program: &str) -> HostProbe {
    HostProbe::NewestFile {
        dir: dir.to_string(),
        pattern: program.to_string(),
        max_age_secs: ANY_AGE,
        min_size: 0,
    }
}

/// The key under which one program's read in one directory is recorded.
pub fn executable_key(dir: &str, program: &str) -> String {
    format!("newestFile {dir}/{program}")
}

impl fmt::Display for HostCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

// ---- validation of the fields that reach a remote command ------------------------------

/// A systemd unit name: `name.timer`, `name@instance.service`. Letters, digits and `:_.@-`,
/// not starting with `-`, with a unit type suffix.
pub fn is_unit_name(s: &str) -> bool {
    const TYPES: [&str; 8] = [
        ".service", ".timer", ".socket", ".target", ".path", ".mount", ".slice", ".scope",
    ];
    s.len() <= 256
        && s.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b":_.@-".contains(&b))
        && TYPES.iter().any(|t| s.len() > t.len() && s.ends_with(t))
}

/// An absolute directory: `/` then segments of letters, digits and `._-`, no `.`/`..`
/// segment, no glob.
pub fn is_remote_dir(s: &str) -> bool {
    s.len() <= 1024
        && s.starts_with('/')
        && s.split('/').skip(1).all(|seg| {
            !seg.is_empty()
                && seg != "."
                && seg != ".."
                && seg
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        })
}

/// A file-name glob for `find -name`: letters, digits, `._-` and the wildcards `*` `?`, not
/// starting with `-`.
pub fn is_file_pattern(s: &str) -> bool {
    s.len() <= 255
        && !s.starts_with('-')
        && s.bytes()
            .any(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-*?".contains(&b))
}

/// A program name for `executable:`: letters, digits and `._-`, not starting with `-` or `.`,
/// no wildcard (it is a `find -name` pattern that must match exactly one name).
pub fn is_program_name(s: &str) -> bool {
    s.len() <= 64
        && s.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// An sshd keyword as `sshd -T` prints it: lowercase letters and digits.
pub fn is_sshd_keyword(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// `26h`, `90m`, `7d`, `3600s`, `1w`, `1h30m` → whole seconds, at least one.
pub fn parse_duration(s: &str) -> Option<u64> {
    crate::duration::parse(s)
        .ok()
        .map(|d| d.as_secs())
        .filter(|secs| *secs > 0)
}

/// `1`, `1024`, `10K`, `5M`, `1G` (powers of 1024) → bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (n, mult) = match s.char_indices().last()? {
        (i, 'K') => (&s[..i], 1 << 10),
        (i, 'M') => (&s[..i], 1 << 20),
        (i, 'G') => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse::<u64>().ok()?.checked_mul(mult)
}

mod raw;

/// Rules on a layer's `host:` that serde cannot express.
pub fn validate(spec: &HostSpec) -> std::result::Result<(), String> {
    let group_ok = !spec.group.is_empty()
        && spec
            .group
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-".contains(&b));
    if !group_ok {
        return Err(format!(
            "`host: group: {}` is not an inventory group name (letters, digits, `_-`)",
            spec.group
        ));
    }
    if spec.checks.is_empty() {
        return Err("`host:` needs at least one check under `checks:`".into());
    }
    if let Some(unit) = &spec.detect {
        let checked = spec
            .checks
            .iter()
            .any(|c| matches!(&c.probe, HostProbe::Unit { unit: u, .. } if u == unit));
        if !checked {
            return Err(format!(
                "`host: detect: {unit}` must be one of the layer's `unit:` checks"
            ));
        }
    }
    let mut keys = std::collections::BTreeSet::new();
    for c in spec.checks.iter().flat_map(|c| {
        let mut all = c.reads();
        all.push(c.clone());
        all.dedup_by_key(|c| c.key());
        all
    }) {
        if !keys.insert(c.key()) {
            return Err(format!(
                "`host:` checks `{}` twice; merge the two items",
                c.key()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
