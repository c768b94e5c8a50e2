//! The JSON documents against their documentation (docs/output.md): every field path and
//! type that real output carries must be documented, and every documented field must show
//! up in at least one of the scenarios below. A renamed, added or removed field fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use serde_json::Value;

use crate::support::*;

/// kind → (path → allowed types), read from the markdown tables.
fn documented() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let text = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/output.md"))
        .expect("docs/output.md");
    let mut kinds = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(kind) = line.strip_prefix("## kind: ") {
            current = Some(kind.trim().to_string());
            continue;
        }
        let Some(kind) = &current else { continue };
        let line = line.replace("\\|", "\u{1}");
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || !cells[1].starts_with('`') {
            continue;
        }
        let path = cells[1].trim_matches('`').to_string();
        let types = cells[2]
            .split('\u{1}')
            .map(|t| t.trim().to_string())
            .collect();
        kinds
            .entry(kind.clone())
            .or_insert_with(BTreeMap::new)
            .insert(path, types);
    }
    kinds
}

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Walk `v`, checking each field against `doc` and collecting the paths seen.
fn walk(
    v: &Value,
    path: &str,
    doc: &BTreeMap<String, BTreeSet<String>>,
    seen: &mut BTreeSet<String>,
    errors: &mut Vec<String>,
) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match doc.get(&p) {
                    None => errors.push(format!("undocumented field `{p}`")),
                    Some(types) if !types.contains(type_of(x)) => errors.push(format!(
                        "`{p}` is {} but documented as {types:?}",
                        type_of(x)
                    )),
                    Some(_) => {}
                }
                seen.insert(p.clone());
                let opaque = !doc
                    .keys()
                    .any(|d| d.starts_with(&format!("{p}.")) || d.starts_with(&format!("{p}[]")));
                if !opaque {
                    walk(x, &p, doc, seen, errors);
                }
            }
        }
        Value::Array(items) => {
            for x in items {
                walk(x, &format!("{path}[]"), doc, seen, errors);
            }
        }
        _ => {}
    }
}

fn json(out: Outcome) -> Value {
    assert!(
        matches!(out.status.code(), Some(0) | Some(2)),
        "{}",
        stderr_of(&out)
    );
    serde_json::from_slice(&out.stdout_bytes).expect("json")
}

