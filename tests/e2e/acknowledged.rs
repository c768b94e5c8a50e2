//! Acknowledged findings (SPEC §6 v0.4) through the real kubectl on the `ceph-warn` cluster
//! (CephCluster HEALTH_WARN with MON_DISK_LOW, not on the benign list): each case of an
//! acknowledgement in the topology — applied, detail mismatch, expired, too far, matching
//! nothing, on an unknown and on an absent layer, an unknown key — with its text, JSON,
//! JUnit and `--detailed-exitcode`.

use crate::bed_or_skip;

use crate::support::*;

use crate::common_bed::day;

const REASON: &str = "mon a disk replaced on Friday, INC-4211";

/// The `ceph-warn` bed whose dirqual stack declares `layers` and acknowledges `acks` (YAML
/// list items, each line indented two spaces).
fn ack_bed(faults: &[&str], layers: &str, acks: &str) -> Option<E2e> {
    let bed = E2e::new("ceph-warn", faults)?;
    let yaml = format!(
        "name: dirqual\ntarget_kind: prod\nkubeconfig: ~/.kube/dirqual.config\nendpoint: {}\n\
         nodes:\n  - {{ name: dirqual1, role: control-plane }}\n  - {{ name: dirqual2, role: worker }}\n\
         \x20 - {{ name: dirqual3, role: worker }}\n  - {{ name: dirqual4, role: worker }}\n\
         layers: {layers}\nacknowledged:\n{acks}",
        bed.server.url()
    );
    bed.write_stack("dirqual", &yaml);
    Some(bed)
}

fn health_ack(detail: Option<&str>, until: &str) -> String {
    let detail = detail
        .map(|d| format!("    detail: {d}\n"))
        .unwrap_or_default();
    format!("  - check: ceph/health\n{detail}    reason: {REASON}\n    until: {until}\n")
}

const HEALTH: &str = "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: MON_DISK_LOW (mon a is low on available space) not on the benign list (RECENT_MGR_MODULE_CRASH)";

/// The ceph layer's `ceph/health` check in the JSON document.
fn health(v: &serde_json::Value) -> serde_json::Value {
    let ceph = layer(v, "ceph");
    let checks = ceph["checks"].as_array().cloned().unwrap_or_default();
    checks
        .into_iter()
        .find(|c| c["id"] == "ceph/health")
        .unwrap_or_else(|| panic!("no ceph/health in {ceph}"))
}

