//! `diff A B` (SPEC §14) through the real kubectl: two snapshots saved from a replay server
//! whose cluster changed between them (`discover --save`, then `preview --save`), a snapshot
//! against a live read, and the refusal of observations of different endpoints.

use std::fs;

use nestor_replay::{fixtures, Config, Fixture, Server};
use serde_json::{json, Value};

use crate::bed_or_skip;
use snapbox::str;

use crate::harness::text_snap;
use crate::support::*;

/// dirqual, later: dirqual3 NotReady and Ceph HEALTH_WARN (the `degraded` fixture), dirqual4
/// gone, dirqual5 joined, dirqual1's kubelet upgraded to v1.32.0.
fn later() -> Fixture {
    let mut f = fixtures::degraded();
    let mut joined = None;
    f.objects
        .retain(|o| !(o["kind"] == "Node" && o["metadata"]["name"] == "dirqual4"));
    for o in f.objects.iter_mut().filter(|o| o["kind"] == "Node") {
        if o["metadata"]["name"] == "dirqual1" {
            o["status"]["nodeInfo"]["kubeletVersion"] = json!("v1.32.0");
        }
        if o["metadata"]["name"] == "dirqual2" {
            let mut n = o.clone();
            n["metadata"]["name"] = json!("dirqual5");
            n["metadata"]["uid"] = json!("5d1f0c6e-0000-4000-8000-000000000005");
            joined = Some(n);
        }
    }
    f.objects.extend(joined);
    f
}

/// A bed whose cluster becomes [`later`] once [`change`] was called: the stage moves on a
/// GET of `/healthz`, which nestor never sends, so the change falls between two commands.
fn changing() -> Option<E2e> {
    E2e::with_config(
        Config::new(fixtures::dirqual())
            .stage_path("/healthz")
            .then_after(1, later()),
    )
}

/// Move the bed's cluster to its later stage.
fn change(bed: &E2e) {
    use std::io::{Read, Write};
    let mut c = std::net::TcpStream::connect(bed.server.addr()).expect("connect");
    c.write_all(b"GET /healthz HTTP/1.1\r\nHost: replay\r\nConnection: close\r\n\r\n")
        .expect("write");
    let mut answer = String::new();
    let _ = c.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert_eq!(bed.server.stage_count(), 1);
}

fn path(bed: &E2e, name: &str) -> String {
    bed.tmp.path().join(name).display().to_string()
}

