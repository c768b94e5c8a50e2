//! `-o junit` (SPEC §16): the preview as JUnit XML, parsed as XML (roxmltree), one testcase
//! per declared layer — failure for degraded and absent, skipped for unknown, nothing for
//! present — through the real kubectl on the degraded cluster.

use crate::bed_or_skip;
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
    assert!(ceph.contains("HEALTH_WARN"), "{ceph}");
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
    assert!(
        r.stderr.contains("hint: use -o json or -o yaml"),
        "{}",
        r.stderr
    );
}
