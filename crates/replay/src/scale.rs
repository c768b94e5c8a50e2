//! The scale fixture of SPEC §9 "Bounded per run": `huge`, dirqual's layers on
//! [`HUGE_NODES`] nodes (each with its CiliumNode, the DaemonSets scheduled on all of them),
//! [`HUGE_DEPLOYMENTS`] more Deployments in `kube-system` (a namespace the built-in checks
//! read, so every one of them is decoded) and [`HUGE_APPLICATIONS`] Argo CD Applications in
//! one list (as in `many-applications`): the cluster on which nestor's own peak RSS must stay
//! under 64 MiB (`scripts/bench.sh scale`). Generated only on demand (`--generate huge`):
//! about 100 MB of JSON, never written to `fixtures/`.

use crate::builders::{deployment, Builder, K8S_VERSION, T_DATA};
use crate::clusters::dirqual_layers;
use crate::fixture::Fixture;

/// Nodes of [`huge`] (`dirqual1..10000`).
pub const HUGE_NODES: usize = 10_000;
/// Deployments of [`huge`] besides dirqual's, all in `kube-system`, all rolled out.
pub const HUGE_DEPLOYMENTS: usize = 20_000;
/// Argo CD Applications of [`huge`], in one list.
pub const HUGE_APPLICATIONS: usize = 40_000;

/// dirqual's layers at scale: see the module header.
pub fn huge() -> Fixture {
    let mut b = Builder::default();
    dirqual_layers(&mut b, HUGE_NODES, &[], "HEALTH_OK");
    let apps = ["api", "web", "worker", "cache"];
    for i in 0..HUGE_DEPLOYMENTS {
        let name = format!("{}-{:05}", apps[i % apps.len()], i);
        b.obj(deployment(
            "kube-system",
            &name,
            "registry.example.com/platform/agent:2.3.1",
            2,
            2,
            T_DATA,
        ));
    }
    crate::platform::add_applications(&mut b, HUGE_APPLICATIONS);
    b.finish(K8S_VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_holds_what_its_header_says() {
        let f = huge();
        let count = |kind: &str| f.objects.iter().filter(|o| o["kind"] == kind).count();
        assert_eq!(count("Node"), HUGE_NODES);
        assert_eq!(count("CiliumNode"), HUGE_NODES);
        assert!(count("Deployment") > HUGE_DEPLOYMENTS);
        assert!(count("Application") >= HUGE_APPLICATIONS);
    }
}
