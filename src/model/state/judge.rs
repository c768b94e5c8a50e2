//! How each check kind is judged against the observation: the [`Judge`] trait on its
//! typed check, reached from `evaluate_check` through the kind table (`match_kind!`). The
//! built-in kinds' impls are here, each handing over to its module's evaluation; a new
//! kind's lives in its own module.

use crate::model::catalog::{
    AbsentCheck, AllCheck, AnnotatedCheck, ApiGroupCheck, ApiServicesCheck, ClaimsCheck,
    ConditionCheck, ConfigMapCheck, ConfigMapKeyCheck, CountCheck, CsiDriverCheck,
    DefaultDenyCheck, DistinctNodesCheck, EveryCheck, NamespaceCheck, NamespaceLabelCheck,
    NodesCheck, OneVersionCheck, ParentsCheck, PodFlagsCheck, ResourceCheck, StartedAfterCheck,
    StorageClassCheck, TolerateCheck, WebhooksCheck, WorkloadCheck,
};
use crate::model::observation::Observation;

use super::*;

/// What a check is judged with: the observation, whether it is a detect or health check,
/// and the stack's declared nodes.
pub(crate) struct Judging<'a> {
    pub obs: &'a Observation,
    pub phase: Phase,
    pub declared_nodes: &'a [DeclaredNode],
}

/// How one kind is judged: true, false or unknown, with its evidence line.
pub(crate) trait Judge {
    fn judge(&self, cx: &Judging<'_>) -> CheckOutcome;
}

/// One kind judged by a function of its module: `judged!(Type, |c, cx| call);`.
macro_rules! judged {
    ($check:ty, |$c:ident, $cx:ident| $body:expr) => {
        impl Judge for $check {
            fn judge(&self, $cx: &Judging<'_>) -> CheckOutcome {
                let $c = self;
                $body
            }
        }
    };
}

judged!(ApiGroupCheck, |c, cx| match &cx.obs.api_groups {
    Err(f) => CheckOutcome::failed("API groups", f),
    Ok(groups) if groups.contains(&c.0) => CheckOutcome::yes(format!("API group {} served", c.0)),
    Ok(_) => CheckOutcome::no(format!("API group {} not served", c.0)),
});
judged!(NamespaceCheck, |c, cx| match &cx.obs.namespaces {
    Err(f) => CheckOutcome::failed("namespaces", f),
    Ok(list) => match list.iter().find(|n| n.name == c.0) {
        Some(n) => truth::namespace(n, cx.phase),
        None => CheckOutcome::no(format!("no namespace {}", c.0)),
    },
});
judged!(StorageClassCheck, |c, cx| storage_class(
    cx.obs,
    c.provisioner.as_deref(),
    c.default
));
judged!(WorkloadCheck, |c, cx| workloads::workload(
    cx.obs, cx.phase, c
));
judged!(ResourceCheck, |c, cx| objects::resource(cx.obs, c));
judged!(ConditionCheck, |c, cx| objects::condition(cx.obs, c));
judged!(AllCheck, |c, cx| all::all(cx.obs, c));
judged!(CountCheck, |c, cx| objects::count(cx.obs, c));
judged!(TolerateCheck, |c, cx| objects::tolerate(cx.obs, c));
judged!(PodFlagsCheck, |c, cx| pods::pod_flags(cx.obs, cx.phase, c));
judged!(NodesCheck, |c, cx| nodes::nodes(
    cx.obs,
    c,
    cx.declared_nodes
));
judged!(ConfigMapCheck, |c, cx| truth::config_map(cx.obs, c));
judged!(NamespaceLabelCheck, |c, cx| namespaces::namespace_label(
    cx.obs, c
));
judged!(DefaultDenyCheck, |c, cx| coverage::default_deny_ingress(
    cx.obs, c
));
judged!(ConfigMapKeyCheck, |c, cx| configmaps::config_map_key(
    cx.obs, c
));
judged!(AbsentCheck, |c, cx| configmaps::absent(cx.obs, c));
judged!(AnnotatedCheck, |c, cx| agents::annotated(cx.obs, c));
judged!(StartedAfterCheck, |c, cx| agents::started_after(cx.obs, c));
judged!(EveryCheck, |c, cx| gateway::every(cx.obs, cx.phase, c));
judged!(ParentsCheck, |c, cx| gateway::parents(cx.obs, c));
judged!(CsiDriverCheck, |c, cx| gateway::csi_driver(cx.obs, c));
judged!(OneVersionCheck, |c, cx| versions::one_version(cx.obs, c));
judged!(ApiServicesCheck, |c, cx| apiservices::api_services(
    cx.obs, c
));
judged!(WebhooksCheck, |c, cx| webhooks::webhooks(cx.obs, c));
judged!(ClaimsCheck, |c, cx| claims::claims(cx.obs, c));
judged!(DistinctNodesCheck, |c, cx| placement::distinct_nodes(
    cx.obs, c
));

fn storage_class(
    obs: &Observation,
    provisioner: Option<&str>,
    default: Option<bool>,
) -> CheckOutcome {
    let list = match &obs.storage_classes {
        Err(f) => return CheckOutcome::failed("storageclasses", f),
        Ok(list) => list,
    };
    let found: Vec<String> = list
        .iter()
        .filter(|s| provisioner.is_none_or(|p| s.provisioner == p))
        .filter(|s| default.is_none_or(|d| s.default == d))
        .map(|s| {
            let flag = if s.default { ", default" } else { "" };
            format!("StorageClass {} ({}{flag})", s.name, s.provisioner)
        })
        .collect();
    if found.is_empty() {
        let adjective = match default {
            Some(true) => "default ",
            Some(false) => "non-default ",
            None => "",
        };
        let with = provisioner
            .map(|p| format!(" with provisioner {p}"))
            .unwrap_or_default();
        CheckOutcome::no(format!("no {adjective}StorageClass{with}"))
    } else {
        CheckOutcome::yes(found.join(", "))
    }
}
