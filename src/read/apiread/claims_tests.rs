//! The `claims` check's reads (SPEC §6 v0.4 "Claims and volumes", §9, issue 34 item 7): the
//! PersistentVolume list and, in each namespace a checked layer's workloads name, that
//! namespace's PersistentVolumeClaim list — nothing more: no claim by name, no claim list
//! of every namespace or of another namespace, no volume by name.

use super::tests::accepts;
use super::*;

#[test]
fn storage_with_monitoring_opens_the_volume_list_and_monitorings_claims_only() {
    let catalog = crate::model::catalog::Catalog::builtin().unwrap();
    let plan = catalog.read_plan(
        &["storage".to_string(), "monitoring".to_string()],
        crate::model::catalog::Workloads::InTheirNamespaces,
    );
    let accept = accept_paths(&plan.requests, &plan.scope);
    for p in [
        "^/api/v1/persistentvolumes$",
        "^/api/v1/namespaces/monitoring/persistentvolumeclaims$",
    ] {
        assert!(accept.contains(&p.to_string()), "{p} missing: {accept:#?}");
    }
    assert_eq!(
        crate::read::exec::allowlist::accept_paths_ok(&accept.join(",")),
        Ok(())
    );
    let claim_paths: Vec<&String> = accept
        .iter()
        .filter(|p| p.contains("persistentvolume"))
        .collect();
    assert_eq!(claim_paths.len(), 2, "{claim_paths:#?}");
    let open = |p: &str| accept.iter().any(|re| accepts(re, p));
    for p in [
        "/api/v1/persistentvolumeclaims",
        "/api/v1/namespaces/monitoring/persistentvolumeclaims/prometheus-db-prometheus-0",
        "/api/v1/namespaces/argocd/persistentvolumeclaims",
        "/api/v1/persistentvolumes/pvc-3f1c2a9e-8d41-4b7e-9a53-0c6e1d2b7f10",
        "/api/v1/namespaces/monitoring/secrets",
    ] {
        assert!(!open(p), "{p} accepted: {accept:#?}");
    }
}
