//! The JSON documents against their documentation (docs/output.md): every field path and
//! type that real output carries must be documented, and every documented field must show
//! up in at least one of the scenarios below. A renamed, added or removed field fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use serde_json::Value;

use snapbox::str;

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
// a serde Value: every shape but the expected ones is the same error.
#[allow(clippy::wildcard_enum_match_arm)]
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
    let v = serde_json::from_slice(&out.stdout_bytes).expect("json");
    crate::doc_schema::check(&v);
    v
}

#[test]
fn documents_match_docs_output_md() {
    let docs = documented();
    let mut samples: Vec<Value> = vec![];

    // Prod: present, degraded, absent and unknown layers, live and replayed.
    // Nodes: dirqual2 under DiskPressure, dirqual3 cordoned (`troubles`, `unschedulable`).
    let nodes = match Cluster::replay_read("node-disk-pressure", "nodes") {
        Answer::Ok(list) => {
            let mut v: Value = serde_json::from_str(&list).expect("a node list");
            v["items"][2]["spec"]["unschedulable"] = serde_json::json!(true);
            Answer::Ok(v.to_string())
        }
        Answer::Status(_) | Answer::Hang => panic!("node-disk-pressure serves nodes"),
    };
    let cluster = Cluster::dirqual()
        .with(
            "cephclusters.ceph.rook.io",
            Cluster::replay_read("degraded", "cephclusters.ceph.rook.io"),
        )
        .with("clusters.postgresql.cnpg.io", Answer::Status(403));
    let bed = Bed::dirqual("https://10.67.2.11:6443", &cluster);
    let troubled = Bed::dirqual(
        "https://10.67.2.11:6443",
        &Cluster::dirqual().with("nodes", nodes),
    );
    for args in [
        &["preview", "--no-input", "-o", "json"][..],
        &["discover", "-o", "json"],
        &["target", "--no-input", "-o", "json"],
    ] {
        samples.push(json(troubled.cmd().args(args).run()));
    }
    samples.push(json(
        bed.cmd()
            .args(["preview", "--no-input", "-o", "json"])
            .run(),
    ));
    // Warning Events quoted, one namespace's forbidden: `checks[].events`, `eventsNotRead`.
    let mut warned = Cluster::replay(
        &nestor_replay::fixtures::by_name("events-degraded").expect("events-degraded"),
    );
    warned
        .faults
        .push("/apis/events.k8s.io/v1/namespaces/monitoring/events=403".to_string());
    samples.push(json(
        Bed::dirqual("https://10.67.2.11:6443", &warned)
            .cmd()
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
        &["gate", "rules", "-o", "json"],
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
    out.stderr_snap(str![[r#"
kubectl-nestor: error: no stack `nope` in /t/repo/stacks
hint: stacks here: broken, dirqual, extra, withcatalog

"#]]);
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

    // The same documents as YAML are the same documents: validated alike.
    for args in [
        &["preview", "--no-input", "-o", "yaml"][..],
        &["stack", "list", "-o", "yaml"],
    ] {
        let out = bed.cmd().args(args).run();
        let v: Value = yaml_serde::from_str(&stdout_of(&out)).expect("a YAML document");
        samples.push(v);
    }

    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut errors = vec![];
    // Every sample against its kind's JSON Schema (docs/schema/KIND.json).
    for s in &samples {
        if let Err(e) = crate::doc_schema::validate(s) {
            errors.push(e);
        }
    }
    let kinds: BTreeSet<&str> = samples.iter().filter_map(|s| s["kind"].as_str()).collect();
    for kind in all_kinds() {
        // Gate: no command prints one until `gate drain|upgrade` read the cluster (issue 33);
        // output::gate's unit test validates a real-shaped one against this same schema.
        if kind != "Snapshot" && kind != "Gate" && !kinds.contains(kind.as_str()) {
            errors.push(format!("no sample of kind {kind} was validated"));
        }
    }
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

/// The kinds `kubectl nestor schema` lists, one a line.
fn all_kinds() -> Vec<String> {
    let out = Bed::new().cmd().arg("schema").run();
    out.code(0);
    out.stdout.lines().map(str::to_string).collect()
}

/// The committed `docs/schema/KIND.json` are what `kubectl nestor schema KIND` generates
/// from the types, one file per kind and no other; `SCHEMAS=overwrite` rewrites them.
#[test]
fn committed_schemas_are_the_generated_ones() {
    let bed = Bed::new();
    let dir = crate::doc_schema::dir();
    let overwrite = std::env::var_os("SCHEMAS").is_some_and(|v| v == "overwrite");
    let kinds = all_kinds();
    assert!(kinds.len() >= 14, "{kinds:?}");
    let mut stale = vec![];
    for kind in &kinds {
        let out = bed.cmd().args(["schema", kind]).run();
        out.code(0);
        let generated = out.stdout.clone();
        let schema: Value = serde_json::from_str(&generated).expect("a schema is JSON");
        assert_eq!(schema["properties"]["kind"]["const"], kind.as_str());
        jsonschema::meta::validate(&schema)
            .unwrap_or_else(|e| panic!("{kind}: not a valid JSON Schema: {e}"));
        let path = dir.join(format!("{kind}.json"));
        if overwrite {
            fs::create_dir_all(&dir).expect("mkdir docs/schema");
            fs::write(&path, &generated).expect("write schema");
            continue;
        }
        match fs::read_to_string(&path) {
            Ok(committed) if committed == generated => {}
            Ok(committed) => stale.push(format!(
                "{}: differs from `kubectl nestor schema {kind}`:\n{}",
                path.display(),
                crate::harness::diff(&committed, &generated)
            )),
            Err(e) => stale.push(format!("{}: {e}", path.display())),
        }
    }
    let files: BTreeSet<String> = fs::read_dir(&dir)
        .expect("docs/schema")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let want: BTreeSet<String> = kinds.iter().map(|k| format!("{k}.json")).collect();
    for extra in files.difference(&want) {
        stale.push(format!("docs/schema/{extra}: no such kind (remove it)"));
    }
    assert!(
        stale.is_empty(),
        "{}\n\nthe types changed: regenerate with `{}` and review `git diff docs/schema`",
        stale.join("\n"),
        crate::doc_schema::REGENERATE
    );
}

/// The validation can fail, and means something: a real document passes, and each way of
/// breaking it (an unknown field at the top and deep inside, a required field gone, a value
/// outside an enum, a wrong type, another kind's name) is caught.
#[test]
fn a_broken_document_fails_its_schema() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let out = bed
        .cmd()
        .args(["preview", "--no-input", "-o", "json"])
        .run();
    let good: Value = serde_json::from_slice(&out.stdout_bytes).expect("json");
    crate::doc_schema::validate(&good).expect("the real document is valid");
    type Break = fn(&mut Value);
    let breaks: [(&str, Break); 8] = [
        ("unknown top-level field", |v| {
            v["surprise"] = Value::from(true)
        }),
        ("unknown field in a layer", |v| {
            v["real"]["layers"][0]["verdict"] = Value::from("ok")
        }),
        ("unknown field in the flattened plan", |v| {
            v["plan"]["delete"] = serde_json::json!([])
        }),
        ("required field removed", |v| {
            if let Some(m) = v["real"].as_object_mut() {
                m.remove("layers");
            }
        }),
        ("nestorVersion removed", |v| {
            if let Some(m) = v.as_object_mut() {
                m.remove("nestorVersion");
            }
        }),
        ("state outside its enum", |v| {
            v["real"]["layers"][0]["state"] = Value::from("missing")
        }),
        ("wrong type", |v| {
            v["real"]["nodes"]["ready"] = Value::from("4")
        }),
        ("another kind's name", |v| {
            v["kind"] = Value::from("Discovery")
        }),
    ];
    for (what, f) in breaks {
        let mut bad = good.clone();
        f(&mut bad);
        assert_ne!(bad, good, "{what}: the break changed nothing");
        // Validated against Preview's schema whatever `kind` now says.
        let mut as_preview = bad.clone();
        if what == "another kind's name" {
            let e = crate::doc_schema::validate(&bad);
            assert!(e.is_err(), "{what}: passed");
            as_preview["kind"] = Value::from("Preview");
            let schema: Value = serde_json::from_str(
                &fs::read_to_string(crate::doc_schema::dir().join("Preview.json")).expect("read"),
            )
            .expect("json");
            let v = jsonschema::validator_for(&schema).expect("schema");
            assert!(
                !v.is_valid(&bad),
                "{what}: Preview's schema took kind Discovery"
            );
            continue;
        }
        let e = crate::doc_schema::validate(&as_preview);
        assert!(e.is_err(), "{what}: a broken document passed");
    }
}

/// `schema` lists the kinds; `schema KIND` prints a JSON Schema (YAML with `-o yaml`); an
/// unknown KIND is a usage error in the two-line form, exit 1, nothing on stdout.
#[test]
fn schema_prints_a_kind_and_refuses_an_unknown_one() {
    let bed = Bed::new();
    let kinds = all_kinds();
    for k in [
        "Preview",
        "PreviewList",
        "Error",
        "Snapshot",
        "StackCurrent",
    ] {
        assert!(kinds.iter().any(|x| x == k), "{k} not in {kinds:?}");
    }
    let out = bed.cmd().args(["schema", "Error"]).run();
    out.code(0);
    let s: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(s["title"], "nestor/v1 Error");
    let out = bed.cmd().args(["schema", "Error", "-o", "yaml"]).run();
    out.code(0);
    let y: Value = yaml_serde::from_str(&out.stdout).expect("YAML");
    assert_eq!(y, s);

    let out = bed.cmd().args(["schema", "Previews"]).run();
    out.code(1).no_stdout().stderr_has_hint();
    out.stderr_has("invalid value 'Previews'")
        .stderr_has("Preview")
        .stderr_has("schema --help");
    assert_eq!(out.stderr.lines().count(), 2, "{}", out.stderr);
}

/// The committed example snapshot (the README's demo) is a valid `Snapshot`.
#[test]
fn the_example_snapshot_is_a_valid_snapshot() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/demo/dirqual.snapshot.json"
    );
    let v: Value = serde_json::from_str(&fs::read_to_string(path).expect("read")).expect("json");
    assert_eq!(v["kind"], "Snapshot");
    crate::doc_schema::validate(&v).unwrap_or_else(|e| panic!("{path}: {e}"));
}
