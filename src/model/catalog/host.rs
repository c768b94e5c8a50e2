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
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer};
use serde::Deserialize;

/// The catalog group meaning "the stack's control-plane group": the topology's
/// `control_group:`, else the first of the default control-plane groups of the inventory,
/// exactly the host `kubeconfig fetch` reads.
pub const CONTROL_PLANE: &str = "control_plane";

/// Where a host-level layer is read and what it checks there.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// An inventory group (`all`, `control_plane`, or any group of the stack's inventory).
    pub group: String,
    pub checks: Vec<HostCheck>,
}

/// One check on every host of the group.
#[derive(Debug, Clone, PartialEq)]
pub struct HostCheck {
    pub probe: HostProbe,
    /// Run the command through `sudo -n` (never when the ssh user is `root`).
    pub sudo: bool,
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
}

impl HostCheck {
    /// The name a host's result for this check is recorded under (in observations and
    /// snapshots): `unit etcd-snapshot.timer`, `newestFile /var/lib/x/etcd-*.db`, `sshd`.
    pub fn key(&self) -> String {
        match &self.probe {
            HostProbe::Unit { unit, .. } => format!("unit {unit}"),
            HostProbe::NewestFile { dir, pattern, .. } => format!("newestFile {dir}/{pattern}"),
            HostProbe::Sshd { .. } => "sshd".to_string(),
        }
    }
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

// ---- strict deserialization -------------------------------------------------------------

#[derive(Deserialize)]
#[serde(untagged)]
enum Number {
    Int(i64),
    Text(String),
}

impl Number {
    fn text(&self) -> String {
        match self {
            Number::Int(n) => n.to_string(),
            Number::Text(t) => t.clone(),
        }
    }
}

/// A value `sshd -T` may show: a string, or a YAML boolean meaning `yes`/`no`.
#[derive(Deserialize)]
#[serde(untagged)]
enum SshdValue {
    Bool(bool),
    Text(String),
    Int(i64),
}

impl SshdValue {
    fn text(self) -> String {
        match self {
            SshdValue::Bool(true) => "yes".into(),
            SshdValue::Bool(false) => "no".into(),
            SshdValue::Text(t) => t,
            SshdValue::Int(i) => i.to_string(),
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum SshdValues {
    One(SshdValue),
    Many(Vec<SshdValue>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawHostCheck {
    unit: Option<String>,
    active: Option<bool>,
    result: Option<String>,
    newest_file: Option<String>,
    max_age: Option<Number>,
    min_size: Option<Number>,
    sshd: Option<BTreeMap<String, SshdValues>>,
    #[serde(default)]
    sudo: bool,
}

const HOST_CHECK_KINDS: &str = "`unit` (with `active:` and/or `result:`), `newestFile` (with `maxAge:` and `minSize:`), `sshd`";

impl<'de> Deserialize<'de> for HostCheck {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        RawHostCheck::deserialize(d)?
            .into_check()
            .map_err(de::Error::custom)
    }
}

impl RawHostCheck {
    fn into_check(self) -> std::result::Result<HostCheck, String> {
        let kinds = [
            self.unit.is_some(),
            self.newest_file.is_some(),
            self.sshd.is_some(),
        ];
        match kinds.iter().filter(|k| **k).count() {
            0 => return Err(format!("a host check needs one of {HOST_CHECK_KINDS}")),
            1 => {}
            _ => {
                return Err(
                    "one host check per list item: write `unit`, `newestFile` and `sshd` as separate `- ` items".into(),
                )
            }
        }
        let sudo = self.sudo;
        if let Some(unit) = self.unit {
            if self.max_age.is_some() || self.min_size.is_some() {
                return Err("`maxAge` and `minSize` only go with a `newestFile:` check".into());
            }
            if !is_unit_name(&unit) {
                return Err(format!(
                    "`unit: {unit}` is not a systemd unit name like `etcd-snapshot.timer` (letters, digits, `:_.@-`, with a type suffix)"
                ));
            }
            if self.active.is_none() && self.result.is_none() {
                return Err(format!(
                    "`unit: {unit}` needs `active: true|false` and/or `result: success`"
                ));
            }
            if let Some(r) = &self.result {
                if r.is_empty() || !r.bytes().all(|b| b.is_ascii_lowercase() || b == b'-') {
                    return Err(format!(
                        "`result: {r}` is not a systemd result like `success` or `exit-code`"
                    ));
                }
            }
            return Ok(HostCheck {
                probe: HostProbe::Unit {
                    unit,
                    active: self.active,
                    result: self.result,
                },
                sudo,
            });
        }
        if self.active.is_some() || self.result.is_some() {
            return Err("`active` and `result` only go with a `unit:` check".into());
        }
        if let Some(path) = self.newest_file {
            let (dir, pattern) = path.rsplit_once('/').unwrap_or(("", &path));
            if !is_remote_dir(dir) || !is_file_pattern(pattern) {
                return Err(format!(
                    "`newestFile: {path}` must be an absolute directory and a file-name pattern, like `/var/lib/etcd-backups/etcd-*.db` (letters, digits, `._-`, and `*`/`?` in the last part only)"
                ));
            }
            let max_age = self
                .max_age
                .ok_or_else(|| format!("`newestFile: {path}` needs `maxAge:` (e.g. `26h`)"))?;
            let max_age_secs = parse_duration(&max_age.text()).ok_or_else(|| {
                format!(
                    "`maxAge: {}` is not a duration like `26h`, `90m`, `7d`",
                    max_age.text()
                )
            })?;
            let min_size = match self.min_size {
                None => 1,
                Some(n) => parse_size(&n.text()).ok_or_else(|| {
                    format!(
                        "`minSize: {}` is not a size in bytes like `1`, `10K`, `5M`",
                        n.text()
                    )
                })?,
            };
            return Ok(HostCheck {
                probe: HostProbe::NewestFile {
                    dir: dir.to_string(),
                    pattern: pattern.to_string(),
                    max_age_secs,
                    min_size,
                },
                sudo,
            });
        }
        if self.max_age.is_some() || self.min_size.is_some() {
            return Err("`maxAge` and `minSize` only go with a `newestFile:` check".into());
        }
        let raw = self.sshd.unwrap_or_default();
        if raw.is_empty() {
            return Err(
                "`sshd:` needs at least one keyword and its expected value(s), e.g. `{passwordauthentication: \"no\"}`".into(),
            );
        }
        let mut expect = BTreeMap::new();
        for (key, values) in raw {
            if !is_sshd_keyword(&key) {
                return Err(format!(
                    "`{key}` is not an sshd keyword as `sshd -T` prints it (lowercase, e.g. `passwordauthentication`)"
                ));
            }
            let values: Vec<String> = match values {
                SshdValues::One(v) => vec![v.text()],
                SshdValues::Many(v) => v.into_iter().map(SshdValue::text).collect(),
            };
            if values.is_empty() || values.iter().any(|v| v.trim().is_empty()) {
                return Err(format!("`sshd: {key}` needs a non-empty expected value"));
            }
            expect.insert(
                key,
                values.into_iter().map(|v| v.to_ascii_lowercase()).collect(),
            );
        }
        Ok(HostCheck {
            probe: HostProbe::Sshd { expect },
            sudo,
        })
    }
}

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
    let mut keys = std::collections::BTreeSet::new();
    for c in &spec.checks {
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
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn check(yaml: &str) -> std::result::Result<HostCheck, String> {
        yaml_serde::from_str::<HostCheck>(yaml).map_err(|e| e.to_string())
    }

    #[test]
    fn the_three_kinds_parse() {
        assert_eq!(
            check("{unit: etcd-snapshot.timer, active: true}").unwrap(),
            HostCheck {
                probe: HostProbe::Unit {
                    unit: "etcd-snapshot.timer".into(),
                    active: Some(true),
                    result: None
                },
                sudo: false
            }
        );
        assert_eq!(
            check("{newestFile: /var/lib/etcd-backups/etcd-*.db, maxAge: 26h, minSize: 1, sudo: true}")
                .unwrap(),
            HostCheck {
                probe: HostProbe::NewestFile {
                    dir: "/var/lib/etcd-backups".into(),
                    pattern: "etcd-*.db".into(),
                    max_age_secs: 26 * 3600,
                    min_size: 1
                },
                sudo: true
            }
        );
        let c = check(
            "{sshd: {passwordauthentication: \"no\", permitrootlogin: [no, prohibit-password], x11forwarding: false}, sudo: true}",
        )
        .unwrap();
        let HostProbe::Sshd { expect } = c.probe else {
            panic!("sshd")
        };
        assert_eq!(expect["permitrootlogin"], ["no", "prohibit-password"]);
        assert_eq!(expect["passwordauthentication"], ["no"]);
        assert_eq!(expect["x11forwarding"], ["no"]);
    }

    #[test]
    fn hostile_or_vague_fields_are_refused() {
        for (yaml, needle) in [
            ("{unit: '-H evil', active: true}", "not a systemd unit name"),
            (
                "{unit: 'a.timer;reboot', active: true}",
                "not a systemd unit name",
            ),
            ("{unit: 'a.timer', }", "needs `active: true|false`"),
            ("{unit: a.timer, result: 'x y'}", "not a systemd result"),
            (
                "{newestFile: 'relative/x.db', maxAge: 1h}",
                "absolute directory",
            ),
            (
                "{newestFile: '/a/../etc/x.db', maxAge: 1h}",
                "absolute directory",
            ),
            (
                "{newestFile: '/a/b*/x.db', maxAge: 1h}",
                "absolute directory",
            ),
            (
                "{newestFile: '/a/$(reboot)', maxAge: 1h}",
                "absolute directory",
            ),
            ("{newestFile: \"/a/x'y\", maxAge: 1h}", "absolute directory"),
            (
                "{newestFile: '/a/-delete', maxAge: 1h}",
                "absolute directory",
            ),
            ("{newestFile: '/a/x.db'}", "needs `maxAge:`"),
            ("{newestFile: '/a/x.db', maxAge: soon}", "not a duration"),
            (
                "{newestFile: '/a/x.db', maxAge: 1h, minSize: -3}",
                "not a size",
            ),
            ("{sshd: {'-o': 'x'}}", "not an sshd keyword"),
            ("{sshd: {}}", "needs at least one keyword"),
            (
                "{unit: a.timer, active: true, newestFile: /a/b}",
                "one host check per list item",
            ),
            (
                "{unit: a.timer, active: true, maxAge: 1h}",
                "only go with a `newestFile:`",
            ),
            (
                "{newestFile: /a/b, maxAge: 1h, active: true}",
                "only go with a `unit:`",
            ),
            ("{sudo: true}", "needs one of"),
            (
                "{unit: a.timer, active: true, command: ls}",
                "unknown field",
            ),
        ] {
            let e = check(yaml).unwrap_err();
            assert!(e.contains(needle), "{yaml}: {e}");
        }
    }

    #[test]
    fn durations_and_sizes() {
        assert_eq!(parse_duration("26h"), Some(93_600));
        assert_eq!(parse_duration("7d"), Some(604_800));
        assert_eq!(parse_duration("0h"), None);
        assert_eq!(parse_duration("h"), None);
        assert_eq!(parse_duration("3y"), None);
        assert_eq!(parse_size("1"), Some(1));
        assert_eq!(parse_size("10K"), Some(10_240));
        assert_eq!(parse_size("5M"), Some(5 << 20));
        assert_eq!(parse_size("M"), None);
        assert_eq!(parse_size("1.5M"), None);
    }
}
