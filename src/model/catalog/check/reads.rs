//! What each check reads, from one exhaustive `match` per kind of read: the custom
//! resource types with the fields it uses, the named ConfigMaps with their keys, the
//! workload selections. The read plan (`catalog/read_plan.rs`) gathers them per layer.

use super::*;

impl CheckKind {
    /// The custom resource types this check reads, with the fields it reads on each.
    pub fn object_reads(&self) -> Vec<(&Objects, Vec<FieldUse>)> {
        let fields = |f: &FieldPath| FieldUse::Value(f.clone());
        match self {
            CheckKind::Resource(r) => {
                let mut used: Vec<FieldUse> = r.field.iter().map(fields).collect();
                if let Some(Expect::EqualsField(other)) = &r.expect {
                    used.push(fields(other));
                }
                vec![(&r.objects, used)]
            }
            CheckKind::Condition(c) => vec![(&c.objects, vec![FieldUse::Conditions])],
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
                vec![(&a.objects, used.into_iter().chain(also).collect())]
            }
            CheckKind::Count(c) => {
                let mut out = Vec::new();
                if let Counted::Objects(o) = &c.counted {
                    out.push((o, vec![]));
                }
                if let Wanted::AtLeastField { objects, field, .. } = &c.wanted {
                    out.push((objects, vec![fields(field)]));
                }
                out
            }
            CheckKind::Tolerate(t) => {
                let mut used = vec![fields(&t.field), FieldUse::Details(t.details.clone())];
                used.extend(t.last_checked.iter().map(fields));
                vec![(&t.objects, used)]
            }
            CheckKind::Annotated(a) => vec![(&a.objects, a.field_uses())],
            CheckKind::DefaultDenyIngress(d) => d
                .policies
                .iter()
                .map(|o| (o, DefaultDenyCheck::uses(&o.resource)))
                .collect(),
            CheckKind::Every(e) => e.uses(),
            CheckKind::Parents(p) => {
                vec![(&p.objects, vec![FieldUse::Parents(p.controller.clone())])]
            }
            CheckKind::CsiDriver(c) => c.uses(),
            CheckKind::ApiServices(a) => a.uses(),
            // Typed built-in reads (the volumes, each checked namespace's claims): no
            // custom objects.
            CheckKind::Claims(_)
            | CheckKind::DistinctNodes(_)
            | CheckKind::ApiGroup(_)
            | CheckKind::Namespace(_)
            | CheckKind::StorageClass { .. }
            | CheckKind::Workload(_)
            | CheckKind::PodFlags(_)
            | CheckKind::Nodes(_)
            | CheckKind::ConfigMap(_)
            | CheckKind::NamespaceLabel(_)
            | CheckKind::ConfigMapKey(_)
            | CheckKind::Absent(_)
            | CheckKind::StartedAfter(_)
            | CheckKind::OneVersion(_)
            | CheckKind::Webhooks(_) => vec![],
        }
    }

    /// The named ConfigMaps this check reads, `(namespace, name, data key it uses)`: the
    /// read plan makes ONE request per ConfigMap with the keys of all its checks.
    pub fn config_map_reads(&self) -> Vec<(&str, &str, Option<&str>)> {
        match self {
            CheckKind::ConfigMap(c) => vec![(&c.namespace, &c.name, Some(c.key.as_str()))],
            CheckKind::ConfigMapKey(c) => vec![(&c.namespace, &c.name, Some(c.key.as_str()))],
            // Its last write, asked for with the reserved key.
            CheckKind::StartedAfter(s) => {
                vec![(&s.config_namespace, &s.config_name, Some(LAST_CHANGE))]
            }
            CheckKind::Absent(AbsentCheck {
                what: Absentee::ConfigMap { namespace, name },
                ..
            }) => vec![(namespace, name, None)],
            CheckKind::Absent(_)
            | CheckKind::ApiGroup(_)
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
            | CheckKind::NamespaceLabel(_)
            | CheckKind::Annotated(_)
            | CheckKind::DefaultDenyIngress(_)
            | CheckKind::Every(_)
            | CheckKind::Parents(_)
            | CheckKind::CsiDriver(_)
            | CheckKind::OneVersion(_)
            | CheckKind::ApiServices(_)
            | CheckKind::Webhooks(_)
            | CheckKind::Claims(_)
            | CheckKind::DistinctNodes(_) => vec![],
        }
    }

    /// The workload selections this check reads.
    pub fn workload_reads(&self) -> Vec<&WorkloadCheck> {
        match self {
            CheckKind::Workload(w) => vec![w],
            CheckKind::Count(CountCheck {
                counted: Counted::Workloads(w),
                ..
            }) => vec![w],
            CheckKind::Absent(AbsentCheck {
                what: Absentee::Workload(w),
                ..
            }) => vec![w],
            CheckKind::OneVersion(o) => o.each.iter().map(|v| &v.workload).collect(),
            CheckKind::Count(_)
            | CheckKind::ApiGroup(_)
            | CheckKind::Namespace(_)
            | CheckKind::StorageClass { .. }
            | CheckKind::Resource(_)
            | CheckKind::Condition(_)
            | CheckKind::All(_)
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
            | CheckKind::ApiServices(_)
            | CheckKind::Webhooks(_)
            | CheckKind::Claims(_)
            | CheckKind::DistinctNodes(_) => vec![],
        }
    }
}
