//! Turning a decoded check into a typed [`Check`]: one kind per check, every field validated.

use strum::VariantArray;

use super::*;

impl RawCheck {
    /// Whether this list item sets the key of `kind` (a `namespace:` beside a `resource:`
    /// is that check's scope, not a namespace check).
    fn gives(&self, kind: CheckKey) -> bool {
        match kind {
            CheckKey::ApiGroup => self.api_group.is_some(),
            CheckKey::Namespace => self.namespace.is_some() && self.resource.is_none(),
            CheckKey::StorageClass => self.storage_class.is_some(),
            CheckKey::Workload => self.workload.is_some(),
            CheckKey::Resource => self.resource.is_some(),
            CheckKey::Condition => self.condition.is_some(),
            CheckKey::All => self.all.is_some(),
            CheckKey::Count => self.count.is_some(),
            CheckKey::Tolerate => self.tolerate.is_some(),
            CheckKey::PodFlags => self.pod_flags.is_some(),
            CheckKey::Nodes => self.nodes.is_some(),
            CheckKey::ConfigMap => self.config_map.is_some(),
            CheckKey::NamespaceLabel => self.namespace_label.is_some(),
            CheckKey::ConfigMapKey => self.config_map_key.is_some(),
            CheckKey::Absent => self.absent.is_some(),
            CheckKey::Annotated => self.annotated.is_some(),
            CheckKey::StartedAfter => self.started_after.is_some(),
            CheckKey::DefaultDenyIngress => self.default_deny_ingress.is_some(),
            CheckKey::Every => self.every.is_some(),
            CheckKey::Parents => self.parents.is_some(),
            CheckKey::CsiDriver => self.csi_driver.is_some(),
            CheckKey::OneVersion => self.one_version.is_some(),
            CheckKey::ApiServices => self.api_services.is_some(),
            CheckKey::Webhooks => self.webhooks.is_some(),
            CheckKey::Claims => self.claims.is_some(),
            CheckKey::DistinctNodes => self.distinct_nodes.is_some(),
        }
    }

