//! The `Gate` document (`gate drain|upgrade ...`: the verdict and every rule's outcome) and
//! the `GateRules` document (`gate rules`: the table). Filled from `model::gate`'s
//! evaluation; serde field names are the nestor/v1 contract.

// `GateDoc` is filled by `gate drain|upgrade` once the session reads their facts (issue 33,
// the live wiring); until then only the tests and the schema build it.
#![cfg_attr(not(test), allow(dead_code))]

use schemars::JsonSchema;
use serde::Serialize;

use crate::model::gate::{Evaluation, Gate, Outcome, Rule, RuleId, Severity, Status, Verdict};
use crate::model::snapshot::TargetRef;
use crate::output::render::API_VERSION;

/// `GO`, `NO-GO` or `CANNOT TELL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) enum GateResult {
    #[serde(rename = "GO")]
    Go,
    #[serde(rename = "NO-GO")]
    NoGo,
    #[serde(rename = "CANNOT TELL")]
    CannotTell,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VerdictDoc {
    pub(crate) result: GateResult,
    /// The first line of the text output: `GO`, `NO-GO: 2 blockers`, `CANNOT TELL: ...`.
    pub(crate) line: String,
    /// The blockers found (each finding of a failing blocker rule).
    pub(crate) blockers: usize,
    /// The blocker rules that could not be decided (a read failed, was forbidden or stale).
    pub(crate) undecided: Vec<RuleId>,
    /// 0 go, 2 no-go, 5 cannot tell.
    pub(crate) exit_code: u8,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct SourceDoc {
    pub(crate) title: String,
    pub(crate) url: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct FindingDoc {
    pub(crate) subject: String,
    /// In the owner's words.
    pub(crate) evidence: String,
    /// What would clear it.
    pub(crate) clears: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum StatusDoc {
    Holds,
    Fails,
    Unknown,
    Skipped,
}

impl StatusDoc {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            StatusDoc::Holds => "holds",
            StatusDoc::Fails => "fails",
            StatusDoc::Unknown => "unknown",
            StatusDoc::Skipped => "skipped",
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OutcomeDoc {
    pub(crate) rule: RuleId,
    pub(crate) severity: Severity,
    pub(crate) title: String,
    pub(crate) status: StatusDoc,
    /// What was checked (holds), or why it could not be (unknown, skipped); empty when it fails.
    pub(crate) note: String,
    pub(crate) findings: Vec<FindingDoc>,
    pub(crate) source: SourceDoc,
    /// Read over ssh (`--no-ssh` skips it).
    pub(crate) host: bool,
    /// `--explain`: each read the rule was decided from, what it showed and the read-only
    /// commands that show it by hand.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) explain: Vec<ExplainDoc>,
}

/// One read behind a rule (`--explain`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExplainDoc {
    pub(crate) read: crate::model::gate::Read,
    /// What it showed, in one line, or why it gave nothing (skipped, forbidden, failed).
    pub(crate) fact: String,
    /// The requests the gate sent for it, as a person runs them: each GET through the proxy
    /// as `kubectl ... get --raw TARGET`, each ssh exactly as nestor ran it.
    pub(crate) commands: Vec<String>,
}

/// What the gate was asked about.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Subject {
    pub(crate) gate: Gate,
    /// `gate drain NODE`.
    pub(crate) node: Option<String>,
    /// `gate upgrade COMPONENT VERSION`.
    pub(crate) version: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GateDoc {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) stack: Option<String>,
    pub(crate) target: TargetRef,
    pub(crate) subject: Subject,
    pub(crate) verdict: VerdictDoc,
    /// Every rule of the gate, in the table's order.
    pub(crate) rules: Vec<OutcomeDoc>,
}

fn source(r: &Rule) -> SourceDoc {
    SourceDoc {
        title: r.source.title.clone(),
        url: r.source.url.clone(),
    }
}

fn status(s: Status) -> StatusDoc {
    match s {
        Status::Holds => StatusDoc::Holds,
        Status::Fails => StatusDoc::Fails,
        Status::Unknown => StatusDoc::Unknown,
        Status::Skipped => StatusDoc::Skipped,
    }
}

fn outcome(o: &Outcome) -> OutcomeDoc {
    OutcomeDoc {
        rule: o.rule.id,
        severity: o.rule.severity,
        title: o.rule.title.clone(),
        status: status(o.status),
        note: o.note.clone(),
        findings: o
            .findings
            .iter()
            .map(|f| FindingDoc {
                subject: f.subject.clone(),
                evidence: f.evidence.clone(),
                clears: f.clears.clone(),
            })
            .collect(),
        source: source(&o.rule),
        host: o.rule.host,
        explain: Vec::new(),
    }
}

pub(crate) fn verdict(v: &Verdict) -> VerdictDoc {
    let (result, blockers, undecided) = match v {
        Verdict::Go => (GateResult::Go, 0, vec![]),
        Verdict::NoGo { blockers } => (GateResult::NoGo, *blockers, vec![]),
        Verdict::CannotTell { undecided } => (GateResult::CannotTell, 0, undecided.clone()),
    };
    VerdictDoc {
        result,
        line: v.line(),
        blockers,
        undecided,
        exit_code: v.exit().code(),
    }
}

impl GateDoc {
    pub(crate) fn new(
        stack: Option<String>,
        target: TargetRef,
        subject: Subject,
        ev: &Evaluation,
    ) -> GateDoc {
        let mut verdict = verdict(&ev.verdict);
        // NO-GO wins over CANNOT TELL, but the undecided blocker rules are listed too.
        verdict.undecided = ev
            .outcomes
            .iter()
            .filter(|o| o.rule.severity == Severity::Blocker && o.status == Status::Unknown)
            .map(|o| o.rule.id)
            .collect();
        GateDoc {
            api_version: API_VERSION,
            kind: "Gate",
            stack,
            target,
            subject,
            verdict,
            rules: ev.outcomes.iter().map(outcome).collect(),
        }
    }
}

/// One row of `gate rules`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RuleDoc {
    pub(crate) id: RuleId,
    pub(crate) gate: Gate,
    pub(crate) severity: Severity,
    pub(crate) title: String,
    /// What the rule reads (`host-*`: over ssh).
    pub(crate) reads: Vec<crate::model::gate::Read>,
    pub(crate) host: bool,
    pub(crate) source: SourceDoc,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GateRulesDoc {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) rules: Vec<RuleDoc>,
}

impl GateRulesDoc {
    pub(crate) fn new(rules: &[Rule]) -> GateRulesDoc {
        GateRulesDoc {
            api_version: API_VERSION,
            kind: "GateRules",
            rules: rules
                .iter()
                .map(|r| RuleDoc {
                    id: r.id,
                    gate: r.gate,
                    severity: r.severity,
                    title: r.title.clone(),
                    reads: r.reads.clone(),
                    host: r.host,
                    source: source(r),
                })
                .collect(),
        }
    }
}
