//! Turning a decoded list item into a typed [`Check`]: one kind per item, every field
//! validated; and the decoding of the kinds whose raw form lives in `raw.rs`.

use super::*;

impl RawCheck {
    pub(super) fn into_kind(self) -> std::result::Result<CheckKind, String> {
        let RawCheck {
            mut given, item, ..
        } = self;
        let resource = given.iter().any(|(k, _)| *k == CheckKey::Resource);
        // A `namespace:` beside a `resource:` is that check's scope, not a namespace check.
        if let (Some(ns), false) = (&item.namespace, resource) {
            let ns = ns.clone();
            let check: item::Pending =
                Box::new(move |item| NamespaceCheck::decode(ns, item).map(CheckKind::Namespace));
            given.push((CheckKey::Namespace, check));
        }
        given.sort_by_key(|(k, _)| *k);
        let check = match given.len() {
            0 => return Err(format!("a check needs one of {}", CheckKey::listed())),
            1 => given.pop().map(|(_, check)| check),
            _ => {
                return Err(format!(
                    "one check per list item, found {}; write each as its own `- ` item",
                    given
                        .iter()
                        .map(|(k, _)| format!("`{}`", k.as_str()))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ))
            }
        };
        if !resource {
            if let Some(key) = item.resource_key() {
                return Err(format!("`{key}` only goes with a `resource:` check"));
            }
        }
        match check {
            Some(check) => check(item),
            None => Err(format!("a check needs one of {}", CheckKey::listed())),
        }
    }
}

/// The kinds whose raw form validates itself (`RawX::into_check`, beside it in `raw/`).
macro_rules! decoded_by_into_check {
    ($($check:ty => $raw:ty,)*) => {
        $(
            impl Decode for $check {
                type Raw = $raw;
                fn decode(raw: $raw, _: Item) -> std::result::Result<Self, String> {
                    raw.into_check()
                }
            }
        )*
    };
}

decoded_by_into_check! {
    AllCheck => RawAll,
    AnnotatedCheck => agents::RawAnnotated,
    StartedAfterCheck => agents::RawStartedAfter,
    EveryCheck => RawEvery,
    ParentsCheck => RawParents,
    CsiDriverCheck => RawCsiDriver,
    ApiServicesCheck => apiservices::RawApiServices,
    WebhooksCheck => webhooks::RawWebhooks,
    ClaimsCheck => claims::RawClaims,
    DistinctNodesCheck => placement::RawDistinctNodes,
}

impl Decode for OneVersionCheck {
    type Raw = Vec<versions::RawVersioned>;
    fn decode(each: Self::Raw, _: Item) -> std::result::Result<Self, String> {
        versions::one_version(each)
    }
}

impl Decode for ApiGroupCheck {
    type Raw = String;
    fn decode(group: String, _: Item) -> std::result::Result<Self, String> {
        if is_dns_name(&group) {
            Ok(ApiGroupCheck(group))
        } else {
            Err(format!(
                "`apiGroup: {group}` is not an API group name like `ceph.rook.io`"
            ))
        }
    }
}

impl Decode for NamespaceCheck {
    type Raw = String;
    fn decode(ns: String, _: Item) -> std::result::Result<Self, String> {
        if is_dns_label(&ns) {
            Ok(NamespaceCheck(ns))
        } else {
            Err(format!("`namespace: {ns}` is not a namespace name"))
        }
    }
}

impl Decode for StorageClassCheck {
    type Raw = RawStorageClass;
    fn decode(sc: RawStorageClass, _: Item) -> std::result::Result<Self, String> {
        Ok(StorageClassCheck {
            provisioner: sc.provisioner,
            default: sc.default,
        })
    }
}

impl Decode for WorkloadCheck {
    type Raw = RawWorkload;
    fn decode(w: RawWorkload, _: Item) -> std::result::Result<Self, String> {
        workload(w)
    }
}

/// A ConfigMap data key: 1 to 253 of `[A-Za-z0-9-_.]`.
fn is_config_map_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 253
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

impl Decode for ConfigMapCheck {
    type Raw = RawConfigMap;
    fn decode(c: RawConfigMap, _: Item) -> std::result::Result<Self, String> {
        if !is_dns_label(&c.namespace) || !is_dns_name(&c.name) {
            return Err(format!(
                "`configMap:` needs a namespace and ConfigMap name, not `{}/{}`",
                c.namespace, c.name
            ));
        }
        if !is_config_map_key(&c.key) {
            return Err(format!("`key: {}` is not a ConfigMap key", c.key));
        }
        if !c.empty {
            return Err("`configMap:` checks `empty: true` (the key empty or absent)".into());
        }
        Ok(ConfigMapCheck {
            namespace: c.namespace,
            name: c.name,
            key: c.key,
        })
    }
}

impl Decode for NodesCheck {
    type Raw = RawNodes;
    fn decode(n: RawNodes, _: Item) -> std::result::Result<Self, String> {
        const ONE: &str = "`nodes:` needs exactly one of `ready:`, `registered:`, `distinctInternalIPs: true`, `withoutTaint: KEY` or `schedulable: true`";
        if n.expected_taints.is_some() && n.schedulable != Some(true) {
            return Err(
                "`expectedTaints:` goes with `schedulable: true` (the taints a schedulable node may carry)"
                    .to_string(),
            );
        }
        match (
            n.ready,
            n.registered,
            n.distinct_internal_ips,
            n.without_taint,
            n.schedulable,
        ) {
            (Some(c), None, None, None, None) => Ok(NodesCheck::Ready(c)),
            (None, Some(c), None, None, None) => Ok(NodesCheck::Registered(c)),
            (None, None, Some(true), None, None) => Ok(NodesCheck::DistinctInternalIps),
            (None, None, None, Some(key), None) if is_label_key(&key) => {
                Ok(NodesCheck::WithoutTaint(key))
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
                Ok(NodesCheck::Schedulable(SchedulableCheck {
                    expected,
                    judged_elsewhere: Default::default(),
                }))
            }
            _ => Err(ONE.to_string()),
        }
    }
}

