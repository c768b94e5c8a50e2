//! What a rule's code is given and gives back (SPEC §17): the operator's request (the gate,
//! NODE or VERSION), and the rule's conclusion — holds, fails with findings in the owner's
//! words, or cannot tell. The rules (`drain`, `upgrade`, `components`, `release`) and the
//! evaluation (`verdict`) both use these; neither depends on the other through them.

use super::facts::{Ceph, Facts};
use super::version::Version;
use super::Gate;

/// What the operator asked: the gate, and its NODE or VERSION.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub gate: Gate,
    /// `gate drain NODE`.
    pub node: Option<String>,
    /// `gate upgrade COMPONENT VERSION`.
    pub version: Option<Version>,
}

/// One thing a rule found, in the owner's words, and what would clear it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What it is about (`pdb cnpg/pg-main-primary`, `node dirqual2`).
    pub subject: String,
    pub evidence: String,
    pub clears: String,
}

impl Finding {
    pub fn new(
        subject: impl Into<String>,
        evidence: impl Into<String>,
        clears: impl Into<String>,
    ) -> Self {
        Finding {
            subject: subject.into(),
            evidence: evidence.into(),
            clears: clears.into(),
        }
    }
}

/// What one rule's code concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// Holds; the words say what was checked.
    Holds(String),
    Fails(Vec<Finding>),
    /// Cannot be decided from what was read; the words say why.
    Unknown(String),
}

/// A per-CephCluster rule over every CephCluster listed, never only the first (a cluster may
/// run a lab CephCluster beside Rook's own): any finding fails it, else anything undecided
/// leaves it undecided, else it holds, each cluster's words joined.
pub fn each_ceph(facts: &Facts, judge: impl Fn(&Ceph) -> Check) -> Check {
    let Ok(all) = &facts.ceph else {
        return Check::Unknown("CephCluster not read".into());
    };
    if all.is_empty() {
        return Check::Holds("no CephCluster in the cluster".into());
    }
    let (mut findings, mut unknown, mut holds) = (Vec::new(), Vec::new(), Vec::new());
    for c in all {
        match judge(c) {
            Check::Fails(f) => findings.extend(f),
            Check::Unknown(n) => unknown.push(n),
            Check::Holds(n) => holds.push(n),
        }
    }
    if !findings.is_empty() {
        Check::Fails(findings)
    } else if !unknown.is_empty() {
        Check::Unknown(unknown.join("; "))
    } else {
        Check::Holds(holds.join("; "))
    }
}
