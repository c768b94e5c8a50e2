//! `--explain` (SPEC §16): for each evidence line, the read a person runs by hand to see the
//! same thing — the object by name (or the list the check walks) and the fields the check
//! judged, as a JSONPath. Pure: a description of the read; `read::explain` turns it into a
//! kubectl command line and checks it against the allowlist.

use crate::model::catalog::{
    Absentee, Check, CheckKind, Counted, Layer, NodesCheck, Objects, Predicate, WorkloadCheck,
    WorkloadKind,
};
use crate::model::observation::{Observation, APISERVER_NAMESPACE, APISERVER_SELECTOR};
use crate::model::state::{evaluate_check, DeclaredNode, Phase};

/// A read-only kubectl read, without the target (`--kubeconfig`, `--context`), which the
/// read layer adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ByHand {
    /// `kubectl api-versions`: the served groups.
    ApiVersions,
    /// `kubectl get RESOURCE [NAME] (-n NS | -A) [-l SELECTOR] -o jsonpath=...`.
    Get {
        resource: String,
        name: Option<String>,
        /// `None` for a cluster-scoped read; `Some("")` never: all namespaces is `all`.
        namespace: Option<String>,
        all_namespaces: bool,
        selector: Option<String>,
        jsonpath: String,
    },
}

/// One evidence line and the read that shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explained {
    pub evidence: String,
    pub by_hand: ByHand,
}

/// Each check of a layer (detect, then health) with its evidence line, as `evaluate_layer`
/// words it, and the read behind it. Host-level and unobservable layers have none here.
pub fn layer(layer: &Layer, declared_nodes: &[DeclaredNode], obs: &Observation) -> Vec<Explained> {
    if layer.host.is_some() || !layer.observable {
        return vec![];
    }
    let phased = layer
        .detect
        .iter()
        .map(|c| (c, Phase::Detect))
        .chain(layer.healthy.iter().map(|c| (c, Phase::Healthy)));
    let mut out: Vec<Explained> = vec![];
    for (check, phase) in phased {
        let evidence = evaluate_check(check, phase, declared_nodes, obs).evidence;
        if out.iter().any(|e| e.evidence == evidence) {
            continue;
        }
        out.push(Explained {
            evidence,
            by_hand: by_hand(check),
        });
    }
    out
}

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

