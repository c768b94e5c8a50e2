//! The inventory `discover` prints for a person: nodes, namespaces, storage classes, API
//! groups, every catalog layer with its evidence, and the reads that failed.

use super::*;
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
