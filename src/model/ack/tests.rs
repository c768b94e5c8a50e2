//! Every case of an acknowledgement (SPEC §6 v0.4) on hand-made layer reports: applied,
//! detail matched and mismatched, expired, too far, matching nothing, on unknown and absent.

use super::*;

const TODAY: &str = "2026-12-02";

fn day(d: &str) -> i64 {
    crate::clock::parse_date(d).unwrap()
}

fn check(id: &str, verdict: Verdict, evidence: &str, findings: &[&str]) -> CheckReport {
    CheckReport {
        id: id.into(),
        verdict,
        evidence: evidence.into(),
        findings: findings.iter().map(|f| f.to_string()).collect(),
        acknowledged: false,
        until: None,
        reason: None,
        objects: vec![],
        events: vec![],
        events_not_read: vec![],
    }
}

const WARN: &str = "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: MON_DISK_LOW (mon a is low on available space) not on the benign list (RECENT_MGR_MODULE_CRASH)";

fn ceph(state: State, checks: Vec<CheckReport>) -> LayerReport {
    LayerReport {
        id: "ceph".into(),
        title: "Rook-Ceph cluster".into(),
        state,
        evidence: checks.iter().map(|c| c.evidence.clone()).collect(),
        reason: String::new(),
        hosts: vec![],
        checks,
        explain: vec![],
    }
}

fn degraded() -> Vec<LayerReport> {
    vec![ceph(
        State::Degraded,
        vec![
            check(
                "ceph/api",
                Verdict::True,
                "API group ceph.rook.io served",
                &[],
            ),
            check("ceph/health", Verdict::False, WARN, &["MON_DISK_LOW"]),
            check("ceph/mons", Verdict::True, "3/3 rolled out", &[]),
        ],
    )]
}

fn ack(check: &str, detail: Option<&str>, until: &str) -> Acknowledgement {
    Acknowledgement {
        check: check.into(),
        detail: detail.map(String::from),
        reason: "mon disk replaced on 12-10".into(),
        until: until.into(),
        until_day: day(until),
        at: "stacks/dirqual.yaml:14".into(),
    }
}

fn run(acks: &[Acknowledgement], reports: &mut [LayerReport]) -> Vec<(String, String)> {
    apply(
        acks,
        reports,
        Days {
            today: day(TODAY),
            read: day(TODAY),
        },
    )
    .into_iter()
    .map(|w| (w.message, w.hint))
    .collect()
}

#[test]
fn an_acknowledged_failing_check_is_marked_and_its_layer_keeps_its_state() {
    let mut reports = degraded();
    let warnings = run(&[ack("ceph/health", None, "2026-12-31")], &mut reports);
    assert_eq!(warnings, []);
    let health = &reports[0].checks[1];
    assert!(health.acknowledged);
    assert_eq!(
        health.acknowledgement().as_deref(),
        Some("acknowledged until 2026-12-31: mon disk replaced on 12-10")
    );
    assert_eq!(reports[0].state, State::Degraded);
    assert!(fully_acknowledged(&reports[0]));
    // The last day still applies; 90 days ahead is the farthest.
    for until in [TODAY, "2027-03-02"] {
        let mut reports = degraded();
        assert_eq!(run(&[ack("ceph/health", None, until)], &mut reports), []);
        assert!(fully_acknowledged(&reports[0]), "{until}");
    }
}

