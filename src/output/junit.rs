//! `-o junit`: the preview as a JUnit XML report for CI systems (as popeye and kube-bench
//! print one): one testsuite per stack, one testcase per declared layer — a `failure` for a
//! degraded or absent layer (its failing evidence in the body), `skipped` for an unknown
//! one (nestor could not tell: never a pass, never a failure) and for a degraded one whose
//! every failing check the topology acknowledges (`acknowledged until DATE: REASON`),
//! nothing for a present one. (A gate's `-o junit` is `output::gate`'s: one testcase per rule.)
//! Pure; every string from a cluster is escaped for XML 1.0, which cannot hold most control
//! characters at all, nor U+FFFE/U+FFFF: whatever a string holds, the report is well-formed.

use crate::model::ack::fully_acknowledged;
use crate::model::state::State;
use crate::output::layers::failing;
use crate::output::render::escape;
use crate::output::report::Preview;

/// Text for an XML attribute or element: control characters written visibly (`\x1b`) as
/// everywhere else, then the five XML specials as entities, then every character XML 1.0
/// cannot hold replaced by U+FFFD (see [`xml_char`]).
pub(crate) fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in escape(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if !xml_char(c) => out.push(char::REPLACEMENT_CHARACTER),
            c => out.push(c),
        }
    }
    out
}

/// Whether `c` may appear in an XML 1.0 document as itself: the `Char` production (tab, LF,
/// CR, U+0020-U+D7FF, U+E000-U+FFFD, U+10000-U+10FFFF: so never another C0 control nor
/// U+FFFE/U+FFFF), and no Unicode non-character (U+FDD0-U+FDEF, the last two code points of
/// every plane), which XML 1.0 §2.2 tells documents to avoid and some readers refuse. Lone
/// surrogates (U+D800-U+DFFF) are outside `Char` too, but a Rust `str` cannot hold one (and
/// serde_json refuses a JSON string whose `\ud800` has no pair: that answer is a failed read).
fn xml_char(c: char) -> bool {
    let n = c as u32;
    let allowed =
        matches!(n, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF);
    let nonchar = (0xFDD0..=0xFDEF).contains(&n) || n & 0xFFFE == 0xFFFE;
    allowed && !nonchar
}

/// The counts of a testsuite: (tests, failures, skipped).
fn counts(p: &Preview) -> (usize, usize, usize) {
    let layers = &p.real.layers;
    let acknowledged = layers.iter().filter(|l| fully_acknowledged(l)).count();
    let n = |f: &dyn Fn(State) -> bool| layers.iter().filter(|l| f(l.state)).count();
    (
        layers.len(),
        n(&|s| matches!(s, State::Degraded | State::Absent)) - acknowledged,
        n(&|s| s == State::Unknown) + acknowledged,
    )
}

/// One `<testsuite>` for one stack's preview.
pub fn testsuite(p: &Preview, timestamp: &str) -> String {
    let (tests, failures, skipped) = counts(p);
    let stack = xml(&p.stack.name);
    let mut out = format!(
        "  <testsuite name=\"{stack}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" timestamp=\"{}\">\n",
        xml(timestamp)
    );
    if let Some(t) = &p.target {
        out.push_str("    <properties>\n");
        let rule = t.rule.map(|r| r.name()).unwrap_or_default().to_string();
        for (k, v) in [
            ("target.endpoint", &t.endpoint),
            ("target.context", &t.context),
            ("target.kubeconfig", &t.kubeconfig),
            ("target.rule", &rule),
        ] {
            out.push_str(&format!(
                "      <property name=\"{k}\" value=\"{}\"/>\n",
                xml(v)
            ));
        }
        out.push_str("    </properties>\n");
    }
    for l in &p.real.layers {
        let open = format!(
            "    <testcase name=\"{}\" classname=\"nestor.{stack}\"",
            xml(&l.id)
        );
        let evidence = || {
            failing(l)
                .iter()
                .map(|e| xml(e))
                .collect::<Vec<_>>()
                .join("\n")
        };
        if fully_acknowledged(l) {
            out.push_str(&format!(
                "{open}>\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                xml(&crate::model::ack::words(l))
            ));
            continue;
        }
        match l.state {
            State::Present => out.push_str(&format!("{open}/>\n")),
            State::Degraded | State::Absent => out.push_str(&format!(
                "{open}>\n      <failure type=\"{}\" message=\"{}: {}\">{}</failure>\n    </testcase>\n",
                l.state.as_str(),
                l.state.as_str(),
                xml(&l.reason),
                evidence()
            )),
            State::Unknown => out.push_str(&format!(
                "{open}>\n      <skipped message=\"unknown: {}\"/>\n    </testcase>\n",
                xml(&l.reason)
            )),
        }
    }
    out.push_str("  </testsuite>\n");
    out
}

/// One stack of the report: read (its preview, when it was read), or stopped by an error
/// (`preview --all`: a refused target, an unreachable cluster), which is a JUnit `error`.
pub enum Suite<'a> {
    Read(&'a Preview, String),
    Failed {
        name: &'a str,
        message: &'a str,
        hint: &'a str,
    },
}

/// The whole report: the XML declaration, `<testsuites>` and one suite per stack.
pub fn report(suites: &[Suite]) -> String {
    let (mut tests, mut failures, mut errors, mut skipped) = (0, 0, 0, 0);
    let mut body = String::new();
    for suite in suites {
        match suite {
            Suite::Read(p, timestamp) => {
                let (t, f, s) = counts(p);
                tests += t;
                failures += f;
                skipped += s;
                body.push_str(&testsuite(p, timestamp));
            }
            Suite::Failed {
                name,
                message,
                hint,
            } => {
                tests += 1;
                errors += 1;
                let name = xml(name);
                body.push_str(&format!(
                    "  <testsuite name=\"{name}\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n    <testcase name=\"target\" classname=\"nestor.{name}\">\n      <error message=\"{}\">hint: {}</error>\n    </testcase>\n  </testsuite>\n",
                    xml(message),
                    xml(hint)
                ));
            }
        }
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kubectl-nestor\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">\n{body}</testsuites>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_specials_and_control_characters_never_reach_the_report_raw() {
        assert_eq!(
            xml("a<b & \"c\" 'd'>\u{1b}[2J\n"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;\\x1b[2J\\n"
        );
    }

    #[test]
    fn characters_xml_cannot_hold_are_replaced() {
        assert_eq!(
            xml("a\u{ffff}b\u{fffe}c\u{fdd0}d\u{1fffe}e\u{10ffff}f"),
            "a\u{fffd}b\u{fffd}c\u{fffd}d\u{fffd}e\u{fffd}f"
        );
        // Escaped visibly rather than replaced: C0 and C1 controls, as in text output.
        assert_eq!(xml("\u{0}\u{8}\u{85}"), "\\x00\\x08\\x85");
        // What XML allows stays itself: CJK, astral characters, U+FFFD, the last BMP ones.
        let kept = "名前 \u{1f600} \u{fffd} \u{fffc} \u{e000} \u{10fffd}";
        assert_eq!(xml(kept), kept);
        // Every code point a string can hold, in an attribute and in text: a real parser reads it.
        let every: String = (0..=0x10FFFFu32).filter_map(char::from_u32).collect();
        let x = xml(&every);
        let doc = format!("<a b=\"{x}\">{x}</a>");
        if let Err(e) = roxmltree::Document::parse(&doc) {
            panic!("not XML: {e}");
        }
    }
}
