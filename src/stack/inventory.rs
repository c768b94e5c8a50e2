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

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_norway::{Mapping, Value};

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

/// Most hosts one range pattern may expand to: a typo such as `node[1:100000]` is an error
/// rather than a hundred thousand hosts.
const MAX_RANGE_HOSTS: usize = 10_000;

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

/// Connection variables and their aliases, in the order Ansible's ssh connection plugin
/// reads them (the first one set wins).
const HOST_VARS: [&str; 2] = ["ansible_host", "ansible_ssh_host"];
const USER_VARS: [&str; 2] = ["ansible_user", "ansible_ssh_user"];
const PORT_VARS: [&str; 2] = ["ansible_port", "ansible_ssh_port"];
const KEY_VARS: [&str; 2] = ["ansible_private_key_file", "ansible_ssh_private_key_file"];

impl Inventory {
    /// Read and parse the inventory at `path`.
    pub fn load(path: &Path) -> Result<Inventory> {
        let text =
            match std::fs::read(path) {
                Ok(bytes) => bytes,
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
    pub fn parse(text: &str, path: &Path) -> Result<Inventory> {
        let shown = path.display();
        let structure_hint = format!(
            "{shown} must be an Ansible YAML inventory: `all:` with `hosts:`, `vars:` and \
             `children:`; `ansible-inventory -i {shown} --list` shows what Ansible reads"
        );
        let mut doc: Value = serde_norway::from_str(text).map_err(|e| {
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

    /// How to reach `host` over SSH; `~` in the key path is expanded with `$HOME`.
    pub fn ssh_target(&self, host: &str) -> Result<SshTarget> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        self.ssh_target_with_home(host, home.as_deref())
    }

    /// The control-plane host and how to reach it: the first host (in file order) of
    /// `control_group`, or when it is `None`, of the first group of
    /// [`DEFAULT_CONTROL_GROUPS`] (`control_plane`, `kube_control_plane`, `masters`,
    /// `controllers`) that exists in the inventory.
    pub fn control_plane_host(&self, control_group: Option<&str>) -> Result<(String, SshTarget)> {
        let shown = self.path.display();
        let group = match control_group {
            Some(g) => g,
            None => DEFAULT_CONTROL_GROUPS
                .iter()
                .copied()
                .find(|g| self.group_index.contains_key(*g))
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
                })?,
        };
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
        let target = self.ssh_target(&first)?;
        Ok((first, target))
    }

    fn ssh_target_with_home(&self, host: &str, home: Option<&Path>) -> Result<SshTarget> {
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

    fn var_error(&self, host: &str, var: &str, what: String) -> Error {
        let shown = self.path.display();
        Error::input(
            format!("host `{host}` in inventory {shown}: {var} {what}"),
            format!("fix {var} for {host} in {shown} (on the host or in a group it belongs to)"),
        )
    }

    fn string_var(&self, host: &str, var: &str, v: &Value) -> Result<String> {
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

    fn port_var(&self, host: &str, var: &str, v: &Value) -> Result<u16> {
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

    fn expand_home(
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

    fn warn(&mut self, message: String) {
        self.warnings
            .push(format!("inventory {}: {message}", self.path.display()));
    }

    /// The index of group `name`, created if new.
    fn group(&mut self, name: &str) -> usize {
        if let Some(&i) = self.group_index.get(name) {
            return i;
        }
        let i = self.groups.len();
        self.groups.push(Group {
            name: name.to_string(),
            vars: Vars::new(),
            priority: 1,
            parents: Vec::new(),
            children: Vec::new(),
            depth: 0,
        });
        self.group_index.insert(name.to_string(), i);
        i
    }

    /// The index of host `name`, created if new.
    fn host(&mut self, name: &str) -> usize {
        if let Some(&i) = self.host_index.get(name) {
            return i;
        }
        let i = self.hosts.len();
        self.hosts.push(Host {
            name: name.to_string(),
            vars: Vars::new(),
            groups: Vec::new(),
        });
        self.host_index.insert(name.to_string(), i);
        i
    }

    /// A YAML key as a name: strings as written, numbers and booleans as text (as Ansible does).
    fn name_of(&self, key: &Value, what: &str) -> Result<String> {
        let name = match key {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            other => {
                return Err(Error::input(
                    format!(
                        "inventory {} has {} as {what}, expected a name",
                        self.path.display(),
                        kind_of(other)
                    ),
                    format!(
                        "group, host and variable names in {} are plain strings",
                        self.path.display()
                    ),
                ))
            }
        };
        if name.is_empty() {
            return Err(Error::input(
                format!("inventory {} has an empty {what}", self.path.display()),
                format!("give it a name in {}", self.path.display()),
            ));
        }
        Ok(name)
    }

    fn section<'a>(&self, group: &str, key: &str, value: &'a Value) -> Result<Section<'a>> {
        match value {
            Value::Null => Ok(Section::Empty),
            Value::String(s) => Ok(Section::One(s.as_str())),
            Value::Mapping(m) => Ok(Section::Map(m)),
            other => {
                let shown = self.path.display();
                Err(Error::input(
                    format!(
                        "inventory {shown}: `{key}:` of group `{group}` must be a mapping, found {}",
                        kind_of(other)
                    ),
                    format!(
                        "in {shown} write each entry of `{key}:` as a key ending with a colon \
                         (`{key}:` then `  name:` on the next line), not as a list"
                    ),
                ))
            }
        }
    }

    fn parse_group(&mut self, name: &str, body: &Value) -> Result<usize> {
        let gi = self.group(name);
        let Value::Mapping(body) = body else {
            return Ok(gi);
        };
        for (key, value) in body {
            let key = match key {
                Value::String(s) => s.as_str(),
                _ => {
                    let k = self.name_of(key, "a group key")?;
                    self.warn(format!(
                        "skipping key `{k}` in group `{name}`: only `hosts`, `vars` and `children` are valid"
                    ));
                    continue;
                }
            };
            match key {
                "vars" => {
                    for (var, value) in self.section(name, key, value)?.entries() {
                        let var = self.name_of(&var, "a variable name")?;
                        if var == "ansible_group_priority" {
                            self.groups[gi].priority = self.priority_of(name, value)?;
                        }
                        self.groups[gi].vars.insert(var, value.clone());
                    }
                }
                "children" => {
                    for (child, child_body) in self.section(name, key, value)?.entries() {
                        let child = self.name_of(&child, "a group name")?;
                        match child_body {
                            Value::Null | Value::Mapping(_) => {}
                            other => {
                                let shown = self.path.display();
                                return Err(Error::input(
                                    format!(
                                        "inventory {shown}: child group `{child}` of `{name}` must be a mapping or empty, found {}",
                                        kind_of(other)
                                    ),
                                    format!(
                                        "in {shown} a child group has `hosts:`, `vars:` or `children:` under it, or nothing"
                                    ),
                                ));
                            }
                        }
                        let ci = self.parse_group(&child, child_body)?;
                        self.add_child(gi, ci)?;
                    }
                }
                "hosts" => {
                    for (pattern, host_vars) in self.section(name, key, value)?.entries() {
                        let pattern = self.name_of(&pattern, "a host name")?;
                        let vars = match host_vars {
                            Value::Null => None,
                            Value::Mapping(m) => Some(m),
                            other => {
                                let shown = self.path.display();
                                return Err(Error::input(
                                    format!(
                                        "inventory {shown}: host `{pattern}` in group `{name}` has {} where its variables (a mapping) belong",
                                        kind_of(other)
                                    ),
                                    format!(
                                        "in {shown} write `{pattern}:` followed by indented `var: value` lines, or nothing"
                                    ),
                                ));
                            }
                        };
                        let (names, port) = self.expand_host_pattern(name, &pattern)?;
                        for host_name in names {
                            let hi = self.host(&host_name);
                            if !self.hosts[hi].groups.contains(&gi) {
                                self.hosts[hi].groups.push(gi);
                            }
                            if let Some(port) = port {
                                self.hosts[hi]
                                    .vars
                                    .insert("ansible_port".into(), Value::Number(port.into()));
                            }
                            for (var, value) in vars.into_iter().flatten() {
                                let var = self.name_of(var, "a variable name")?;
                                self.hosts[hi].vars.insert(var, value.clone());
                            }
                        }
                    }
                }
                other => {
                    let other = other.to_string();
                    self.warn(format!(
                        "skipping key `{other}` in group `{name}`: only `hosts`, `vars` and `children` are valid"
                    ));
                }
            }
        }
        Ok(gi)
    }

    fn priority_of(&self, group: &str, value: &Value) -> Result<i64> {
        let parsed = match value {
            Value::Number(n) => n.as_i64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        };
        parsed.ok_or_else(|| {
            let shown = self.path.display();
            Error::input(
                format!(
                    "inventory {shown}: ansible_group_priority of group `{group}` is not an integer"
                ),
                format!("set ansible_group_priority of `{group}` in {shown} to an integer"),
            )
        })
    }

    fn add_child(&mut self, parent: usize, child: usize) -> Result<()> {
        if self.groups[parent].children.contains(&child) {
            return Ok(());
        }
        // Refuse a loop: `child` must not already be an ancestor of `parent` (or be it).
        let mut seen = vec![false; self.groups.len()];
        let mut stack = vec![parent];
        while let Some(g) = stack.pop() {
            if g == child {
                let shown = self.path.display();
                let (p, c) = (&self.groups[parent].name, &self.groups[child].name);
                return Err(Error::input(
                    format!(
                        "inventory {shown}: adding group `{c}` as a child of `{p}` creates a loop"
                    ),
                    format!("remove one of the `children:` entries that make `{c}` its own ancestor in {shown}"),
                ));
            }
            if !seen[g] {
                seen[g] = true;
                stack.extend(&self.groups[g].parents);
            }
        }
        self.groups[parent].children.push(child);
        self.groups[child].parents.push(parent);
        Ok(())
    }

    /// Ansible's depth: `all` is 0, a group without parents is a child of `all` (depth 1),
    /// otherwise one more than its deepest parent. The graph is acyclic (`add_child`).
    fn compute_depths(&mut self) {
        fn depth(groups: &[Group], memo: &mut [Option<usize>], g: usize) -> usize {
            if let Some(d) = memo[g] {
                return d;
            }
            let d = if g == 0 {
                0
            } else {
                groups[g]
                    .parents
                    .iter()
                    .map(|&p| depth(groups, memo, p) + 1)
                    .max()
                    .unwrap_or(1)
            };
            memo[g] = Some(d);
            d
        }
        let mut memo = vec![None; self.groups.len()];
        for g in 0..self.groups.len() {
            let d = depth(&self.groups, &mut memo, g);
            self.groups[g].depth = d;
        }
    }

    /// Split an optional `:port` and expand `[a:b]` ranges, as Ansible's `_expand_hostpattern`.
    fn expand_host_pattern(
        &self,
        group: &str,
        pattern: &str,
    ) -> Result<(Vec<String>, Option<u16>)> {
        let (name, port) = split_port(pattern);
        let port = match port {
            None => None,
            Some(p) => match p.parse::<u32>() {
                Ok(p @ 1..=65535) => Some(p as u16),
                _ => {
                    return Err(self.var_error(
                        name,
                        "port in the host key",
                        format!("is {p:?}, not a port number 1-65535"),
                    ))
                }
            },
        };
        let mut out = Vec::new();
        expand_ranges(name, &mut out).map_err(|why| {
            let shown = self.path.display();
            Error::input(
                format!("inventory {shown}: host pattern `{pattern}` in group `{group}`: {why}"),
                format!(
                    "write the range in {shown} as [begin:end] or [begin:end:step], e.g. node[1:3] or node[01:10]"
                ),
            )
        })?;
        Ok((out, port))
    }
}

enum Section<'a> {
    Empty,
    One(&'a str),
    Map(&'a Mapping),
}

impl<'a> Section<'a> {
    /// The entries as (key, value); a single name (`hosts: node1`) stands for
    /// `{node1: null}`, as in Ansible.
    fn entries(&self) -> Vec<(Value, &'a Value)> {
        static NULL: Value = Value::Null;
        match self {
            Section::Empty => Vec::new(),
            Section::One(name) => vec![(Value::String((*name).to_string()), &NULL)],
            Section::Map(m) => m.iter().map(|(k, v)| (k.clone(), v)).collect(),
        }
    }
}

/// `host:2222` → (`host`, Some("2222")); `[::1]:22` → (`::1`, Some("22")); a bare IPv6
/// address or a name without a port is returned whole.
fn split_port(pattern: &str) -> (&str, Option<&str>) {
    if let Some(rest) = pattern.strip_prefix('[') {
        // `[addr]:port` form, only when addr is an IPv6 address (contains ':').
        if let Some((addr, tail)) = rest.split_once(']') {
            if addr.contains(':') && !addr.contains('[') {
                return match tail.strip_prefix(':') {
                    Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                        (addr, Some(p))
                    }
                    _ if tail.is_empty() => (addr, None),
                    _ => (pattern, None),
                };
            }
        }
    }
    // Colons outside `[...]` ranges.
    let mut depth = 0i32;
    let mut colons = Vec::new();
    for (i, c) in pattern.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ':' if depth == 0 => colons.push(i),
            _ => {}
        }
    }
    if let [i] = colons[..] {
        let port = &pattern[i + 1..];
        if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) {
            return (&pattern[..i], Some(port));
        }
    }
    (pattern, None)
}

/// Expand every `[begin:end(:step)]` range of `pattern` into `out`, as Ansible's
/// `expand_hostname_range`: numeric ranges keep the zero padding of `begin`, letter ranges
/// run over ASCII letters. A `[` without a colon inside is kept literally.
fn expand_ranges(pattern: &str, out: &mut Vec<String>) -> std::result::Result<(), String> {
    let range = pattern.find('[').and_then(|open| {
        pattern[open..]
            .find(']')
            .map(|close| (open, open + close))
            .filter(|(o, c)| pattern[*o + 1..*c].contains(':'))
    });
    let Some((open, close)) = range else {
        out.push(pattern.to_string());
        return Ok(());
    };
    let (head, spec, tail) = (
        &pattern[..open],
        &pattern[open + 1..close],
        &pattern[close + 1..],
    );
    let bounds: Vec<&str> = spec.split(':').collect();
    if bounds.len() != 2 && bounds.len() != 3 {
        return Err("a host range must be begin:end or begin:end:step".into());
    }
    let beg = if bounds[0].is_empty() { "0" } else { bounds[0] };
    let end = bounds[1];
    if end.is_empty() {
        return Err("a host range must give an end value".into());
    }
    let step: usize = match bounds.get(2) {
        None => 1,
        Some(s) => match s.parse() {
            Ok(n) if n > 0 => n,
            _ => return Err(format!("the range step {s:?} is not a positive integer")),
        },
    };
    const LETTERS: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let items: Vec<String> = match (LETTERS.find(beg), LETTERS.find(end)) {
        (Some(b), Some(e)) if beg.len() == 1 && end.len() == 1 => {
            if b > e {
                return Err("a host range must have begin <= end".into());
            }
            LETTERS[b..=e]
                .chars()
                .step_by(step)
                .map(String::from)
                .collect()
        }
        _ => {
            let (b, e) = match (beg.parse::<u64>(), end.parse::<u64>()) {
                (Ok(b), Ok(e)) => (b, e),
                _ => return Err(format!("[{spec}] is neither a numeric nor a letter range")),
            };
            let width = if beg.len() > 1 && beg.starts_with('0') {
                if beg.len() != end.len() {
                    return Err(
                        "a zero-padded range must give begin and end with the same width".into(),
                    );
                }
                beg.len()
            } else {
                0
            };
            if e >= b && (e - b) / step as u64 >= MAX_RANGE_HOSTS as u64 {
                return Err(format!(
                    "the range expands to more than {MAX_RANGE_HOSTS} hosts"
                ));
            }
            (b..=e)
                .step_by(step)
                .map(|n| format!("{n:0width$}"))
                .collect()
        }
    };
    for item in items {
        expand_ranges(&format!("{head}{item}{tail}"), out)?;
        if out.len() > MAX_RANGE_HOSTS {
            return Err(format!(
                "the range expands to more than {MAX_RANGE_HOSTS} hosts"
            ));
        }
    }
    Ok(())
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a panic is the failure report in tests
mod tests {
    use super::*;

    const PROD: &str = r#"
# Inventory of the dirqual prod stack.
all:
  vars:
    ansible_user: ops
    level: all
    site: all
  hosts:
    bastion:
      ansible_host: 10.67.0.1
  children:
    prod:
      vars:
        level: prod
      children:
        k8s:
          vars:
            level: k8s
            site: k8s
          children:
            control_plane:
              vars:
                level: control_plane
              hosts:
                dirqual1:
                  ansible_host: 10.67.2.11
                  ansible_port: 2222
                  level: host
                dirqual2:
                  ansible_port: "2200"
            workers:
              hosts:
                dirqual3:
                dirqual4:
                  ansible_ssh_private_key_file: ~/.ssh/dirqual
                dirqual1:
    monitoring:
      hosts:
        dirqual4:
      vars:
        scrape: "yes"
storage:
  children:
    monitoring:
      hosts:
        dirqual3:
      vars:
        retention: 15d
"#;

    fn inv(text: &str) -> Inventory {
        match Inventory::parse(text, Path::new("bootstrap/hosts.yaml")) {
            Ok(i) => i,
            Err(e) => panic!("{e}"),
        }
    }

    fn err(text: &str) -> Error {
        match Inventory::parse(text, Path::new("bootstrap/hosts.yaml")) {
            Ok(_) => panic!("expected an error"),
            Err(e) => e,
        }
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn var(i: &Inventory, host: &str, name: &str) -> Value {
        i.host_vars(host)
            .unwrap()
            .get(name)
            .cloned()
            .unwrap_or(Value::Null)
    }

    #[test]
    fn nested_children_three_levels_deep() {
        let i = inv(PROD);
        assert_eq!(
            i.hosts_of("all").unwrap(),
            s(&["bastion", "dirqual1", "dirqual2", "dirqual3", "dirqual4"])
        );
        assert_eq!(
            i.hosts_of("prod").unwrap(),
            s(&["dirqual1", "dirqual2", "dirqual3", "dirqual4"])
        );
        assert_eq!(
            i.hosts_of("k8s").unwrap(),
            s(&["dirqual1", "dirqual2", "dirqual3", "dirqual4"])
        );
        // dirqual1 is listed twice (control_plane and workers): once in the result.
        assert_eq!(
            i.hosts_of("workers").unwrap(),
            s(&["dirqual1", "dirqual3", "dirqual4"])
        );
        assert_eq!(
            i.hosts_of("control_plane").unwrap(),
            s(&["dirqual1", "dirqual2"])
        );
        assert_eq!(
            i.groups(),
            vec![
                "all",
                "prod",
                "k8s",
                "control_plane",
                "workers",
                "monitoring",
                "storage"
            ]
        );
        assert!(i.warnings().is_empty(), "{:?}", i.warnings());
    }

    #[test]
    fn a_group_under_two_parents_merges_hosts_and_vars() {
        let i = inv(PROD);
        assert_eq!(
            i.hosts_of("monitoring").unwrap(),
            s(&["dirqual3", "dirqual4"])
        );
        assert_eq!(i.hosts_of("storage").unwrap(), s(&["dirqual3", "dirqual4"]));
        // both occurrences' vars apply to every host of the group
        assert_eq!(var(&i, "dirqual4", "scrape"), Value::from("yes"));
        assert_eq!(var(&i, "dirqual4", "retention"), Value::from("15d"));
        assert_eq!(var(&i, "dirqual3", "scrape"), Value::from("yes"));
    }

    #[test]
    fn vars_precedence_all_group_child_group_host() {
        let i = inv(PROD);
        // host > control_plane > k8s > prod > all
        assert_eq!(var(&i, "dirqual1", "level"), Value::from("host"));
        assert_eq!(var(&i, "dirqual2", "level"), Value::from("control_plane"));
        assert_eq!(var(&i, "dirqual2", "site"), Value::from("k8s"));
        assert_eq!(var(&i, "dirqual3", "level"), Value::from("k8s"));
        assert_eq!(var(&i, "bastion", "level"), Value::from("all"));
        assert_eq!(var(&i, "dirqual3", "ansible_user"), Value::from("ops"));
    }

    #[test]
    fn deeper_group_wins_over_its_ancestor_whatever_the_names() {
        let i = inv("
all:
  children:
    zzz:
      vars: {color: parent}
      children:
        aaa:
          vars: {color: child}
          hosts: {h1: }
");
        assert_eq!(var(&i, "h1", "color"), Value::from("child"));
    }

    #[test]
    fn siblings_later_in_alphabetical_order_win_not_later_in_file() {
        let text = "
all:
  children:
    beta:
      vars: {color: beta}
      hosts: {h1: }
    alpha:
      vars: {color: alpha}
      hosts: {h1: }
";
        assert_eq!(var(&inv(text), "h1", "color"), Value::from("beta"));
        // ansible_group_priority overrides the alphabetical tie-break
        let text = text.replace(
            "{color: alpha}",
            "{color: alpha, ansible_group_priority: 10}",
        );
        assert_eq!(var(&inv(&text), "h1", "color"), Value::from("alpha"));
    }

    #[test]
    fn depth_is_the_longest_path_from_all() {
        // `c` is top-level (depth 1 that way) but also under a/b: depth 3, so it wins over b.
        let i = inv("
c:
  vars: {x: c}
  hosts: {h1: }
a:
  children:
    b:
      vars: {x: b}
      hosts: {h1: }
      children:
        c:
");
        assert_eq!(var(&i, "h1", "x"), Value::from("c"));
        assert_eq!(i.hosts_of("a").unwrap(), s(&["h1"]));
    }

    #[test]
    fn host_vars_merge_across_occurrences_later_wins() {
        let i = inv("
all:
  children:
    g1:
      hosts:
        h1: {a: 1, b: 1}
    g2:
      hosts:
        h1: {b: 2}
");
        let v = i.host_vars("h1").unwrap();
        assert_eq!(v.get("a"), Some(&Value::from(1)));
        assert_eq!(v.get("b"), Some(&Value::from(2)));
    }

    #[test]
    fn ssh_target_from_vars_ports_as_int_and_string_and_key_with_tilde() {
        let i = inv(PROD);
        let home = Path::new("/home/op");
        assert_eq!(
            i.ssh_target_with_home("dirqual1", Some(home)).unwrap(),
            SshTarget {
                host: "10.67.2.11".into(),
                user: Some("ops".into()),
                port: Some(2222),
                key: None
            }
        );
        assert_eq!(
            i.ssh_target_with_home("dirqual2", Some(home)).unwrap(),
            SshTarget {
                host: "dirqual2".into(),
                user: Some("ops".into()),
                port: Some(2200),
                key: None
            }
        );
        assert_eq!(
            i.ssh_target_with_home("dirqual4", Some(home)).unwrap().key,
            Some(PathBuf::from("/home/op/.ssh/dirqual"))
        );
    }

    #[test]
    fn ssh_target_without_vars_is_the_inventory_name() {
        let i = inv("all:\n  hosts:\n    node1:\n");
        assert_eq!(
            i.ssh_target_with_home("node1", None).unwrap(),
            SshTarget {
                host: "node1".into(),
                user: None,
                port: None,
                key: None
            }
        );
    }

    #[test]
    fn ssh_aliases_and_key_forms() {
        let i = inv(r#"
all:
  hosts:
    a: {ansible_ssh_host: 10.0.0.5, ansible_ssh_user: root, ansible_ssh_port: 22}
    b: {ansible_private_key_file: /keys/id}
    c: {ansible_ssh_private_key_file: "~"}
    d: {ansible_ssh_private_key_file: keys/id}
"#);
        let home = Some(Path::new("/root"));
        let a = i.ssh_target_with_home("a", home).unwrap();
        assert_eq!(
            (a.host.as_str(), a.user.as_deref(), a.port),
            ("10.0.0.5", Some("root"), Some(22))
        );
        let key = |h: &str| i.ssh_target_with_home(h, home).unwrap().key;
        assert_eq!(key("b"), Some(PathBuf::from("/keys/id")));
        assert_eq!(key("c"), Some(PathBuf::from("/root")));
        assert_eq!(key("d"), Some(PathBuf::from("keys/id")));
    }

    #[test]
    fn key_with_tilde_needs_home_and_refuses_other_users() {
        let i = inv("all:\n  hosts:\n    a: {ansible_ssh_private_key_file: ~/.ssh/id}\n    b: {ansible_ssh_private_key_file: ~bob/.ssh/id}\n");
        let e = i.ssh_target_with_home("a", None).unwrap_err();
        assert_eq!(
            e.message,
            "host `a` in inventory bootstrap/hosts.yaml: ansible_ssh_private_key_file is \"~/.ssh/id\" but HOME is not set to expand `~`"
        );
        let e = i
            .ssh_target_with_home("b", Some(Path::new("/h")))
            .unwrap_err();
        assert!(
            e.message.contains("only `~` and `~/` are expanded"),
            "{}",
            e.message
        );
    }

    #[test]
    fn port_out_of_range_or_not_numeric_is_an_error() {
        for (port, shown) in [
            ("0", "0"),
            ("65536", "65536"),
            ("-1", "-1"),
            ("\"70000\"", "\"70000\""),
            ("\"ssh\"", "\"ssh\""),
            ("[22]", "a list"),
        ] {
            let i = inv(&format!(
                "all:\n  hosts:\n    n1:\n      ansible_port: {port}\n"
            ));
            let e = i.ssh_target("n1").unwrap_err();
            assert_eq!(
                e.message,
                format!("host `n1` in inventory bootstrap/hosts.yaml: ansible_port is {shown}, not a port number 1-65535")
            );
            assert_eq!(
                e.hint,
                "fix ansible_port for n1 in bootstrap/hosts.yaml (on the host or in a group it belongs to)"
            );
            assert_eq!(e.exit.code(), 1);
        }
    }

    #[test]
    fn templated_and_vaulted_connection_vars_are_refused() {
        let i = inv("all:\n  hosts:\n    a: {ansible_host: \"{{ ip }}\"}\n    b:\n      ansible_user: !vault |\n        $ANSIBLE_VAULT;1.1;AES256\n        6162\n");
        let e = i.ssh_target("a").unwrap_err();
        assert!(
            e.message.contains("ansible_host is a Jinja template"),
            "{}",
            e.message
        );
        let e = i.ssh_target("b").unwrap_err();
        assert!(
            e.message.contains("ansible_user is vault-encrypted"),
            "{}",
            e.message
        );
    }

    #[test]
    fn host_keys_with_port_and_ranges_expand_as_ansible() {
        let i = inv("
all:
  children:
    control_plane:
      hosts:
        cp[01:03]:
        edge-[a:c]:2222:
        node[1:5:2].lan:
        '[fe80::1]:2200':
        fe80::2:
");
        assert_eq!(
            i.hosts_of("control_plane").unwrap(),
            s(&[
                "cp01",
                "cp02",
                "cp03",
                "edge-a",
                "edge-b",
                "edge-c",
                "node1.lan",
                "node3.lan",
                "node5.lan",
                "fe80::1",
                "fe80::2"
            ])
        );
        assert_eq!(i.ssh_target("edge-b").unwrap().port, Some(2222));
        assert_eq!(i.ssh_target("fe80::1").unwrap().port, Some(2200));
        assert_eq!(i.ssh_target("fe80::2").unwrap().port, None);
        let e = err("all:\n  hosts:\n    n[3:1:0]:\n");
        assert!(
            e.message.contains("host pattern `n[3:1:0]` in group `all`"),
            "{}",
            e.message
        );
        let e = err("all:\n  hosts:\n    n[1:100000]:\n");
        assert!(e.message.contains("more than 10000 hosts"), "{}", e.message);
    }

    #[test]
    fn string_shorthand_and_other_top_level_groups() {
        let i = inv("
all:
  hosts: lonely
masters:
  hosts: m1
  children: etcd
etcd:
  hosts:
    e1:
");
        assert_eq!(i.hosts_of("masters").unwrap(), s(&["m1", "e1"]));
        assert_eq!(i.hosts_of("all").unwrap(), s(&["lonely", "m1", "e1"]));
    }

    #[test]
    fn unknown_group_keys_are_warnings_as_in_ansible() {
        let i = inv("all:\n  host:\n    n1:\n  hosts:\n    n2:\nversion: 2\n");
        assert_eq!(
            i.warnings(),
            [
                "inventory bootstrap/hosts.yaml: skipping key `host` in group `all`: only `hosts`, `vars` and `children` are valid",
                "inventory bootstrap/hosts.yaml: skipping top-level key `version`: not a group definition (found a number), as Ansible does",
            ]
        );
        assert_eq!(i.hosts_of("all").unwrap(), s(&["n2"]));
    }

    #[test]
    fn merge_keys_are_applied() {
        let i = inv("
all:
  hosts:
    n1: &base {ansible_user: core, ansible_port: 22}
    n2:
      <<: *base
      ansible_port: 2200
");
        let t = i.ssh_target("n2").unwrap();
        assert_eq!((t.user.as_deref(), t.port), (Some("core"), Some(2200)));
    }

    #[test]
    fn control_plane_host_explicit_group() {
        let i = inv(PROD);
        let (host, t) = i.control_plane_host(Some("workers")).unwrap();
        assert_eq!(host, "dirqual1");
        assert_eq!(t.host, "10.67.2.11");
    }

    #[test]
    fn control_plane_host_default_groups_in_documented_order() {
        let (host, _) = inv(PROD).control_plane_host(None).unwrap();
        assert_eq!(host, "dirqual1");
        // kube_control_plane comes before masters in the default order, whatever the file says
        let i = inv("
all:
  children:
    masters:
      hosts: {old1: }
    controllers:
      hosts: {ctl1: }
    kube_control_plane:
      hosts: {kcp1: , kcp2: }
");
        assert_eq!(i.control_plane_host(None).unwrap().0, "kcp1");
        let i = inv("all:\n  children:\n    controllers:\n      hosts: {ctl1: }\n");
        assert_eq!(i.control_plane_host(None).unwrap().0, "ctl1");
        assert_eq!(
            DEFAULT_CONTROL_GROUPS,
            [
                "control_plane",
                "kube_control_plane",
                "masters",
                "controllers"
            ]
        );
    }

    #[test]
    fn error_no_default_control_group() {
        let i = inv("all:\n  children:\n    web:\n      hosts: {w1: }\n");
        let e = i.control_plane_host(None).unwrap_err();
        assert_eq!(
            e.message,
            "inventory bootstrap/hosts.yaml has none of the default control-plane groups (control_plane, kube_control_plane, masters, controllers); its groups: all, web"
        );
        assert_eq!(
            e.hint,
            "set `control_group:` in the topology to the group of bootstrap/hosts.yaml that holds the control-plane host"
        );
    }

    #[test]
    fn error_missing_group_lists_the_groups() {
        let i = inv(PROD);
        let e = i.control_plane_host(Some("Control_Plane")).unwrap_err();
        assert_eq!(
            e.message,
            "group `Control_Plane` not found in inventory bootstrap/hosts.yaml; its groups: all, prod, k8s, control_plane, workers, monitoring, storage"
        );
        assert_eq!(
            e.hint,
            "use one of the groups of bootstrap/hosts.yaml (group names are used as written, case included)"
        );
        assert_eq!(i.hosts_of("nope").unwrap_err().exit.code(), 1);
    }

    #[test]
    fn error_empty_group() {
        let i = inv("all:\n  children:\n    control_plane:\n    workers:\n      hosts: {w1: }\n");
        assert_eq!(i.hosts_of("control_plane").unwrap(), Vec::<String>::new());
        let e = i.control_plane_host(None).unwrap_err();
        assert_eq!(
            e.message,
            "group `control_plane` in inventory bootstrap/hosts.yaml has no hosts"
        );
        assert_eq!(
            e.hint,
            "list the control-plane host under `control_plane:` → `hosts:` in bootstrap/hosts.yaml, or set `control_group:` in the topology to the group that holds it"
        );
    }

    #[test]
    fn error_unknown_host() {
        let e = inv(PROD).host_vars("ghost").unwrap_err();
        assert_eq!(
            e.message,
            "host `ghost` not found in inventory bootstrap/hosts.yaml"
        );
    }

    #[test]
    fn error_not_a_mapping_empty_and_invalid_yaml() {
        let e = err("- all\n- web\n");
        assert_eq!(
            e.message,
            "inventory bootstrap/hosts.yaml is not a YAML mapping of groups (found a list)"
        );
        assert!(e
            .hint
            .starts_with("bootstrap/hosts.yaml must be an Ansible YAML inventory"));
        let e = err("# only a comment\n");
        assert_eq!(e.message, "inventory bootstrap/hosts.yaml is empty");
        let e = err("all:\n  hosts:\n    a: [\n");
        assert!(
            e.message
                .starts_with("inventory bootstrap/hosts.yaml is not valid YAML: "),
            "{}",
            e.message
        );
        assert!(e.message.contains("line"), "{}", e.message);
        assert_eq!(
            e.hint,
            "fix the YAML syntax of bootstrap/hosts.yaml at the place shown"
        );
        let e = err("plugin: aws_ec2\n");
        assert!(
            e.message.contains("inventory plugin configuration"),
            "{}",
            e.message
        );
    }

    #[test]
    fn error_hosts_written_as_a_list() {
        let e = err("all:\n  hosts:\n    - n1\n    - n2\n");
        assert_eq!(
            e.message,
            "inventory bootstrap/hosts.yaml: `hosts:` of group `all` must be a mapping, found a list"
        );
        let e = err("all:\n  hosts:\n    n1: 10.0.0.1\n");
        assert_eq!(
            e.message,
            "inventory bootstrap/hosts.yaml: host `n1` in group `all` has a string where its variables (a mapping) belong"
        );
        let e = err("all:\n  children:\n    g: [a]\n");
        assert!(
            e.message
                .contains("child group `g` of `all` must be a mapping or empty"),
            "{}",
            e.message
        );
    }

    #[test]
    fn error_group_loop() {
        // b -> a is recorded first (depth-first), so closing the loop is a -> b
        let e = err("a:\n  children:\n    b:\n      children:\n        a:\n");
        assert_eq!(
            e.message,
            "inventory bootstrap/hosts.yaml: adding group `b` as a child of `a` creates a loop"
        );
    }

    #[test]
    fn load_reads_the_file_and_names_it_in_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hosts.yaml");
        std::fs::write(&path, PROD).unwrap();
        let i = Inventory::load(&path).unwrap();
        assert_eq!(i.path(), path);
        assert_eq!(i.hosts_of("control_plane").unwrap().len(), 2);

        let missing = dir.path().join("nope.yaml");
        let e = Inventory::load(&missing).unwrap_err();
        assert_eq!(
            e.message,
            format!("inventory {} not found", missing.display())
        );
        assert!(
            e.hint.contains("`inventory:` in the topology"),
            "{}",
            e.hint
        );

        // a directory cannot be read as a file (works as root too, unlike a chmod)
        let e = Inventory::load(dir.path()).unwrap_err();
        assert!(
            e.message
                .starts_with(&format!("cannot read inventory {}: ", dir.path().display())),
            "{}",
            e.message
        );
        assert!(
            e.hint.contains(&dir.path().display().to_string()),
            "{}",
            e.hint
        );

        let bad = dir.path().join("latin1.yaml");
        std::fs::write(&bad, b"all:\n  hosts:\n    caf\xe9:\n").unwrap();
        let e = Inventory::load(&bad).unwrap_err();
        assert!(e.message.contains("is not UTF-8 text"), "{}", e.message);
    }
}