#[test]
fn an_acknowledged_failure_is_shown_beside_its_evidence_and_is_no_work() {
    let until = day(30);
    let bed = bed_or_skip!(ack_bed(&[], "[k8s, ceph]", &health_ack(None, &until)));
    let text = bed.run(&["preview", "--no-input", "--no-color"]);
    text.code(0);
    text.stderr_snap("");
    text.stdout_snap(format!(
        "stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 1 acknowledged
  acknowledged ceph  until {until}: {REASON}

REAL (read live, not stored)
  nodes            dirqual1..4, 4/4 Ready
  k8s    present   5 checks hold
  ceph   degraded  1 of 9 checks fails, 1 acknowledged
    ✗ {}
      acknowledged until {until}: {REASON}
",
        "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN:\n      MON_DISK_LOW (mon a is low on available space) not on the benign list\n      (RECENT_MGR_MODULE_CRASH)"
    ));
    // JSON: the layer keeps its state, the check is marked, the plan lists it apart.
    let json = bed.run(&["preview", "--no-input", "-o", "json"]);
    json.code(0);
    let v = json.json();
    crate::doc_schema::check(&v);
    assert_eq!(state_of(&v, "ceph"), "degraded");
    assert_eq!(
        health(&v),
        serde_json::json!({
            "id": "ceph/health",
            "verdict": "false",
            "evidence": HEALTH,
            "acknowledged": true,
            "until": until,
            "reason": REASON,
        })
    );
    assert_eq!(plan_ids(&v, "repair"), Vec::<String>::new());
    assert_eq!(plan_ids(&v, "acknowledged"), ["ceph"]);
    assert_eq!(
        v["plan"]["acknowledged"][0]["hint"],
        format!("acknowledged until {until}: {REASON}")
    );
    // --detailed-exitcode: a fully acknowledged layer is no work.
    bed.run(&["preview", "--no-input", "--detailed-exitcode"])
        .code(0);
    // JUnit: a skipped testcase with the acknowledgement.
    let junit = bed.run(&["preview", "--no-input", "-o", "junit"]);
    junit.code(0);
    let doc = roxmltree::Document::parse(&junit.stdout).expect("XML");
    let case = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some("ceph"))
        .expect("ceph testcase");
    let skipped = case.children().find(|n| n.has_tag_name("skipped"));
    assert_eq!(
        skipped.and_then(|s| s.attribute("message")),
        Some(format!("acknowledged until {until}: {REASON}").as_str())
    );
    assert!(case.children().all(|n| !n.has_tag_name("failure")));
    // --explain: the check's id under its evidence, the acknowledgement beside it.
    let explain = bed.run(&["preview", "--no-input", "--no-color", "--explain"]);
    explain.code(0);
    let lines: Vec<&str> = explain.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == "check ceph/health")
        .unwrap_or_else(|| panic!("no check id in\n{}", explain.stdout));
    assert_eq!(
        lines[at + 1].trim(),
        format!("acknowledged until {until}: {REASON}")
    );
    // The fleet view: no work, one acknowledged.
    let fleet = bed.run(&["preview", "--all", "--no-color", "--detailed-exitcode"]);
    fleet.code(0);
    let row = fleet
        .stdout
        .lines()
        .find(|l| l.starts_with("dirqual"))
        .unwrap_or_else(|| panic!("no dirqual row in\n{}", fleet.stdout));
    let cells: Vec<&str> = row
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        cells[..6],
        [
            "dirqual",
            "ok",
            "prod",
            "4/4",
            "1/1/0/0",
            "0, 1 acknowledged"
        ]
    );
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .expect("suite");
    assert_eq!(
        (suite.attribute("failures"), suite.attribute("skipped")),
        (Some("0"), Some("1"))
    );
    assert_read_only(&bed.server);
}

#[test]
fn a_detail_that_matches_applies_and_one_that_does_not_is_a_warning() {
    let until = day(30);
    let bed = bed_or_skip!(ack_bed(
        &[],
        "[ceph]",
        &health_ack(Some("MON_DISK_LOW"), &until)
    ));
    let v = bed.run(&["preview", "--no-input", "-o", "json"]);
    v.code(0);
    v.stderr_snap("");
    assert_eq!(health(&v.json())["acknowledged"], true);

    let bed = bed_or_skip!(ack_bed(
        &[],
        "[ceph]",
        &health_ack(Some("RECENT_MGR_MODULE_CRASH"), &until)
    ));
    let r = bed.run(&["preview", "--no-input", "--detailed-exitcode", "-o", "json"]);
    r.code(2);
    r.stderr_snap(
        "kubectl-nestor: warning: acknowledgement of ceph/health matches nothing: the check does not find exactly `RECENT_MGR_MODULE_CRASH`
hint: remove it from /t/repo/stacks/dirqual.yaml:12, or change its `detail:` to what the check finds now (`preview -v`)
",
    );
    let v = r.json();
    assert_eq!(health(&v).get("acknowledged"), None);
    assert_eq!(plan_ids(&v, "repair"), ["ceph"]);
}

#[test]
fn an_expired_or_too_far_acknowledgement_warns_every_run_and_does_not_apply() {
    let (past, far) = (day(-1), day(91));
    let acks = format!("{}{}", health_ack(None, &past), health_ack(None, &far));
    let bed = bed_or_skip!(ack_bed(&[], "[ceph]", &acks));
    for _ in 0..2 {
        let r = bed.run(&["preview", "--no-input", "--detailed-exitcode", "-o", "json"]);
        r.code(2);
        r.stderr_snap(format!(
            "kubectl-nestor: warning: acknowledgement of ceph/health expired on {past}: it no longer applies
hint: remove it from /t/repo/stacks/dirqual.yaml:12, or give it a new `until:` if the finding is still accepted
kubectl-nestor: warning: acknowledgement of ceph/health until {far} ignored: more than 90 days ahead (at most {})
hint: set its `until:` to {} or sooner, or remove it from /t/repo/stacks/dirqual.yaml:15
",
            day(90),
            day(90)
        ));
        assert_eq!(plan_ids(&r.json(), "repair"), ["ceph"]);
    }
}

