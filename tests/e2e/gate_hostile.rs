//! The gates under unusual answers (issue 49), through the real kubectl against the replay
//! server: a lab CephCluster listed before Rook's own never hides Rook's HEALTH_ERR (every
//! CephCluster is judged; v0.4 kept the first and said GO), and a `lastChecked` 400 days
//! in the future is no proof of freshness (CANNOT TELL naming the clock; v0.4 said GO), and
//! a `/readyz?verbose` whose lines and closing verdict disagree is CANNOT TELL.

use serde_json::{json, Value};

use crate::support::*;
use nestor_replay::{fixtures, Config};

/// `gate ARGS --no-ssh -o json` on `dirqual-gates` changed by `change`, exiting `code`.
fn gate_no_ssh(change: impl FnOnce(&mut Vec<Value>), args: &[&str], code: i32) -> Option<Value> {
    let mut all = args.to_vec();
    all.push("--no-ssh");
    gate_on(change, &all, code)
}

fn rook_ceph(objects: &mut [Value]) -> &mut Value {
    objects
        .iter_mut()
        .find(|o| o["kind"] == "CephCluster" && o["metadata"]["name"] == "rook-ceph")
        .expect("dirqual-gates has CephCluster rook-ceph/rook-ceph")
}

fn rule(v: &Value, id: &str) -> Value {
    rule_of(v, id)
}

#[test]
fn a_lab_ceph_cluster_listed_first_never_hides_rooks_health_err() {
    let change = |o: &mut Vec<Value>| {
        let mut lab = rook_ceph(o).clone();
        lab["metadata"]["namespace"] = json!("ceph-lab");
        lab["metadata"]["name"] = json!("lab");
        let own = rook_ceph(o);
        own["status"]["ceph"]["health"] = json!("HEALTH_ERR");
        own["status"]["ceph"]["details"] = json!({"MON_DOWN": {"severity": "HEALTH_ERR",
            "message": "1/3 mons down, quorum a,b"}});
        o.insert(0, lab);
    };
    let Some(v) = gate_no_ssh(change, &["drain", "dirqual4"], 2) else {
        return;
    };
    let r = rule(&v, "drain-ceph-health");
    assert_eq!(r["status"], "fails", "{r}");
    assert_eq!(
        r["findings"][0]["subject"], "CephCluster rook-ceph/rook-ceph",
        "{r}"
    );
    let Some(v) = gate_no_ssh(change, &["upgrade", "rook", "1.17"], 2) else {
        return;
    };
    assert_eq!(rule(&v, "rook-ceph-not-error")["status"], "fails", "{v}");
}

#[test]
fn a_ceph_status_checked_in_the_future_cannot_tell_never_go() {
    let Some(v) = gate_no_ssh(
        |o| {
            rook_ceph(o)["status"]["ceph"]["lastChecked"] = json!("2099-01-01T00:00:00Z");
        },
        &["drain", "dirqual4"],
        5,
    ) else {
        return;
    };
    assert_eq!(v["verdict"]["result"], "CANNOT TELL", "{v}");
    let r = rule(&v, "drain-ceph-health");
    assert_eq!(r["status"], "unknown", "{r}");
    assert!(
        r["note"]
            .as_str()
            .unwrap_or_default()
            .contains("in the future of this run's clock"),
        "{r}"
    );
}

/// Issue 49 item 4: `/readyz?verbose` passes only when every line passes and its closing
/// line agrees. Every line `[+]` but `readyz check failed` (and the reverse) is CANNOT TELL
/// naming the contradiction (v0.4 read the lines alone and said GO).
#[test]
fn a_readyz_that_contradicts_itself_cannot_tell_never_go() {
    for body in [
        "[+]ping ok\n[+]etcd ok\n[+]shutdown ok\nreadyz check failed\n",
        "[+]ping ok\n[-]etcd failed: reason withheld\nreadyz check passed\n",
        "[+]ping ok\n[+]etcd ok\n",
    ] {
        let fixture = fixtures::by_name("dirqual-gates").expect("dirqual-gates");
        let Some(bed) = E2e::with_config(Config::new(fixture).readyz_verbose(body)) else {
            return;
        };
        let r = bed.run(&[
            "gate",
            "upgrade",
            "kubernetes",
            "1.32",
            "--no-ssh",
            "--no-input",
            "-o",
            "json",
        ]);
        r.code(5);
        let v = r.json();
        assert_eq!(v["verdict"]["result"], "CANNOT TELL", "{body:?}: {v}");
        let readyz = rule(&v, "k8s-readyz");
        assert_eq!(readyz["status"], "unknown", "{body:?}: {readyz}");
        let note = readyz["note"].as_str().unwrap_or_default();
        assert!(
            note.contains("contradicts itself") || note.contains("without its verdict"),
            "{body:?}: {note}"
        );
        assert_read_only(&bed.server);
    }
}
