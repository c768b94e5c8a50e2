//! One line per layer, then its failing evidence (SPEC §16): the block `preview` and
//! `discover` print. A present layer is one short line ("12 checks hold"); a degraded,
//! absent or unknown one is followed by the evidence that decided it, indented and wrapped,
//! printed once; `-v`/`--explain` show every evidence line. Pure.

use crate::model::state::{LayerReport, State};
use crate::output::layout::{self, cut, hang, visible_width, Layout};
use crate::output::render::{escape, Paint};

/// Where an evidence line's text starts under its layer.
const INDENT: usize = 6;

/// The mark before an evidence line: holds, fails, undecided.
fn mark(state: State, failing: bool) -> &'static str {
    match (state, failing) {
        (_, false) => "✓",
        (State::Unknown, true) => "?",
        (State::Present | State::Degraded | State::Absent, true) => "✗",
    }
}

/// The evidence lines that decided a layer's state, in evidence order: none for a present
/// layer, every detect check of an absent one, the false health checks of a degraded one,
/// the failed reads of an unknown one. The report keeps them as `reason` (joined with `; `);
/// they are found back among the evidence lines so that an evidence line holding `; ` itself
/// stays one line. A reason that is not made of evidence lines is one line of its own.
pub fn failing(r: &LayerReport) -> Vec<String> {
    match r.state {
        State::Present => vec![],
        State::Absent => r.evidence.clone(),
        State::Degraded | State::Unknown => {
            split_reason(&r.reason, &r.evidence).unwrap_or_else(|| vec![r.reason.clone()])
        }
    }
}