#[test]
fn an_acknowledgement_matching_nothing_is_a_warning_naming_its_line() {
    let until = day(10);
    let acks = format!(
        "  - check: ceph/mons\n    reason: {REASON}\n    until: {until}\n  - {{check: ceph/healthz, reason: typo, until: {until}}}\n"
    );
    let bed = bed_or_skip!(ack_bed(&[], "[ceph]", &acks));
    let r = bed.run(&["preview", "--no-input", "--detailed-exitcode", "--no-color"]);
    r.code(2);
    r.stderr_snap(
        "kubectl-nestor: warning: acknowledgement of ceph/mons matches nothing: the check holds
hint: remove it from /t/repo/stacks/dirqual.yaml:12
kubectl-nestor: warning: acknowledgement of ceph/healthz matches nothing: layer ceph has no such check (its checks: ceph/api, ceph/health, ceph/mons, ceph/mon-count, ceph/osds, ceph/mon-quorum, ceph/one-version, ceph/mon-placement, ceph/osd-placement)
hint: remove it from /t/repo/stacks/dirqual.yaml:15
",
    );
}

#[test]
fn never_on_an_unknown_or_an_absent_layer() {
    let until = day(10);
    let acks = format!(
        "{}  - check: datalake/object-store\n    reason: {REASON}\n    until: {until}\n",
        health_ack(None, &until)
    );
    let bed = bed_or_skip!(ack_bed(
        &["GET /apis/ceph.rook.io/v1/cephclusters=403"],
        "[ceph, datalake]",
        &acks
    ));
    let r = bed.run(&["preview", "--no-input", "--detailed-exitcode", "-o", "json"]);
    r.stderr_snap(
        "kubectl-nestor: warning: acknowledgement of ceph/health ignored: a failed read is not a finding
hint: layer ceph is unknown: fix the read; the acknowledgement (/t/repo/stacks/dirqual.yaml:12) covers a failing check only
kubectl-nestor: warning: acknowledgement of datalake/object-store ignored: layer datalake is absent
hint: remove the layer from `layers:` instead (and the acknowledgement, /t/repo/stacks/dirqual.yaml:15)
",
    );
    r.code(2);
    let v = r.json();
    assert_eq!(state_of(&v, "ceph"), "unknown");
    assert_eq!(state_of(&v, "datalake"), "absent");
    assert_eq!(plan_ids(&v, "acknowledged"), Vec::<String>::new());
}

#[test]
fn an_unknown_key_in_an_acknowledgement_is_an_error_at_its_place() {
    let acks = format!(
        "  - check: ceph/health\n    reason: x\n    untill: {}\n",
        day(3)
    );
    let bed = bed_or_skip!(ack_bed(&[], "[ceph]", &acks));
    let r = bed.run(&["preview", "--no-input"]);
    r.code(1);
    r.stdout_snap("");
    r.stderr_snap(
        "kubectl-nestor: error: /t/repo/stacks/dirqual.yaml:14:5: unknown key `untill` (did you mean `until`?)
hint: valid keys here: check, detail, reason, until
",
    );
    assert!(bed.server.audit().is_empty(), "nothing read");
}

