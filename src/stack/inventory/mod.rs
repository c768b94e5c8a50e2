//! Reads the Ansible YAML inventory a stack points at (SPEC §3), so `kubeconfig fetch` can
//! find the control-plane host and reach it with the same address, user, port and key
//! Ansible would use. Pure: the only I/O is reading the one file in [`Inventory::load`].
//!
//! Semantics follow Ansible's `yaml` inventory plugin and its variable precedence:
//!
//! - every top-level key is a group; groups other than `all` are children of `all`;
//! - a group body is null or a mapping with `hosts:`, `vars:` and `children:` (each a mapping,
//!   null, or a single name as a string); any other key is skipped with a warning, as Ansible
//!   does; a group may appear under several parents and its hosts and vars merge, the later
//!   occurrence in the file winning for a variable set twice;
//! - host keys may carry a port (`node1:2222`) and ranges (`node[1:3]`, `node[01:10:2]`,
//!   `rack-[a:c]`), expanded as Ansible does;
//! - group variables are combined in Ansible's order, sorted by (depth, `ansible_group_priority`,
//!   name): `all` first, then deeper groups over their ancestors, and among groups of the same
//!   depth the later one in alphabetical order wins; host variables win over every group.
//!
//! Jinja templates and vault-encrypted values are kept as data; they are refused only where
//! nestor would need their value (the SSH connection variables).
//!
//! Files: this one, the queries; `build.rs`, groups, children and depth; `patterns.rs`, host
//! ranges and ports exactly as Ansible expands them; `ssh.rs`, the connection variables.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use yaml_serde::Value;

use build::kind_of;

use crate::error::{Error, Result};

/// Variables of a host or a group, by name.
pub type Vars = BTreeMap<String, Value>;

/// Groups tried, in this order, when the topology names no `control_group:`.
///
/// 1. `control_plane` — the name the nestor bootstrap playbooks use;
/// 2. `kube_control_plane` — kubespray;
/// 3. `masters` — older kubespray and most kubeadm playbooks;
/// 4. `controllers` — other community playbooks.
///
/// The first of these groups that EXISTS in the inventory is used, even if another one
/// further down the list also exists; an existing but empty group is an error, never a
/// reason to silently try the next name.
pub const DEFAULT_CONTROL_GROUPS: [&str; 4] = [
    "control_plane",
    "kube_control_plane",
    "masters",
    "controllers",
];

#[derive(Debug, Clone)]
struct Group {
    name: String,
    vars: Vars,
    /// `ansible_group_priority`, Ansible's tie-breaker between groups of the same depth.
    priority: i64,
    parents: Vec<usize>,
    children: Vec<usize>,
    /// Longest path from `all` (which has depth 0), as Ansible computes it.
    depth: usize,
}

#[derive(Debug, Clone)]
struct Host {
    name: String,
    vars: Vars,
    /// Groups that list this host directly.
    groups: Vec<usize>,
}

/// A parsed Ansible YAML inventory.
#[derive(Debug, Clone)]
pub struct Inventory {
    path: PathBuf,
    /// In order of first appearance; index 0 is always `all`.
    groups: Vec<Group>,
    group_index: HashMap<String, usize>,
    /// In order of first appearance in the file.
    hosts: Vec<Host>,
    host_index: HashMap<String, usize>,
    warnings: Vec<String>,
}

mod build;
mod patterns;
mod ssh;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_ssh;

pub use ssh::SshTarget;

