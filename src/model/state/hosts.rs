//! The state of a host-level layer (SPEC §6 and §13) from what its checks read on each host
//! of its group. Pure: it reads the [`HostObservation`], never a host.
//!
//! - present: on every host of the group, every check true;
//! - degraded: detected (a checked unit exists, or sshd answered) and some check false on some
//!   host — "etcd-snapshot.timer active; newest etcd-*.db is 9d old; last run failed" is the
//!   phantom backup, never "present";
//! - absent: every host was read and none has any of the checked units;
//! - unknown: a host could not be read (unreachable, refused, sudo wants a password, timed
//!   out), `--no-ssh`, or no host in the group — never absent.

use schemars::JsonSchema;
use serde::Serialize;

mod outcomes;
use outcomes::{executable_outcome, file_outcome, sshd_outcome, unit_outcome};

use crate::model::catalog::{HostCheck, HostProbe, HostSpec};
use crate::model::observation::host::{HostFact, HostObservation, HostReading};
use crate::model::state::State;

/// The value of a check, or of all checks on one host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    True,
    False,
    Unknown,
}

/// A host-level layer's state, with its evidence (one line per host) and per-host detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostLayer {
    pub state: State,
    pub evidence: Vec<String>,
    pub reason: String,
    pub hosts: Vec<HostEvidence>,
    /// Each check of the spec, in its order, over every host of the group.
    pub checks: Vec<HostCheckResult>,
}

/// One host check over the hosts of its group: false when it fails on some host, unknown
/// when some host could not answer it (and none failed), true when it holds on every host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostCheckResult {
    pub verdict: Verdict,
    /// `HOST: phrase` of the hosts that decide the verdict (every host when it holds).
    pub evidence: String,
    /// The hosts where it fails, sorted: what an acknowledgement's `detail:` is compared
    /// with (acknowledge a check only while exactly that host fails).
    pub findings: Vec<String>,
}

/// Fold one check's per-host verdicts and phrases into its result.
fn fold(per_host: &[(String, Verdict, String)]) -> HostCheckResult {
    let verdict = if per_host.iter().any(|(_, v, _)| *v == Verdict::False) {
        Verdict::False
    } else if per_host.iter().any(|(_, v, _)| *v == Verdict::Unknown) {
        Verdict::Unknown
    } else {
        Verdict::True
    };
    let deciding: Vec<&(String, Verdict, String)> = per_host
        .iter()
        .filter(|(_, v, _)| verdict == Verdict::True || *v == verdict)
        .collect();
    let evidence = deciding
        .iter()
        .map(|(h, _, p)| format!("{h}: {p}"))
        .collect::<Vec<_>>()
        .join("; ");
    let mut findings: Vec<String> = per_host
        .iter()
        .filter(|(_, v, _)| *v == Verdict::False)
        .map(|(h, _, _)| h.clone())
        .collect();
    findings.sort();
    HostCheckResult {
        verdict,
        evidence,
        findings,
    }
}

/// What one host showed for a layer, in the JSON report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HostEvidence {
    pub host: String,
    /// `true` (every check passed), `false` (some check failed) or `unknown` (not read).
    pub verdict: Verdict,
    /// One line per check, or why the host could not be read.
    pub evidence: Vec<String>,
    /// The host itself could not be read (ssh failed: unreachable, refused, timed out): its
    /// one evidence line is that failure, whose hint the text prints once for every host
    /// that failed alike (issue 51). Not in the JSON: `verdict` and `evidence` say it.
    #[serde(skip)]
    pub unread: bool,
}

/// One check's outcome on one host; `detects` is whether it shows the layer installed
/// (`None`: the check says nothing about that).
struct Outcome {
    verdict: Verdict,
    phrase: String,
    detects: Option<bool>,
}

impl Outcome {
    fn new(ok: bool, phrase: String, detects: Option<bool>) -> Outcome {
        Outcome {
            verdict: if ok { Verdict::True } else { Verdict::False },
            phrase,
            detects,
        }
    }
}