    pub(super) fn into_kind(self) -> std::result::Result<CheckKind, String> {
        let kinds: Vec<&str> = CheckKey::VARIANTS
            .iter()
            .filter(|k| self.gives(**k))
            .map(|k| k.as_str())
            .collect();
        match kinds.as_slice() {
            [] => return Err(format!("a check needs one of {}", CheckKey::listed())),
            [_] => {}
            many => {
                return Err(format!(
                    "one check per list item, found {}; write each as its own `- ` item",
                    many.iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ))
            }
        }
        if self.resource.is_none() {
            let siblings = [
                ("kind", self.kind.is_some()),
                ("object", self.object.is_some()),
                ("field", self.field.is_some()),
                ("in", self.in_.is_some()),
                ("notIn", self.not_in.is_some()),
                ("equals", self.equals.is_some()),
                ("equalsField", self.equals_field.is_some()),
                ("exists", self.exists.is_some()),
                ("minValidity", self.min_validity.is_some()),
                ("maxAge", self.max_age.is_some()),
            ];
            if let Some((key, _)) = siblings.iter().find(|(_, set)| *set) {
                return Err(format!("`{key}` only goes with a `resource:` check"));
            }
        }
        if let Some(group) = self.api_group {
            return if is_dns_name(&group) {
                Ok(CheckKind::ApiGroup(group))
            } else {
                Err(format!(
                    "`apiGroup: {group}` is not an API group name like `ceph.rook.io`"
                ))
            };
        }
        if let Some(sc) = self.storage_class {
            return Ok(CheckKind::StorageClass {
                provisioner: sc.provisioner,
                default: sc.default,
            });
        }
        if let Some(w) = self.workload {
            return workload(w).map(CheckKind::Workload);
        }
        if let Some(o) = self.one_version {
            return versions::one_version(o).map(CheckKind::OneVersion);
        }
        if let Some(e) = self.every {
            return e.into_check().map(CheckKind::Every);
        }
        if let Some(p) = self.parents {
            return p.into_check().map(CheckKind::Parents);
        }
        if let Some(a) = self.api_services {
            return a.into_check().map(CheckKind::ApiServices);
        }
        if let Some(w) = self.webhooks {
            return w.into_check().map(CheckKind::Webhooks);
        }
        if let Some(c) = self.claims {
            return c.into_check().map(CheckKind::Claims);
        }
        if let Some(d) = self.distinct_nodes {
            return d.into_check().map(CheckKind::DistinctNodes);
        }
        if let Some(c) = self.csi_driver {
            return c.into_check().map(CheckKind::CsiDriver);
        }
        if let Some(c) = self.config_map {
            if !is_dns_label(&c.namespace) || !is_dns_name(&c.name) {
                return Err(format!(
                    "`configMap:` needs a namespace and ConfigMap name, not `{}/{}`",
                    c.namespace, c.name
                ));
            }
            let key_ok = !c.key.is_empty()
                && c.key.len() <= 253
                && c.key
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
            if !key_ok {
                return Err(format!("`key: {}` is not a ConfigMap key", c.key));
            }
            if !c.empty {
                return Err("`configMap:` checks `empty: true` (the key empty or absent)".into());
            }
            return Ok(CheckKind::ConfigMap(ConfigMapCheck {
                namespace: c.namespace,
                name: c.name,
                key: c.key,
            }));
        }
        if let Some(a) = self.annotated {
            return a.into_check().map(CheckKind::Annotated);
        }
        if let Some(s) = self.started_after {
            return s.into_check().map(CheckKind::StartedAfter);
        }
        if let Some(n) = self.nodes {
            const ONE: &str = "`nodes:` needs exactly one of `ready:`, `registered:`, `distinctInternalIPs: true`, `withoutTaint: KEY` or `schedulable: true`";
            if n.expected_taints.is_some() && n.schedulable != Some(true) {
                return Err(
                    "`expectedTaints:` goes with `schedulable: true` (the taints a schedulable node may carry)"
                        .to_string(),
                );
            }
            return match (
                n.ready,
                n.registered,
                n.distinct_internal_ips,
                n.without_taint,
                n.schedulable,
            ) {
                (Some(c), None, None, None, None) => Ok(CheckKind::Nodes(NodesCheck::Ready(c))),
                (None, Some(c), None, None, None) => {
                    Ok(CheckKind::Nodes(NodesCheck::Registered(c)))
                }
                (None, None, Some(true), None, None) => {
                    Ok(CheckKind::Nodes(NodesCheck::DistinctInternalIps))
                }
                (None, None, None, Some(key), None) if is_label_key(&key) => {
                    Ok(CheckKind::Nodes(NodesCheck::WithoutTaint(key)))
                }
                (None, None, None, Some(key), None) => Err(format!(
                    "`withoutTaint: {key}` is not a taint key like `node.cilium.io/agent-not-ready`"
                )),
                (None, None, None, None, Some(true)) => {
                    let expected = n
                        .expected_taints
                        .unwrap_or_default()
                        .iter()
                        .map(|t| ExpectedTaint::parse(t, is_label_key))
                        .collect::<std::result::Result<Vec<_>, _>>()?;
                    Ok(CheckKind::Nodes(NodesCheck::Schedulable(
                        SchedulableCheck {
                            expected,
                            judged_elsewhere: Default::default(),
                        },
                    )))
                }
                _ => Err(ONE.to_string()),
            };
        }
        if let Some(c) = self.config_map_key {
            config_map_name(&c.namespace, &c.name)?;
            let key_ok = !c.key.is_empty()
                && c.key.len() <= 253
                && c.key
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
            if !key_ok {
                return Err(format!(
                    "`configMapKey: key: {}` is not a ConfigMap key like `enable-wireguard`",
                    c.key
                ));
            }
            let (values, negated) = match (c.in_.is_empty(), c.not_in.is_empty()) {
                (false, true) => (c.in_, false),
                (true, false) => (c.not_in, true),
                _ => {
                    return Err(
                        "`configMapKey:` needs exactly one of `in:` or `notIn:`, with at least one value"
                            .to_string(),
                    )
                }
            };
            return Ok(CheckKind::ConfigMapKey(ConfigMapKeyCheck {
                namespace: c.namespace,
                name: c.name,
                key: c.key,
                values: values.into_iter().map(|s| s.0).collect(),
                negated,
                says: c.says,
            }));
        }
        if let Some(d) = self.default_deny_ingress {
            if let Some(bad) = d.exempt.iter().find(|n| !is_dns_label(n)) {
                return Err(format!("`exempt: {bad}` is not a namespace name"));
            }
            return Ok(CheckKind::DefaultDenyIngress(DefaultDenyCheck::new(
                d.exempt,
            )));
        }
        if let Some(a) = self.absent {
            let what = match (a.workload, a.config_map) {
                (Some(w), None) => Absentee::Workload(workload(w)?),
                (None, Some(c)) => {
                    config_map_name(&c.namespace, &c.name)?;
                    Absentee::ConfigMap {
                        namespace: c.namespace,
                        name: c.name,
                    }
                }
                _ => {
                    return Err(
                        "`absent:` names exactly one of `workload: {...}` or `configMap: {namespace, name}`"
                            .to_string(),
                    )
                }
            };
            return Ok(CheckKind::Absent(AbsentCheck { what, says: a.says }));
        }
        if let Some(l) = self.namespace_label {
            if !is_label_key(&l.label) {
                return Err(format!(
                    "`namespaceLabel: label: {}` is not a label key like `pod-security.kubernetes.io/enforce`",
                    l.label
                ));
            }
            if let Some(bad) = l.exempt.iter().find(|n| !is_dns_label(n)) {
                return Err(format!("`exempt: {bad}` is not a namespace name"));
            }
            if l.some && !l.exempt.is_empty() {
                return Err(
                    "`some: true` asks for one namespace with the label; `exempt:` goes with the every-namespace form".to_string(),
                );
            }
            return Ok(CheckKind::NamespaceLabel(NamespaceLabelCheck {
                label: l.label,
                values: l.in_.into_iter().map(|s| s.0).collect(),
                exempt: l.exempt,
                some: l.some,
            }));
        }
        if let Some(c) = self.condition {
            if c.type_.trim().is_empty() {
                return Err("`condition:` needs a `type:` such as `Ready`".to_string());
            }
            return Ok(CheckKind::Condition(ConditionCheck {
                objects: objects(c.resource, c.kind, c.namespace, c.name)?,
                type_: c.type_,
            }));
        }
        if let Some(a) = self.all {
            return a.into_check();
        }
        if let Some(c) = self.count {
            let counted = match (c.resource, c.workload) {
                (Some(r), None) => Counted::Objects(objects(r, c.kind, c.namespace, c.name)?),
                (None, Some(w))
                    if c.kind.is_none() && c.namespace.is_none() && c.name.is_none() =>
                {
                    Counted::Workloads(workload(w)?)
                }
                _ => {
                    return Err(
                        "`count:` counts either `resource:` objects or a `workload:` selection"
                            .to_string(),
                    )
                }
            };
            let wanted = match (c.at_least, c.at_least_field) {
                (Some(n), None) if n >= 1 => Wanted::AtLeast(n),
                (None, Some(f)) => Wanted::AtLeastField {
                    objects: objects(f.resource, f.kind, f.namespace, f.name)?,
                    field: FieldPath::parse(&f.field)?,
                    default: f.default,
                },
                _ => return Err(
                    "`count:` needs `atLeast: N` (1 or more) or `atLeastField: {resource, field}`"
                        .to_string(),
                ),
            };
            return Ok(CheckKind::Count(CountCheck { counted, wanted }));
        }
        if let Some(t) = self.tolerate {
            if t.ok.is_empty() {
                return Err("`tolerate:` needs at least one `ok:` value".to_string());
            }
            if let Some(code) = t.benign.iter().find(|b| NEVER_BENIGN.contains(&b.as_str())) {
                return Err(format!(
                    "`benign: [{code}]`: {code} is a capacity warning and never benign ({}): a cluster filling up is repaired, not tolerated; remove it from `benign:`",
                    NEVER_BENIGN.join(", ")
                ));
            }
            return Ok(CheckKind::Tolerate(TolerateCheck {
                objects: objects(t.resource, t.kind, t.namespace, t.name)?,
                field: FieldPath::parse(&t.field)?,
                ok: t.ok.into_iter().map(|s| s.0).collect(),
                warn: t.warn.0,
                details: FieldPath::parse(&t.details)?,
                benign: t.benign,
                last_checked: t
                    .last_checked
                    .as_deref()
                    .map(FieldPath::parse)
                    .transpose()?,
                max_status_age: match (&t.last_checked, t.max_status_age) {
                    (_, Some(age)) => duration("maxStatusAge", &age)?,
                    (Some(_), None) => DEFAULT_MAX_STATUS_AGE,
                    (None, None) => 0,
                },
            }));
        }
        if let Some(p) = self.pod_flags {
            if p.flags.is_empty() {
                return Err("`podFlags:` needs at least one flag".to_string());
            }
            if let Some(bad) = p.flags.iter().find(|f| !is_flag_name(f)) {
                return Err(format!(
                    "`{bad}` is not a flag name like `--audit-log-path` (no value, no `=`)"
                ));
            }
            return Ok(CheckKind::PodFlags(PodFlagsCheck { flags: p.flags }));
        }
        if let Some(resource) = self.resource {
            let objs = objects(resource, self.kind, self.namespace, self.object)?;
            let field = self.field.as_deref().map(FieldPath::parse).transpose()?;
            let expect = expectation(
                field.as_ref(),
                Given {
                    in_: self.in_,
                    not_in: self.not_in,
                    equals: self.equals,
                    equals_field: self.equals_field,
                    exists: self.exists,
                    min_validity: self.min_validity,
                    max_age: self.max_age,
                },
            )?;
            return Ok(CheckKind::Resource(ResourceCheck {
                objects: objs,
                field,
                expect,
            }));
        }
        match self.namespace {
            Some(ns) if is_dns_label(&ns) => Ok(CheckKind::Namespace(ns)),
            Some(ns) => Err(format!("`namespace: {ns}` is not a namespace name")),
            None => Err(format!("a check needs one of {}", CheckKey::listed())),
        }
    }
}

/// A ConfigMap is named exactly: a namespace and an object name (DNS names).
fn config_map_name(namespace: &str, name: &str) -> std::result::Result<(), String> {
    if !is_dns_label(namespace) {
        return Err(format!("`namespace: {namespace}` is not a namespace name"));
    }
    if !(name.len() <= 253 && is_dns_name(name)) {
        return Err(format!(
            "`name: {name}` is not a ConfigMap name like `cilium-config` (ConfigMaps are read by name, never listed)"
        ));
    }
    Ok(())
}
