//! What each check reads (issue 30 item 2: one `reads()` per kind, the [`Reads`] trait on
//! its typed check): the typed built-in requests, the custom resource types with the fields it uses,
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

/// What one kind reads: implemented on each kind's typed check, gathered by
/// [`CheckKind::reads`] through the kind table.
pub trait Reads {
    /// Adds this check's reads to `r`.
    fn reads<'a>(&'a self, r: &mut CheckReads<'a>);
}

impl CheckKind {
    /// The reads of this check, as its kind's [`Reads`] says.
    pub fn reads(&self) -> CheckReads<'_> {
        let mut r = CheckReads::default();
        match_kind!(self, |c| Reads::reads(c, &mut r));
        // Objects whose Warning Events may explain them (a `kind:`) keep their uid: an Event
        // is about the object it names by uid, not about a deleted one of the same name.
        for (objects, uses) in &mut r.objects {
            if objects.kind.is_some() {
                uses.push(FieldUse::Value(FieldPath::uid()));
            }
        }
        r
    }

    /// The custom resource types this check reads, with the fields it reads on each.
    pub fn object_reads(&self) -> Vec<(&Objects, Vec<FieldUse>)> {
        self.reads().objects
    }
}

fn fields(f: &FieldPath) -> FieldUse {
    FieldUse::Value(f.clone())
}

/// One kind's reads in one line: `reads!(Type, |c, r| body);`.
macro_rules! reads {
    ($check:ty, |$c:ident, $r:ident| $body:expr) => {
        impl Reads for $check {
            fn reads<'a>(&'a self, $r: &mut CheckReads<'a>) {
                let $c = self;
                $body;
            }
        }
    };
}

reads!(ApiGroupCheck, |_c, r| r
    .requests
    .push(ReadRequest::ApiGroups));
reads!(NamespaceCheck, |_c, r| r
    .requests
    .push(ReadRequest::Namespaces));
reads!(StorageClassCheck, |_c, r| r
    .requests
    .push(ReadRequest::StorageClasses));
reads!(NodesCheck, |_c, r| r.requests.push(ReadRequest::Nodes));
reads!(NamespaceLabelCheck, |l, r| {
    r.requests.push(ReadRequest::Namespaces);
    r.namespace_labels.push(&l.label);
});
reads!(WorkloadCheck, |w, r| r.workloads.push(w));
reads!(ConfigMapCheck, |c, r| r.config_maps.push((
    &c.namespace,
    &c.name,
    Some(c.key.as_str())
)));
reads!(ConfigMapKeyCheck, |c, r| r.config_maps.push((
    &c.namespace,
    &c.name,
    Some(c.key.as_str())
)));
reads!(AbsentCheck, |a, r| match &a.what {
    Absentee::ConfigMap { namespace, name } => r.config_maps.push((namespace, name, None)),
    Absentee::Workload(w) => r.workloads.push(w),
});
// Which nodes are control planes decides whose kube-apiserver must run.
reads!(PodFlagsCheck, |_c, r| {
    r.requests.push(ReadRequest::Nodes);
    r.requests.push(ReadRequest::ApiServerPods);
});
// Its CiliumNode-like objects; the nodes for `perNode`.
reads!(AnnotatedCheck, |a, r| {
    if a.per_node {
        r.requests.push(ReadRequest::Nodes);
    }
    r.objects.push((&a.objects, a.field_uses()));
});
// The pods' start times, and its ConfigMap for its last write (reserved key).
reads!(StartedAfterCheck, |s, r| {
    let [starts, _] = s.read_requests();
    r.requests.push(starts);
    r.config_maps
        .push((&s.config_namespace, &s.config_name, Some(LAST_CHANGE)));
});
// The namespaces to cover, and the policies as custom objects.
reads!(DefaultDenyCheck, |d, r| {
    r.requests.push(ReadRequest::Namespaces);
    r.objects.extend(
        d.policies
            .iter()
            .map(|o| (o, DefaultDenyCheck::uses(&o.resource))),
    );
});
// The default StorageClass names the driver; every node must list it.
reads!(CsiDriverCheck, |c, r| {
    r.requests.push(ReadRequest::StorageClasses);
    r.requests.push(ReadRequest::Nodes);
    r.objects.extend(c.uses());
});
// Both configuration lists; the Services' EndpointSlices in the second round, in this
// namespace only.
reads!(WebhooksCheck, |w, r| {
    r.requests
        .extend(WebhookKind::ALL.map(ReadRequest::WebhookConfigurations));
    r.webhook_namespace = Some(&w.namespace);
});
// The classes (whose provisioner), every volume; the checked namespaces' claims.
reads!(ClaimsCheck, |_c, r| {
    r.requests.push(ReadRequest::StorageClasses);
    r.requests.push(ReadRequest::PersistentVolumes);
    r.claims = true;
});
// The nodes (how many there are), and the pods by the selector.
reads!(DistinctNodesCheck, |d, r| {
    r.requests.push(ReadRequest::Nodes);
    r.placement = Some((&d.namespace, &d.selector, d.daemon_label.as_deref()));
});
reads!(OneVersionCheck, |o, r| r
    .workloads
    .extend(o.each.iter().map(|v| &v.workload)));
reads!(ApiServicesCheck, |a, r| r.objects.extend(a.uses()));
reads!(ResourceCheck, |c, r| {
    let mut used: Vec<FieldUse> = c.field.iter().map(fields).collect();
    if let Some(Expect::EqualsField(other)) = &c.expect {
        used.push(fields(other));
    }
    r.objects.push((&c.objects, used));
});
reads!(ConditionCheck, |c, r| r
    .objects
    .push((&c.objects, vec![FieldUse::Conditions])));
reads!(AllCheck, |a, r| {
    let used = match &a.predicate {
        Predicate::Field(f, Expect::EqualsField(o)) => vec![fields(f), fields(o)],
        Predicate::Field(f, _) => vec![fields(f)],
        Predicate::Condition(_) | Predicate::NoConditions(_) | Predicate::NotFalse(_) => {
            vec![FieldUse::Conditions]
        }
    };
    // The field a failure quotes and the one `withField:` selects by, kept too.
    let also = a.quote.iter().chain(&a.with_field).map(fields);
    r.objects
        .push((&a.objects, used.into_iter().chain(also).collect()));
});
reads!(CountCheck, |c, r| {
    match &c.counted {
        Counted::Objects(o) => r.objects.push((o, vec![])),
        Counted::Workloads(w) => r.workloads.push(w),
    }
    if let Wanted::AtLeastField { objects, field, .. } = &c.wanted {
        r.objects.push((objects, vec![fields(field)]));
    }
});
reads!(TolerateCheck, |t, r| {
    let mut used = vec![fields(&t.field), FieldUse::Details(t.details.clone())];
    used.extend(t.last_checked.iter().map(fields));
    r.objects.push((&t.objects, used));
});
reads!(EveryCheck, |e, r| r.objects.extend(e.uses()));
reads!(ParentsCheck, |p, r| r.objects.push((
    &p.objects,
    vec![FieldUse::Parents(p.controller.clone())]
)));