/// Evaluate a layer whose checks run on hosts.
pub fn evaluate(spec: &HostSpec, obs: &HostObservation) -> HostLayer {
    // Per check, per host: (host, verdict, phrase).
    let mut per_check: Vec<Vec<(String, Verdict, String)>> = vec![Vec::new(); spec.checks.len()];
    let report =
        |state, evidence: Vec<String>, reason: String, hosts, per_check: &[Vec<_>]| HostLayer {
            state,
            evidence,
            reason,
            hosts,
            checks: per_check.iter().map(|c: &Vec<_>| fold(c)).collect(),
        };
    let unknown = |why: String| {
        let all: Vec<Vec<(String, Verdict, String)>> = spec
            .checks
            .iter()
            .map(|_| vec![(spec.group.clone(), Verdict::Unknown, why.clone())])
            .collect();
        report(State::Unknown, vec![why.clone()], why, Vec::new(), &all)
    };
    if let Some(why) = &obs.skipped {
        return unknown(why.clone());
    }
    let hosts = match obs.groups.get(&spec.group) {
        None => return unknown(format!("hosts of group `{}` not read", spec.group)),
        Some(Err(f)) => return unknown(format!("hosts of group `{}`: {}", spec.group, f.message)),
        Some(Ok(h)) if h.is_empty() => {
            return unknown(format!(
                "group `{}` has no hosts in the inventory",
                spec.group
            ))
        }
        Some(Ok(h)) => h,
    };
    let has_units = spec
        .checks
        .iter()
        .any(|c| matches!(c.probe, HostProbe::Unit { .. }));
    let mut per_host = Vec::new();
    let mut detected = false;
    let mut all_missing = true;
    for host in hosts {
        let unread = |why: String, per_check: &mut Vec<Vec<(String, Verdict, String)>>| {
            for c in per_check.iter_mut() {
                c.push((host.clone(), Verdict::Unknown, why.clone()));
            }
            (Verdict::Unknown, vec![why], false, false)
        };
        let unread_host = !matches!(obs.hosts.get(host), Some(Ok(_)));
        let (verdict, lines, host_detected, missing) = match obs.hosts.get(host) {
            None => unread("not read".to_string(), &mut per_check),
            Some(Err(f)) => unread(clean(&f.message), &mut per_check),
            Some(Ok(reading)) => {
                // With a unit to look for, a directory of old files does not make the layer
                // installed: only the units detect it.
                let outcomes: Vec<Outcome> = spec
                    .checks
                    .iter()
                    .map(|c| {
                        let mut o = check(c, reading);
                        if has_units && matches!(c.probe, HostProbe::NewestFile { .. }) {
                            o.detects = None;
                        }
                        // A layer naming its detecting unit: no other check shows it installed.
                        if let Some(unit) = &spec.detect {
                            let is_it =
                                matches!(&c.probe, HostProbe::Unit { unit: u, .. } if u == unit);
                            if !is_it {
                                o.detects = None;
                            }
                        }
                        o
                    })
                    .collect();
                for (c, o) in per_check.iter_mut().zip(&outcomes) {
                    c.push((host.clone(), o.verdict, o.phrase.clone()));
                }
                let verdict = if outcomes.iter().any(|o| o.verdict == Verdict::False) {
                    Verdict::False
                } else if outcomes.iter().any(|o| o.verdict == Verdict::Unknown) {
                    Verdict::Unknown
                } else {
                    Verdict::True
                };
                let detects: Vec<bool> = outcomes.iter().filter_map(|o| o.detects).collect();
                let missing = !detects.is_empty() && detects.iter().all(|d| !d);
                (
                    verdict,
                    outcomes.into_iter().map(|o| o.phrase).collect(),
                    detects.iter().any(|d| *d),
                    missing,
                )
            }
        };
        detected |= host_detected;
        all_missing &= missing;
        per_host.push(HostEvidence {
            host: host.clone(),
            verdict,
            evidence: lines,
            unread: unread_host,
        });
    }
    let line = |h: &HostEvidence| format!("{}: {}", h.host, h.evidence.join(", "));
    let evidence: Vec<String> = per_host.iter().map(line).collect();
    let reason_of = |v: Verdict| {
        per_host
            .iter()
            .filter(|h| h.verdict == v)
            .map(line)
            .collect::<Vec<_>>()
            .join("; ")
    };
    if !detected {
        return if all_missing {
            let reason = evidence.join("; ");
            report(State::Absent, evidence, reason, per_host, &per_check)
        } else {
            let reason = reason_of(Verdict::Unknown);
            report(State::Unknown, evidence, reason, per_host, &per_check)
        };
    }
    if per_host.iter().any(|h| h.verdict == Verdict::False) {
        let reason = reason_of(Verdict::False);
        report(State::Degraded, evidence, reason, per_host, &per_check)
    } else if per_host.iter().any(|h| h.verdict == Verdict::Unknown) {
        let reason = reason_of(Verdict::Unknown);
        report(State::Unknown, evidence, reason, per_host, &per_check)
    } else {
        report(
            State::Present,
            evidence,
            "every check true on every host".to_string(),
            per_host,
            &per_check,
        )
    }
}