impl Decode for ConfigMapKeyCheck {
    type Raw = RawConfigMapKey;
    fn decode(c: RawConfigMapKey, _: Item) -> std::result::Result<Self, String> {
        config_map_name(&c.namespace, &c.name)?;
        if !is_config_map_key(&c.key) {
            return Err(format!(
                "`configMapKey: key: {}` is not a ConfigMap key like `enable-wireguard`",
                c.key
            ));
        }
        let (values, negated) = match (c.in_.is_empty(), c.not_in.is_empty()) {
            (false, true) => (c.in_, false),
            (true, false) => (c.not_in, true),
            _ => return Err(
                "`configMapKey:` needs exactly one of `in:` or `notIn:`, with at least one value"
                    .to_string(),
            ),
        };
        Ok(ConfigMapKeyCheck {
            namespace: c.namespace,
            name: c.name,
            key: c.key,
            values: values.into_iter().map(|s| s.0).collect(),
            negated,
            says: c.says,
        })
    }
}

impl Decode for DefaultDenyCheck {
    type Raw = RawDefaultDeny;
    fn decode(d: RawDefaultDeny, _: Item) -> std::result::Result<Self, String> {
        if let Some(bad) = d.exempt.iter().find(|n| !is_dns_label(n)) {
            return Err(format!("`exempt: {bad}` is not a namespace name"));
        }
        Ok(DefaultDenyCheck::new(d.exempt))
    }
}

impl Decode for AbsentCheck {
    type Raw = RawAbsent;
    fn decode(a: RawAbsent, _: Item) -> std::result::Result<Self, String> {
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
        Ok(AbsentCheck { what, says: a.says })
    }
}

impl Decode for NamespaceLabelCheck {
    type Raw = RawNamespaceLabel;
    fn decode(l: RawNamespaceLabel, _: Item) -> std::result::Result<Self, String> {
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
        Ok(NamespaceLabelCheck {
            label: l.label,
            values: l.in_.into_iter().map(|s| s.0).collect(),
            exempt: l.exempt,
            some: l.some,
        })
    }
}

impl Decode for ConditionCheck {
    type Raw = RawCondition;
    fn decode(c: RawCondition, _: Item) -> std::result::Result<Self, String> {
        if c.type_.trim().is_empty() {
            return Err("`condition:` needs a `type:` such as `Ready`".to_string());
        }
        Ok(ConditionCheck {
            objects: objects(c.resource, c.kind, c.namespace, c.name)?,
            type_: c.type_,
        })
    }
}

impl Decode for CountCheck {
    type Raw = RawCount;
    fn decode(c: RawCount, _: Item) -> std::result::Result<Self, String> {
        let counted = match (c.resource, c.workload) {
            (Some(r), None) => Counted::Objects(objects(r, c.kind, c.namespace, c.name)?),
            (None, Some(w)) if c.kind.is_none() && c.namespace.is_none() && c.name.is_none() => {
                Counted::Workloads(workload(w)?)
            }
            _ => {
                return Err(
                    "`count:` counts either `resource:` objects or a `workload:` selection"
                        .to_string(),
                )
            }
        };
        let wanted =
            match (c.at_least, c.at_least_field) {
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
        Ok(CountCheck { counted, wanted })
    }
}

impl Decode for TolerateCheck {
    type Raw = RawTolerate;
    fn decode(t: RawTolerate, _: Item) -> std::result::Result<Self, String> {
        if t.ok.is_empty() {
            return Err("`tolerate:` needs at least one `ok:` value".to_string());
        }
        if let Some(code) = t.benign.iter().find(|b| NEVER_BENIGN.contains(&b.as_str())) {
            return Err(format!(
                "`benign: [{code}]`: {code} is a capacity warning and never benign ({}): a cluster filling up is repaired, not tolerated; remove it from `benign:`",
                NEVER_BENIGN.join(", ")
            ));
        }
        Ok(TolerateCheck {
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
        })
    }
}

impl Decode for PodFlagsCheck {
    type Raw = RawPodFlags;
    fn decode(p: RawPodFlags, _: Item) -> std::result::Result<Self, String> {
        if p.flags.is_empty() {
            return Err("`podFlags:` needs at least one flag".to_string());
        }
        if let Some(bad) = p.flags.iter().find(|f| !is_flag_name(f)) {
            return Err(format!(
                "`{bad}` is not a flag name like `--audit-log-path` (no value, no `=`)"
            ));
        }
        Ok(PodFlagsCheck { flags: p.flags })
    }
}

/// `resource: TYPE` with its scope (`namespace:`, `object:`) and, with `field:`, its
/// expectation, all beside it in the item.
impl Decode for ResourceCheck {
    type Raw = String;
    fn decode(resource: String, item: Item) -> std::result::Result<Self, String> {
        let objs = objects(resource, item.kind, item.namespace, item.object)?;
        let field = item.field.as_deref().map(FieldPath::parse).transpose()?;
        let expect = expectation(
            field.as_ref(),
            Given {
                in_: item.in_,
                not_in: item.not_in,
                equals: item.equals,
                equals_field: item.equals_field,
                exists: item.exists,
                min_validity: item.min_validity,
                max_age: item.max_age,
            },
        )?;
        Ok(ResourceCheck {
            objects: objs,
            field,
            expect,
        })
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
