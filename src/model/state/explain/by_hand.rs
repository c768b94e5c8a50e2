//! The read a person runs by hand to see what each check kind judged: the [`ShowByHand`]
//! trait on its typed check, reached through the kind table (`match_kind!`). The built-in
//! kinds' are here; a new kind's lives in its own module.

use crate::model::catalog::*;
use crate::model::observation::{APISERVER_NAMESPACE, APISERVER_SELECTOR};

use super::ByHand;

/// The read that shows what one kind judged.
pub(crate) trait ShowByHand {
    fn by_hand(&self) -> ByHand;
}

/// The read that shows what `check` judged.
pub fn by_hand(check: &Check) -> ByHand {
    match_kind!(&check.kind, |c| ShowByHand::by_hand(c))
}

/// One kind's read: `by_hand!(Type, |c| body);`.
macro_rules! by_hand {
    ($check:ty, |$c:ident| $body:expr) => {
        impl ShowByHand for $check {
            fn by_hand(&self) -> ByHand {
                let $c = self;
                $body
            }
        }
    };
}

/// A cluster-scoped read, by name or the list.
fn get(resource: &str, name: Option<&str>, jsonpath: String) -> ByHand {
    ByHand::Get {
        resource: resource.to_string(),
        name: name.map(str::to_string),
        namespace: None,
        all_namespaces: false,
        selector: None,
        jsonpath,
    }
}

by_hand!(ApiGroupCheck, |_c| ByHand::ApiVersions);
by_hand!(NamespaceCheck, |ns| get(
    "namespaces",
    Some(&ns.0),
    "{.metadata.name} {.status.phase}".into(),
));
by_hand!(StorageClassCheck, |_c| {
    get(
        "storageclasses",
        None,
        shape(false, "{.provisioner} default={.metadata.annotations.storageclass\\.kubernetes\\.io/is-default-class}"),
    )
});
by_hand!(WorkloadCheck, |w| workloads(w));
// The first selection's workloads with the version each shows (the evidence names
// each one's version).
by_hand!(OneVersionCheck, |o| o
    .each
    .first()
    .map_or(ByHand::ApiVersions, versions));