#[test]
fn a_detail_applies_only_while_the_check_finds_exactly_it() {
    let mut reports = degraded();
    assert_eq!(
        run(
            &[ack("ceph/health", Some("MON_DISK_LOW"), "2026-12-31")],
            &mut reports
        ),
        []
    );
    assert!(fully_acknowledged(&reports[0]));
    // A second code, or another one: the acknowledgement matches nothing, the layer is repaired.
    let mut reports = degraded();
    reports[0].checks[1].findings = vec!["MON_DISK_LOW".into(), "OSD_DOWN".into()];
    let warnings = run(
        &[ack("ceph/health", Some("MON_DISK_LOW"), "2026-12-31")],
        &mut reports,
    );
    assert_eq!(
        warnings,
        [(
            "acknowledgement of ceph/health matches nothing: the check does not find exactly `MON_DISK_LOW`".to_string(),
            "remove it from stacks/dirqual.yaml:14, or change its `detail:` to what the check finds now (`preview -v`)".to_string()
        )]
    );
    assert!(!reports[0].checks[1].acknowledged);
    assert!(!fully_acknowledged(&reports[0]));
    // The benign list's codes named in the evidence are no finding of the check.
    let mut reports = degraded();
    let w = run(
        &[ack(
            "ceph/health",
            Some("RECENT_MGR_MODULE_CRASH"),
            "2026-12-31",
        )],
        &mut reports,
    );
    assert_eq!(w.len(), 1, "{w:?}");
    // A check that itemizes nothing: the detail must be a whole word of its evidence.
    let mut reports = degraded();
    reports[0].checks[1] = check(
        "ceph/health",
        Verdict::False,
        "Deployment rook-ceph/rook-ceph-osd-2 not rolled out",
        &[],
    );
    assert_eq!(w.len(), 1);
    assert_eq!(
        run(
            &[ack("ceph/health", Some("rook-ceph-osd"), "2026-12-31")],
            &mut reports
        )
        .len(),
        1
    );
    assert_eq!(
        run(
            &[ack(
                "ceph/health",
                Some("rook-ceph/rook-ceph-osd-2"),
                "2026-12-31"
            )],
            &mut reports
        ),
        []
    );
}

/// Issue 49: `detail: argocd/platform-monitoring` acknowledged the whole `gitops/apps-healthy`
/// check while `platform-registry` still failed it. A detail covers a check that names the
/// objects it fails on only while it names every one of them.
#[test]
fn a_detail_never_covers_another_failing_object() {
    let app = |name: &str| crate::model::observation::ObjectRef::new("Application", "argocd", name);
    let failing = |objects: Vec<crate::model::observation::ObjectRef>| {
        let mut c = check(
            "ceph/health",
            Verdict::False,
            "Application argocd/platform-monitoring Degraded; Application argocd/platform-registry Degraded",
            &[],
        );
        c.objects = objects;
        let mut reports = degraded();
        reports[0].checks[1] = c;
        reports
    };
    let detail = Some("argocd/platform-monitoring");
    let mut reports = failing(vec![app("platform-monitoring"), app("platform-registry")]);
    let w = run(&[ack("ceph/health", detail, "2026-12-31")], &mut reports);
    assert_eq!(
        w,
        [(
            "acknowledgement of ceph/health does not cover the check: `argocd/platform-monitoring` is not every object it fails on (also Application argocd/platform-registry)".to_string(),
            "remove it from stacks/dirqual.yaml:14, or change its `detail:` to what the check finds now (`preview -v`)".to_string()
        )]
    );
    assert!(!reports[0].checks[1].acknowledged);
    assert!(!fully_acknowledged(&reports[0]));
    // The control: only the named object fails, in each of the forms a detail names it.
    for detail in [
        "argocd/platform-monitoring",
        "platform-monitoring",
        "Application argocd/platform-monitoring",
    ] {
        let mut reports = failing(vec![app("platform-monitoring")]);
        let w = run(
            &[ack("ceph/health", Some(detail), "2026-12-31")],
            &mut reports,
        );
        assert_eq!(w, [], "{detail}");
        assert!(reports[0].checks[1].acknowledged, "{detail}");
    }
}

