//! Building an [`Inventory`] from the YAML document: groups, hosts, sections, children
//! and the depth of each group, as Ansible's `yaml` inventory plugin does.

use yaml_serde::{Mapping, Value};

use super::patterns::{expand_ranges, split_port};
use super::{Group, Host, Inventory, Vars};
use crate::error::{Error, Result};

impl Inventory {
    pub(super) fn warn(&mut self, message: String) {
        self.warnings
            .push(format!("inventory {}: {message}", self.path.display()));
    }

    /// The index of group `name`, created if new.
    pub(super) fn group(&mut self, name: &str) -> usize {
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
    pub(super) fn host(&mut self, name: &str) -> usize {
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
    // a serde Value: every shape but the expected ones is the same error.
    #[allow(clippy::wildcard_enum_match_arm)]
    pub(super) fn name_of(&self, key: &Value, what: &str) -> Result<String> {
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

    // a serde Value: every shape but the expected ones is the same error.
    #[allow(clippy::wildcard_enum_match_arm)]
    pub(super) fn section<'a>(
        &self,
        group: &str,
        key: &str,
        value: &'a Value,
    ) -> Result<Section<'a>> {
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

    // a serde Value: every shape but the expected ones is the same error.
    #[allow(clippy::wildcard_enum_match_arm)]
    pub(super) fn parse_group(&mut self, name: &str, body: &Value) -> Result<usize> {
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

    // a serde Value: every shape but the expected ones is the same error.
    #[allow(clippy::wildcard_enum_match_arm)]
    pub(super) fn priority_of(&self, group: &str, value: &Value) -> Result<i64> {
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

    pub(super) fn add_child(&mut self, parent: usize, child: usize) -> Result<()> {
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
    pub(super) fn compute_depths(&mut self) {
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
    pub(super) fn expand_host_pattern(
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

pub(super) enum Section<'a> {
    Empty,
    One(&'a str),
    Map(&'a Mapping),
}

impl<'a> Section<'a> {
    /// The entries as (key, value); a single name (`hosts: node1`) stands for
    /// `{node1: null}`, as in Ansible.
    pub(super) fn entries(&self) -> Vec<(Value, &'a Value)> {
        static NULL: Value = Value::Null;
        match self {
            Section::Empty => Vec::new(),
            Section::One(name) => vec![(Value::String((*name).to_string()), &NULL)],
            Section::Map(m) => m.iter().map(|(k, v)| (k.clone(), v)).collect(),
        }
    }
}

pub(super) fn kind_of(v: &Value) -> &'static str {
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