by_hand!(ResourceCheck, |r| match &r.field {
    Some(f) => objects(&r.objects, &field(f)),
    None => objects(&r.objects, "{.metadata.name}"),
});
by_hand!(ConditionCheck, |c| objects(
    &c.objects,
    &condition(&c.type_)
));
by_hand!(AllCheck, |a| match &a.predicate {
    Predicate::Field(f, _) => objects(&a.objects, &field(f)),
    Predicate::Condition(t) => objects(&a.objects, &condition(t)),
    Predicate::NotFalse(t) => objects(&a.objects, &condition(t)),
    Predicate::NoConditions(ts) => objects(
        &a.objects,
        &ts.iter()
            .map(|t| condition(t))
            .collect::<Vec<_>>()
            .join(" "),
    ),
});
by_hand!(CountCheck, |c| match &c.counted {
    Counted::Objects(o) => objects(o, "{.metadata.name}"),
    Counted::Workloads(w) => workloads(w),
});
by_hand!(TolerateCheck, |t| objects(
    &t.objects,
    &format!("{} {}", field(&t.field), field(&t.details)),
));
by_hand!(PodFlagsCheck, |_c| ByHand::Get {
    resource: "pods".into(),
    name: None,
    namespace: Some(APISERVER_NAMESPACE.into()),
    all_namespaces: false,
    selector: Some(APISERVER_SELECTOR.into()),
    jsonpath: "{range .items[*]}{.spec.nodeName} {.spec.containers[0].command}{\"\\n\"}{end}"
        .into(),
});
by_hand!(NamespaceLabelCheck, |l| get(
    "namespaces",
    None,
    shape(
        false,
        &format!("{{.metadata.labels.{}}}", jsonpath_key(&l.label)),
    ),
));
by_hand!(DefaultDenyCheck, |d| objects(
    &d.policies[0],
    "{.spec.podSelector} {.spec.policyTypes} ingress={.spec.ingress}",
));
by_hand!(EveryCheck, |e| {
    let mut fields: Vec<String> = e.filter.iter().map(|f| field(f.field())).collect();
    let w = &e.wants;
    fields.extend(
        w.conditions
            .iter()
            .chain(&w.not_conditions)
            .chain(w.above.iter().map(|a| &a.type_))
            .map(|t| condition(t)),
    );
    fields.extend(w.non_empty.iter().map(|(p, k)| format!("{{{p}[*].{k}}}")));
    objects(&e.objects, &fields.join(" "))
});
by_hand!(ParentsCheck, |p| objects(
    &p.objects,
    &format!(
        "{{.status.parents[*].parentRef.name}} {}",
        p.conditions
            .iter()
            .map(|t| format!("{t}={{.status.parents[*].conditions[?(@.type==\"{t}\")].status}}"))
            .collect::<Vec<_>>()
            .join(" ")
    ),
));
by_hand!(CsiDriverCheck, |c| objects(
    &c.nodes,
    "{.spec.drivers[*].name}"
));
by_hand!(ApiServicesCheck, |a| objects(
    &a.objects,
    &format!(
        "{{.spec.group}} {{.spec.service.name}} {}",
        condition("Available")
    ),
));
// The second round's read: the namespace's EndpointSlices, by Service, ready or not.
by_hand!(WebhooksCheck, |w| ByHand::Get {
    resource: "endpointslices.discovery.k8s.io".into(),
    name: None,
    namespace: Some(w.namespace.clone()),
    all_namespaces: false,
    selector: None,
    jsonpath: shape(
        false,
        "{.metadata.labels.kubernetes\\.io/service-name} {.endpoints[*].conditions.ready}",
    ),
});
// The claims (nestor reads the checked namespaces' only); the volumes' phases are
// `kubectl get persistentvolumes`.
by_hand!(ClaimsCheck, |_c| {
    ByHand::Get {
        resource: "persistentvolumeclaims".to_string(),
        name: None,
        namespace: None,
        all_namespaces: true,
        selector: None,
        jsonpath: "{range .items[*]}{.metadata.namespace}/{.metadata.name} {.spec.storageClassName} {.status.phase} {.metadata.creationTimestamp}{\"\\n\"}{end}".to_string(),
    }
});
by_hand!(ConfigMapCheck, |c| config_map(
    &c.namespace,
    &c.name,
    Some(&c.key)
));
by_hand!(ConfigMapKeyCheck, |c| config_map(
    &c.namespace,
    &c.name,
    Some(&c.key)
));
by_hand!(AbsentCheck, |a| match &a.what {
    Absentee::Workload(w) => workloads(w),
    Absentee::ConfigMap { namespace, name } => config_map(namespace, name, None),
});
by_hand!(AnnotatedCheck, |a| {
    let keys: Vec<String> = a
        .keys
        .iter()
        .map(|k| format!("{{.metadata.annotations.{}}}", jsonpath_key(k)))
        .collect();
    objects(&a.objects, &keys.join(" "))
});
// The pods' start times (the evidence names them); the ConfigMap's time is in the
// evidence line itself.
by_hand!(StartedAfterCheck, |s| {
    ByHand::Get {
        resource: "pods".into(),
        name: None,
        namespace: Some(s.pods.namespace.clone()),
        all_namespaces: false,
        selector: Some(s.pods.selector.clone()),
        jsonpath: format!(
            "{{range .items[*]}}{{.metadata.name}} {{.spec.nodeName}} {{.status.containerStatuses[?(@.name==\"{}\")].state.running.startedAt}}{{\"\\n\"}}{{end}}",
            s.pods.container
        ),
    }
});
// Where the selector's pods run, with the daemon label the evidence names.
by_hand!(DistinctNodesCheck, |d| {
    ByHand::Get {
        resource: "pods".into(),
        name: None,
        namespace: Some(d.namespace.clone()),
        all_namespaces: false,
        selector: Some(d.selector.clone()),
        jsonpath: format!(
            "{{range .items[*]}}{{.metadata.name}} {{.spec.nodeName}} {{.status.phase}}{}{{\"\\n\"}}{{end}}",
            d.daemon_label
                .as_deref()
                .map(|l| format!(" {{.metadata.labels.{}}}", jsonpath_key(l)))
                .unwrap_or_default()
        ),
    }
});
by_hand!(NodesCheck, |n| match n {
    NodesCheck::DistinctInternalIps => get(
        "nodes",
        None,
        shape(
            false,
            "{.status.addresses[?(@.type==\"InternalIP\")].address}"
        ),
    ),
    NodesCheck::Schedulable(_) => {
        // Ready first: only Ready nodes are judged.
        let conditions = std::iter::once(&"Ready")
            .chain(&crate::model::observation::TROUBLE_CONDITIONS)
            .map(|c| condition(c))
            .collect::<Vec<_>>()
            .join(" ");
        get(
            "nodes",
            None,
            shape(
                false,
                &format!(
                    "{conditions} unschedulable={{.spec.unschedulable}} taints={{range .spec.taints[*]}}{{.key}}:{{.effect}} {{end}}"
                ),
            ),
        )
    }
    NodesCheck::WithoutTaint(_) => get("nodes", None, shape(false, "{.spec.taints[*].key}")),
    NodesCheck::Ready(_) | NodesCheck::Registered(_) => {
        get("nodes", None, shape(false, &condition("Ready")))
    }
});