/// The read that shows what `check` judged.
pub fn by_hand(check: &Check) -> ByHand {
    let get = |resource: &str, name: Option<&str>, jsonpath: String| ByHand::Get {
        resource: resource.to_string(),
        name: name.map(str::to_string),
        namespace: None,
        all_namespaces: false,
        selector: None,
        jsonpath,
    };
    match &check.kind {
        CheckKind::ApiGroup(_) => ByHand::ApiVersions,
        CheckKind::Namespace(ns) => get(
            "namespaces",
            Some(ns),
            "{.metadata.name} {.status.phase}".into(),
        ),
        CheckKind::StorageClass { .. } => get(
            "storageclasses",
            None,
            shape(false, "{.provisioner} default={.metadata.annotations.storageclass\\.kubernetes\\.io/is-default-class}"),
        ),
        CheckKind::Workload(w) => workloads(w),
        // The first selection's workloads with the version each shows (the evidence names
        // each one's version).
        CheckKind::OneVersion(o) => o.each.first().map_or(ByHand::ApiVersions, versions),
        CheckKind::Resource(r) => match &r.field {
            Some(f) => objects(&r.objects, &field(f)),
            None => objects(&r.objects, "{.metadata.name}"),
        },
        CheckKind::Condition(c) => objects(&c.objects, &condition(&c.type_)),
        CheckKind::All(a) => match &a.predicate {
            Predicate::Field(f, _) => objects(&a.objects, &field(f)),
            Predicate::Condition(t) => objects(&a.objects, &condition(t)),
            Predicate::NotFalse(t) => objects(&a.objects, &condition(t)),
            Predicate::NoConditions(ts) => objects(
                &a.objects,
                &ts.iter().map(|t| condition(t)).collect::<Vec<_>>().join(" "),
            ),
        },
        CheckKind::Count(c) => match &c.counted {
            Counted::Objects(o) => objects(o, "{.metadata.name}"),
            Counted::Workloads(w) => workloads(w),
        },
        CheckKind::Tolerate(t) => objects(
            &t.objects,
            &format!("{} {}", field(&t.field), field(&t.details)),
        ),
        CheckKind::PodFlags(_) => ByHand::Get {
            resource: "pods".into(),
            name: None,
            namespace: Some(APISERVER_NAMESPACE.into()),
            all_namespaces: false,
            selector: Some(APISERVER_SELECTOR.into()),
            jsonpath: "{range .items[*]}{.spec.nodeName} {.spec.containers[0].command}{\"\\n\"}{end}"
                .into(),
        },
        CheckKind::Nodes(NodesCheck::DistinctInternalIps) => get(
            "nodes",
            None,
            shape(
                false,
                "{.status.addresses[?(@.type==\"InternalIP\")].address}",
            ),
        ),
        CheckKind::Nodes(NodesCheck::Schedulable(_)) => get(
            "nodes",
            None,
            shape(
                false,
                &format!(
                    "{} unschedulable={{.spec.unschedulable}} taints={{range .spec.taints[*]}}{{.key}}:{{.effect}} {{end}}",
                    // Ready first: only Ready nodes are judged.
                    std::iter::once(&"Ready")
                        .chain(&crate::model::observation::TROUBLE_CONDITIONS)
                        .map(|c| condition(c))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            ),
        ),
        CheckKind::Nodes(NodesCheck::WithoutTaint(_)) => {
            get("nodes", None, shape(false, "{.spec.taints[*].key}"))
        }
        CheckKind::Nodes(NodesCheck::Ready(_) | NodesCheck::Registered(_)) => {
            get("nodes", None, shape(false, &condition("Ready")))
        }
        CheckKind::NamespaceLabel(l) => get(
            "namespaces",
            None,
            shape(
                false,
                &format!("{{.metadata.labels.{}}}", jsonpath_key(&l.label)),
            ),
        ),
        CheckKind::DefaultDenyIngress(d) => objects(
            &d.policies[0],
            "{.spec.podSelector} {.spec.policyTypes} ingress={.spec.ingress}",
        ),
        CheckKind::Every(e) => {
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
        }
        CheckKind::Parents(p) => objects(
            &p.objects,
            &format!(
                "{{.status.parents[*].parentRef.name}} {}",
                p.conditions
                    .iter()
                    .map(|t| format!(
                        "{t}={{.status.parents[*].conditions[?(@.type==\"{t}\")].status}}"
                    ))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        ),
        CheckKind::CsiDriver(c) => objects(&c.nodes, "{.spec.drivers[*].name}"),
        CheckKind::ApiServices(a) => objects(
            &a.objects,
            &format!("{{.spec.group}} {{.spec.service.name}} {}", condition("Available")),
        ),
        // The second round's read: the namespace's EndpointSlices, by Service, ready or not.
        CheckKind::Webhooks(w) => ByHand::Get {
            resource: "endpointslices.discovery.k8s.io".into(),
            name: None,
            namespace: Some(w.namespace.clone()),
            all_namespaces: false,
            selector: None,
            jsonpath: shape(
                false,
                "{.metadata.labels.kubernetes\\.io/service-name} {.endpoints[*].conditions.ready}",
            ),
        },
        // The claims (nestor reads the checked namespaces' only); the volumes' phases are
        // `kubectl get persistentvolumes`.
        CheckKind::Claims(_) => ByHand::Get {
            resource: "persistentvolumeclaims".to_string(),
            name: None,
            namespace: None,
            all_namespaces: true,
            selector: None,
            jsonpath: "{range .items[*]}{.metadata.namespace}/{.metadata.name} {.spec.storageClassName} {.status.phase} {.metadata.creationTimestamp}{\"\\n\"}{end}".to_string(),
        },
        CheckKind::ConfigMap(c) => config_map(&c.namespace, &c.name, Some(&c.key)),
        CheckKind::ConfigMapKey(c) => config_map(&c.namespace, &c.name, Some(&c.key)),
        CheckKind::Absent(a) => match &a.what {
            Absentee::Workload(w) => workloads(w),
            Absentee::ConfigMap { namespace, name } => config_map(namespace, name, None),
        },
        CheckKind::Annotated(a) => {
            let keys: Vec<String> = a
                .keys
                .iter()
                .map(|k| format!("{{.metadata.annotations.{}}}", jsonpath_key(k)))
                .collect();
            objects(&a.objects, &keys.join(" "))
        }
        // The pods' start times (the evidence names them); the ConfigMap's time is in the
        // evidence line itself.
        CheckKind::StartedAfter(s) => ByHand::Get {
            resource: "pods".into(),
            name: None,
            namespace: Some(s.pods.namespace.clone()),
            all_namespaces: false,
            selector: Some(s.pods.selector.clone()),
            jsonpath: format!(
                "{{range .items[*]}}{{.metadata.name}} {{.spec.nodeName}} {{.status.containerStatuses[?(@.name==\"{}\")].state.running.startedAt}}{{\"\\n\"}}{{end}}",
                s.pods.container
            ),
        },
        // Where the selector's pods run, with the daemon label the evidence names.
        CheckKind::DistinctNodes(d) => ByHand::Get {
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
        },
    }
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
