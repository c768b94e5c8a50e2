//! The observations the state and plan tests start from (SPEC §1's cluster and its variants).

use crate::model::observation::*;

/// The SPEC §1 incident cluster: prod "dirqual", 4 Ready nodes, Ceph HEALTH_OK, CNPG 3/3,
/// monitoring, gitops and registry in place; no object store, no cert-manager.
pub(crate) fn dirqual() -> Observation {
    let k = |f: &str| -> &'static str {
        match f {
            "nodes" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/nodes-dirqual.json"
            )),
            "api" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/api-versions.txt"
            )),
            "ns" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/namespaces.json"
            )),
            "sc" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/storageclasses.json"
            )),
            "ds" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/daemonsets.json"
            )),
            "deploy" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/deployments.json"
            )),
            "sts" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/statefulsets.json"
            )),
            "ceph" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/cephclusters.json"
            )),
            "store" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/cephobjectstores-empty.json"
            )),
            "cnpg" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/cnpg-clusters.json"
            )),
            "prom" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/prometheuses.json"
            )),
            "am" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/alertmanagers.json"
            )),
            "apps" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/applications.json"
            )),
            "csidrivers" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/csidrivers.json"
            )),
            "csinodes" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/csinodes.json"
            )),
            "apiservices" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/apiservices.json"
            )),
            "pv" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/persistentvolumes.json"
            )),
            "pvc" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/persistentvolumeclaims.json"
            )),
            _ => unreachable!(),
        }
    };
    let mut obs = Observation::skipped("not read");
    let catalog = crate::model::catalog::Catalog::builtin().unwrap();
    let all: Vec<String> = catalog.ids().into_iter().map(String::from).collect();
    obs.keep = catalog.object_fields(&all);
    for (req, f) in [
        (ReadRequest::Nodes, "nodes"),
        (ReadRequest::ApiGroups, "api"),
        (ReadRequest::Namespaces, "ns"),
        (ReadRequest::StorageClasses, "sc"),
        (ReadRequest::Workloads(WorkloadKind::DaemonSet), "ds"),
        (ReadRequest::Workloads(WorkloadKind::Deployment), "deploy"),
        (ReadRequest::Workloads(WorkloadKind::StatefulSet), "sts"),
        (
            ReadRequest::Resource("cephclusters.ceph.rook.io".into()),
            "ceph",
        ),
        (
            ReadRequest::Resource("cephobjectstores.ceph.rook.io".into()),
            "store",
        ),
        (
            ReadRequest::Resource("clusters.postgresql.cnpg.io".into()),
            "cnpg",
        ),
        (
            ReadRequest::Resource("prometheuses.monitoring.coreos.com".into()),
            "prom",
        ),
        (
            ReadRequest::Resource("alertmanagers.monitoring.coreos.com".into()),
            "am",
        ),
        (
            ReadRequest::Resource("applications.argoproj.io".into()),
            "apps",
        ),
        (
            ReadRequest::Resource("csidrivers.storage.k8s.io".into()),
            "csidrivers",
        ),
        (
            ReadRequest::Resource("csinodes.storage.k8s.io".into()),
            "csinodes",
        ),
        (
            ReadRequest::Resource("apiservices.apiregistration.k8s.io".into()),
            "apiservices",
        ),
        (ReadRequest::PersistentVolumes, "pv"),
        (
            ReadRequest::Claims {
                namespace: "monitoring".into(),
            },
            "pvc",
        ),
    ] {
        obs.record(&req, Ok(k(f)));
    }
    obs.record(
        &ReadRequest::ConfigMap {
            namespace: "rook-ceph".into(),
            name: "rook-ceph-mon-endpoints".into(),
            keys: vec!["outOfQuorum".into()],
        },
        Ok(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/configmap-mon-endpoints.json"
        ))),
    );
    // Rook's mons on dirqual1-3 and OSDs on dirqual1-4 (labels as Rook sets them).
    for (daemon, text) in [
        (
            "mon",
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/pods-rook-ceph-mon.json"
            )),
        ),
        (
            "osd",
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/pods-rook-ceph-osd.json"
            )),
        ),
    ] {
        obs.record(&placement_request(daemon), Ok(text));
    }
    // Read a minute after Rook last checked Ceph (cephclusters.json's lastChecked).
    obs.observed_at = crate::clock::parse_rfc3339("2026-01-12T08:42:20Z");
    obs
}

/// [`dirqual`] with cert-manager served and its healthy objects read: a ClusterIssuer, an
/// Issuer and a Certificate valid for seven more weeks.
pub fn with_certs(mut obs: Observation) -> Observation {
    let mut groups = obs.api_groups.clone().unwrap();
    groups.insert("cert-manager.io".into());
    obs.api_groups = Ok(groups);
    for (t, text) in [
        (
            "clusterissuers.cert-manager.io",
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/clusterissuers.json"
            )),
        ),
        (
            "issuers.cert-manager.io",
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/issuers.json"
            )),
        ),
        (
            "certificates.cert-manager.io",
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/certificates.json"
            )),
        ),
    ] {
        obs.record(&ReadRequest::Resource(t.into()), Ok(text));
    }
    // cert-manager's webhook configurations as its chart renders them, and the one ready
    // endpoint of its Service (the second round).
    use crate::model::observation::WebhookKind;
    for (kind, text) in [
        (
            WebhookKind::Validating,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/validatingwebhookconfigurations-cert-manager.json"
            )),
        ),
        (
            WebhookKind::Mutating,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/mutatingwebhookconfigurations-cert-manager.json"
            )),
        ),
    ] {
        obs.record(&ReadRequest::WebhookConfigurations(kind), Ok(text));
    }
    obs.record(
        &ReadRequest::EndpointSlices {
            namespace: "cert-manager".into(),
            service: "cert-manager-webhook".into(),
        },
        Ok(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/endpointslices-cert-manager-webhook.json"
        ))),
    );
    obs
}

pub(crate) fn declared() -> Vec<super::DeclaredNode> {
    (1..=4)
        .map(|i| super::DeclaredNode::named(format!("dirqual{i}")))
        .collect()
}

pub(crate) fn layers() -> Vec<String> {
    [
        "k8s",
        "cni",
        "ceph",
        "storage",
        "monitoring",
        "gitops",
        "registry",
        "dataops",
        "datalake",
        "certs",
    ]
    .map(String::from)
    .to_vec()
}

/// The built-in ceph layer's read of Rook's `app=rook-ceph-DAEMON` pods.
pub(crate) fn placement_request(daemon: &str) -> ReadRequest {
    ReadRequest::PodPlacement {
        namespace: "rook-ceph".into(),
        selector: format!("app=rook-ceph-{daemon}"),
        labels: vec!["ceph_daemon_id".into()],
    }
}
