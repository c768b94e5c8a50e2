//! Checks in words, for `catalog show` and its JSON: what each check reads and what it
//! accepts, one line each. The same data the evaluation runs on, never a second copy.

use std::fmt;

use super::check::{
    Absentee, CheckKind, Count, Counted, Expect, NodesCheck, Objects, Predicate, VersionFrom,
    Wanted, WorkloadCheck,
};

fn expectation(field: &impl fmt::Display, e: &Expect) -> String {
    match e {
        Expect::In(v) if v.len() == 1 => format!("{field} = {}", v[0]),
        Expect::In(v) => format!("{field} in [{}]", v.join(", ")),
        Expect::NotIn(v) => format!("{field} not in [{}]", v.join(", ")),
        Expect::Equals(x) => format!("{field} = {x}"),
        Expect::EqualsField(o) => format!("{field} = {o}"),
        Expect::Exists => format!("{field} is set"),
        Expect::MinValidity(secs) => format!(
            "{field} more than {} away",
            crate::duration::rough(*secs as i64)
        ),
        Expect::MaxAge(secs) => format!(
            "{field} at most {} ago",
            crate::duration::rough(*secs as i64)
        ),
    }
}

fn workloads(w: &WorkloadCheck) -> String {
    let sel = w.selector();
    match sel.strip_prefix("workload ") {
        Some(rest) => format!("DaemonSet, Deployment or StatefulSet {rest}"),
        None => sel,
    }
}

fn objects(o: &Objects) -> String {
    let s = o.selector();
    if o.name.is_some() {
        s
    } else {
        format!("every {s}")
    }
}

impl CheckKind {
    /// The check in words as a detect check: workloads and kube-apiserver pods only need to
    /// exist there; every other kind reads the same in both lists.
    pub fn describe(&self, detect: bool) -> String {
        match self {
            CheckKind::Workload(w) if detect => format!("{} exists", workloads(w)),
            CheckKind::PodFlags(_) if detect => {
                "kube-apiserver pods (kube-system, component=kube-apiserver) exist".to_string()
            }
            other @ (CheckKind::ApiGroup(_)
            | CheckKind::Namespace(_)
            | CheckKind::StorageClass { .. }
            | CheckKind::Workload(_)
            | CheckKind::Resource(_)
            | CheckKind::Condition(_)
            | CheckKind::All(_)
            | CheckKind::Count(_)
            | CheckKind::Tolerate(_)
            | CheckKind::PodFlags(_)
            | CheckKind::Nodes(_)
            | CheckKind::ConfigMap(_)
            | CheckKind::NamespaceLabel(_)
            | CheckKind::DefaultDenyIngress(_)
            | CheckKind::ConfigMapKey(_)
            | CheckKind::Absent(_)
            | CheckKind::Annotated(_)
            | CheckKind::StartedAfter(_)
            | CheckKind::Every(_)
            | CheckKind::Parents(_)
            | CheckKind::CsiDriver(_)
            | CheckKind::OneVersion(_)
            | CheckKind::ApiServices(_)
            | CheckKind::Webhooks(_)
            | CheckKind::Claims(_)
            | CheckKind::DistinctNodes(_)) => other.to_string(),
        }
    }
}

