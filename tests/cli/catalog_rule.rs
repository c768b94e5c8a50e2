//! Issue 33: `catalog show RULE` shows one gate rule of the built-in table — its severity,
//! gate, reads (and whether over ssh) and its upstream source — as text and as the
//! `GateRules` document with that one rule; a layer id still shows the layer, and an id that
//! is neither is the same usage error as before.

use crate::support::*;

#[test]
fn catalog_show_a_gate_rule_as_text_and_as_a_document() {
    let bed = Bed::new();
    let out = bed.cmd().args(["catalog", "show", "drain-time-sync"]).run();
    out.code(0);
    out.stdout_eq(
        "rule      drain-time-sync (blocker, gate drain)
title     time is synchronised on every node that stays (timedatectl show NTPSynchronized=yes)
reads     host-time-sync, nodes (over ssh; skipped by --no-ssh)
source    Ceph: MON_CLOCK_SKEW health check
          https://docs.ceph.com/en/latest/rados/operations/health-checks/#mon-clock-skew
",
    );

    let out = bed
        .cmd()
        .args(["catalog", "show", "k8s-one-minor", "-o", "json"])
        .run();
    out.code(0);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout_bytes).expect("json");
    crate::doc_schema::check(&v);
    assert_eq!(v["kind"], "GateRules");
    let rules = v["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), 1, "{v}");
    assert_eq!(rules[0]["id"], "k8s-one-minor");
    assert_eq!(rules[0]["gate"], "upgrade-kubernetes");
    assert_eq!(rules[0]["host"], false);
    // The same rule as `gate rules -o json` lists it.
    let all = bed.cmd().args(["gate", "rules", "-o", "json"]).run();
    let all: serde_json::Value = serde_json::from_slice(&all.stdout_bytes).expect("json");
    let listed = all["rules"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["id"] == "k8s-one-minor").cloned());
    assert_eq!(listed.as_ref(), Some(&rules[0]));

    // Neither a layer nor a rule: the layer error, unchanged, nothing on stdout.
    let out = bed.cmd().args(["catalog", "show", "drain-time-synk"]).run();
    out.code(1);
    out.no_stdout();
    assert_eq!(
        stderr_of(&out).lines().last(),
        Some("hint: `kubectl nestor catalog list` shows the layer ids")
    );
}
