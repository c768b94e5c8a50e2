//! `catalog list` / `catalog show ID`: the stack's catalog (built-in plus its `catalog:`
//! file), every check documented with its reason, text and JSON; no cluster is read.

use serde_json::Value;

use crate::support::*;

fn run(bed: &Bed, args: &[&str]) -> Outcome {
    bed.cmd().args(args).run()
}

fn json(out: &Outcome) -> Value {
    out.code(0);
    let v = serde_json::from_slice(&out.stdout_bytes)
        .unwrap_or_else(|e| panic!("{e}: {}", stdout_of(out)));
    crate::doc_schema::check(&v);
    v
}

/// The built-in layer ids in catalog order, from the catalog itself: adding a built-in layer
/// changes no list here.
fn builtin_ids() -> Vec<String> {
    nestor::model::catalog::Catalog::builtin()
        .expect("the built-in catalog")
        .ids()
        .into_iter()
        .map(String::from)
        .collect()
}

#[test]
fn list_names_every_layer_in_order_text_and_json() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let out = run(&bed, &["catalog", "list"]);
    out.code(0);
    let text = stdout_of(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["ID", "TITLE", "AFTER", "DETECT", "HEALTHY"]
    );
    let ids: Vec<&str> = lines[1..]
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(ids, builtin_ids());
    assert!(
        text.lines()
            .any(|l| l.starts_with("gitops ") && l.contains(" GitOps (Argo CD + Gitea) ")),
        "{text}"
    );
    assert!(text
        .lines()
        .any(|l| l.starts_with("etcd-backup") && l.ends_with("host: 4")));

    let v = json(&run(&bed, &["catalog", "list", "-o", "json"]));
    assert_eq!(v["apiVersion"], "nestor/v1");
    assert_eq!(v["kind"], "Catalog");
    assert_eq!(v["source"]["stack"], "dirqual");
    assert_eq!(v["source"]["overrides"], Value::Null);
    let layers = v["layers"].as_array().expect("layers");
    let ids: Vec<&str> = layers.iter().filter_map(|l| l["id"].as_str()).collect();
    assert_eq!(ids, builtin_ids());
    // Every health check of the built-in catalog says why the operators gate on it.
    for l in layers {
        for c in l["healthy"].as_array().expect("healthy") {
            assert!(c["why"].is_string(), "{}: {c}", l["id"]);
            assert!(!c["check"].as_str().unwrap_or("").is_empty());
        }
    }
    assert!(bed.calls("kubectl").is_empty(), "no cluster is read");
}

/// `catalog show` documents every check of every layer: as many lines as the catalog has
/// checks, each with its kind and its words.
#[test]
fn show_documents_every_check_of_every_layer() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let all = json(&run(&bed, &["catalog", "list", "-o", "json"]));
    for layer in all["layers"].as_array().expect("layers") {
        let id = layer["id"].as_str().expect("id");
        let v = json(&run(&bed, &["catalog", "show", id, "-o", "json"]));
        assert_eq!(v["kind"], "CatalogLayer");
        assert_eq!(v["id"], id);
        assert_eq!(v["detect"], layer["detect"], "{id}");
        assert_eq!(v["healthy"], layer["healthy"], "{id}");
        let out = run(&bed, &["catalog", "show", id]);
        out.code(0);
        let text = stdout_of(&out);
        for c in v["detect"]
            .as_array()
            .into_iter()
            .chain(v["healthy"].as_array())
            .chain(v["host"]["checks"].as_array())
            .flatten()
        {
            let line = format!(
                "  - {:12}  {}",
                c["kind"].as_str().unwrap_or(""),
                c["check"].as_str().unwrap_or("")
            );
            assert!(text.contains(&line), "{id}: no {line:?} in\n{text}");
            if let Some(why) = c["why"].as_str() {
                assert!(text.contains(&format!("why: {why}")), "{id}: {text}");
            }
        }
    }
}

#[test]
fn show_ceph_and_gitops_in_words() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let text = stdout_of(&run(&bed, &["catalog", "show", "ceph"]));
    assert!(
        text.starts_with("layer     ceph (Rook-Ceph cluster)\nafter     cni\n"),
        "{text}"
    );
    assert!(
        text.contains("  - tolerate      every CephCluster in rook-ceph: .status.ceph.health = HEALTH_OK, or HEALTH_WARN whose every check in .status.ceph.details is benign (RECENT_MGR_MODULE_CRASH); not trusted when .status.ceph.lastChecked is older than 10m\n"),
        "{text}"
    );
    assert!(
        text.contains("  - count         at least as many Deployment rook-ceph/rook-ceph-mon-* as CephCluster in rook-ceph .spec.mon.count says (the operator's default 3 when it is absent)\n"),
        "{text}"
    );
    let text = stdout_of(&run(&bed, &["catalog", "show", "gitops"]));
    assert!(
        text.contains("  - all           every Application (none is fine): .status.sync.status = Synced; the ones that fail are named\n"),
        "{text}"
    );
    let text = stdout_of(&run(&bed, &["catalog", "show", "etcd-backup"]));
    assert!(
        text.contains("host (read over ssh on every host of inventory group control_plane; all true: healthy)\n  - unit          systemctl show etcd-snapshot.timer: loaded, active\n"),
        "{text}"
    );
}