#[test]
fn an_expired_or_too_far_acknowledgement_is_a_warning_and_does_not_apply() {
    let mut reports = degraded();
    let warnings = run(
        &[
            ack("ceph/health", None, "2026-12-01"),
            ack("ceph/health", None, "2027-03-03"),
        ],
        &mut reports,
    );
    assert_eq!(
        warnings,
        [
            (
                "acknowledgement of ceph/health expired on 2026-12-01: it no longer applies".to_string(),
                "remove it from stacks/dirqual.yaml:14, or give it a new `until:` if the finding is still accepted".to_string()
            ),
            (
                "acknowledgement of ceph/health until 2027-03-03 ignored: more than 90 days ahead (at most 2027-03-02)".to_string(),
                "set its `until:` to 2027-03-02 or sooner, or remove it from stacks/dirqual.yaml:14".to_string()
            ),
        ]
    );
    assert!(!reports[0].checks[1].acknowledged);
    assert!(!fully_acknowledged(&reports[0]));
    // Issue 49: a snapshot read 20 days ago, an acknowledgement expired 10 days ago: judged
    // on the day of the run, expired, and the warning says the state is older than that.
    let mut reports = degraded();
    let w = apply(
        &[ack("ceph/health", None, "2026-11-22")],
        &mut reports,
        Days {
            today: day(TODAY),
            read: day("2026-11-12"),
        },
    );
    assert_eq!(
        w[0].message,
        "acknowledgement of ceph/health expired on 2026-11-22, since the state judged was read on 2026-11-12: it no longer applies"
    );
    assert!(!reports[0].checks[1].acknowledged);
}

#[test]
fn an_acknowledgement_matching_nothing_says_why() {
    let mut reports = degraded();
    let warnings = run(
        &[
            ack("ceph/mons", None, "2026-12-31"),
            ack("ceph/healthz", None, "2026-12-31"),
            ack("vault/sealed", None, "2026-12-31"),
            ack("ceph/health", None, "2026-12-31"),
            ack("ceph/health", None, "2026-12-30"),
        ],
        &mut reports,
    );
    let messages: Vec<&str> = warnings.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(
        messages,
        [
            "acknowledgement of ceph/mons matches nothing: the check holds",
            "acknowledgement of ceph/healthz matches nothing: layer ceph has no such check (its checks: ceph/api, ceph/health, ceph/mons)",
            "acknowledgement of vault/sealed matches nothing: no layer `vault` in this stack's layers",
            "acknowledgement of ceph/health matches nothing: an earlier acknowledgement covers the check",
        ]
    );
    assert!(warnings
        .iter()
        .all(|(_, h)| h == "remove it from stacks/dirqual.yaml:14"));
    assert!(fully_acknowledged(&reports[0]));
}

#[test]
fn never_on_unknown_or_absent_layers() {
    let mut reports = vec![ceph(
        State::Unknown,
        vec![check(
            "ceph/health",
            Verdict::Unknown,
            "read of cephclusters failed: forbidden",
            &[],
        )],
    )];
    assert_eq!(
        run(&[ack("ceph/health", None, "2026-12-31")], &mut reports),
        [(
            "acknowledgement of ceph/health ignored: a failed read is not a finding".to_string(),
            "layer ceph is unknown: fix the read; the acknowledgement (stacks/dirqual.yaml:14) covers a failing check only".to_string()
        )]
    );
    let mut reports = vec![ceph(
        State::Absent,
        vec![check(
            "ceph/api",
            Verdict::False,
            "API group ceph.rook.io not served",
            &[],
        )],
    )];
    assert_eq!(
        run(&[ack("ceph/api", None, "2026-12-31")], &mut reports),
        [(
            "acknowledgement of ceph/api ignored: layer ceph is absent".to_string(),
            "remove the layer from `layers:` instead (and the acknowledgement, stacks/dirqual.yaml:14)".to_string()
        )]
    );
    assert!(!reports[0].checks[0].acknowledged);
}

#[test]
fn a_layer_with_an_unacknowledged_or_undecided_check_stays_under_repair() {
    let mut reports = degraded();
    reports[0].checks.push(check(
        "ceph/osds",
        Verdict::False,
        "osd-2 not rolled out",
        &[],
    ));
    run(&[ack("ceph/health", None, "2026-12-31")], &mut reports);
    assert!(reports[0].checks[1].acknowledged);
    assert!(!fully_acknowledged(&reports[0]));
    let mut reports = degraded();
    reports[0].checks.push(check(
        "ceph/osds",
        Verdict::Unknown,
        "read of deployments failed",
        &[],
    ));
    run(&[ack("ceph/health", None, "2026-12-31")], &mut reports);
    assert!(!fully_acknowledged(&reports[0]));
}
