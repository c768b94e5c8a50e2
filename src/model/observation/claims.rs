//! PersistentVolumeClaims and PersistentVolumes as the `claims` check needs them (SPEC §6
//! v0.4 "Claims and volumes"): a claim decoded into namespace, name, phase, storage class
//! and creation time; a volume into name, storage class, phase and the claim it is bound
//! to (namespace/name). Nothing of the spec's capacity, selectors, CSI attributes or
//! annotations is kept. Each list is checked to be the kind asked for
//! (`PersistentVolumeClaimList` of `PersistentVolumeClaim`, `PersistentVolumeList` of
//! `PersistentVolume`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::kube::unbounded;
use super::meta::words;
use super::typed_list::decode_list;
use crate::error::Result;
use crate::pool::Budget;

/// One PersistentVolumeClaim.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct Claim {
    pub namespace: String,
    pub name: String,
    /// `status.phase`: `Pending`, `Bound` or `Lost` (empty: none written yet).
    pub phase: String,
    /// `spec.storageClassName`; empty when unset (the default class, or none).
    pub storage_class: String,
    /// `metadata.creationTimestamp`, as written.
    pub created: String,
}

/// One PersistentVolume.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct Volume {
    pub name: String,
    /// `spec.storageClassName`; empty when unset.
    pub storage_class: String,
    /// `status.phase`: `Pending`, `Available`, `Bound`, `Released` or `Failed`.
    pub phase: String,
    /// `spec.claimRef` as `NAMESPACE/NAME`; empty when unbound.
    pub claim: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawMeta {
    name: String,
    namespace: String,
    creation_timestamp: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPhase {
    phase: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawClaimSpec {
    storage_class_name: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawClaim {
    metadata: RawMeta,
    spec: RawClaimSpec,
    status: RawPhase,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawClaimRef {
    namespace: String,
    name: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawVolumeSpec {
    storage_class_name: Option<String>,
    claim_ref: Option<RawClaimRef>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawVolume {
    metadata: RawMeta,
    spec: RawVolumeSpec,
    status: RawPhase,
}

/// `GET /api/v1/namespaces/NS/persistentvolumeclaims`, sorted by namespace and name.
pub fn parse_claims(text: &str) -> Result<Vec<Claim>> {
    read_claims(text.as_bytes(), &unbounded())
}

/// [`parse_claims`] as the list arrives, each claim charged to `budget`.
pub fn read_claims<R: std::io::Read>(reader: R, budget: &Budget) -> Result<Vec<Claim>> {
    let what = "GET /api/v1/namespaces/NS/persistentvolumeclaims";
    let mut claims = decode_list(
        reader,
        what,
        "",
        "PersistentVolumeClaim",
        budget,
        |c: RawClaim| Claim {
            namespace: words(&c.metadata.namespace),
            name: words(&c.metadata.name),
            phase: words(&c.status.phase),
            storage_class: words(c.spec.storage_class_name.as_deref().unwrap_or_default()),
            created: words(&c.metadata.creation_timestamp),
        },
    )?;
    claims.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    Ok(claims)
}

/// `GET /api/v1/persistentvolumes`, sorted by name.
pub fn parse_volumes(text: &str) -> Result<Vec<Volume>> {
    read_volumes(text.as_bytes(), &unbounded())
}

/// [`parse_volumes`] as the list arrives, each volume charged to `budget`.
pub fn read_volumes<R: std::io::Read>(reader: R, budget: &Budget) -> Result<Vec<Volume>> {
    let what = "GET /api/v1/persistentvolumes";
    let mut volumes = decode_list(
        reader,
        what,
        "",
        "PersistentVolume",
        budget,
        |v: RawVolume| Volume {
            name: words(&v.metadata.name),
            storage_class: words(v.spec.storage_class_name.as_deref().unwrap_or_default()),
            phase: words(&v.status.phase),
            claim: v
                .spec
                .claim_ref
                .map(|r| words(&format!("{}/{}", r.namespace, r.name)))
                .unwrap_or_default(),
        },
    )?;
    volumes.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(volumes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/tests/fixtures/kubectl/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    #[test]
    fn claims_keep_namespace_name_phase_class_and_creation_only() {
        let claims = parse_claims(&fixture("persistentvolumeclaims.json")).unwrap();
        assert_eq!(claims.len(), 2);
        assert_eq!(claims[0].phase, "Pending");
        assert_eq!(
            claims[1],
            Claim {
                namespace: "monitoring".into(),
                name: "prometheus-db-prometheus-0".into(),
                phase: "Bound".into(),
                storage_class: "ceph-block".into(),
                created: "2025-12-20T10:20:00Z".into(),
            }
        );
        let json = serde_json::to_string(&claims).unwrap();
        for dropped in ["volumeName", "50Gi", "accessModes", "pv.kubernetes.io"] {
            assert!(!json.contains(dropped), "{dropped} kept: {json}");
        }
    }

    #[test]
    fn volumes_keep_name_class_phase_and_claim_only() {
        let volumes = parse_volumes(&fixture("persistentvolumes.json")).unwrap();
        assert_eq!(
            volumes[0],
            Volume {
                name: "pvc-3f1c2a9e-8d41-4b7e-9a53-0c6e1d2b7f10".into(),
                storage_class: "ceph-block".into(),
                phase: "Bound".into(),
                claim: "monitoring/prometheus-db-prometheus-0".into(),
            }
        );
        let json = serde_json::to_string(&volumes).unwrap();
        for dropped in ["volumeHandle", "imageName", "capacity", "uid"] {
            assert!(!json.contains(dropped), "{dropped} kept: {json}");
        }
    }

    #[test]
    fn a_list_of_another_kind_is_refused() {
        let pods = r#"{"apiVersion":"v1","kind":"PodList","items":[]}"#;
        assert!(parse_claims(pods).is_err());
        assert!(parse_volumes(pods).is_err());
        let claims = r#"{"apiVersion":"v1","kind":"PersistentVolumeClaimList","items":[]}"#;
        assert!(parse_volumes(claims).is_err());
        assert_eq!(parse_claims(claims).unwrap(), []);
    }
}
