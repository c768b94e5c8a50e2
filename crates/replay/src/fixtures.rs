//! The registry of the built-in fixtures: one table, [`SCENARIOS`], from each name to the
//! function that builds it. [`NAMES`] (what `nestor-replay --generate NAME` accepts) and
//! [`by_name`] are derived from it: a name is written once, here. The layers point one way:
//! the builders ([`builders`](crate::builders), [`platform`](crate::platform),
//! [`clusters`](crate::clusters), [`versions`](crate::versions)) know no scenario, each
//! scenario module uses builders only, and this table composes them (a fixture built on
//! another, as `events-app` on `app-sync-failed`, gets its base here).
//!
//! The base clusters and the builders the tests use are re-exported here
//! (`fixtures::dirqual()`, `fixtures::deployment(..)`, ...).

use crate::fixture::Fixture;
use crate::{
    apiservices, claims, clusters, drifts, events, gates, gateway, node_events, nodes, placement,
    scale, scenarios, truth, webhooks, wireguard,
};

pub use crate::builders::{
    big_schema, crd, custom, daemonset, deployment, namespace, node, statefulset, storage_class,
    CrdSpec, NodeSpec,
};
pub use crate::clusters::{
    bench, big, degraded, dirqual, dirqual_full, BIG_CRDS, BIG_DEPLOYMENTS, BIG_NAMESPACES,
    BIG_NODES,
};

