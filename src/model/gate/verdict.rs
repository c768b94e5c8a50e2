//! The one evaluation of a gate: every rule of the gate in table order, each given one
//! status from the facts (a rule whose read failed is undecided, a host rule whose ssh
//! read was skipped is skipped), then the verdict. Pure.
//!
//! A blocker rule that fails makes NO-GO; a blocker rule that is undecided makes CANNOT TELL
//! unless another blocker already makes NO-GO (2 wins over 5, as for preview; the undecided
//! rules are listed too). A warning never changes the verdict.

pub use super::check::{Check, Finding, Request};
use super::facts::Facts;
use super::table::{Rule, Table};
use super::{RuleId, Severity};
use crate::error::Exit;
use crate::model::observation::FailureKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Holds,
    Fails,
    Unknown,
    /// A host rule not run (`--no-ssh`).
    Skipped,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Holds => "holds",
            Status::Fails => "fails",
            Status::Unknown => "unknown",
            Status::Skipped => "skipped",
        }
    }
}

/// The reason a host read carries when the operator asked `--no-ssh`: the one skip that is
/// the operator's choice, named in the output and never counted as undecided.
pub const NO_SSH: &str = "--no-ssh";

/// The reason a host read carries when the stack says `inventory: none`: the operator's
/// choice, written in the topology, skipped like `--no-ssh`.
pub const INVENTORY_NONE: &str = "`inventory: none` in the stack";

/// One rule's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub rule: Rule,
    pub status: Status,
    /// Holds / Unknown / Skipped: what was checked, or why it could not be.
    pub note: String,
    /// Fails: each finding.
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Go,
    NoGo {
        blockers: usize,
    },
    /// The blocker rules that could not be decided.
    CannotTell {
        undecided: Vec<RuleId>,
    },
}

impl Verdict {
    /// `GO`, `NO-GO: 2 blockers`, `CANNOT TELL: drain-ceph-health undecided`.
    pub fn line(&self) -> String {
        match self {
            Verdict::Go => "GO".to_string(),
            Verdict::NoGo { blockers: 1 } => "NO-GO: 1 blocker".to_string(),
            Verdict::NoGo { blockers } => format!("NO-GO: {blockers} blockers"),
            Verdict::CannotTell { undecided } => format!(
                "CANNOT TELL: {} undecided",
                undecided
                    .iter()
                    .map(|r| r.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// 0 go, 2 no-go, 5 cannot tell (SPEC §17).
    pub fn exit(&self) -> Exit {
        match self {
            Verdict::Go => Exit::Ok,
            Verdict::NoGo { .. } => Exit::PlanNotEmpty,
            Verdict::CannotTell { .. } => Exit::Undecided,
        }
    }
}

/// The gate's verdict and every rule's outcome, in table order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    pub verdict: Verdict,
    pub outcomes: Vec<Outcome>,
}

fn outcome(rule: &Rule, req: &Request, facts: &Facts, table: &Table) -> Outcome {
    let make = |status, note: String, findings| Outcome {
        rule: rule.clone(),
        status,
        note,
        findings,
    };
    let mut unread = None;
    for read in &rule.reads {
        if let Some(f) = facts.failure(*read) {
            // Skipped only when the operator said `--no-ssh` (the output names it); a host
            // read nestor cannot make is a read it lacks: a blocker then cannot say GO.
            let chosen = f.message == NO_SSH || f.message == INVENTORY_NONE;
            if read.is_host() && f.kind == FailureKind::Skipped && chosen {
                return make(Status::Skipped, format!("not read: {}", f.message), vec![]);
            }
            // A read the gate does not make is "not read", never worded as a failure.
            let note = if f.kind == FailureKind::Skipped {
                format!("{} not read: {}", read.as_str(), f.message)
            } else {
                format!("the read of {} failed: {f}", read.as_str())
            };
            unread = Some(note);
            break;
        }
    }
    // The rule runs on what was read: what it finds for certain is a finding even when part
    // of its reads failed (SPEC §17: a definite blocker is NO-GO whatever else cannot tell);
    // otherwise a failed read leaves it undecided, never holding.
    match (rule.id.judge(req, facts, table), unread) {
        (Check::Fails(findings), unread) => make(
            Status::Fails,
            unread.unwrap_or_default(),
            one_entry_per_subject(findings),
        ),
        (Check::Holds(_) | Check::Unknown(_), Some(note)) => make(Status::Unknown, note, vec![]),
        (Check::Holds(note), None) => make(Status::Holds, note, vec![]),
        (Check::Unknown(note), None) => make(Status::Unknown, note, vec![]),
    }
}

/// One entry per rule and subject: findings about one subject that clear the same way are
/// one entry (their evidence joined), and nodes with the same evidence and remedy are one
/// entry naming them all (`nodes dirqual1, dirqual2`), in first-seen order.
fn one_entry_per_subject(findings: Vec<Finding>) -> Vec<Finding> {
    let mut by_subject: Vec<Finding> = Vec::new();
    for f in findings {
        match by_subject
            .iter_mut()
            .find(|g| g.subject == f.subject && g.clears == f.clears)
        {
            Some(g) if g.evidence != f.evidence => {
                g.evidence = format!("{}; {}", g.evidence, f.evidence)
            }
            Some(_) => {}
            None => by_subject.push(f),
        }
    }
    let mut out: Vec<(Finding, Vec<String>)> = Vec::new();
    for f in by_subject {
        let node = f.subject.strip_prefix("node ").map(str::to_string);
        match (
            node,
            out.iter_mut().find(|(g, nodes)| {
                !nodes.is_empty() && g.evidence == f.evidence && g.clears == f.clears
            }),
        ) {
            (Some(n), Some((_, nodes))) => nodes.push(n),
            (Some(n), None) => out.push((f, vec![n])),
            (None, _) => out.push((f, vec![])),
        }
    }
    out.into_iter()
        .map(|(mut f, nodes)| {
            if nodes.len() > 1 {
                f.subject = format!("nodes {}", nodes.join(", "));
            }
            f
        })
        .collect()
}

/// Evaluate `req.gate`'s rules of `table` on `facts`.
pub fn evaluate(req: &Request, facts: &Facts, table: &Table) -> Evaluation {
    let outcomes: Vec<Outcome> = table
        .of(req.gate)
        .map(|rule| outcome(rule, req, facts, table))
        .collect();
    let blocker = |o: &&Outcome| o.rule.severity == Severity::Blocker;
    let blockers: usize = outcomes
        .iter()
        .filter(blocker)
        .filter(|o| o.status == Status::Fails)
        .map(|o| o.findings.len().max(1))
        .sum();
    let undecided: Vec<RuleId> = outcomes
        .iter()
        .filter(blocker)
        .filter(|o| o.status == Status::Unknown)
        .map(|o| o.rule.id)
        .collect();
    let verdict = if blockers > 0 {
        Verdict::NoGo { blockers }
    } else if !undecided.is_empty() {
        Verdict::CannotTell { undecided }
    } else {
        Verdict::Go
    };
    Evaluation { verdict, outcomes }
}