/// `wait --for=healthy` on a layer whose every failing check is acknowledged is reached, as
/// `--detailed-exitcode` counts it as no work (docs/health.md): the finding and its
/// acknowledgement are printed; without it the wait times out, and an acknowledgement that
/// does not apply is warned about once, not at every poll.
#[test]
fn wait_for_healthy_counts_a_fully_acknowledged_layer_as_reached() {
    let until = day(30);
    let bed = bed_or_skip!(ack_bed(&[], "[k8s, ceph]", &health_ack(None, &until)));
    let wait = |extra: &[&str]| {
        let mut args = vec![
            "wait",
            "--for=healthy",
            "ceph",
            "--interval",
            "300ms",
            "--timeout",
            "2s",
            "--no-color",
        ];
        args.extend(extra);
        bed.run(&args)
    };
    let out = wait(&[]);
    out.code(0);
    out.stdout_snap(format!(
        "reached: every layer healthy after #.#s (1 poll)
  ceph  degraded  reached  {HEALTH}; acknowledged until {until}: {REASON}
"
    ));
    let doc = wait(&["-o", "json"]);
    doc.code(0);
    let v: serde_json::Value = serde_json::from_str(&doc.stdout).expect("json");
    assert_eq!(v["reached"], true);
    assert_eq!(v["layers"][0]["reached"], true);
    assert_eq!(v["layers"][0]["state"], "degraded");
    // Without it, the same cluster is not healthy: the wait times out (exit 5) after several
    // polls, and the acknowledgement that matches nothing is warned about once, not per poll.
    let stale = "  - check: ceph/nothing-such\n    reason: stale line\n    until: UNTIL\n";
    let bare = bed_or_skip!(ack_bed(&[], "[k8s, ceph]", &stale.replace("UNTIL", &until)));
    let out = bare.run(&[
        "wait",
        "--for=healthy",
        "ceph",
        "--interval",
        "300ms",
        "--timeout",
        "2s",
        "-o",
        "json",
    ]);
    out.code(5);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert!(v["polls"].as_u64().is_some_and(|n| n >= 3), "{v}");
    let warned: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("warning: acknowledgement of ceph/nothing-such"))
        .collect();
    assert_eq!(
        warned,
        ["kubectl-nestor: warning: acknowledgement of ceph/nothing-such matches nothing: layer ceph has no such check (its checks: ceph/api, ceph/health, ceph/mons, ceph/mon-count, ceph/osds, ceph/mon-quorum, ceph/one-version, ceph/mon-placement, ceph/osd-placement)"],
        "{}",
        out.stderr
    );
}

/// Issue 49: `detail: argocd/APP` acknowledged the whole `gitops/apps-healthy` check while
/// another Application still failed it (exit 0). Through the real kubectl, on `dirqual` with
/// two Applications Degraded as Argo CD writes them: the acknowledgement does not cover the
/// check, the warning names the other, the work stays (exit 2); with only the named one
/// Degraded, the control, it applies (exit 0).
#[test]
fn a_detail_never_covers_another_failing_application() {
    let degrade = |n: usize| {
        let mut fixture = nestor_replay::fixtures::by_name("dirqual").expect("dirqual");
        let mut names = Vec::new();
        for o in fixture
            .objects
            .iter_mut()
            .filter(|o| o["kind"] == "Application")
            .take(n)
        {
            o["status"]["health"]["status"] = serde_json::json!("Degraded");
            names.push(
                o["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            );
        }
        (fixture, names)
    };
    let until = day(30);
    let (fixture, names) = degrade(2);
    assert_eq!(names.len(), 2, "dirqual has two Applications");
    let Some(bed) = E2e::with_config(nestor_replay::Config::new(fixture)) else {
        eprintln!("SKIP: no kubectl on PATH");
        return;
    };
    let stack = |bed: &E2e| {
        bed.write_stack(
            "dirqual",
            &format!(
                "{}acknowledged:\n  - check: gitops/apps-healthy\n    detail: argocd/{}\n    reason: {REASON}\n    until: {until}\n",
                dirqual_topology(&bed.server.url()).replace(LAYERS, "[k8s, gitops]"),
                names[0]
            ),
        )
    };
    stack(&bed);
    let r = bed.run(&["preview", "--no-input", "--detailed-exitcode", "-o", "json"]);
    r.code(2);
    assert!(
        r.stderr.contains(&format!(
            "does not cover the check: `argocd/{}` is not every object it fails on (also Application argocd/{})",
            names[0], names[1]
        )),
        "{}",
        r.stderr
    );
    let v = r.json();
    let gitops = layer(&v, "gitops");
    let healthy = gitops["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["id"] == "gitops/apps-healthy"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(healthy["verdict"], "false", "{healthy}");
    assert_ne!(
        healthy["acknowledged"],
        serde_json::json!(true),
        "{healthy}"
    );
    // The control: only the named Application Degraded.
    let (fixture, _) = degrade(1);
    let Some(bed) = E2e::with_config(nestor_replay::Config::new(fixture)) else {
        return;
    };
    stack(&bed);
    let r = bed.run(&["preview", "--no-input", "--detailed-exitcode", "-o", "json"]);
    r.code(0);
    r.stderr_eq("");
}
