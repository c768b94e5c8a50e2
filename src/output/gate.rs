//! A gate's human text and its `-o junit` report, both from the `Gate` document so the three
//! outputs say the same thing. Text: the verdict first, then each blocker with its evidence
//! and what clears it, the undecided rules, the warnings, what was skipped, what holds.
//! Every string from a cluster is escaped; lines are cut and wrapped to the width.

use crate::model::gate::Severity;
use crate::output::documents::gate::{GateDoc, GateResult, OutcomeDoc, StatusDoc};
use crate::output::junit::xml;
use crate::output::layout::{cut, hang, visible_width, wrap, Layout};
use crate::output::render::{escape, Paint};

fn head(o: &OutcomeDoc, text: &str, layout: Layout) -> Vec<String> {
    let id = o.rule.as_str();
    let prefix = format!("  {id}  ");
    hang(&prefix, &escape(text), visible_width(&prefix), layout.width)
}

fn findings(o: &OutcomeDoc, layout: Layout, out: &mut Vec<String>) {
    for f in &o.findings {
        out.extend(head(o, &f.subject, layout));
        out.extend(wrap(&escape(&f.evidence), 6, layout.width));
        out.extend(wrap(
            &format!("clears: {}", escape(&f.clears)),
            6,
            layout.width,
        ));
    }
    // What the rule could not tell beside its findings (a failed read of another subject).
    if !o.note.is_empty() {
        out.extend(head(o, &format!("and could not tell: {}", o.note), layout));
    }
}

fn section(title: &str, body: Vec<String>, out: &mut Vec<String>) {
    if !body.is_empty() {
        out.push(format!("{title}:"));
        out.extend(body);
    }
}

/// The text of a gate's outcome (after the target lines the command prints).
pub(crate) fn text(doc: &GateDoc, paint: Paint, layout: Layout) -> String {
    let v = &doc.verdict;
    let line = escape(&v.line);
    let mut out = vec![match v.result {
        GateResult::Go => paint.green(&line),
        GateResult::NoGo => paint.red(&line),
        GateResult::CannotTell => paint.yellow(&line),
    }];
    let of = |sev: Severity, st: StatusDoc| {
        doc.rules
            .iter()
            .filter(move |o| o.severity == sev && o.status == st)
    };
    let mut blockers = vec![];
    for o in of(Severity::Blocker, StatusDoc::Fails) {
        findings(o, layout, &mut blockers);
    }
    section("blockers", blockers, &mut out);
    let undecided: Vec<String> = of(Severity::Blocker, StatusDoc::Unknown)
        .flat_map(|o| head(o, &o.note, layout))
        .collect();
    section("undecided (never GO)", undecided, &mut out);
    let mut warnings = vec![];
    for o in of(Severity::Warning, StatusDoc::Fails) {
        findings(o, layout, &mut warnings);
    }
    for o in of(Severity::Warning, StatusDoc::Unknown) {
        warnings.extend(head(o, &format!("could not tell: {}", o.note), layout));
    }
    section("warnings", warnings, &mut out);
    let skipped: Vec<String> = doc
        .rules
        .iter()
        .filter(|o| o.status == StatusDoc::Skipped)
        .flat_map(|o| head(o, &o.note, layout))
        .collect();
    section("skipped", skipped, &mut out);
    let holds: Vec<String> = doc
        .rules
        .iter()
        .filter(|o| o.status == StatusDoc::Holds)
        .map(|o| {
            cut(
                &format!("  {}  {}", o.rule.as_str(), escape(&o.note)),
                layout.width,
            )
        })
        .collect();
    section("holds", holds, &mut out);
    // `--explain`: under each rule, its reads' facts and commands; a command is never cut
    // nor wrapped, so that it runs as printed (a copied half would read something else).
    let mut explained = vec![];
    for o in doc.rules.iter().filter(|o| !o.explain.is_empty()) {
        explained.push(format!("  {}  {}", o.rule.as_str(), o.status.as_str()));
        for e in &o.explain {
            explained.extend(wrap(
                &format!("{}: {}", e.read.as_str(), escape(&e.fact)),
                4,
                layout.width,
            ));
            for c in &e.commands {
                explained.push(format!("      $ {}", crate::term::escape(c)));
            }
        }
    }
    section("explain", explained, &mut out);
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// `-o junit`: one testsuite for the gate, one testcase per rule — a `failure` for a
/// failing blocker, `skipped` for an undecided or skipped rule (never a pass), a warning's
/// findings in `system-out` (a warning does not fail the suite).
pub(crate) fn junit(doc: &GateDoc, timestamp: &str) -> String {
    let name = {
        let s = &doc.subject;
        let what = s
            .node
            .as_deref()
            .or(s.version.as_deref())
            .unwrap_or_default();
        xml(&format!("gate {} {what}", s.gate.as_str()))
    };
    let class = format!("nestor.gate.{}", doc.subject.gate.as_str());
    let tests = doc.rules.len();
    let failures = doc
        .rules
        .iter()
        .filter(|o| o.severity == Severity::Blocker && o.status == StatusDoc::Fails)
        .count();
    let skipped = doc
        .rules
        .iter()
        .filter(|o| matches!(o.status, StatusDoc::Unknown | StatusDoc::Skipped))
        .count();
    let mut body = String::new();
    for o in &doc.rules {
        let open = format!(
            "    <testcase name=\"{}\" classname=\"{class}\"",
            o.rule.as_str()
        );
        let evidence = || {
            o.findings
                .iter()
                .map(|f| {
                    xml(&format!(
                        "{}: {} (clears: {})",
                        f.subject, f.evidence, f.clears
                    ))
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        match (o.status, o.severity) {
            (StatusDoc::Holds, _) => body.push_str(&format!("{open}/>\n")),
            (StatusDoc::Fails, Severity::Blocker) => body.push_str(&format!(
                "{open}>\n      <failure type=\"blocker\" message=\"{}\">{}</failure>\n    </testcase>\n",
                xml(&o.title),
                evidence()
            )),
            (StatusDoc::Fails, Severity::Warning) => body.push_str(&format!(
                "{open}>\n      <system-out>warning: {}</system-out>\n    </testcase>\n",
                evidence()
            )),
            (StatusDoc::Unknown | StatusDoc::Skipped, _) => body.push_str(&format!(
                "{open}>\n      <skipped message=\"{}: {}\"/>\n    </testcase>\n",
                if o.status == StatusDoc::Unknown { "unknown" } else { "skipped" },
                xml(&o.note)
            )),
        }
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kubectl-nestor\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">\n  <testsuite name=\"{name}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" timestamp=\"{}\">\n{body}  </testsuite>\n</testsuites>\n",
        xml(timestamp)
    )
}

#[cfg(test)]
#[path = "gate_tests.rs"]
mod tests;