/// A host-level layer's report: its state and per-host evidence, and each check by its id
/// `LAYER/NAME` over the hosts of its group (what an acknowledgement names).
pub fn report(
    layer: &crate::model::catalog::Layer,
    spec: &HostSpec,
    obs: &HostObservation,
) -> super::LayerReport {
    let h = evaluate(spec, obs);
    super::LayerReport {
        id: layer.id.clone(),
        title: layer.title.clone(),
        state: h.state,
        evidence: h.evidence,
        reason: h.reason,
        hosts: h.hosts,
        checks: spec
            .named_checks(&layer.id)
            .into_iter()
            .zip(h.checks)
            .map(|((id, _), c)| super::CheckReport {
                id,
                verdict: c.verdict,
                evidence: c.evidence,
                findings: c.findings,
                acknowledged: false,
                until: None,
                reason: None,
                objects: Vec::new(),
                events: Vec::new(),
                events_not_read: Vec::new(),
            })
            .collect(),
        explain: Vec::new(),
    }
}

fn check(c: &HostCheck, reading: &HostReading) -> Outcome {
    if let HostProbe::Executable { programs } = &c.probe {
        return executable_outcome(programs, reading);
    }
    let fact = match reading.checks.get(&c.key()) {
        None => {
            return Outcome {
                verdict: Verdict::Unknown,
                phrase: format!("{c}: not read"),
                detects: None,
            }
        }
        Some(Err(f)) => {
            return Outcome {
                verdict: Verdict::Unknown,
                phrase: format!("{c}: {}", clean(&f.message)),
                detects: None,
            }
        }
        Some(Ok(fact)) => fact,
    };
    match (&c.probe, fact) {
        (
            HostProbe::Unit {
                unit,
                active,
                result,
            },
            HostFact::Unit(u),
        ) => unit_outcome(unit, *active, result.as_deref(), u),
        (
            HostProbe::NewestFile {
                dir,
                pattern,
                max_age_secs,
                min_size,
            },
            HostFact::NewestFile(n),
        ) => file_outcome(dir, pattern, *max_age_secs, *min_size, n),
        (HostProbe::Sshd { expect }, HostFact::Sshd(s)) => sshd_outcome(expect, s),
        (HostProbe::Unit { .. }, _)
        | (HostProbe::NewestFile { .. }, _)
        | (HostProbe::Sshd { .. }, _)
        | (HostProbe::Executable { .. }, _) => Outcome {
            verdict: Verdict::Unknown,
            phrase: format!("{c}: the recorded result is of another check kind"),
            detects: None,
        },
    }
}

/// Host output never drives the terminal: [`crate::term::escape`] (control characters
/// and bidirectional overrides written visibly, `\x1b`, `\u{202e}`), the one escaping.
fn clean(s: &str) -> String {
    crate::term::escape(s)
}

/// `0 B`, `512 B`, `24.6 MB` (powers of 1000, as `ls -h --si`).
pub(crate) fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["kB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1000.0;
    let mut unit = 0;
    while v >= 1000.0 && unit < UNITS.len() - 1 {
        v /= 1000.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

#[cfg(test)]
#[path = "hosts_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
#[path = "host_checks_tests.rs"]
mod check_tests;
