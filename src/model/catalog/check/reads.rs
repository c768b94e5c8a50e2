//! What each check reads, from ONE exhaustive `match` (issue 30 item 2: one `reads()` per
//! kind): the typed built-in requests, the custom resource types with the fields it uses,
//! the named ConfigMaps with their keys, the workload selections, and the scope it adds.
//! The read plan (`catalog/read_plan.rs`) gathers them per layer without naming a kind.

use super::*;
use crate::model::observation::{ReadRequest, WebhookKind};

/// Everything one check reads. Borrowed from the check; the read plan merges them.
#[derive(Debug, Default)]
pub struct CheckReads<'a> {
    /// Typed built-in reads (nodes, namespaces, classes, ...).
    pub requests: Vec<ReadRequest>,
    /// Custom resource types, with the fields read on each.
    pub objects: Vec<(&'a Objects, Vec<FieldUse>)>,
    /// Named ConfigMaps `(namespace, name, data key)`: one request per ConfigMap, all keys.
    pub config_maps: Vec<(&'a str, &'a str, Option<&'a str>)>,
    /// Workload selections.
    pub workloads: Vec<&'a WorkloadCheck>,
    /// Namespace labels kept of the namespaces list.
    pub namespace_labels: Vec<&'a str>,
    /// The namespace whose EndpointSlices a webhook check reads (second round).
    pub webhook_namespace: Option<&'a str>,
    /// Reads the claims of every checked namespace (once all layers' are known).
    pub claims: bool,
    /// Pods by a selector `(namespace, selector, daemon label kept)`.
    pub placement: Option<(&'a str, &'a str, Option<&'a str>)>,
}

impl CheckKind {
    /// The reads of this check, decided for every kind here and nowhere else.
    pub fn reads(&self) -> CheckReads<'_> {
        let fields = |f: &FieldPath| FieldUse::Value(f.clone());
        let mut r = CheckReads::default();
        match self {
            CheckKind::ApiGroup(_) => r.requests.push(ReadRequest::ApiGroups),
            CheckKind::Namespace(_) => r.requests.push(ReadRequest::Namespaces),
            CheckKind::StorageClass { .. } => r.requests.push(ReadRequest::StorageClasses),
            CheckKind::Nodes(_) => r.requests.push(ReadRequest::Nodes),
            CheckKind::NamespaceLabel(l) => {
                r.requests.push(ReadRequest::Namespaces);
                r.namespace_labels.push(&l.label);
            }
            CheckKind::Workload(w) => r.workloads.push(w),
            CheckKind::ConfigMap(c) => {
                r.config_maps
                    .push((&c.namespace, &c.name, Some(c.key.as_str())))
            }
            CheckKind::ConfigMapKey(c) => {
                r.config_maps
                    .push((&c.namespace, &c.name, Some(c.key.as_str())))
            }
            CheckKind::Absent(a) => match &a.what {
                Absentee::ConfigMap { namespace, name } => {
                    r.config_maps.push((namespace, name, None))
                }
                Absentee::Workload(w) => r.workloads.push(w),
            },
            // Which nodes are control planes decides whose kube-apiserver must run.
            CheckKind::PodFlags(_) => {
                r.requests.push(ReadRequest::Nodes);
                r.requests.push(ReadRequest::ApiServerPods);
            }
            // Its CiliumNode-like objects; the nodes for `perNode`.
            CheckKind::Annotated(a) => {
                if a.per_node {
                    r.requests.push(ReadRequest::Nodes);
                }
                r.objects.push((&a.objects, a.field_uses()));
            }
            // The pods' start times, and its ConfigMap for its last write (reserved key).
            CheckKind::StartedAfter(s) => {
                let [starts, _] = s.read_requests();
                r.requests.push(starts);
                r.config_maps
                    .push((&s.config_namespace, &s.config_name, Some(LAST_CHANGE)));
            }
            // The namespaces to cover, and the policies as custom objects.
            CheckKind::DefaultDenyIngress(d) => {
                r.requests.push(ReadRequest::Namespaces);
                r.objects.extend(
                    d.policies
                        .iter()
                        .map(|o| (o, DefaultDenyCheck::uses(&o.resource))),
                );
            }
            // The default StorageClass names the driver; every node must list it.
            CheckKind::CsiDriver(c) => {
                r.requests.push(ReadRequest::StorageClasses);
                r.requests.push(ReadRequest::Nodes);
                r.objects.extend(c.uses());
            }
            // Both configuration lists; the Services' EndpointSlices in the second round,
            // in this namespace only.
            CheckKind::Webhooks(w) => {
                r.requests
                    .extend(WebhookKind::ALL.map(ReadRequest::WebhookConfigurations));
                r.webhook_namespace = Some(&w.namespace);
            }
            // The classes (whose provisioner), every volume; the checked namespaces' claims.
            CheckKind::Claims(_) => {
                r.requests.push(ReadRequest::StorageClasses);
                r.requests.push(ReadRequest::PersistentVolumes);
                r.claims = true;
            }
            // The nodes (how many there are), and the pods by the selector.
            CheckKind::DistinctNodes(d) => {
                r.requests.push(ReadRequest::Nodes);
                r.placement = Some((&d.namespace, &d.selector, d.daemon_label.as_deref()));
            }
            CheckKind::OneVersion(o) => r.workloads.extend(o.each.iter().map(|v| &v.workload)),
            CheckKind::ApiServices(a) => r.objects.extend(a.uses()),
            CheckKind::Resource(c) => {
                let mut used: Vec<FieldUse> = c.field.iter().map(fields).collect();
                if let Some(Expect::EqualsField(other)) = &c.expect {
                    used.push(fields(other));
                }
                r.objects.push((&c.objects, used));
            }
            CheckKind::Condition(c) => r.objects.push((&c.objects, vec![FieldUse::Conditions])),
            CheckKind::All(a) => {
                let used = match &a.predicate {
                    Predicate::Field(f, Expect::EqualsField(o)) => vec![fields(f), fields(o)],
                    Predicate::Field(f, _) => vec![fields(f)],
                    Predicate::Condition(_)
                    | Predicate::NoConditions(_)
                    | Predicate::NotFalse(_) => vec![FieldUse::Conditions],
                };
                // The field a failure quotes and the one `withField:` selects by, kept too.
                let also = a.quote.iter().chain(&a.with_field).map(fields);
                r.objects
                    .push((&a.objects, used.into_iter().chain(also).collect()));
            }
            CheckKind::Count(c) => {
                match &c.counted {
                    Counted::Objects(o) => r.objects.push((o, vec![])),
                    Counted::Workloads(w) => r.workloads.push(w),
                }
                if let Wanted::AtLeastField { objects, field, .. } = &c.wanted {
                    r.objects.push((objects, vec![fields(field)]));
                }
            }
            CheckKind::Tolerate(t) => {
                let mut used = vec![fields(&t.field), FieldUse::Details(t.details.clone())];
                used.extend(t.last_checked.iter().map(fields));
                r.objects.push((&t.objects, used));
            }
            CheckKind::Every(e) => r.objects.extend(e.uses()),
            CheckKind::Parents(p) => r
                .objects
                .push((&p.objects, vec![FieldUse::Parents(p.controller.clone())])),
        }
        r
    }

    /// The custom resource types this check reads, with the fields it reads on each.
    pub fn object_reads(&self) -> Vec<(&Objects, Vec<FieldUse>)> {
        self.reads().objects
    }
}