#[test]
fn unknown_layer_is_exit_1_with_did_you_mean() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let before = bed.tree();
    let out = run(&bed, &["catalog", "show", "gitop"]);
    out.code(1);
    assert_eq!(
        stderr_of(&out),
        "kubectl-nestor: error: no layer `gitop` in the catalog (did you mean `gitops`?)\nhint: `kubectl nestor catalog list` shows the layer ids\n"
    );
    out.no_stdout();
    assert_eq!(bed.tree(), before, "nothing written");
}

/// The stack's `catalog:` file overrides a layer and adds one; both show, and the source
/// names the file.
#[test]
fn overrides_from_the_stacks_catalog_file_show() {
    let bed = Bed::new();
    std::fs::write(
        bed.stacks.join("layers.yaml"),
        "- id: registry\n  title: Harbor\n  after: [storage]\n  detect:\n    - namespace: harbor\n  healthy:\n    - workload: {kind: Deployment, namespace: harbor, namePrefix: harbor-}\n      why: every Harbor component rolled out\n  install: make harbor\n- id: vault\n  title: Vault\n  after: [certs]\n  detect:\n    - apiGroup: secrets.hashicorp.com\n  install: make vault\n",
    )
    .expect("write");
    bed.write_stack(
        "lab",
        "name: lab\ntarget_kind: prod\nnodes:\n  - { name: n1, role: control-plane }\nlayers: [k8s, registry, vault]\ncatalog: layers.yaml\n",
    );
    bed.select("lab");
    let v = json(&run(&bed, &["catalog", "list", "-o", "json"]));
    assert!(
        v["source"]["overrides"]
            .as_str()
            .unwrap_or("")
            .ends_with("stacks/layers.yaml"),
        "{v}"
    );
    let ids: Vec<&str> = v["layers"]
        .as_array()
        .expect("layers")
        .iter()
        .filter_map(|l| l["id"].as_str())
        .collect();
    assert_eq!(ids.last(), Some(&"vault"));
    let text = stdout_of(&run(&bed, &["catalog", "show", "registry"]));
    assert!(text.contains("layer     registry (Harbor)"), "{text}");
    assert!(text.contains("  - workload      Deployment harbor/harbor-*: at least one, each rolled out as `kubectl rollout status` says\n                  why: every Harbor component rolled out\n"), "{text}");
    assert!(text.contains("layers.yaml:1:3"), "{text}");
}

/// Without any stack (no stacks directory), the built-in catalog is shown, with a notice.
#[test]
fn without_a_stack_the_builtin_catalog_shows_with_a_notice() {
    let bed = Bed::new();
    let out = bed
        .cmd()
        .current_dir(bed.tmp.path())
        .args(["catalog", "list", "-o", "json"])
        .run();
    let v = json(&out);
    assert_eq!(v["source"]["stack"], Value::Null);
    out.stderr_has("showing the built-in catalog");
    // Naming a stack that does not exist is an error, not the built-in catalog.
    let out = run(&bed, &["--stack", "nope", "catalog", "list"]);
    out.code(1);
}

/// A host check's age bound reads as the catalog writes it (`maxAge: 26h`), not in seconds.
#[test]
fn show_words_the_age_bound_as_a_duration() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let out = run(&bed, &["catalog", "show", "etcd-backup"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    assert!(
        text.contains("/var/lib/etcd-backups/etcd-*.db younger than 26h and at least 1 byte(s)"),
        "{text}"
    );
    assert!(!text.contains("93600"), "{text}");
}

/// Ceph's capacity codes are never benign (SPEC §6 v0.4): a stack catalog that says so is
/// refused by every command that reads it, with the file position, and nothing is read or
/// written.
#[test]
fn a_capacity_code_on_the_benign_list_is_refused_exit_1() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    std::fs::write(
        bed.stacks.join("layers.yaml"),
        "- id: ceph\n  title: Rook-Ceph cluster\n  detect:\n    - apiGroup: ceph.rook.io\n  healthy:\n    - tolerate: {resource: cephclusters.ceph.rook.io, kind: CephCluster, namespace: rook-ceph, field: .status.ceph.health, ok: [HEALTH_OK], warn: HEALTH_WARN, details: .status.ceph.details, benign: [RECENT_MGR_MODULE_CRASH, OSD_NEARFULL]}\n  install: ansible-playbook platform/ceph.yaml\n",
    )
    .expect("write");
    let topology = PROD_DECLARED.replace("layers:", "catalog: layers.yaml\nlayers:");
    bed.write_stack("dirqual", &topology);
    let before = bed.tree();
    for args in [
        &["--stack", "dirqual", "catalog", "show", "ceph"][..],
        &["preview", "--no-input"],
    ] {
        let out = bed.stable(run(&bed, args));
        out.code(1);
        out.no_stdout();
        assert_eq!(
            stderr_of(&out),
            "kubectl-nestor: error: /t/repo/stacks/layers.yaml:6:5: [0].healthy: `benign: [OSD_NEARFULL]`: OSD_NEARFULL is a capacity warning and never benign (OSD_NEARFULL, OSD_BACKFILLFULL, OSD_FULL, POOL_NEARFULL, POOL_FULL): a cluster filling up is repaired, not tolerated; remove it from `benign:`\nhint: a catalog file is a YAML list of layers: `- id:`, `title:`, `after:`, `detect:`, `healthy:`, `install:`, `observable:`, `host:` (the built-in catalog, src/model/catalog/builtin.yaml, is the example)\n",
            "{args:?}"
        );
    }
    assert_eq!(bed.tree(), before, "nothing written");
    assert!(bed.requests().is_empty(), "{:?}", bed.requests());
}
