//! How to reach a host over SSH: the connection variables Ansible's ssh plugin reads,
//! resolved from a host's merged variables and validated.

use std::path::{Path, PathBuf};

use yaml_serde::Value;

use super::build::kind_of;
use super::Inventory;
use crate::error::{Error, Result};

/// How to reach a host over SSH, resolved from its merged variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshTarget {
    /// `ansible_host` (alias `ansible_ssh_host`), else the inventory name of the host.
    pub host: String,
    /// `ansible_user` (alias `ansible_ssh_user`); `None` lets ssh choose.
    pub user: Option<String>,
    /// `ansible_port` (alias `ansible_ssh_port`), an integer or a numeric string.
    pub port: Option<u16>,
    /// `ansible_private_key_file` or `ansible_ssh_private_key_file`, `~` expanded with `$HOME`.
    /// A relative path is kept relative, as Ansible keeps it.
    pub key: Option<PathBuf>,
}

/// Connection variables and their aliases, in the order Ansible's ssh connection plugin
/// reads them (the first one set wins).
const HOST_VARS: [&str; 2] = ["ansible_host", "ansible_ssh_host"];
const USER_VARS: [&str; 2] = ["ansible_user", "ansible_ssh_user"];
const PORT_VARS: [&str; 2] = ["ansible_port", "ansible_ssh_port"];
const KEY_VARS: [&str; 2] = ["ansible_private_key_file", "ansible_ssh_private_key_file"];

impl Inventory {
    /// How to reach `host` over SSH; `~` in the key path is expanded with `home` (the
    /// captured environment's HOME, never read here).
    pub fn ssh_target(&self, host: &str, home: Option<&Path>) -> Result<SshTarget> {
        let vars = self.host_vars(host)?;
        let pick = |names: &[&'static str]| -> Option<(&'static str, &Value)> {
            names
                .iter()
                .find_map(|n| vars.get(*n).filter(|v| !v.is_null()).map(|v| (*n, v)))
        };
        let address = match pick(&HOST_VARS) {
            Some((var, v)) => self.string_var(host, var, v)?,
            None => host.to_string(),
        };
        let user = match pick(&USER_VARS) {
            Some((var, v)) => Some(self.string_var(host, var, v)?),
            None => None,
        };
        let port = match pick(&PORT_VARS) {
            Some((var, v)) => Some(self.port_var(host, var, v)?),
            None => None,
        };
        let key = match pick(&KEY_VARS) {
            Some((var, v)) => {
                let raw = self.string_var(host, var, v)?;
                Some(self.expand_home(host, var, &raw, home)?)
            }
            None => None,
        };
        Ok(SshTarget {
            host: address,
            user,
            port,
            key,
        })
    }

    pub(super) fn var_error(&self, host: &str, var: &str, what: String) -> Error {
        let shown = self.path.display();
        Error::input(
            format!("host `{host}` in inventory {shown}: {var} {what}"),
            format!("fix {var} for {host} in {shown} (on the host or in a group it belongs to)"),
        )
    }

    // a serde Value: every shape but the expected ones is the same error.
    #[allow(clippy::wildcard_enum_match_arm)]
    pub(super) fn string_var(&self, host: &str, var: &str, v: &Value) -> Result<String> {
        let s = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Tagged(t) if t.tag == "vault" => {
                return Err(self.var_error(
                    host,
                    var,
                    "is vault-encrypted, which nestor does not decrypt".into(),
                ))
            }
            other => {
                return Err(self.var_error(
                    host,
                    var,
                    format!("must be a string, found {}", kind_of(other)),
                ))
            }
        };
        if s.trim().is_empty() {
            return Err(self.var_error(host, var, "is empty".into()));
        }
        if s.contains("{{") || s.contains("{%") {
            return Err(self.var_error(
                host,
                var,
                format!("is a Jinja template ({s:?}), which nestor does not evaluate"),
            ));
        }
        Ok(s)
    }

    // a serde Value: every shape but the expected ones is the same error.
    #[allow(clippy::wildcard_enum_match_arm)]
    pub(super) fn port_var(&self, host: &str, var: &str, v: &Value) -> Result<u16> {
        let bad = |shown: String| {
            self.var_error(host, var, format!("is {shown}, not a port number 1-65535"))
        };
        match v {
            Value::Number(n) => match n.as_u64() {
                Some(p @ 1..=65535) => Ok(p as u16),
                _ => Err(bad(n.to_string())),
            },
            Value::String(s) => match s.trim().parse::<u32>() {
                Ok(p @ 1..=65535) => Ok(p as u16),
                _ if s.contains("{{") => Err(self.var_error(
                    host,
                    var,
                    format!("is a Jinja template ({s:?}), which nestor does not evaluate"),
                )),
                _ => Err(bad(format!("{s:?}"))),
            },
            other => Err(bad(kind_of(other).to_string())),
        }
    }

    pub(super) fn expand_home(
        &self,
        host: &str,
        var: &str,
        raw: &str,
        home: Option<&Path>,
    ) -> Result<PathBuf> {
        let rest = if raw == "~" {
            Some("")
        } else {
            raw.strip_prefix("~/")
        };
        match rest {
            Some(rest) => match home {
                Some(home) if !home.as_os_str().is_empty() => Ok(if rest.is_empty() {
                    home.to_path_buf()
                } else {
                    home.join(rest)
                }),
                _ => Err(self.var_error(
                    host,
                    var,
                    format!("is {raw:?} but HOME is not set to expand `~`"),
                )),
            },
            None if raw.starts_with('~') => Err(self.var_error(
                host,
                var,
                format!("is {raw:?}: only `~` and `~/` are expanded, not another user's home"),
            )),
            None => Ok(PathBuf::from(raw)),
        }
    }
}
