//! The layers of a lima bench that has no cluster yet (SPEC §18): the harness writes the bench
//! kubeconfig after `kubeadm init`, so without it nothing runs on Kubernetes. Nothing was
//! read and nothing failed: every layer read through Kubernetes is absent, with the one
//! reason; a host-level or unobservable layer is judged as always.

use super::{evaluate, LayerReport, State};
use crate::model::catalog::Catalog;
use crate::model::observation::Observation;

/// `layer_ids` judged without a cluster, `evidence` saying why there is none; `obs` holds
/// what was read beside it (the hosts' part, if any).
pub fn without_cluster(
    catalog: &Catalog,
    layer_ids: &[String],
    obs: &Observation,
    evidence: &str,
) -> Vec<LayerReport> {
    let mut reports = evaluate(catalog, layer_ids, &[], obs);
    for r in &mut reports {
        let on_kubernetes = catalog
            .get(&r.id)
            .is_some_and(|l| l.host.is_none() && l.observable);
        if on_kubernetes {
            r.state = State::Absent;
            r.evidence = vec![evidence.to_string()];
            r.reason = evidence.to_string();
            r.explain = Vec::new();
        }
    }
    reports
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kubernetes_layer_is_absent_for_the_reason_and_nothing_failed() {
        let catalog = Catalog::builtin().unwrap_or_else(|e| panic!("{e}"));
        let ids = vec!["k8s".to_string(), "cni".to_string()];
        let why = "no bench kubeconfig at /r/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init";
        let reports = without_cluster(&catalog, &ids, &Observation::skipped(why), why);
        let seen: Vec<(&str, State, Vec<String>)> = reports
            .iter()
            .map(|r| (r.id.as_str(), r.state, r.evidence.clone()))
            .collect();
        assert_eq!(
            seen,
            vec![
                ("k8s", State::Absent, vec![why.to_string()]),
                ("cni", State::Absent, vec![why.to_string()]),
            ]
        );
    }
}
