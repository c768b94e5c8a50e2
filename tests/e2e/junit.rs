//! `-o junit` (SPEC §16): the preview as JUnit XML, parsed as XML (roxmltree), one testcase
//! per declared layer — failure for degraded and absent, skipped for unknown, nothing for
//! present — through the real kubectl on the degraded cluster.

use crate::bed_or_skip;
use snapbox::str;

use crate::harness::text_snap;
use crate::support::*;

#[test]
fn junit_has_one_testcase_per_layer_failing_the_degraded_and_absent_ones() {
    let bed = bed_or_skip!(E2e::new("degraded", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "junit"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let doc = roxmltree::Document::parse(&r.stdout)
        .unwrap_or_else(|e| panic!("not XML: {e}\n{}", r.stdout));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 1);
    let suite = suites[0];
    assert_eq!(suite.attribute("name"), Some("dirqual"));
    let cases: Vec<_> = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    let json = bed.run(&["preview", "--no-input", "-o", "json"]);
    let doc_json: serde_json::Value = serde_json::from_str(&json.stdout).expect("json");
    crate::doc_schema::check(&doc_json);
    let layers = doc_json["real"]["layers"].as_array().expect("layers");
    assert_eq!(cases.len(), layers.len(), "one testcase per layer");
    let mut failures = 0;
    for (case, layer) in cases.iter().zip(layers) {
        assert_eq!(case.attribute("name"), layer["id"].as_str());
        let failure = case.children().find(|n| n.has_tag_name("failure"));
        let skipped = case.children().find(|n| n.has_tag_name("skipped"));
        match layer["state"].as_str().expect("state") {
            "present" => assert!(failure.is_none() && skipped.is_none(), "{case:?}"),
            state @ ("degraded" | "absent") => {
                let f = failure.unwrap_or_else(|| panic!("{state} {} passes", layer["id"]));
                assert_eq!(f.attribute("type"), Some(state));
                let reason = layer["reason"].as_str().expect("reason");
                assert!(
                    f.attribute("message").is_some_and(|m| m.contains(reason)),
                    "{f:?}"
                );
                failures += 1;
            }
            "unknown" => assert!(skipped.is_some(), "{case:?}"),
            other => panic!("state {other}"),
        }
    }
    assert_eq!(
        failures, 4,
        "k8s and ceph degraded, datalake and certs absent"
    );
    assert_eq!(suite.attribute("failures"), Some("4"));
    assert_eq!(
        root.attribute("tests"),
        Some(layers.len().to_string().as_str())
    );
    let ceph = cases
        .iter()
        .find(|c| c.attribute("name") == Some("ceph"))
        .and_then(|c| c.children().find(|n| n.has_tag_name("failure")))
        .and_then(|f| f.text())
        .unwrap_or_default();
    // ceph's whole failure text: HEALTH_WARN and its checks.
    text_snap(
        ceph,
        str![[r#"
CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: OSD_DOWN (1 osds down), OSD_HOST_DOWN (1 host (1 osds) down), PG_DEGRADED (Degraded data redundancy: 2461/7383 objects degraded (33.333%), 97 pgs degraded, 97 pgs undersized) not on the benign list (RECENT_MGR_MODULE_CRASH)
3/4 Deployment rook-ceph/rook-ceph-osd-* rolled out; Deployment rook-ceph/rook-ceph-osd-2: rollout in progress: 0/1 updated available
"#]],
    );
    let props: Vec<_> = suite
        .descendants()
        .filter(|n| n.has_tag_name("property"))
        .filter_map(|n| Some((n.attribute("name")?, n.attribute("value")?)))
        .collect();
    assert!(
        props.contains(&("target.endpoint", bed.server.url().as_str())),
        "{props:?}"
    );
}

#[test]
fn junit_is_refused_where_there_are_no_layers() {
    let bed = bed_or_skip!(E2e::dirqual());
    let r = bed.run(&["stack", "list", "-o", "junit"]);
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    r.stderr_snap(str![[r#"
kubectl-nestor: error: -o junit is a report of layers or gate rules: only `preview`, `preview --all` and the gates (`gate drain`, `gate upgrade`) print it
hint: use -o json or -o yaml for this command

"#]]);
}

/// `preview --all -o junit`: one testsuite per stack, in the stacks' order; a read stack's
/// suite has one testcase per declared layer of its `preview --all -o json` item (failure
/// for degraded and absent, skipped for unknown, bare for present), a refused or unreachable
/// stack one `target` testcase in error; the counts add up; the exit code is the fleet's.
#[test]
fn fleet_junit_has_one_testsuite_per_stack_and_one_testcase_per_layer() {
    let f = bed_or_skip!(crate::fleet::fleet());
    let bed = &f.bed;
    // staging also declares a host-level layer, unknown without an inventory: a skipped case.
    bed.write_stack(
        "staging",
        &crate::fleet::prod_stack(
            "staging",
            &f.degraded.url(),
            &crate::fleet::PRESENT_LAYERS.replace(']', ", etcd-backup]"),
        ),
    );
    let list = bed.run(&["preview", "--all", "--no-input", "-o", "json"]);
    list.code(3);
    let list = list.json();
    let items = list["items"].as_array().expect("items");
    let r = bed.run(&["preview", "--all", "--no-input", "-o", "junit"]);
    r.code(3);
    let doc = roxmltree::Document::parse(&r.stdout)
        .unwrap_or_else(|e| panic!("not XML: {e}\n{}", r.stdout));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), items.len(), "one testsuite per stack");
    assert_eq!(items.len(), 4);
    let count = |n: roxmltree::Node, a: &str| -> usize {
        n.attribute(a)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{a} of {n:?}"))
    };
    let (mut tests, mut failures, mut errors, mut skipped) = (0, 0, 0, 0);
    let mut seen_states = std::collections::BTreeSet::new();
    for (suite, item) in suites.iter().zip(items) {
        let name = item["name"].as_str().expect("name");
        assert_eq!(suite.attribute("name"), Some(name));
        let cases: Vec<_> = suite
            .children()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        for c in &cases {
            assert_eq!(
                c.attribute("classname"),
                Some(format!("nestor.{name}").as_str())
            );
        }
        match item["preview"]["real"]["layers"].as_array() {
            Some(layers) => {
                assert_eq!(cases.len(), layers.len(), "{name}: one testcase per layer");
                for (case, layer) in cases.iter().zip(layers) {
                    assert_eq!(case.attribute("name"), layer["id"].as_str());
                    let child = |tag: &str| case.children().find(|n| n.has_tag_name(tag));
                    let state = layer["state"].as_str().expect("state");
                    seen_states.insert(state.to_string());
                    match state {
                        "present" => {
                            assert!(case.children().all(|n| !n.is_element()), "{name}/{case:?}")
                        }
                        "degraded" | "absent" => {
                            let f = child("failure").unwrap_or_else(|| {
                                panic!("{name}: {state} {} passes", layer["id"])
                            });
                            assert_eq!(f.attribute("type"), Some(state));
                        }
                        "unknown" => assert!(child("skipped").is_some(), "{name}/{case:?}"),
                        other => panic!("state {other}"),
                    }
                }
            }
            None => {
                assert!(item["error"]["message"].is_string(), "{item}");
                assert_eq!(cases.len(), 1, "{name}");
                assert_eq!(cases[0].attribute("name"), Some("target"));
                let e = cases[0]
                    .children()
                    .find(|n| n.has_tag_name("error"))
                    .unwrap_or_else(|| panic!("{name}: no error"));
                assert_eq!(e.attribute("message"), item["error"]["message"].as_str());
            }
        }
        let in_suite = |tag: &str| suite.descendants().filter(|n| n.has_tag_name(tag)).count();
        assert_eq!(count(*suite, "tests"), cases.len(), "{name}");
        assert_eq!(count(*suite, "failures"), in_suite("failure"), "{name}");
        assert_eq!(count(*suite, "errors"), in_suite("error"), "{name}");
        assert_eq!(count(*suite, "skipped"), in_suite("skipped"), "{name}");
        tests += cases.len();
        failures += in_suite("failure");
        errors += in_suite("error");
        skipped += in_suite("skipped");
    }
    assert_eq!(count(root, "tests"), tests);
    assert_eq!(count(root, "failures"), failures);
    assert_eq!(count(root, "errors"), errors);
    assert_eq!(count(root, "skipped"), skipped);
    assert_eq!(errors, 2, "edge unreachable, decoy refused");
    for state in ["present", "degraded", "unknown"] {
        assert!(
            seen_states.contains(state),
            "no {state} layer in {seen_states:?}"
        );
    }
}

/// Issue 31: U+FFFF and U+FFFE are not XML 1.0 characters, so a condition message or a
/// stack file name holding them made `-o junit` a report no parser reads. Now each is
/// replaced by U+FFFD wherever it lands (an attribute, a failure's text, a suite's name),
/// and a real parser reads the whole report back.
#[test]
fn junit_stays_well_formed_xml_when_a_cluster_string_holds_non_characters() {
    let mut fixture = nestor_replay::fixtures::by_name("issuer-acme-failed").expect("fixture");
    let hostile = "ACME says \u{ffff}no\u{fffe} & <nothing>";
    for o in fixture.objects.iter_mut() {
        if o["kind"] == "ClusterIssuer" && o["metadata"]["name"] == "letsencrypt-prod" {
            o["status"]["conditions"][0]["message"] = hostile.into();
        }
    }
    let bed = bed_or_skip!(E2e::with_config(nestor_replay::Config::new(fixture)));
    let r = bed.run(&["preview", "--no-input", "-o", "junit"]);
    r.code(0);
    let doc = roxmltree::Document::parse(&r.stdout)
        .unwrap_or_else(|e| panic!("not XML: {e}\n{}", r.stdout));
    let certs = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some("certs"))
        .and_then(|c| c.children().find(|n| n.has_tag_name("failure")))
        .unwrap_or_else(|| panic!("no certs failure in\n{}", r.stdout));
    let reason = "ClusterIssuer letsencrypt-prod Ready=False (ErrVerifyACMEAccount: ACME says \u{fffd}no\u{fffd} & <nothing>)";
    assert_eq!(certs.attribute("type"), Some("degraded"));
    assert_eq!(
        certs.attribute("message"),
        Some(format!("degraded: {reason}").as_str())
    );
    assert_eq!(certs.text(), Some(reason));
    r.stdout_snap(str![[r#"
<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="kubectl-nestor" tests="10" failures="1" errors="0" skipped="0">
  <testsuite name="dirqual" tests="10" failures="1" errors="0" skipped="0" timestamp="NOW">
    <properties>
      <property name="target.endpoint" value="http://127.0.0.1:PORT"/>
      <property name="target.context" value="replay"/>
      <property name="target.kubeconfig" value="/t/home/.kube/dirqual.config"/>
      <property name="target.rule" value="topology"/>
    </properties>
    <testcase name="k8s" classname="nestor.dirqual"/>
    <testcase name="cni" classname="nestor.dirqual"/>
    <testcase name="ceph" classname="nestor.dirqual"/>
    <testcase name="storage" classname="nestor.dirqual"/>
    <testcase name="monitoring" classname="nestor.dirqual"/>
    <testcase name="gitops" classname="nestor.dirqual"/>
    <testcase name="registry" classname="nestor.dirqual"/>
    <testcase name="dataops" classname="nestor.dirqual"/>
    <testcase name="datalake" classname="nestor.dirqual"/>
    <testcase name="certs" classname="nestor.dirqual">
      <failure type="degraded" message="degraded: ClusterIssuer letsencrypt-prod Ready=False (ErrVerifyACMEAccount: ACME says �no� &amp; &lt;nothing&gt;)">ClusterIssuer letsencrypt-prod Ready=False (ErrVerifyACMEAccount: ACME says �no� &amp; &lt;nothing&gt;)</failure>
    </testcase>
  </testsuite>
</testsuites>

"#]]);
}

/// The same for a stack's file name in `preview --all -o junit`: a file `edge\u{ffff}.yaml`
/// (a YAML that cannot hold U+FFFF either, so an `error` testsuite named after the file).
#[test]
fn fleet_junit_stays_well_formed_xml_for_a_stack_file_named_with_non_characters() {
    let f = bed_or_skip!(crate::fleet::fleet());
    let bed = &f.bed;
    let odd = "odd\u{ffff}\u{fffe}";
    bed.write_stack(
        odd,
        &crate::fleet::prod_stack(odd, &bed.server.url(), crate::fleet::PRESENT_LAYERS),
    );
    let r = bed.run(&["preview", "--all", "--no-input", "-o", "junit"]);
    r.code(3);
    let doc = roxmltree::Document::parse(&r.stdout)
        .unwrap_or_else(|e| panic!("not XML: {e}\n{}", r.stdout));
    let names: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert_eq!(
        names,
        ["decoy", "edge", "odd\u{fffd}\u{fffd}", "prodok", "staging"],
        "{}",
        r.stdout
    );
    // Not a whole-output snapshot: the unreachable stack's error quotes kubectl's own words,
    // which change with its version.
    assert!(!r.stdout.contains(['\u{ffff}', '\u{fffe}']), "{}", r.stdout);
}
