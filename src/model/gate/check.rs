//! What a rule's code is given and gives back (SPEC §17): the operator's request (the gate,
//! NODE or VERSION), and the rule's conclusion — holds, fails with findings in the owner's
//! words, or cannot tell. The rules (`drain`, `upgrade`, `components`, `release`) and the
//! evaluation (`verdict`) both use these; neither depends on the other through them.

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
