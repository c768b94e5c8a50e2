//! Strict decoding of one host check from the catalog YAML: exactly one kind per item,
//! only the keys of that kind, every field that reaches a remote command validated (see the
//! parent module).

use std::collections::BTreeMap;

use serde::de::{self, Deserializer};
use serde::Deserialize;

use super::*;

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
    file: Option<String>,
    max_age: Option<Number>,
    min_size: Option<Number>,
    sshd: Option<BTreeMap<String, SshdValues>>,
    executable: Option<Vec<String>>,
    #[serde(default)]
    sudo: bool,
    why: Option<String>,
    name: Option<String>,
}

const HOST_CHECK_KINDS: &str = "`unit` (with `active:` and/or `result:`), `newestFile` (with `maxAge:` and `minSize:`), `file`, `sshd`, `executable`";

impl<'de> Deserialize<'de> for HostCheck {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let mut raw = RawHostCheck::deserialize(d)?;
        let name = raw.name.take();
        if let Some(n) = name
            .as_deref()
            .filter(|n| !crate::model::catalog::is_check_name(n))
        {
            return Err(de::Error::custom(format!(
                "`name: {n}` is not a check name: 1 to 63 lowercase letters, digits and `-` (its id is `LAYER/NAME`, e.g. `etcd-backup/timer`)"
            )));
        }
        let mut check = raw.into_check().map_err(de::Error::custom)?;
        check.name = name;
        Ok(check)
    }
}

impl RawHostCheck {
    fn into_check(self) -> std::result::Result<HostCheck, String> {
        let kinds = [
            self.unit.is_some(),
            self.newest_file.is_some(),
            self.file.is_some(),
            self.sshd.is_some(),
            self.executable.is_some(),
        ];
        match kinds.iter().filter(|k| **k).count() {
            0 => return Err(format!("a host check needs one of {HOST_CHECK_KINDS}")),
            1 => {}
            _ => {
                return Err(
                    "one host check per list item: write `unit`, `newestFile`, `file`, `sshd` and `executable` as separate `- ` items".into(),
                )
            }
        }
        let sudo = self.sudo;
        let why = self.why;
        if let Some(programs) = self.executable {
            if self.active.is_some() || self.result.is_some() {
                return Err("`active` and `result` only go with a `unit:` check".into());
            }
            if self.max_age.is_some() || self.min_size.is_some() {
                return Err("`maxAge` and `minSize` only go with a `newestFile:` check".into());
            }
            if programs.is_empty() {
                return Err(
                    "`executable:` needs at least one program, e.g. `[etcdutl, crictl]`".into(),
                );
            }
            if let Some(bad) = programs.iter().find(|p| !is_program_name(p)) {
                return Err(format!(
                    "`executable: {bad}` is not a program name like `etcdutl` (letters, digits, `._-`, no wildcard)"
                ));
            }
            let mut seen = std::collections::BTreeSet::new();
            if let Some(twice) = programs.iter().find(|p| !seen.insert(p.as_str())) {
                return Err(format!("`executable:` names `{twice}` twice"));
            }
            return Ok(HostCheck {
                probe: HostProbe::Executable { programs },
                sudo,
                why,
                name: None,
            });
        }
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
                why,
                name: None,
            });
        }
        if self.active.is_some() || self.result.is_some() {
            return Err("`active` and `result` only go with a `unit:` check".into());
        }
        if let Some(path) = self.file {
            if self.max_age.is_some() || self.min_size.is_some() {
                return Err("`maxAge` and `minSize` only go with a `newestFile:` check".into());
            }
            let (dir, name) = path.rsplit_once('/').unwrap_or(("", &path));
            if !is_remote_dir(dir) || !is_program_name(name) {
                return Err(format!(
                    "`file: {path}` must be an absolute path without wildcards, like `/etc/ssh/sshd_config.d/00-hardening.conf`"
                ));
            }
            return Ok(HostCheck {
                probe: HostProbe::NewestFile {
                    dir: dir.to_string(),
                    pattern: name.to_string(),
                    max_age_secs: ANY_AGE,
                    min_size: 0,
                },
                sudo,
                why,
                name: None,
            });
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
                why,
                name: None,
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
            why,
            name: None,
        })
    }
}
