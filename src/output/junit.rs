//! `-o junit`: the preview as a JUnit XML report for CI systems (as popeye and kube-bench
//! print one): one testsuite per stack, one testcase per declared layer — a `failure` for a
//! degraded or absent layer (its failing evidence in the body), `skipped` for an unknown
//! one (nestor could not tell: never a pass, never a failure), nothing for a present one.
//! Pure; every string from a cluster is escaped for XML 1.0, which cannot hold most control
//! characters at all.

use crate::model::state::State;
use crate::output::layers::failing;
use crate::output::render::escape;
use crate::output::report::Preview;

/// Text for an XML attribute or element: control characters written visibly (`\x1b`) as
/// everywhere else, then the five XML specials as entities.
pub(crate) fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in escape(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The counts of a testsuite: (tests, failures, skipped).
fn counts(p: &Preview) -> (usize, usize, usize) {
    let layers = &p.real.layers;
    let n = |f: &dyn Fn(State) -> bool| layers.iter().filter(|l| f(l.state)).count();
    (
        layers.len(),
        n(&|s| matches!(s, State::Degraded | State::Absent)),
        n(&|s| s == State::Unknown),
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
}
