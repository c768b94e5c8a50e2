//! Checks in words, for `catalog show` and its JSON: what each check reads and what it
//! accepts, one line each. The same data the evaluation runs on, never a second copy.

use std::fmt;

use super::check::{
    AbsentCheck, Absentee, AllCheck, AnnotatedCheck, ApiGroupCheck, CheckKind, ConditionCheck,
    ConfigMapCheck, ConfigMapKeyCheck, Count, CountCheck, Counted, DefaultDenyCheck, Expect,
    NamespaceCheck, NamespaceLabelCheck, NodesCheck, Objects, OneVersionCheck, PodFlagsCheck,
    Predicate, ResourceCheck, StartedAfterCheck, StorageClassCheck, TolerateCheck, VersionFrom,
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
        match (detect, self) {
            (true, CheckKind::Workload(w)) => format!("{} exists", workloads(w)),
            (true, CheckKind::PodFlags(_)) => {
                "kube-apiserver pods (kube-system, component=kube-apiserver) exist".to_string()
            }
            (_, kind) => kind.to_string(),
        }
    }
}

/// A check in words is its kind's `Display` (on the typed check), through the kind table.
impl fmt::Display for CheckKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::match_kind!(self, |c| fmt::Display::fmt(c, f))
    }
}

/// One kind's words: `words!(Type, |c, f| body);`.
macro_rules! words {
    ($check:ty, |$c:ident, $f:ident| $body:expr) => {
        impl fmt::Display for $check {
            fn fmt(&self, $f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let $c = self;
                $body
            }
        }
    };
}

words!(ApiGroupCheck, |g, f| write!(f, "API group {} served", g.0));
words!(NamespaceCheck, |ns, f| write!(
    f,
    "namespace {} exists",
    ns.0
));
words!(StorageClassCheck, |sc, f| {
    let adjective = match sc.default {
        Some(true) => "a default ",
        Some(false) => "a non-default ",
        None => "a ",
    };
    write!(f, "{adjective}StorageClass")?;
    if let Some(p) = &sc.provisioner {
        write!(f, " of provisioner {p}")?;
    }
    Ok(())
});
words!(WorkloadCheck, |w, f| write!(
    f,
    "{}: at least one, each rolled out as `kubectl rollout status` says",
    workloads(w)
));
words!(OneVersionCheck, |o, f| write!(
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
));
words!(ResourceCheck, |r, f| match (&r.field, &r.expect) {
    (Some(field), Some(e)) => write!(
        f,
        "{}, at least one: {}",
        objects(&r.objects),
        expectation(field, e)
    ),
    _ => write!(f, "a {} exists", r.objects.selector()),
});
words!(ConditionCheck, |c, f| write!(
    f,
    "{}, at least one: condition {} True",
    objects(&c.objects),
    c.type_
));
words!(AllCheck, |a, f| {
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
});
words!(CountCheck, |c, f| {
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
});
words!(TolerateCheck, |t, f| {
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
});
words!(ConfigMapCheck, |c, f| write!(
    f,
    "ConfigMap {}/{} (read by name): key {} empty or absent",
    c.namespace, c.name, c.key
));
words!(AnnotatedCheck, |a, f| {
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
});
words!(StartedAfterCheck, |s, f| {
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
});
words!(PodFlagsCheck, |p, f| {
    write!(
        f,
        "every control-plane node's kube-apiserver pod (kube-system, component=kube-apiserver) runs with {}",
        p.flags.join(", ")
    )
});
words!(NodesCheck, |n, f| {
    let (count, word) = match n {
        NodesCheck::Ready(c) => (c, "Ready"),
        NodesCheck::Registered(c) => (c, "registered"),
        NodesCheck::DistinctInternalIps => {
            return write!(f, "no two nodes announce the same InternalIP")
        }
        NodesCheck::WithoutTaint(key) => return write!(f, "no node carries the taint {key}"),
        NodesCheck::Schedulable(s) => return schedulable(f, s),
    };
    match count {
        Count::All => write!(f, "every declared node {word}"),
        Count::AtLeast(n) => write!(f, "at least {n} node(s) {word}"),
    }
});
words!(DefaultDenyCheck, |d, f| {
    write!(
        f,
        "every namespace except {} has a default-deny ingress policy (a NetworkPolicy \
         with an empty podSelector, Ingress among its policyTypes and no ingress rule: \
         `ingress: [{{}}]` allows all; or a CiliumNetworkPolicy with an empty endpointSelector and an ingress \
         section); the others are named",
        exempted(&d.exempt)
    )
});
words!(AbsentCheck, |a, f| {
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
});
words!(NamespaceLabelCheck, |l, f| {
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
});
words!(ConfigMapKeyCheck, |c, f| if c.negated {
    write!(
        f,
        "ConfigMap {} (read by name) does not have {} = {} (a missing ConfigMap or key holds)",
        c.id(),
        c.key,
        c.values.join(" or ")
    )
} else {
    write!(
        f,
        "ConfigMap {} (read by name) has {} = {}",
        c.id(),
        c.key,
        c.values.join(" or ")
    )
});

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
