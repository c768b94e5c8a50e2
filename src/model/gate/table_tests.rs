//! The gate rule table (`rules.yaml`): the built-in table parses with every rule once, and
//! a table that is not strict data is refused with line, column and a did-you-mean.

use super::*;

#[test]
fn builtin_table_parses_and_every_rule_is_there_once() {
    let t = builtin();
    assert_eq!(t.rules.len(), RuleId::ALL.len());
    for id in RuleId::ALL {
        let r = t
            .rule(id)
            .map(|r| (r.gate, r.source.url.starts_with("https://")));
        assert_eq!(r, Some((id.gate(), true)), "{}", id.as_str());
    }
    let drain: Vec<&str> = t.of(Gate::Drain).map(|r| r.id.as_str()).collect();
    assert_eq!(drain.len(), 12);
    assert!(t
        .removed_apis
        .iter()
        .any(|r| r.minor.to_string() == "1.25" && r.group == "policy"));
}

#[test]
fn table_is_strict_with_line_column_and_did_you_mean() {
    let text = "rules:\n  - id: drain-capacity\n    gate: drain\n    severty: warning\n";
    let e = parse(text, "rules.yaml").err().map(|e| e.message);
    let e = e.unwrap_or_default();
    assert!(
        e.starts_with("rules.yaml:4:5: rules[0]: unknown key `severty`, did you mean `severity`?"),
        "{e}"
    );
    let text = "rules:\n  - id: drain-capasity\n";
    let e = parse(text, "rules.yaml")
        .err()
        .map(|e| e.message)
        .unwrap_or_default();
    assert!(
        e.contains("unknown value `drain-capasity`, did you mean `drain-capacity`?"),
        "{e}"
    );
}

#[test]
fn table_refuses_what_serde_cannot_see() {
    let base = include_str!("rules.yaml");
    // A host rule that does not say `host: true`.
    let no_host = base.replacen(
        "    reads: [host-time-sync, nodes]\n    host: true\n",
        "    reads: [host-time-sync, nodes]\n",
        1,
    );
    let e = parse(&no_host, "r.yaml")
        .err()
        .map(|e| e.message)
        .unwrap_or_default();
    assert!(
        e.contains("rule `drain-time-sync`: `host: true` exactly when it reads over ssh"),
        "{e}"
    );
    // A rule given to another gate than its code's.
    let moved = base.replacen(
        "  - id: drain-capacity\n    gate: drain\n",
        "  - id: drain-capacity\n    gate: upgrade-rook\n",
        1,
    );
    let e = parse(&moved, "r.yaml")
        .err()
        .map(|e| e.message)
        .unwrap_or_default();
    assert!(
        e.contains("rule `drain-capacity` belongs to gate `drain`, not `upgrade-rook`"),
        "{e}"
    );
    // A rule the code implements missing from the table.
    let start = base.find("  - id: drain-capacity").unwrap_or(0);
    let end = base.find("  - id: drain-time-sync").unwrap_or(0);
    let missing = format!("{}{}", &base[..start], &base[end..]);
    let e = parse(&missing, "r.yaml")
        .err()
        .map(|e| e.message)
        .unwrap_or_default();
    assert_eq!(
        e,
        "r.yaml: rule `drain-capacity` is implemented but not in the table"
    );
}