impl Inventory {
    /// Read and parse the inventory at `path`.
    pub fn load(path: &Path) -> Result<Inventory> {
        let text =
            match crate::bounded::read(path, "inventory") {
                Ok(bytes) => bytes?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Error::input(
                    format!("inventory {} not found", path.display()),
                    "create it, or point `inventory:` in the topology at the stack's Ansible YAML \
                     inventory (default bootstrap/hosts.yaml, relative to the repo root)",
                )),
                Err(e) => {
                    return Err(Error::input(
                        format!("cannot read inventory {}: {e}", path.display()),
                        format!(
                            "check that {} is a readable file (permissions, not a directory)",
                            path.display()
                        ),
                    ))
                }
            };
        let text = String::from_utf8(text).map_err(|e| {
            Error::input(
                format!(
                    "inventory {} is not UTF-8 text (invalid byte at offset {})",
                    path.display(),
                    e.utf8_error().valid_up_to()
                ),
                format!(
                    "{} must be an Ansible YAML inventory saved as UTF-8",
                    path.display()
                ),
            )
        })?;
        Inventory::parse(&text, path)
    }

    /// Parse inventory `text`; `path` is only used in messages.
    // a serde Value: every shape but the expected ones is the same error.
    #[allow(clippy::wildcard_enum_match_arm)]
    pub fn parse(text: &str, path: &Path) -> Result<Inventory> {
        let shown = path.display();
        let structure_hint = format!(
            "{shown} must be an Ansible YAML inventory: `all:` with `hosts:`, `vars:` and \
             `children:`; `ansible-inventory -i {shown} --list` shows what Ansible reads"
        );
        let mut doc: Value = yaml_serde::from_str(text).map_err(|e| {
            Error::input(
                format!("inventory {shown} is not valid YAML: {e}"),
                format!("fix the YAML syntax of {shown} at the place shown"),
            )
        })?;
        doc.apply_merge().map_err(|e| {
            Error::input(
                format!("inventory {shown} has an invalid `<<` merge key: {e}"),
                structure_hint.clone(),
            )
        })?;
        let top = match doc {
            Value::Mapping(m) => m,
            Value::Null => {
                return Err(Error::input(
                    format!("inventory {shown} is empty"),
                    structure_hint,
                ))
            }
            other => {
                return Err(Error::input(
                    format!(
                        "inventory {shown} is not a YAML mapping of groups (found {})",
                        kind_of(&other)
                    ),
                    structure_hint,
                ))
            }
        };
        if top.contains_key("plugin") {
            return Err(Error::input(
                format!(
                    "inventory {shown} is an inventory plugin configuration (`plugin:`), not a YAML inventory"
                ),
                "point `inventory:` in the topology at a static Ansible YAML inventory \
                 (`ansible-inventory -i FILE --list -y` can write one)",
            ));
        }

        let mut inv = Inventory {
            path: path.to_path_buf(),
            groups: Vec::new(),
            group_index: HashMap::new(),
            hosts: Vec::new(),
            host_index: HashMap::new(),
            warnings: Vec::new(),
        };
        inv.group("all");
        for (key, body) in &top {
            let name = inv.name_of(key, "a top-level group name")?;
            match body {
                Value::Null | Value::Mapping(_) => {
                    inv.parse_group(&name, body)?;
                }
                other => inv.warn(format!(
                    "skipping top-level key `{name}`: not a group definition (found {}), as Ansible does",
                    kind_of(other)
                )),
            }
        }
        inv.compute_depths();
        Ok(inv)
    }

    /// The file this inventory was read from (as given to `load`/`parse`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Group names, `all` first, then in order of first appearance in the file.
    pub fn groups(&self) -> Vec<&str> {
        self.groups.iter().map(|g| g.name.as_str()).collect()
    }

    /// What Ansible would only warn about (unknown keys in a group, non-group top-level keys).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Hosts of `group` and of its descendants, in order of first appearance in the file,
    /// each once. `all` lists every host. An existing group without hosts gives an empty list.
    pub fn hosts_of(&self, group: &str) -> Result<Vec<String>> {
        let gi = self.group_id(group)?;
        if gi == 0 {
            return Ok(self.hosts.iter().map(|h| h.name.clone()).collect());
        }
        let mut member = vec![false; self.groups.len()];
        let mut stack = vec![gi];
        while let Some(g) = stack.pop() {
            if !member[g] {
                member[g] = true;
                stack.extend(&self.groups[g].children);
            }
        }
        Ok(self
            .hosts
            .iter()
            .filter(|h| h.groups.iter().any(|&g| member[g]))
            .map(|h| h.name.clone())
            .collect())
    }

    /// The variables Ansible would give `host` from this inventory: group variables in
    /// precedence order (see the module documentation), then the host's own variables.
    pub fn host_vars(&self, host: &str) -> Result<Vars> {
        let hi = self.host_id(host)?;
        let h = &self.hosts[hi];
        // The host's groups and all their ancestors; `all` always applies.
        let mut seen = vec![false; self.groups.len()];
        seen[0] = true;
        let mut stack: Vec<usize> = h.groups.clone();
        while let Some(g) = stack.pop() {
            if !seen[g] {
                seen[g] = true;
                stack.extend(&self.groups[g].parents);
            }
        }
        let mut order: Vec<&Group> = self
            .groups
            .iter()
            .enumerate()
            .filter(|(i, _)| seen[*i])
            .map(|(_, g)| g)
            .collect();
        order.sort_by(|a, b| (a.depth, a.priority, &a.name).cmp(&(b.depth, b.priority, &b.name)));
        let mut vars = Vars::new();
        for g in order {
            vars.extend(g.vars.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        vars.extend(h.vars.iter().map(|(k, v)| (k.clone(), v.clone())));
        Ok(vars)
    }

    /// The control-plane group: `control_group` when given, else the first group of
    /// [`DEFAULT_CONTROL_GROUPS`] (`control_plane`, `kube_control_plane`, `masters`,
    /// `controllers`) that exists in the inventory.
    pub fn control_group_name(&self, control_group: Option<&str>) -> Result<String> {
        let shown = self.path.display();
        match control_group {
            Some(g) => Ok(g.to_string()),
            None => DEFAULT_CONTROL_GROUPS
                .iter()
                .find(|g| self.group_index.contains_key(**g))
                .map(|g| g.to_string())
                .ok_or_else(|| {
                    Error::input(
                        format!(
                            "inventory {shown} has none of the default control-plane groups ({}); its groups: {}",
                            DEFAULT_CONTROL_GROUPS.join(", "),
                            self.groups().join(", ")
                        ),
                        format!(
                            "set `control_group:` in the topology to the group of {shown} that holds the control-plane host"
                        ),
                    )
                }),
        }
    }

    /// The control-plane host and how to reach it: the first host (in file order) of
    /// `control_group`, or when it is `None`, of the first group of
    /// [`DEFAULT_CONTROL_GROUPS`] (`control_plane`, `kube_control_plane`, `masters`,
    /// `controllers`) that exists in the inventory.
    pub fn control_plane_host(
        &self,
        control_group: Option<&str>,
        home: Option<&Path>,
    ) -> Result<(String, SshTarget)> {
        let shown = self.path.display();
        let group = self.control_group_name(control_group)?;
        let group = group.as_str();
        let hosts = self.hosts_of(group)?;
        let Some(first) = hosts.into_iter().next() else {
            return Err(Error::input(
                format!("group `{group}` in inventory {shown} has no hosts"),
                format!(
                    "list the control-plane host under `{group}:` → `hosts:` in {shown}, or set \
                     `control_group:` in the topology to the group that holds it"
                ),
            ));
        };
        let target = self.ssh_target(&first, home)?;
        Ok((first, target))
    }

    fn group_id(&self, group: &str) -> Result<usize> {
        self.group_index.get(group).copied().ok_or_else(|| {
            let shown = self.path.display();
            Error::input(
                format!(
                    "group `{group}` not found in inventory {shown}; its groups: {}",
                    self.groups().join(", ")
                ),
                format!(
                    "use one of the groups of {shown} (group names are used as written, case included)"
                ),
            )
        })
    }

    fn host_id(&self, host: &str) -> Result<usize> {
        self.host_index.get(host).copied().ok_or_else(|| {
            let shown = self.path.display();
            Error::input(
                format!("host `{host}` not found in inventory {shown}"),
                format!("add `{host}` under a group's `hosts:` in {shown}"),
            )
        })
    }
}
