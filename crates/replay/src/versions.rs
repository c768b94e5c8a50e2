//! The platform components' workloads as their charts and operators write them, for the
//! version reads (issue 33 `gate upgrade cilium|rook`, issue 34 "upgrade half done"):
//! Cilium's agent DaemonSet (container `cilium-agent`) and operator Deployment (container
//! `cilium-operator`), images pinned by tag and digest as the Cilium chart writes them;
//! Rook's operator (container `rook-ceph-operator`, its version only in its image) and the
//! mon, mgr and OSD Deployments Rook labels `app`, `rook_cluster`, `rook-version` and
//! `ceph-version` (on the Deployment, not its pod template). cilium-envoy keeps Envoy's own
//! version. These builders know no scenario: `gates` shapes its fixtures with them.

use serde_json::{json, Value};

use crate::fixture::Fixture;

pub const CILIUM: &str = "v1.18.2";
const CILIUM_AGENT_DIGEST: &str =
    "sha256:858f807ea4e20e85e3ea3240a762e1f4b29f1cb5bbd0463b8aa77e7b097c0667";
const CILIUM_OPERATOR_DIGEST: &str =
    "sha256:cb4e4ffc5789fd5ff6a534e3b1460623df61cba00f5ea1c7b40153b5efb81805";
pub const ROOK: &str = "v1.16.4";

fn meta(o: &Value, field: &str) -> String {
    o["metadata"][field]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn set_container(o: &mut Value, name: &str, image: &str) {
    o["spec"]["template"]["spec"]["containers"][0]["name"] = json!(name);
    o["spec"]["template"]["spec"]["containers"][0]["image"] = json!(image);
}

/// Rewrite `objects`' Cilium and Rook workloads: Cilium at `agent`/`operator`, the Rook
/// operator at `rook`, each Rook daemon at `daemon(name)`.
pub(crate) fn shape(
    objects: &mut [Value],
    agent: &str,
    operator: &str,
    rook: &str,
    daemon: &dyn Fn(&str) -> String,
) {
    for o in objects.iter_mut() {
        let (kind, ns, name) = (
            o["kind"].as_str().unwrap_or_default().to_string(),
            meta(o, "namespace"),
            meta(o, "name"),
        );
        match (kind.as_str(), ns.as_str(), name.as_str()) {
            ("DaemonSet", "kube-system", "cilium") => {
                set_container(
                    o,
                    "cilium-agent",
                    &format!("quay.io/cilium/cilium:{agent}@{CILIUM_AGENT_DIGEST}"),
                );
                o["metadata"]["labels"]["k8s-app"] = json!("cilium");
                o["metadata"]["labels"]["app.kubernetes.io/part-of"] = json!("cilium");
            }
            ("Deployment", "kube-system", "cilium-operator") => {
                set_container(
                    o,
                    "cilium-operator",
                    &format!("quay.io/cilium/operator-generic:{operator}@{CILIUM_OPERATOR_DIGEST}"),
                );
                o["metadata"]["labels"]["io.cilium/app"] = json!("operator");
                o["metadata"]["labels"]["app.kubernetes.io/part-of"] = json!("cilium");
            }
            ("Deployment", "rook-ceph", "rook-ceph-operator") => {
                set_container(
                    o,
                    "rook-ceph-operator",
                    &format!("docker.io/rook/ceph:{rook}"),
                );
                o["metadata"]["labels"]["operator"] = json!("rook");
                o["metadata"]["labels"]["storage-backend"] = json!("ceph");
            }
            ("Deployment", "rook-ceph", n) => {
                let app = ["mon", "mgr", "osd"]
                    .into_iter()
                    .find(|d| n.starts_with(&format!("rook-ceph-{d}-")));
                if let Some(d) = app {
                    let id = n.trim_start_matches(&format!("rook-ceph-{d}-")).to_string();
                    let labels = &mut o["metadata"]["labels"];
                    labels["app"] = json!(format!("rook-ceph-{d}"));
                    labels["rook_cluster"] = json!("rook-ceph");
                    labels["rook-version"] = json!(daemon(n));
                    labels["ceph-version"] = json!("18.2.4-0");
                    labels["ceph_daemon_type"] = json!(d);
                    labels["ceph_daemon_id"] = json!(id);
                    set_container(o, d, "quay.io/ceph/ceph:v18.2.4");
                }
            }
            _ => {}
        }
    }
}

/// Every component on one version (Cilium 1.18.2, Rook 1.16.4).
pub fn one_version(f: &mut Fixture) {
    shape(&mut f.objects, CILIUM, CILIUM, ROOK, &|_| ROOK.to_string());
}
