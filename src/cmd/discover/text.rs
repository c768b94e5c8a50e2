//! The inventory `discover` prints for a person: nodes, namespaces, storage classes, API
//! groups, every catalog layer with its evidence, and the reads that failed.

use super::*;

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
        check(t, r.as_ref().err().map(|e| e.to_string()));
    }
    out
}

/// At most `n` items, then "… and K more".
pub(super) fn first(items: &[String], n: usize) -> String {
    if items.len() <= n {
        items.join(", ")
    } else {
        format!("{}, … and {} more", items[..n].join(", "), items.len() - n)
    }
}

pub(super) fn text(d: &Discovery, paint: Paint) -> String {
    let mut out = render::table(&[
        vec![
            "target".to_string(),
            format!("{} (context {})", d.target.endpoint, d.target.context),
        ],
        vec![
            "kubeconfig".to_string(),
            format!("{} (rule: {})", d.target.kubeconfig, d.target.rule_name()),
        ],
    ]);
    out.push_str(&format!(
        "\n{}\n",
        paint.bold("DISCOVERED (read live, not stored)")
    ));
    out.push_str(&render::node_table(&d.nodes, paint));
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
    out.push_str(&render::table(&[
        vec![
            format!("  namespaces ({})", d.namespaces.len()),
            first(&d.namespaces, 12),
        ],
        vec![
            format!("  storageclasses ({})", classes.len()),
            classes.join(", "),
        ],
        vec![
            format!("  API groups ({})", d.api_groups.len()),
            first(&d.api_groups, 12),
        ],
    ]));
    out.push_str(&format!(
        "\n{}\n",
        paint.bold("LAYERS (catalog, with evidence)")
    ));
    let mut rows = vec![];
    for l in &d.layers {
        let state = paint.state(l.state);
        let why = if l.state == State::Present {
            l.evidence.join("; ")
        } else {
            l.reason.clone()
        };
        rows.push(vec![format!("  {}", l.id), state, why]);
    }
    out.push_str(&render::table(&rows));
    if !d.failed_reads.is_empty() {
        out.push_str(&format!(
            "\n{}\n",
            paint.red("FAILED READS (never counted as absent)")
        ));
        for f in &d.failed_reads {
            out.push_str(&format!("  {f}\n"));
        }
    }
    out
}