fn plural(kind: WorkloadKind) -> &'static str {
    match kind {
        WorkloadKind::DaemonSet => "daemonsets",
        WorkloadKind::Deployment => "deployments",
        WorkloadKind::StatefulSet => "statefulsets",
    }
}

/// The rollout fields of a workload kind, as `kubectl rollout status` reads them.
fn rollout(kind: Option<WorkloadKind>) -> &'static str {
    match kind {
        Some(WorkloadKind::Deployment) => {
            "updated {.status.updatedReplicas} available {.status.availableReplicas}/{.spec.replicas}"
        }
        Some(WorkloadKind::StatefulSet) => {
            "updated {.status.updatedReplicas} ready {.status.readyReplicas}/{.spec.replicas}"
        }
        Some(WorkloadKind::DaemonSet) => {
            "updated {.status.updatedNumberScheduled} available {.status.numberAvailable}/{.status.desiredNumberScheduled}"
        }
        None => "{.kind}",
    }
}

/// `{X}` for one object by name, `{range .items[*]}{.metadata.name} X{"\n"}{end}` for a list.
fn shape(by_name: bool, fields: &str) -> String {
    if by_name {
        fields.to_string()
    } else {
        format!("{{range .items[*]}}{{.metadata.name}} {fields}{{\"\\n\"}}{{end}}")
    }
}

fn workloads(w: &WorkloadCheck) -> ByHand {
    let resource = w
        .kinds()
        .into_iter()
        .map(plural)
        .collect::<Vec<_>>()
        .join(",");
    let by_name = w.name.is_some() && w.kind.is_some();
    ByHand::Get {
        resource,
        name: w.name.clone().filter(|_| by_name),
        namespace: Some(w.namespace.clone()),
        all_namespaces: false,
        selector: None,
        jsonpath: shape(by_name, rollout(w.kind)),
    }
}

/// A `oneVersion:` selection's workloads and where their version is: the named container's
/// image, or the version label.
fn versions(v: &crate::model::catalog::Versioned) -> ByHand {
    let what = match &v.from {
        crate::model::catalog::VersionFrom::Container(c) => {
            format!("{{.spec.template.spec.containers[?(@.name==\"{c}\")].image}}")
        }
        crate::model::catalog::VersionFrom::Label(l) => {
            format!("{{.metadata.labels.{}}}", jsonpath_key(l))
        }
    };
    let w = &v.workload;
    let by_name = w.name.is_some() && w.kind.is_some();
    ByHand::Get {
        resource: w
            .kinds()
            .into_iter()
            .map(plural)
            .collect::<Vec<_>>()
            .join(","),
        name: w.name.clone().filter(|_| by_name),
        namespace: Some(w.namespace.clone()),
        all_namespaces: false,
        selector: None,
        jsonpath: shape(by_name, &what),
    }
}

fn objects(o: &Objects, fields: &str) -> ByHand {
    let by_name = o.name.is_some();
    ByHand::Get {
        resource: o.resource.clone(),
        name: o.name.clone(),
        namespace: o.namespace.clone(),
        all_namespaces: o.namespace.is_none() && o.name.is_none(),
        selector: None,
        jsonpath: shape(by_name, fields),
    }
}

fn condition(type_: &str) -> String {
    format!("{type_}={{.status.conditions[?(@.type==\"{type_}\")].status}}")
}

fn field(path: &impl std::fmt::Display) -> String {
    format!("{{{path}}}")
}

/// A label or data key in a JSONPath: its dots escaped.
fn jsonpath_key(key: &str) -> String {
    key.replace('.', "\\.")
}

/// One ConfigMap by name (the allowlist's one form), showing `key` or only its name.
fn config_map(namespace: &str, name: &str, key: Option<&str>) -> ByHand {
    ByHand::Get {
        resource: "configmap".into(),
        name: Some(name.to_string()),
        namespace: Some(namespace.to_string()),
        all_namespaces: false,
        selector: None,
        jsonpath: match key {
            Some(k) => format!("{{.data.{}}}", jsonpath_key(k)),
            None => "{.metadata.name}".to_string(),
        },
    }
}