impl fmt::Display for CheckKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckKind::ApiGroup(g) => write!(f, "API group {g} served"),
            CheckKind::Namespace(ns) => write!(f, "namespace {ns} exists"),
            CheckKind::StorageClass {
                provisioner,
                default,
            } => {
                let adjective = match default {
                    Some(true) => "a default ",
                    Some(false) => "a non-default ",
                    None => "a ",
                };
                write!(f, "{adjective}StorageClass")?;
                if let Some(p) = provisioner {
                    write!(f, " of provisioner {p}")?;
                }
                Ok(())
            }
            CheckKind::Workload(w) => write!(
                f,
                "{}: at least one, each rolled out as `kubectl rollout status` says",
                workloads(w)
            ),
            CheckKind::OneVersion(o) => write!(
                f,
                "one version across {} (else: upgrade half done)",
                o.each
                    .iter()
                    .map(|v| match &v.from {
                        VersionFrom::Container(c) => {
                            format!("{} (container {c}'s image tag)", workloads(&v.workload))
                        }
                        VersionFrom::Label(l) => {
                            format!("{} (label {l})", workloads(&v.workload))
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            CheckKind::Resource(r) => match (&r.field, &r.expect) {
                (Some(field), Some(e)) => write!(
                    f,
                    "{}, at least one: {}",
                    objects(&r.objects),
                    expectation(field, e)
                ),
                _ => write!(f, "a {} exists", r.objects.selector()),
            },
            CheckKind::Condition(c) => write!(
                f,
                "{}, at least one: condition {} True",
                objects(&c.objects),
                c.type_
            ),
            CheckKind::All(a) => {
                let what = match &a.predicate {
                    Predicate::Field(field, e) => expectation(field, e),
                    Predicate::Condition(t) => format!("condition {t} True"),
                    Predicate::NoConditions(ts) => {
                        format!("none of the conditions {} present", ts.join(", "))
                    }
                    Predicate::NotFalse(t) => format!("condition {t} not False"),
                };
                let what = match &a.with_field {
                    Some(w) => format!("those with {w} set: {what}"),
                    None => what,
                };
                let what = match &a.quote {
                    Some(q) => format!("{what} (a failure quotes {q})"),
                    None => what,
                };
                write!(
                    f,
                    "{} (none is fine): {what}; the ones that fail are named",
                    objects(&a.objects)
                )
            }
            CheckKind::Count(c) => {
                let counted = match &c.counted {
                    Counted::Objects(o) => o.selector(),
                    Counted::Workloads(w) => w.selector(),
                };
                match &c.wanted {
                    Wanted::AtLeast(n) => write!(f, "at least {n} {counted}"),
                    Wanted::AtLeastField {
                        objects,
                        field,
                        default,
                    } => {
                        write!(
                            f,
                            "at least as many {counted} as {} {field} says",
                            objects.selector()
                        )?;
                        match default {
                            Some(d) => write!(f, " (the operator's default {d} when it is absent)"),
                            None => Ok(()),
                        }
                    }
                }
            }
            CheckKind::Tolerate(t) => {
                write!(
                    f,
                    "{}: {} = {}, or {} whose every check in {} is benign ({})",
                    objects(&t.objects),
                    t.field,
                    t.ok.join(" or "),
                    t.warn,
                    t.details,
                    if t.benign.is_empty() {
                        "none".to_string()
                    } else {
                        t.benign.join(", ")
                    }
                )?;
                match &t.last_checked {
                    Some(p) => write!(
                        f,
                        "; not trusted when {p} is older than {}",
                        crate::duration::rough(t.max_status_age as i64)
                    ),
                    None => Ok(()),
                }
            }
            CheckKind::Every(e) => write!(f, "{e}"),
            CheckKind::Parents(p) => write!(f, "{p}"),
            CheckKind::CsiDriver(c) => write!(f, "{c}"),
            CheckKind::ApiServices(a) => write!(f, "{a}"),
            CheckKind::Webhooks(w) => write!(f, "{w}"),
            CheckKind::Claims(c) => write!(f, "{c}"),
            CheckKind::DistinctNodes(d) => write!(f, "{d}"),
            CheckKind::ConfigMap(c) => write!(
                f,
                "ConfigMap {}/{} (read by name): key {} empty or absent",
                c.namespace, c.name, c.key
            ),
            CheckKind::Annotated(a) => {
                write!(
                    f,
                    "every {} carries the annotation {}",
                    a.objects.kind_label(),
                    a.keys.first().map(String::as_str).unwrap_or_default()
                )?;
                if a.keys.len() > 1 {
                    write!(f, " (or its older spelling {})", a.keys[1..].join(", "))?;
                }
                if a.distinct {
                    write!(f, ", no two with the same value")?;
                }
                if a.per_node {
                    write!(f, "; one per registered node, by its name")?;
                }
                write!(f, "; the ones that fail are named")
            }
            CheckKind::StartedAfter(s) => {
                write!(
                    f,
                    "every running {} container of the pods of {} with {} started after {} last changed (its newest metadata.managedFields[].time)",
                    s.pods.container,
                    s.pods.namespace,
                    s.pods.selector,
                    s.config_label()
                )?;
                match &s.says {
                    Some(says) => write!(f, "; else: {says}"),
                    None => Ok(()),
                }
            }
            CheckKind::PodFlags(p) => write!(
                f,
                "every control-plane node's kube-apiserver pod (kube-system, component=kube-apiserver) runs with {}",
                p.flags.join(", ")
            ),
            CheckKind::Nodes(n) => {
                let (count, word) = match n {
                    NodesCheck::Ready(c) => (c, "Ready"),
                    NodesCheck::Registered(c) => (c, "registered"),
                    NodesCheck::DistinctInternalIps => {
                        return write!(f, "no two nodes announce the same InternalIP")
                    }
                    NodesCheck::WithoutTaint(key) => {
                        return write!(f, "no node carries the taint {key}")
                    }
                    NodesCheck::Schedulable(s) => return schedulable(f, s),
                };
                match count {
                    Count::All => write!(f, "every declared node {word}"),
                    Count::AtLeast(n) => write!(f, "at least {n} node(s) {word}"),
                }
            }
            CheckKind::ConfigMapKey(c) if c.negated => write!(
                f,
                "ConfigMap {} (read by name) does not have {} = {} (a missing ConfigMap or key holds)",
                c.id(),
                c.key,
                c.values.join(" or ")
            ),
            CheckKind::ConfigMapKey(c) => write!(
                f,
                "ConfigMap {} (read by name) has {} = {}",
                c.id(),
                c.key,
                c.values.join(" or ")
            ),
            CheckKind::DefaultDenyIngress(d) => write!(
                f,
                "every namespace except {} has a default-deny ingress policy (a NetworkPolicy \
                 with an empty podSelector, Ingress among its policyTypes and no ingress rule: \
                 `ingress: [{{}}]` allows all; or a CiliumNetworkPolicy with an empty endpointSelector and an ingress \
                 section); the others are named",
                exempted(&d.exempt)
            ),
            CheckKind::Absent(a) => {
                match &a.what {
                    Absentee::Workload(w) => write!(f, "no {}", workloads(w))?,
                    Absentee::ConfigMap { namespace, name } => {
                        write!(f, "no ConfigMap {namespace}/{name} (read by name)")?
                    }
                }
                match &a.says {
                    Some(s) => write!(f, ": {s}"),
                    None => Ok(()),
                }
            }
            CheckKind::NamespaceLabel(l) => {
                let value = if l.values.is_empty() {
                    String::new()
                } else {
                    format!(" = {}", l.values.join(" or "))
                };
                if l.some {
                    write!(f, "some namespace labelled {}{value}", l.label)
                } else {
                    write!(
                        f,
                        "every namespace except {} labelled {}{value}; the others are named",
                        exempted(&l.exempt),
                        l.label
                    )
                }
            }
        }
    }
}

/// The exemptions of a namespace-wide check: the built-in ones, then the catalog's.
fn exempted(added: &[String]) -> String {
    let mut all: Vec<&str> = super::check::BUILTIN_EXEMPT.to_vec();
    all.extend(
        added
            .iter()
            .map(String::as_str)
            .filter(|n| !super::check::BUILTIN_EXEMPT.contains(n)),
    );
    all.join(", ")
}

/// `nodes: {schedulable: true}` in words: what a Ready node must not show, the taints it may
/// carry, and the ones another check judges.
fn schedulable(f: &mut fmt::Formatter<'_>, s: &super::SchedulableCheck) -> fmt::Result {
    write!(
        f,
        "every Ready node schedulable: no {} condition True, not cordoned (spec.unschedulable), no NoSchedule/NoExecute taint but {}:{} on control-plane nodes",
        crate::model::observation::TROUBLE_CONDITIONS.join("/"),
        super::CONTROL_PLANE_KEY,
        super::CONTROL_PLANE_EFFECT,
    )?;
    for t in &s.expected {
        write!(f, ", {t}")?;
    }
    if !s.judged_elsewhere.is_empty() {
        let keys: Vec<&str> = s.judged_elsewhere.iter().map(String::as_str).collect();
        write!(
            f,
            " (not counted here, another check judges it: {})",
            keys.join(", ")
        )?;
    }
    Ok(())
}