/// A built-in fixture: its name and the function that builds it.
pub type Scenario = (&'static str, fn() -> Fixture);

/// Every built-in fixture.
pub const SCENARIOS: &[Scenario] = &[
    ("dirqual", clusters::dirqual),
    ("dirqual-full", clusters::dirqual_full),
    ("degraded", clusters::degraded),
    ("bench", clusters::bench),
    ("big", clusters::big),
    ("rollout-stalled", scenarios::rollout_stalled),
    ("rollout-progress", scenarios::rollout_progress),
    ("ceph-warn-benign", scenarios::ceph_warn_benign),
    ("ceph-warn", scenarios::ceph_warn),
    ("ceph-nearfull", scenarios::ceph_nearfull),
    ("app-outofsync", scenarios::app_outofsync),
    ("app-sync-failed", scenarios::app_sync_failed),
    ("issuer-unready", scenarios::issuer_unready),
    ("cnpg-unhealthy", scenarios::cnpg_unhealthy),
    ("cnpg-archiving-failed", scenarios::cnpg_archiving_failed),
    ("cnpg-backup-old", scenarios::cnpg_backup_old),
    ("audit-missing", scenarios::audit_missing),
    ("many-applications", scenarios::many_applications),
    ("workload-deleting", scenarios::workload_deleting),
    ("store-deleting", scenarios::store_deleting),
    ("deploy-paused", scenarios::deploy_paused),
    ("cnpg-hibernated", scenarios::cnpg_hibernated),
    ("ceph-stale", scenarios::ceph_stale),
    ("cert-expiring", scenarios::cert_expiring),
    ("claim-pending", scenarios::claim_pending),
    ("crashloop-arm64", scenarios::crashloop_arm64),
    ("ns-terminating", truth::ns_terminating),
    ("cnpg-unreconciled", truth::cnpg_unreconciled),
    ("issuer-acme-failed", truth::issuer_acme_failed),
    ("issuer-acme-hostile", truth::issuer_acme_hostile),
    ("issuer-ns-unready", truth::issuer_ns_unready),
    ("ceph-mon-default", truth::ceph_mon_default),
    ("mon-out-of-quorum", truth::mon_out_of_quorum),
    ("dirqual-gates", gates::dirqual_gates),
    ("dirqual-gates-ec", gates::dirqual_gates_ec),
    ("dirqual-half-upgraded", gates::dirqual_half_upgraded),
    ("wireguard", wireguard::wireguard),
    ("wireguard-key-missing", wireguard::wireguard_key_missing),
    ("wireguard-key-shared", wireguard::wireguard_key_shared),
    ("wireguard-stale-agent", wireguard::wireguard_stale_agent),
    (
        "wireguard-old-annotation",
        wireguard::wireguard_old_annotation,
    ),
    ("wireguard-off", wireguard::wireguard_off),
    ("wireguard-unset", wireguard::wireguard_unset),
    ("wireguard-big", wireguard::wireguard_big),
    ("gateway", gateway::gateway),
    ("gateway-v2alpha1", gateway::gateway_v2alpha1),
    ("gateway-waiting", gateway::gateway_waiting),
    ("gateway-no-address", gateway::gateway_no_address),
    ("gateway-backend", gateway::gateway_backend),
    ("gateway-pool-conflict", gateway::gateway_pool_conflict),
    ("gateway-pool-exhausted", gateway::gateway_pool_exhausted),
    ("gateway-absent", gateway::gateway_absent),
    ("csi-unregistered", gateway::csi_unregistered),
    ("csi-no-driver", gateway::csi_no_driver),
    ("bench-lima-hostnames", nodes::bench_lima_hostnames),
    ("node-disk-pressure", nodes::node_disk_pressure),
    ("node-memory-pressure", nodes::node_memory_pressure),
    ("node-pid-pressure", nodes::node_pid_pressure),
    ("node-network-unavailable", nodes::node_network_unavailable),
    ("node-cordoned", nodes::node_cordoned),
    ("node-tainted", nodes::node_tainted),
    ("node-agent-not-ready", nodes::node_agent_not_ready),
    ("node-healthy-extras", nodes::node_healthy_extras),
    ("apiservice-available", apiservices::apiservice_available),
    (
        "apiservice-unavailable",
        apiservices::apiservice_unavailable,
    ),
    ("webhook-no-endpoint", webhooks::webhook_no_endpoint),
    ("claims-bound", claims::claims_bound),
    ("claims-degraded", claims::claims_degraded),
    ("placement-stacked", placement::placement_stacked),
    ("placement-two-nodes", placement::placement_two_nodes),
    ("events-degraded", || {
        events::events_degraded(claims::claims_degraded())
    }),
    ("events-app", || {
        events::events_app(scenarios::app_sync_failed())
    }),
    ("events-node", || {
        node_events::events_node(nodes::node_disk_pressure())
    }),
    ("events-volume", || {
        node_events::events_volume(claims::claims_degraded())
    }),
    ("huge", scale::huge),
    ("drifts", drifts::drifts),
    ("drifts-off", drifts::drifts_off),
    ("drifts-netpol-missing", drifts::drifts_netpol_missing),
    ("drifts-policy-never", drifts::drifts_policy_never),
    ("drifts-kube-proxy-left", drifts::drifts_kube_proxy_left),
    (
        "drifts-kube-proxy-running",
        drifts::drifts_kube_proxy_running,
    ),
    ("drifts-strict", drifts::drifts_strict),
    ("drifts-no-relay", drifts::drifts_no_relay),
    (
        "drifts-unlabelled-namespace",
        drifts::drifts_unlabelled_namespace,
    ),
    ("drifts-nat-ips", drifts::drifts_nat_ips),
    ("drifts-agent-not-ready", drifts::drifts_agent_not_ready),
];

/// Names accepted by [`by_name`], in the order of [`SCENARIOS`].
pub const NAMES: [&str; SCENARIOS.len()] = {
    let mut names = [""; SCENARIOS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = SCENARIOS[i].0;
        i += 1;
    }
    names
};

/// A built-in fixture by name.
pub fn by_name(name: &str) -> Option<Fixture> {
    SCENARIOS
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, build)| build())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::Cluster;

    /// Every fixture builds; every one but the scale benchmarks (`huge`,
    /// `many-applications`: tens of thousands of objects, served in their own tests and
    /// scripts) is also served.
    #[test]
    fn every_fixture_builds_and_serves() {
        for (name, build) in SCENARIOS {
            let f = build();
            if f.objects.len() > 10_000 {
                continue;
            }
            Cluster::build(&f).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    #[test]
    fn names_are_unique_and_nothing_else_is_known() {
        let unique: std::collections::BTreeSet<&str> = NAMES.iter().copied().collect();
        assert_eq!(unique.len(), NAMES.len());
        assert!(by_name("no-such-fixture").is_none());
    }
}