fn split_reason(reason: &str, evidence: &[String]) -> Option<Vec<String>> {
    let mut out = vec![];
    let mut rest = reason;
    let mut from = 0;
    while !rest.is_empty() {
        let (i, line) = evidence.iter().enumerate().skip(from).find(|(_, e)| {
            rest.strip_prefix(e.as_str())
                .is_some_and(|after| after.is_empty() || after.starts_with("; "))
        })?;
        out.push(line.clone());
        rest = rest[line.len()..].strip_prefix("; ").unwrap_or("");
        from = i + 1;
    }
    Some(out)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The short text after a layer's state.
pub fn summary(r: &LayerReport) -> String {
    let n = r.evidence.len();
    match r.state {
        State::Present => plural(n, "check holds", "checks hold"),
        State::Degraded => {
            let fails = match failing(r).len() {
                1 => format!("1 of {} fails", plural(n, "check", "checks")),
                k => format!("{k} of {} fail", plural(n, "check", "checks")),
            };
            match r.checks.iter().filter(|c| c.acknowledged).count() {
                0 => fails,
                k => format!("{fails}, {k} acknowledged"),
            }
        }
        State::Absent => "not found".to_string(),
        State::Unknown => "could not be decided".to_string(),
    }
}

/// A row before the layers (VMs, nodes): a label and its text, aligned with them.
pub struct Row {
    pub label: String,
    pub text: String,
}

/// The rows, then each layer's line and its evidence, every line within the width.
pub fn block(rows: &[Row], reports: &[LayerReport], paint: Paint, layout: Layout) -> String {
    let label_w = rows
        .iter()
        .map(|r| visible_width(&r.label))
        .chain(reports.iter().map(|r| visible_width(&escape(&r.id))))
        .max()
        .unwrap_or(0);
    let state_w = reports
        .iter()
        .map(|r| r.state.as_str().len())
        .max()
        .unwrap_or(0);
    let out = std::cell::RefCell::new(String::new());
    let line = |s: String| {
        let mut out = out.borrow_mut();
        out.push_str(cut(s.trim_end(), layout.width).as_str());
        out.push('\n');
    };
    let line_raw = |s: String| out.borrow_mut().push_str(&s);
    let mut commands = String::new();
    // A host's failed read ends with its hint (`; hint: check that the host is up ...`): the
    // same for every host that failed alike, so each host's line keeps its own failure and
    // each hint is printed once, after the layers, naming the hosts it applies to.
    let mut hints: Vec<(String, Vec<String>)> = Vec::new();
    // A row's text (a failed read of the nodes, say) is wrapped, not cut: it is the reason.
    for r in rows {
        let pad = if state_w > 0 { state_w + 2 } else { 0 };
        let prefix = format!("  {}  {:pad$}", layout::pad(&r.label, label_w), "");
        let indent = visible_width(&prefix);
        for l in hang(&prefix, &escape(&r.text), indent, layout.width) {
            line(l);
        }
    }
    for r in reports {
        let state = paint.state(r.state);
        let fill = state_w.saturating_sub(visible_width(r.state.as_str()));
        line(format!(
            "  {}  {state}{}  {}",
            layout::pad(&escape(&r.id), label_w),
            " ".repeat(fill),
            summary(r)
        ));
        let fails = failing(r);
        let shown: Vec<(bool, &String)> = if layout.all {
            let mut all: Vec<(bool, &String)> =
                r.evidence.iter().map(|e| (fails.contains(e), e)).collect();
            all.extend(
                fails
                    .iter()
                    .filter(|f| !r.evidence.contains(f))
                    .map(|f| (true, f)),
            );
            all
        } else {
            fails.iter().map(|f| (true, f)).collect()
        };
        for (is_failing, text) in shown {
            let prefix = format!("    {} ", mark(r.state, is_failing));
            let said = match host_hint(r, text) {
                Some((host, failure, hint)) => {
                    match hints.iter_mut().find(|(h, _)| h == hint) {
                        Some((_, hosts)) if hosts.iter().any(|h| h == host) => {}
                        Some((_, hosts)) => hosts.push(host.to_string()),
                        None => hints.push((hint.to_string(), vec![host.to_string()])),
                    }
                    format!("{host}: {failure}")
                }
                None => text.clone(),
            };
            for l in hang(&prefix, &escape(&said), INDENT, layout.width) {
                line(l);
            }
            // `--explain`: which check said it, the id an acknowledgement names.
            if !r.explain.is_empty() {
                let mut ids: Vec<&str> = Vec::new();
                for c in r.checks.iter().filter(|c| &c.evidence == text) {
                    if !ids.contains(&c.id.as_str()) {
                        ids.push(&c.id);
                    }
                }
                if !ids.is_empty() {
                    line(format!(
                        "{}check {}",
                        " ".repeat(INDENT),
                        escape(&ids.join(", "))
                    ));
                }
            }
            // An acknowledged finding stays shown, its acknowledgement beside it.
            let acknowledged = r
                .checks
                .iter()
                .filter(|c| is_failing && &c.evidence == text);
            if let Some(words) = acknowledged.filter_map(|c| c.acknowledgement()).next() {
                let prefix = " ".repeat(INDENT);
                for l in hang(&prefix, &escape(&words), INDENT, layout.width) {
                    line(l);
                }
            }
            // `--explain`: the command under its evidence line, never cut nor wrapped, so
            // that it runs as printed (a copied half would read something else).
            for c in r.explain.iter().filter(|c| &c.evidence == text) {
                commands.push_str(&format!("      $ {}\n", escape(&c.command)));
            }
            if !commands.is_empty() {
                line_raw(std::mem::take(&mut commands));
            }
            // A degraded layer's Warning Events under the check they explain (SPEC §6 v0.4),
            // and why none could be read; their words were escaped and capped when read.
            let explained = r
                .checks
                .iter()
                .filter(|c| is_failing && &c.evidence == text)
                .find(|c| !c.events.is_empty() || !c.events_not_read.is_empty());
            if let Some(c) = explained {
                let quoted = c.events.iter().map(crate::model::state::events::line);
                for words in quoted.chain(c.events_not_read.iter().cloned()) {
                    let prefix = format!("{}↳ ", " ".repeat(INDENT));
                    for l in hang(&prefix, &escape(&words), INDENT + 2, layout.width) {
                        line(l);
                    }
                    for e in r.explain.iter().filter(|e| e.evidence == words) {
                        line_raw(format!(
                            "{}$ {}\n",
                            " ".repeat(INDENT + 2),
                            escape(&e.command)
                        ));
                    }
                }
            }
        }
        // A host layer's lines are per host, its checks per check: an acknowledged check
        // whose evidence is no line of its own is named with its acknowledgement after them.
        for c in r.checks.iter().filter(|c| !fails.contains(&c.evidence)) {
            if let Some(words) = c.acknowledgement() {
                let prefix = " ".repeat(INDENT);
                let words = format!("{}: {words}", c.id);
                for l in hang(&prefix, &escape(&words), INDENT, layout.width) {
                    line(l);
                }
            }
        }
    }
    for (hint, hosts) in &hints {
        let prefix = format!("  hint for {}: ", escape(&hosts.join(", ")));
        for l in hang(&prefix, &escape(hint), 4, layout.width) {
            line(l);
        }
    }
    out.into_inner()
}

/// A host layer's evidence line `HOST: FAILURE; hint: HINT` of a host that could not be
/// read at all (ssh failed), as (host, failure, hint); `None` for any other line (a check's
/// own hint, such as sudo's, stays with its check).
fn host_hint<'r>(r: &'r LayerReport, text: &str) -> Option<(&'r str, &'r str, &'r str)> {
    r.hosts.iter().find_map(|h| match h.evidence.as_slice() {
        [why]
            if h.unread
                && text
                    .strip_prefix(h.host.as_str())
                    .and_then(|t| t.strip_prefix(": "))
                    == Some(why) =>
        {
            why.rsplit_once("; hint: ")
                .map(|(failure, hint)| (h.host.as_str(), failure, hint))
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(state: State, evidence: &[&str], reason: &str) -> LayerReport {
        LayerReport {
            id: "ceph".into(),
            title: "Rook-Ceph".into(),
            state,
            evidence: evidence.iter().map(|s| s.to_string()).collect(),
            reason: reason.into(),
            hosts: vec![],
            checks: vec![],
            explain: vec![],
        }
    }

    #[test]
    fn the_failing_lines_are_found_back_even_when_they_hold_a_semicolon() {
        let r = report(
            State::Degraded,
            &["group served", "a; b failed", "c ok", "d failed"],
            "a; b failed; d failed",
        );
        assert_eq!(failing(&r), vec!["a; b failed", "d failed"]);
        assert_eq!(summary(&r), "2 of 4 checks fail");
        let one = report(State::Degraded, &["a", "b"], "b");
        assert_eq!(summary(&one), "1 of 2 checks fails");
        let odd = report(State::Unknown, &["x"], "the host was not read");
        assert_eq!(failing(&odd), vec!["the host was not read"]);
        let present = report(State::Present, &["a", "b"], "detected and healthy");
        assert!(failing(&present).is_empty());
        assert_eq!(summary(&present), "2 checks hold");
    }

    #[test]
    fn a_present_layer_is_one_line_and_failing_evidence_is_printed_once_within_the_width() {
        let long = "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: OSD_DOWN (1 osds down), PG_DEGRADED (Degraded data redundancy: 97 pgs degraded)";
        let reports = vec![
            report(State::Present, &["one", "two", &"x".repeat(300)], "ok"),
            report(State::Degraded, &["served", long], long),
        ];
        let rows = vec![Row {
            label: "nodes".into(),
            text: "dirqual1..4, 3/4 Ready".into(),
        }];
        for width in [40, 80, 200] {
            let text = block(
                &rows,
                &reports,
                Paint { on: false },
                Layout::new(width, false),
            );
            assert!(
                text.lines().all(|l| l.chars().count() <= width),
                "{width}:\n{text}"
            );
            assert!(text.contains("present   3 checks hold\n"), "{text}");
            assert!(!text.contains("xxx"), "present evidence shown:\n{text}");
            assert_eq!(text.matches("HEALTH_WARN").count(), 1, "{text}");
            assert!(!text.contains("served"), "{text}");
        }
        let all = block(&rows, &reports, Paint { on: false }, Layout::new(80, true));
        assert!(
            all.contains("✓ served") && all.contains("✗ CephCluster"),
            "{all}"
        );
        assert!(all.lines().all(|l| l.chars().count() <= 80), "{all}");
    }

    /// Issue 51: two hosts unreachable under two host layers: each host's line keeps its own
    /// failure, the hint is printed once, naming both hosts (it was repeated per host and per
    /// layer, a 13-line block for three hosts).
    #[test]
    fn a_hint_shared_by_unreachable_hosts_is_printed_once_naming_them() {
        use crate::model::state::{hosts::HostEvidence, Verdict};
        let hint = "check that the host is up and the inventory's ansible_host/ansible_port";
        let down = |h: &str, port: u16| {
            HostEvidence {
            host: h.into(),
            verdict: Verdict::Unknown,
            unread: true,
            evidence: vec![format!(
                "unreachable over ssh (ssh: connect to host 10.0.0.{port} port 22: Connection refused); hint: {hint}"
            )],
        }
        };
        let up = HostEvidence {
            host: "dirqual1".into(),
            verdict: Verdict::True,
            unread: false,
            evidence: vec!["etcd-snapshot.timer active".into()],
        };
        let layer = |id: &str| {
            let hosts = vec![up.clone(), down("dirqual2", 2), down("dirqual3", 3)];
            let evidence: Vec<String> = hosts
                .iter()
                .map(|h| format!("{}: {}", h.host, h.evidence.join(", ")))
                .collect();
            LayerReport {
                id: id.into(),
                title: id.into(),
                state: State::Unknown,
                reason: evidence[1..].join("; "),
                evidence,
                hosts,
                checks: vec![],
                explain: vec![],
            }
        };
        let reports = [layer("etcd-backup"), layer("sshd-hardening")];
        for all in [false, true] {
            let text = block(&[], &reports, Paint { on: false }, Layout::new(200, all));
            assert_eq!(text.matches("hint").count(), 1, "{text}");
            assert!(
                text.ends_with(&format!("  hint for dirqual2, dirqual3: {hint}\n")),
                "{text}"
            );
            for h in ["dirqual2", "dirqual3"] {
                let n = h.as_bytes()[7] - b'0';
                let own = format!(
                    "    ? {h}: unreachable over ssh (ssh: connect to host 10.0.0.{n} port 22: Connection refused)\n"
                );
                assert_eq!(text.matches(&own).count(), 2, "{own}{text}");
            }
        }
        // Another hint is its own line, naming only its host.
        let mut odd = layer("etcd-backup");
        odd.hosts[2].evidence[0] = "ssh to root@10.0.0.3 did not finish within 5s; hint: check the host, or raise --request-timeout".into();
        odd.evidence[2] = format!("dirqual3: {}", odd.hosts[2].evidence[0]);
        odd.reason = odd.evidence[1..].join("; ");
        let text = block(&[], &[odd], Paint { on: false }, Layout::new(200, false));
        assert!(
            text.ends_with(&format!(
                "  hint for dirqual2: {hint}\n  hint for dirqual3: check the host, or raise --request-timeout\n"
            )),
            "{text}"
        );
    }
}