#[test]
fn documents_match_docs_output_md() {
    let docs = documented();
    let mut samples: Vec<Value> = vec![];

    // Prod: present, degraded, absent and unknown layers, live and replayed.
    let cluster = Cluster::dirqual()
        .with(
            "cephclusters.ceph.rook.io",
            Cluster::replay_read("degraded", "cephclusters.ceph.rook.io"),
        )
        .with(
            "clusters.postgresql.cnpg.io",
            Answer::Fail("Error from server (Forbidden): forbidden\n".into()),
        );
    let bed = Bed::dirqual("https://10.67.2.11:6443", &cluster);
    samples.push(json(
        bed.cmd()
            .args(["preview", "--no-input", "-o", "json"])
            .run(),
    ));
    // `--explain`: `real.layers[].explain`.
    samples.push(json(
        bed.cmd()
            .args(["preview", "--no-input", "--explain", "-o", "json"])
            .run(),
    ));
    let snap = bed.tmp.path().join("s.json");
    let snap_arg = snap.to_str().unwrap_or_default();
    samples.push(json(
        bed.cmd()
            .args(["discover", "-o", "json", "--save", snap_arg])
            .run(),
    ));
    samples
        .push(serde_json::from_str(&fs::read_to_string(&snap).expect("snapshot")).expect("json"));
    samples.push(json(
        bed.cmd()
            .args(["preview", "-o", "json", "--snapshot", snap_arg])
            .run(),
    ));
    // A host-level layer replayed from a snapshot holding host results (one host read, one
    // unreachable): `real.layers[].hosts`.
    let mut with_hosts: Value =
        serde_json::from_str(&fs::read_to_string(&snap).expect("snapshot")).expect("json");
    with_hosts["observation"]["hosts"] = serde_json::json!({
        "groups": {"control_plane": {"ok": ["dirqual1", "dirqual2"]}},
        "hosts": {
            "dirqual1": {"ok": {"checks": {
                "unit etcd-snapshot.timer": {"ok": {"unit": {"loadState": "loaded", "activeState": "active", "subState": "waiting", "result": "success"}}},
                "unit etcd-snapshot.service": {"ok": {"unit": {"loadState": "loaded", "activeState": "failed", "subState": "failed", "result": "exit-code", "execMainStatus": 127}}},
                "newestFile /var/lib/etcd-backups/etcd-*.db": {"ok": {"newestFile": {"dirExists": true, "matching": 1, "newest": {"name": "etcd-1.db", "ageSecs": 777600, "size": 24000}}}}
            }}},
            "dirqual2": {"failed": {"kind": "Unreachable", "message": "unreachable over ssh (ssh: connect to host 10.67.2.12 port 22: Connection refused)"}}
        }
    });
    let snap_hosts = bed.tmp.path().join("s-hosts.json");
    fs::write(&snap_hosts, with_hosts.to_string()).expect("write");
    bed.write_stack(
        "dirqual",
        &PROD_DECLARED.replace("certs]", "certs, etcd-backup]"),
    );
    let replayed = json(
        bed.cmd()
            .args(["preview", "-o", "json", "--snapshot"])
            .arg(&snap_hosts)
            .run(),
    );
    let etcd = replayed["real"]["layers"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["id"] == "etcd-backup"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(etcd["state"], "degraded", "{etcd}");
    assert_eq!(etcd["hosts"][1]["verdict"], "unknown", "{etcd}");
    samples.push(replayed);
    bed.write_stack("dirqual", PROD_DECLARED);
    samples.push(json(bed.cmd().args(["target", "-o", "json"]).run()));
    samples.push(json(bed.cmd().args(["stack", "show", "-o", "json"]).run()));
    samples.push(json(
        bed.cmd().args(["stack", "current", "-o", "json"]).run(),
    ));
    // The active stack gone, a stack named by NESTOR_STACK: `active` is null.
    let current = bed.stacks.join("current.yaml");
    let link = fs::read_link(&current).expect("current.yaml");
    fs::remove_file(&current).expect("rm");
    samples.push(json(
        bed.cmd()
            .env("NESTOR_STACK", "dirqual")
            .args(["stack", "current", "-o", "json"])
            .run(),
    ));
    std::os::unix::fs::symlink(link, &current).expect("symlink");
    bed.write_stack("withcatalog", "name: withcatalog\ntarget_kind: lima\ncontrol_group: cp\ncatalog: extra.yaml\nlima: {instance_prefix: b-}\n");
    fs::write(bed.stacks.join("extra.yaml"), "").expect("write");
    samples.push(json(
        bed.cmd()
            .args(["stack", "show", "withcatalog", "-o", "json"])
            .run(),
    ));
    for args in [
        &["catalog", "list", "-o", "json"][..],
        &["catalog", "show", "ceph", "-o", "json"],
        &["catalog", "show", "etcd-backup", "-o", "json"],
    ] {
        samples.push(json(bed.cmd().args(args).run()));
    }
    samples.push(json(bed.cmd().args(["version", "-o", "json"]).run()));
    bed.write_stack("broken", "name: broken\ntarget_kind: prod\nbad: 1\n");
    let out = bed.cmd().args(["stack", "list", "-o", "json"]).run();
    samples.push(serde_json::from_slice(&out.stdout_bytes).expect("json"));

    // An error with -o json: the Error document on stdout, the two lines on stderr.
    let out = bed
        .cmd()
        .args(["--stack", "nope", "preview", "-o", "json"])
        .run();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("\nhint: "), "{}", stderr_of(&out));
    samples.push(serde_json::from_slice(&out.stdout_bytes).expect("an Error document"));

    // wait: reached at the first poll.
    samples.push(json(
        bed.cmd()
            .args([
                "wait",
                "--for=healthy",
                "k8s",
                "--timeout",
                "5s",
                "-o",
                "json",
            ])
            .run(),
    ));

    // diff: the saved snapshot against an edited copy (a node gone, one added, one NotReady,
    // one upgraded), so every list of the document holds an element.
    let mut later: Value =
        serde_json::from_str(&fs::read_to_string(&snap).expect("snapshot")).expect("json");
    if let Some(nodes) = later["observation"]["nodes"]["ok"].as_array_mut() {
        nodes.retain(|n| n["name"] != "dirqual4");
        nodes[0]["kubeletVersion"] = Value::from("v1.32.0");
        nodes[1]["ready"] = Value::from(false);
        let mut extra = nodes[2].clone();
        extra["name"] = Value::from("dirqual5");
        nodes.push(extra);
    }
    let snap2 = bed.tmp.path().join("s2.json");
    fs::write(&snap2, serde_json::to_string(&later).expect("encode")).expect("write");
    let diff = json(
        bed.cmd()
            .args([
                "diff",
                snap_arg,
                snap2.to_str().unwrap_or_default(),
                "-o",
                "json",
            ])
            .run(),
    );
    assert_eq!(
        diff["nodes"]["removed"],
        serde_json::json!(["dirqual4"]),
        "{diff}"
    );
    samples.push(diff);

    // The fleet: a read stack, an invalid one (error), a lima bench without kubeconfig, and
    // two prod stacks declaring one endpoint.
    bed.write_stack(
        "dirqual-copy",
        "name: dirqual-copy\ntarget_kind: prod\nendpoint: https://10.67.2.11:6443\n",
    );
    let out = bed.cmd().args(["preview", "--all", "-o", "json"]).run();
    out.code(3);
    samples.push(serde_json::from_slice(&out.stdout_bytes).expect("json"));

    // Lima: every VM status, Kubernetes skipped.
    let lima = Bed::new();
    lima.write_stack("bench", LIMA_BENCH.replace("node3, role: worker }", "node3, role: worker }\n  - { name: node4, role: worker }\n  - { name: node5, role: worker }").as_str());
    lima.select("bench");
    lima.limactl_listing(concat!(
        r#"{"name":"node1","status":"Running","dir":"/Users/op/.lima/node1","vmType":"vz","arch":"aarch64","cpus":4,"memory":8589934592,"disk":107374182400,"sshLocalPort":60022}"#, "\n",
        r#"{"name":"node2","status":"Stopped","dir":"/Users/op/.lima/node2","vmType":"vz","arch":"aarch64","cpus":4,"memory":8589934592,"disk":107374182400}"#, "\n",
        r#"{"name":"node4","status":"Broken","dir":"/Users/op/.lima/node4","vmType":"vz","arch":"aarch64","errors":["open /Users/op/.lima/node4/lima.yaml: no such file or directory"]}"#, "\n",
        r#"{"name":"node5","status":"Installing","dir":"/Users/op/.lima/node5","vmType":"vz","arch":"aarch64"}"#, "\n",
    ));
    samples.push(json(lima.cmd().args(["preview", "-o", "json"]).run()));

    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut errors = vec![];
    for s in &samples {
        let kind = s["kind"].as_str().unwrap_or("?").to_string();
        let Some(doc) = docs.get(&kind) else {
            errors.push(format!("kind {kind} is not documented"));
            continue;
        };
        walk(s, "", doc, seen.entry(kind).or_default(), &mut errors);
    }
    for (kind, doc) in &docs {
        let got = seen.get(kind).cloned().unwrap_or_default();
        for path in doc.keys() {
            if !got.contains(path) {
                errors.push(format!(
                    "{kind}: documented `{path}` never appeared in output"
                ));
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// The checker itself can fail: an undocumented field and a wrong type are caught.
#[test]
fn schema_checker_catches_drift() {
    let docs = documented();
    let doc = &docs["Target"];
    let mut seen = BTreeSet::new();
    let mut errors = vec![];
    let bad = serde_json::json!({"apiVersion": "nestor/v1", "kind": "Target", "rule": 3, "surprise": true});
    walk(&bad, "", doc, &mut seen, &mut errors);
    assert!(
        errors
            .iter()
            .any(|e| e.contains("undocumented field `surprise`")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("`rule` is integer")),
        "{errors:?}"
    );
}
