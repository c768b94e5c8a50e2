//! The inventory `discover` prints for a person: nodes, namespaces, storage classes, API
//! groups, every catalog layer with its evidence, and the reads that failed.

use super::*;
use crate::model::observation::Observation;
use crate::output::layers;
use crate::output::layout::{cut, hang, Layout};
use crate::output::render::escape;

pub(super) fn failed_reads(obs: &Observation) -> Vec<String> {
    let mut out = vec![];
    let mut check = |what: &str, err: Option<String>| {
        if let Some(e) = err {
            out.push(format!("{what}: {e}"));
        }
    };
    check("nodes", obs.nodes.as_ref().err().map(|e| e.to_string()));
    check(
        "API groups",
        obs.api_groups.as_ref().err().map(|e| e.to_string()),
    );
    check(
        "namespaces",
        obs.namespaces.as_ref().err().map(|e| e.to_string()),
    );
    check(
        "storageclasses",
        obs.storage_classes.as_ref().err().map(|e| e.to_string()),
    );
    check(
        "daemonsets",
        obs.daemonsets.as_ref().err().map(|e| e.to_string()),
    );
    check(
        "deployments",
        obs.deployments.as_ref().err().map(|e| e.to_string()),
    );
    check(
        "statefulsets",
        obs.statefulsets.as_ref().err().map(|e| e.to_string()),
    );
    for (t, r) in &obs.resources {
        if !not_served(obs, t) {
            check(t, r.as_ref().err().map(|e| e.to_string()));
        }
    }
    out
}

/// The custom resource types that are simply not installed: the read said the type does not
/// exist (NotFound) and API discovery, read successfully, does not serve its group. Not a
/// failed read: that is what "not installed" looks like (the layers' checks read it the same
/// way: an empty list).
pub(super) fn not_installed(obs: &Observation) -> Vec<String> {
    obs.resources
        .keys()
        .filter(|t| not_served(obs, t))
        .cloned()
        .collect()
}

/// `plural.group` read NotFound while discovery (read) serves no such group.
fn not_served(obs: &Observation, resource_type: &str) -> bool {
    use crate::model::observation::FailureKind;
    let Some((_, group)) = resource_type.split_once('.') else {
        return false;
    };
    let not_found = matches!(
        obs.resources.get(resource_type),
        Some(Err(f)) if f.kind == FailureKind::NotFound
    );
    not_found && obs.api_groups.as_ref().is_ok_and(|g| !g.contains(group))
}

/// At most `n` items, then "… and K more".
pub(super) fn first(items: &[String], n: usize) -> String {
    if items.len() <= n {
        items.join(", ")
    } else {
        format!("{}, … and {} more", items[..n].join(", "), items.len() - n)
    }
}

pub(super) fn text(d: &Discovery, paint: Paint, layout: Layout) -> String {
    let fit = |text: String| -> String {
        text.lines()
            .map(|l| format!("{}\n", cut(l, layout.width)))
            .collect()
    };
    let mut out = fit(render::table(&[
        vec![
            "target".to_string(),
            format!("{} (context {})", d.target.endpoint, d.target.context),
        ],
        vec![
            "kubeconfig".to_string(),
            format!("{} (rule: {})", d.target.kubeconfig, d.target.rule_name()),
        ],
    ]));
    out.push_str(&format!(
        "\n{}\n",
        paint.bold("DISCOVERED (read live, not stored)")
    ));
    out.push_str(&fit(render::node_table(&d.nodes, paint)));
    let classes: Vec<String> = d
        .storage_classes
        .iter()
        .map(|s| {
            format!(
                "{} ({}{})",
                s.name,
                s.provisioner,
                if s.default { ", default" } else { "" }
            )
        })
        .collect();
    // The inventory is what discover is for: wrapped, never cut.
    let inventory = [
        (
            format!("namespaces ({})", d.namespaces.len()),
            first(&d.namespaces, 12),
        ),
        (
            format!("storageclasses ({})", classes.len()),
            classes.join(", "),
        ),
        (
            format!("API groups ({})", d.api_groups.len()),
            first(&d.api_groups, 12),
        ),
    ];
    let w = inventory.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    for (label, items) in &inventory {
        for l in hang(
            &format!("  {label:<w$}  "),
            &escape(items),
            w + 4,
            layout.width,
        ) {
            out.push_str(&l);
            out.push('\n');
        }
    }
    out.push_str(&format!(
        "\n{}\n",
        paint.bold("LAYERS (catalog, with evidence)")
    ));
    out.push_str(&layers::block(&[], &d.layers, paint, layout));
    if !d.not_installed.is_empty() {
        out.push_str(&format!(
            "\nnot installed (API group not served): {}\n",
            d.not_installed.join(", ")
        ));
    }
    if !d.failed_reads.is_empty() {
        out.push_str(&format!(
            "\n{}\n",
            paint.red("FAILED READS (never counted as absent)")
        ));
        for f in &d.failed_reads {
            for l in hang("  ", &escape(f), 4, layout.width) {
                out.push_str(&l);
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::observation::{FailureKind, ReadFailure};

    fn obs(groups: Result<&[&str], FailureKind>) -> Observation {
        let mut o = Observation::skipped("test");
        o.nodes = Ok(vec![]);
        o.namespaces = Ok(vec![]);
        o.storage_classes = Ok(vec![]);
        o.daemonsets = Ok(vec![]);
        o.deployments = Ok(vec![]);
        o.statefulsets = Ok(vec![]);
        o.api_groups = groups
            .map(|g| g.iter().map(|s| s.to_string()).collect())
            .map_err(|k| ReadFailure::new(k, "discovery failed"));
        let not_found = || {
            Err(ReadFailure::new(
                FailureKind::NotFound,
                "error: the server doesn't have a resource type",
            ))
        };
        o.resources
            .insert("clusterissuers.cert-manager.io".into(), not_found());
        o.resources
            .insert("cephclusters.ceph.rook.io".into(), not_found());
        o.resources.insert(
            "applications.argoproj.io".into(),
            Err(ReadFailure::new(FailureKind::Forbidden, "forbidden")),
        );
        o
    }

    #[test]
    fn a_crd_whose_group_is_not_served_is_not_installed_not_a_failed_read() {
        // cert-manager.io and argoproj.io not served: clusterissuers is simply not
        // installed; a Forbidden read stays a failed read whatever discovery says, and a
        // NotFound of a served group (ceph.rook.io) is a failed read too (odd, reported).
        let o = obs(Ok(&["", "apps", "ceph.rook.io"]));
        assert_eq!(not_installed(&o), vec!["clusterissuers.cert-manager.io"]);
        assert_eq!(
            failed_reads(&o),
            vec![
                "applications.argoproj.io: Forbidden: forbidden",
                "cephclusters.ceph.rook.io: NotFound: error: the server doesn't have a resource type",
            ]
        );
    }

    #[test]
    fn without_discovery_nothing_is_called_not_installed() {
        let o = obs(Err(FailureKind::Timeout));
        assert_eq!(not_installed(&o), Vec::<String>::new());
        assert_eq!(failed_reads(&o).len(), 4, "{:?}", failed_reads(&o));
    }
}
