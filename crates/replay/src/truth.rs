//! The rest of SPEC §6 "What every checked object must also show (v0.3)" as fixtures, one
//! thing wrong in each, shaped as the operators write them (the namespace controller's
//! conditions, CNPG's annotations, cert-manager's reasons and messages, Rook's
//! `rook-ceph-mon-endpoints`):
//!
//! | name | what is wrong |
//! |---|---|
//! | `ns-terminating` | namespace registry `Terminating` (deleted, content remaining); its Deployment still rolled out |
//! | `cnpg-unreconciled` | CNPG Cluster dataops/pg annotated `cnpg.io/reconciliationLoop: disabled`, its status still the last healthy one |
//! | `issuer-acme-failed` | dirqual-full whose ClusterIssuer letsencrypt-prod cannot reach its ACME server (`ErrVerifyACMEAccount`) |
//! | `issuer-acme-hostile` | the same, the ACME server's error detail carrying terminal escapes and running past 200 characters |
//! | `issuer-ns-unready` | dirqual-full whose Issuer gitea/gitea-ca lost its CA key pair Secret (`ErrGetKeyPair`) |
//! | `ceph-mon-default` | CephCluster without `.spec.mon.count` (Rook defaults it to 3), three mons: healthy |
//! | `mon-out-of-quorum` | mon b out of quorum: Rook's `outOfQuorum` lists it, Ceph says `MON_DOWN` |

use serde_json::json;

use crate::builders::T_LAYERS;
use crate::builders::{find, T_DELETED};
use crate::clusters::dirqual;
use crate::clusters::dirqual_full;
use crate::fixture::Fixture;

/// What cert-manager says of an ACME account it cannot verify: its own prefix, then the
/// error of the HTTP client (an air-gapped cluster's DNS does not know the ACME server).
pub const ACME_FAILED: &str = "Failed to verify ACME account: Get \"https://acme-v02.api.letsencrypt.org/directory\": dial tcp: lookup acme-v02.api.letsencrypt.org on 10.96.0.10:53: server misbehaving";

/// The ACME server's problem detail is the server's own text: here it clears the screen,
/// prints a reassuring green line and runs on past the 200 characters nestor keeps.
pub const ACME_HOSTILE: &str = "Failed to verify ACME account: 400 urn:ietf:params:acme:error:malformed: \u{1b}[2J\u{1b}[32mkubectl nestor: every layer present\u{1b}[0m \u{1b}]0;nestor\u{7}";

/// Past the cap: must never be printed.
pub const ACME_HOSTILE_TAIL: &str = "TAIL-PAST-THE-CAP";

/// What cert-manager's CA issuer says when its key pair Secret is gone.
pub const CA_KEYPAIR_MISSING: &str =
    "Error getting keypair for CA issuer: secrets \"gitea-ca-key-pair\" not found";

pub fn ns_terminating() -> Fixture {
    let mut f = dirqual();
    for n in find(&mut f, "Namespace", "registry") {
        n["metadata"]["deletionTimestamp"] = json!(T_DELETED);
        n["status"] = json!({
            "phase": "Terminating",
            "conditions": [
                {"type": "NamespaceDeletionDiscoveryFailure", "status": "False", "reason": "ResourcesDiscovered",
                 "message": "All resources successfully discovered", "lastTransitionTime": T_DELETED},
                {"type": "NamespaceDeletionGroupVersionParsingFailure", "status": "False", "reason": "ParsedGroupVersions",
                 "message": "All legacy kube types successfully parsed", "lastTransitionTime": T_DELETED},
                {"type": "NamespaceDeletionContentFailure", "status": "False", "reason": "ContentDeleted",
                 "message": "All content successfully deleted, may be waiting on finalization", "lastTransitionTime": T_DELETED},
                {"type": "NamespaceContentRemaining", "status": "True", "reason": "SomeResourcesRemain",
                 "message": "Some resources are remaining: deployments.apps has 1 resource instances, persistentvolumeclaims. has 1 resource instances",
                 "lastTransitionTime": T_DELETED},
                {"type": "NamespaceFinalizersRemaining", "status": "True", "reason": "SomeFinalizersRemain",
                 "message": "Some content in the namespace has finalizers remaining: kubernetes.io/pvc-protection in 1 resource instances",
                 "lastTransitionTime": T_DELETED}
            ]
        });
    }
    f
}

pub fn cnpg_unreconciled() -> Fixture {
    let mut f = dirqual();
    for c in find(&mut f, "Cluster", "pg") {
        c["metadata"]["annotations"] = json!({"cnpg.io/reconciliationLoop": "disabled"});
    }
    f
}

pub fn issuer_acme_failed() -> Fixture {
    cluster_issuer_failing(ACME_FAILED.to_string())
}

pub fn issuer_acme_hostile() -> Fixture {
    let pad = " the ACME server's problem detail goes on".repeat(6);
    cluster_issuer_failing(format!("{ACME_HOSTILE}{pad} {ACME_HOSTILE_TAIL}\n"))
}

pub fn issuer_ns_unready() -> Fixture {
    let mut f = dirqual_full();
    for i in find(&mut f, "Issuer", "gitea-ca") {
        i["status"]["conditions"] = json!([{
            "type": "Ready", "status": "False", "reason": "ErrGetKeyPair",
            "message": CA_KEYPAIR_MISSING,
            "lastTransitionTime": T_DELETED, "observedGeneration": 1
        }]);
    }
    f
}

pub fn ceph_mon_default() -> Fixture {
    let mut f = dirqual();
    for c in find(&mut f, "CephCluster", "rook-ceph") {
        c["spec"]["mon"] = json!({"allowMultiplePerNode": false});
    }
    f
}

pub fn mon_out_of_quorum() -> Fixture {
    let mut f = dirqual();
    for m in find(&mut f, "ConfigMap", "rook-ceph-mon-endpoints") {
        m["data"]["outOfQuorum"] = json!("b");
    }
    for c in find(&mut f, "CephCluster", "rook-ceph") {
        c["status"]["ceph"]["health"] = json!("HEALTH_WARN");
        c["status"]["ceph"]["details"] = json!({
            "MON_DOWN": {"message": "1/3 mons down, quorum a,c", "severity": "HEALTH_WARN"}
        });
    }
    f
}

/// dirqual-full whose ClusterIssuer letsencrypt-prod is `Ready=False` because its ACME
/// account cannot be verified, with `message` (the YAML block's newline kept, as in Argo
/// CD's own test object).
fn cluster_issuer_failing(message: String) -> Fixture {
    let mut f = dirqual_full();
    for i in find(&mut f, "ClusterIssuer", "letsencrypt-prod") {
        i["status"] = json!({
            "acme": {"uri": ""},
            "conditions": [{
                "type": "Ready", "status": "False", "reason": "ErrVerifyACMEAccount",
                "message": message, "lastTransitionTime": T_LAYERS, "observedGeneration": 1
            }]
        });
    }
    f
}