#[test]
fn diff_of_two_saved_snapshots_names_every_change() {
    let bed = bed_or_skip!(changing());
    let (a, b) = (path(&bed, "a.json"), path(&bed, "b.json"));
    let saved = bed.run(&["discover", "--save", &a]);
    saved.code(0);
    change(&bed);
    let saved = bed.run(&["preview", "--save", &b]);
    saved.code(0);
    saved.stderr_snap(str![[r#"
kubectl-nestor: snapshot saved to /t/b.json

"#]]);
    let snap: Value = serde_json::from_str(&fs::read_to_string(&b).expect("read")).expect("json");
    crate::doc_schema::check(&snap);
    assert_eq!(snap["kind"], "Snapshot");
    assert_eq!(snap["target"]["endpoint"], bed.server.url());

    let out = bed.run(&["diff", &a, &b]);
    out.code(0);
    let text = &out.stdout;
    for line in [
        "NODES",
        "  + dirqual5  added",
        "  - dirqual4  removed",
        "  ~ dirqual3  Ready -> NotReady",
        "  ~ dirqual1  kubelet v1.31.4 -> v1.32.0",
        "LAYERS",
        "  k8s  present -> degraded",
        "  ceph  present -> degraded",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "no line `{line}` in\n{text}"
        );
    }
    // The whole diff, the evidence that appeared (`      + ...`) included.
    out.stdout_snap(str![[r#"
A  snapshot /t/a.json (taken NOW), http://127.0.0.1:PORT
B  snapshot /t/b.json (taken NOW), http://127.0.0.1:PORT

NODES
  + dirqual5  added
  - dirqual4  removed
  ~ dirqual3  Ready -> NotReady
  ~ dirqual1  kubelet v1.31.4 -> v1.32.0

LAYERS
  k8s  present -> degraded
      - 4/4 declared nodes Ready
      - 4 nodes with distinct InternalIPs
      - 4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)
      + 2/4 declared nodes Ready: dirqual3 NotReady, dirqual4 not registered
      + InternalIP shared: dirqual2, dirqual5 all announce 10.67.2.12
      + 3/3 Ready nodes schedulable (no pressure, cordon or unexpected taint)
  ceph  present -> degraded
      - CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK
      - 4/4 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0, rook-ceph-osd-1, rook-ceph-osd-2, rook-ceph-osd-3)
      + CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: OSD_DOWN (1 osds down), OSD_HOST_DOWN (1 host (1 osds) down), PG_DEGRADED (Degraded data redundancy: 2461/7383 objects degraded (33.333%), 97 pgs degraded, 97 pgs undersized) not on the benign list (RECENT_MGR_MODULE_CRASH)
      + 3/4 Deployment rook-ceph/rook-ceph-osd-* rolled out; Deployment rook-ceph/rook-ceph-osd-2: rollout in progress: 0/1 updated available
  storage  present -> degraded
      - CSIDriver rook-ceph.rbd.csi.ceph.com registered on 4/4 nodes
      + CSIDriver rook-ceph.rbd.csi.ceph.com registered on 3/4 nodes; not in the CSINode of: dirqual5

"#]]);
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.starts_with("A  snapshot ")),
        "{text}"
    );

    let v = bed.run(&["diff", &a, &b, "-o", "json"]).json();
    assert_eq!(v["kind"], "Diff");
    assert_eq!(v["changed"], true);
    assert_eq!(v["nodes"]["added"], json!(["dirqual5"]));
    assert_eq!(v["nodes"]["removed"], json!(["dirqual4"]));
    assert_eq!(
        v["nodes"]["readyChanged"],
        json!([{"name": "dirqual3", "from": true, "to": false}])
    );
    assert_eq!(
        v["nodes"]["kubeletChanged"],
        json!([{"name": "dirqual1", "from": "v1.31.4", "to": "v1.32.0"}])
    );
    let ceph = v["layers"]
        .as_array()
        .and_then(|l| l.iter().find(|c| c["id"] == "ceph"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        (ceph["from"].clone(), ceph["to"].clone()),
        (json!("present"), json!("degraded"))
    );
    // Every evidence line ceph gained, HEALTH_WARN's among them.
    text_snap(
        &serde_json::to_string_pretty(&ceph["evidenceAdded"]).unwrap_or_default(),
        str![[r#"
[
  "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: OSD_DOWN (1 osds down), OSD_HOST_DOWN (1 host (1 osds) down), PG_DEGRADED (Degraded data redundancy: 2461/7383 objects degraded (33.333%), 97 pgs degraded, 97 pgs undersized) not on the benign list (RECENT_MGR_MODULE_CRASH)",
  "3/4 Deployment rook-ceph/rook-ceph-osd-* rolled out; Deployment rook-ceph/rook-ceph-osd-2: rollout in progress: 0/1 updated available"
]
"#]],
    );
    // The other way round, the changes are mirrored.
    let back = bed.run(&["diff", &b, &a, "-o", "json"]).json();
    assert_eq!(back["nodes"]["added"], json!(["dirqual4"]));
    // A snapshot against itself: no change.
    let same = bed.run(&["diff", &a, &a]);
    same.code(0);
    same.stdout_snap(str![[r#"
A  snapshot /t/a.json (taken NOW), http://127.0.0.1:PORT
B  snapshot /t/a.json (taken NOW), http://127.0.0.1:PORT
no change: same nodes, every layer in the same state with the same evidence

"#]]);
}

#[test]
fn diff_of_a_snapshot_and_a_live_read() {
    let bed = bed_or_skip!(changing());
    let a = path(&bed, "a.json");
    assert_eq!(bed.run(&["discover", "--save", &a]).code, Some(0));
    change(&bed);
    let out = bed.run(&["diff", &a, "-", "-o", "json"]);
    out.code(0);
    let v = out.json();
    assert_eq!(v["a"]["source"], "snapshot");
    assert_eq!(v["b"]["source"], "live");
    assert!(v["b"]["file"].is_null());
    assert_eq!(v["b"]["endpoint"], bed.server.url());
    assert_eq!(v["nodes"]["removed"], json!(["dirqual4"]));
    assert_eq!(
        v["nodes"]["readyChanged"],
        json!([{"name": "dirqual3", "from": true, "to": false}])
    );
    // Live first: the changes read the other way.
    let v = bed.run(&["diff", "-", &a, "-o", "json"]).json();
    assert_eq!(v["a"]["source"], "live");
    assert_eq!(v["nodes"]["added"], json!(["dirqual4"]));
    // A snapshot of the cluster as it is now: nothing changed.
    let b = path(&bed, "b.json");
    assert_eq!(bed.run(&["preview", "--save", &b]).code, Some(0));
    let out = bed.run(&["diff", &b, "-"]);
    out.code(0);
    out.stdout_has("no change: ");
}

#[test]
fn diff_refuses_observations_of_different_endpoints_unless_forced() {
    let bed = bed_or_skip!(E2e::dirqual());
    let other = Server::start(Config::new(fixtures::degraded())).expect("other server");
    let (a, o) = (path(&bed, "a.json"), path(&bed, "other.json"));
    assert_eq!(bed.run(&["discover", "--save", &a]).code, Some(0));
    let other_kc = bed.kubeconfig_for(&bed.tmp.path().join("other.config"), &other.url());
    // `discover --kubeconfig` with no stack reads that file's cluster (with the dirqual stack
    // active, the endpoint policy refuses another cluster: SPEC §5); the snapshot records
    // where it came from.
    std::fs::remove_file(bed.stacks.join("current.yaml")).expect("unselect");
    let saved = bed.run(&[
        "--kubeconfig",
        other_kc.to_str().unwrap_or_default(),
        "discover",
        "--save",
        &o,
    ]);
    bed.select("dirqual");
    saved.code(0);

    let out = run(bed
        .command(&["diff", &a, &o])
        .redact(other.url(), "http://127.0.0.1:OTHER-PORT"));
    out.error(3, "observations of different clusters");
    out.stderr_snap(str![[r#"
kubectl-nestor: error: A was read from http://127.0.0.1:PORT, B from http://127.0.0.1:OTHER-PORT: observations of different clusters
hint: compare observations of one cluster, or pass --force to compare them anyway

"#]]);
    let forced = bed.run(&["diff", &a, &o, "--force", "-o", "json"]);
    forced.code(0);
    assert_eq!(forced.json()["endpointsDiffer"], true);
    let text = run(bed
        .command(&["diff", &a, &o, "--force"])
        .redact(other.url(), "http://127.0.0.1:OTHER-PORT"));
    // `WARNING: A and B are of different endpoints`, then the differences.
    text.stdout_snap(str![[r#"
A  snapshot /t/a.json (taken NOW), http://127.0.0.1:PORT
B  snapshot /t/other.json (taken NOW), http://127.0.0.1:OTHER-PORT
WARNING: A and B are of different endpoints (--force)

NODES
  ~ dirqual3  Ready -> NotReady

LAYERS
  k8s  present -> degraded
      - 4/4 declared nodes Ready
      - 4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)
      + 3/4 declared nodes Ready: dirqual3 NotReady
      + 3/3 Ready nodes schedulable (no pressure, cordon or unexpected taint)
  ceph  present -> degraded
      - CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK
      - 4/4 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0, rook-ceph-osd-1, rook-ceph-osd-2, rook-ceph-osd-3)
      + CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: OSD_DOWN (1 osds down), OSD_HOST_DOWN (1 host (1 osds) down), PG_DEGRADED (Degraded data redundancy: 2461/7383 objects degraded (33.333%), 97 pgs degraded, 97 pgs undersized) not on the benign list (RECENT_MGR_MODULE_CRASH)
      + 3/4 Deployment rook-ceph/rook-ceph-osd-* rolled out; Deployment rook-ceph/rook-ceph-osd-2: rollout in progress: 0/1 updated available

"#]]);

    // A snapshot of another cluster against a live read of this stack: refused before any
    // request reaches either cluster.
    bed.server.clear_audit();
    let out = bed.run(&["diff", &o, "-"]);
    out.error(3, "observations of different clusters");
    assert!(bed.server.audit().is_empty(), "nothing read");

    // Bad input: exit 1, nothing written.
    let not_snap = path(&bed, "not-a-snapshot.json");
    fs::write(&not_snap, "{\"kind\": \"Preview\"}").expect("write");
    let before = bed.tree();
    bed.run(&["diff", "-", "-"])
        .error(1, "diff - - would compare a live read with itself");
    bed.run(&["diff", &a, &not_snap])
        .error(1, "not a nestor snapshot");
    bed.run(&["diff", &a, &path(&bed, "missing.json")])
        .error(1, "cannot read snapshot");
    assert!(bed.tree() == before, "nothing written");
    assert_read_only(&other);
}

#[test]
fn preview_save_is_refused_with_snapshot_and_for_lima() {
    let bed = bed_or_skip!(E2e::dirqual());
    let a = path(&bed, "a.json");
    let out = bed.run(&["preview", "--save", &a, "--snapshot", &a]);
    out.code(1);
    bed.write_stack(
        "bench",
        "name: bench\ntarget_kind: lima\nnodes:\n  - { name: node1, role: control-plane }\nlayers: [k8s]\n",
    );
    let out = bed.run(&["--stack", "bench", "preview", "--save", &a]);
    out.error(
        1,
        "stack bench is a lima bench: --save writes prod observations only",
    );
    assert!(!std::path::Path::new(&a).exists());
}

/// docs/fleet.md's `diff` lines, as written, through `sh`: a snapshot today, a diff a day
/// later, and the scripted form that exits 2 when something changed (`|| [ $? = 2 ]` makes
/// that line succeed only on 0 or 2), with the document it writes.
#[test]
fn the_readme_diff_lines_run_as_written() {
    let bed = bed_or_skip!(changing());
    let lines = doc_block(
        "docs/fleet.md",
        "## `diff`: what changed since the last observation",
    );
    assert_eq!(lines.len(), 3, "{lines:?}");
    let r = bed.sh(&lines[0]);
    assert_eq!(r.code, Some(0), "{}: {r:?}", lines[0]);
    assert!(bed.repo.join("yesterday.json").is_file());
    // Nothing changed yet: 0, with and without --detailed-exitcode.
    let r = bed.sh(&lines[1]);
    assert_eq!(r.code, Some(0), "{}: {r:?}", lines[1]);
    r.stdout_snap(str![[r#"
A  snapshot /t/repo/yesterday.json (taken NOW), http://127.0.0.1:PORT
B  live read (NOW), http://127.0.0.1:PORT
no change: same nodes, every layer in the same state with the same evidence

"#]]);
    let unchanged = bed.run(&["diff", "yesterday.json", "-", "--detailed-exitcode"]);
    assert_eq!(unchanged.code, Some(0), "{unchanged:?}");
    // A day later the cluster changed: the scripted line sees 2 and accepts it.
    change(&bed);
    let r = bed.sh(&lines[2]);
    assert_eq!(r.code, Some(0), "{}: {r:?}", lines[2]);
    let v: Value = serde_json::from_str(
        &fs::read_to_string(bed.repo.join("changes.json")).expect("changes.json"),
    )
    .expect("json");
    crate::doc_schema::check(&v);
    assert_eq!(v["kind"], "Diff");
    assert_eq!(v["changed"], true);
    let changed = bed.run(&["diff", "yesterday.json", "-", "--detailed-exitcode"]);
    assert_eq!(changed.code, Some(2), "{changed:?}");
    changed.stdout_snap(str![[r#"
A  snapshot /t/repo/yesterday.json (taken NOW), http://127.0.0.1:PORT
B  live read (NOW), http://127.0.0.1:PORT

NODES
  + dirqual5  added
  - dirqual4  removed
  ~ dirqual3  Ready -> NotReady
  ~ dirqual1  kubelet v1.31.4 -> v1.32.0

LAYERS
  k8s  present -> degraded
      - 4/4 declared nodes Ready
      - 4 nodes with distinct InternalIPs
      - 4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)
      + 2/4 declared nodes Ready: dirqual3 NotReady, dirqual4 not registered
      + InternalIP shared: dirqual2, dirqual5 all announce 10.67.2.12
      + 3/3 Ready nodes schedulable (no pressure, cordon or unexpected taint)
  ceph  present -> degraded
      - CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK
      - 4/4 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0, rook-ceph-osd-1, rook-ceph-osd-2, rook-ceph-osd-3)
      + CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: OSD_DOWN (1 osds down), OSD_HOST_DOWN (1 host (1 osds) down), PG_DEGRADED (Degraded data redundancy: 2461/7383 objects degraded (33.333%), 97 pgs degraded, 97 pgs undersized) not on the benign list (RECENT_MGR_MODULE_CRASH)
      + 3/4 Deployment rook-ceph/rook-ceph-osd-* rolled out; Deployment rook-ceph/rook-ceph-osd-2: rollout in progress: 0/1 updated available
  storage  present -> degraded
      - CSIDriver rook-ceph.rbd.csi.ceph.com registered on 4/4 nodes
      + CSIDriver rook-ceph.rbd.csi.ceph.com registered on 3/4 nodes; not in the CSINode of: dirqual5

"#]]);
    // And a failure is not a change: a missing file is 1, which the scripted form rejects.
    let r = bed.sh(&lines[2].replace("yesterday.json", "nonexistent.json"));
    assert_eq!(r.code, Some(1), "{r:?}");
}
