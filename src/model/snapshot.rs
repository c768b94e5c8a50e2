//! Saved observations (`discover --save`, `preview --snapshot`): the same typed data the live
//! probes produce, with the target it was read from, so a replay can be checked against the
//! stack's declared endpoint and never silently stands in for another cluster.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::observation::Observation;
use crate::model::API_VERSION;

#[derive(Debug, Clone, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Snapshot {
    pub api_version: String,
    pub kind: String,
    /// When it was read (RFC 3339, UTC).
    pub taken_at: String,
    pub target: SnapshotTarget,
    pub observation: Observation,
    /// The nestor that wrote it (SPEC §16); absent in snapshots written before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nestor_version: Option<String>,
}

/// The cluster a document read, in the one shape every `nestor/v1` document uses:
/// `target: {rule, kubeconfig, context, endpoint, confirmedBy}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TargetRef {
    /// The rule that chose the kubeconfig: `flag`, `env`, `topology`, `lima-bench` or
    /// `snapshot`; `None` (written `""`) in a snapshot written before the field existed.
    #[serde(
        default,
        serialize_with = "rule_or_empty",
        deserialize_with = "rule_from_text"
    )]
    #[schemars(schema_with = "rule_schema")]
    pub rule: Option<Rule>,
    pub kubeconfig: String,
    pub context: String,
    pub endpoint: String,
    /// How the target was confirmed (the policy the session applied).
    #[serde(
        default,
        serialize_with = "confirmation_or_null",
        deserialize_with = "confirmation_from_text"
    )]
    #[schemars(schema_with = "confirmation_schema")]
    pub confirmed_by: Confirmation,
}

/// The rule of SPEC §4 that chose the kubeconfig. Its name is the one vocabulary of every
/// output, text and JSON alike: `flag`, `env`, `topology`, `lima-bench`, `snapshot`. Pure
/// data here (a snapshot stores it); the rules themselves are `crate::target`'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// `--kubeconfig FILE`.
    Flag,
    /// The `KUBECONFIG` environment variable.
    Env,
    /// The topology's `kubeconfig:`.
    Topology,
    /// The Lima bench kubeconfig (declared or the harness default).
    LimaBench,
    /// A replayed snapshot (`preview --snapshot FILE`): no kubeconfig is read at all.
    Snapshot,
}

/// How a target was confirmed, the one answer of every document's `target.confirmedBy`:
/// `prompt` (the operator said yes), `endpoint` (the kubeconfig's server is the topology's
/// `endpoint:`), `bench` (a lima stack's authoritative bench kubeconfig), `snapshot` (a
/// replayed snapshot whose recorded endpoint is the topology's), `null` when nothing
/// confirmed it (a kubeconfig the operator named with no stack). Decided only by
/// `crate::session`; everything else just carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confirmation {
    Prompt,
    Endpoint,
    Bench,
    Snapshot,
    /// Written `null` in a document's `target.confirmedBy`.
    #[default]
    Unconfirmed,
}

impl Rule {
    /// The rule's name in every output: `flag`, `env`, `topology`, `lima-bench`, `snapshot`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Flag => "flag",
            Rule::Env => "env",
            Rule::Topology => "topology",
            Rule::LimaBench => "lima-bench",
            Rule::Snapshot => "snapshot",
        }
    }
}

impl TargetRef {
    /// The rule's name, `""` for a snapshot older than the field.
    pub fn rule_name(&self) -> &'static str {
        self.rule.map_or("", Rule::name)
    }
}

fn confirmation_or_null<S: serde::Serializer>(
    c: &Confirmation,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    if *c == Confirmation::Unconfirmed {
        s.serialize_none()
    } else {
        c.serialize(s)
    }
}

fn confirmation_from_text<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Confirmation, D::Error> {
    Ok(Option::<Confirmation>::deserialize(d)?.unwrap_or_default())
}

/// What `rule_or_empty` writes: a rule's name, or `""`.
fn rule_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "enum": ["flag", "env", "topology", "lima-bench", "snapshot", ""]
    })
}

/// What `confirmation_or_null` writes: a policy's name, or `null` (never `unconfirmed`).
fn confirmation_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": ["string", "null"],
        "enum": ["prompt", "endpoint", "bench", "snapshot", null]
    })
}

fn rule_or_empty<S: serde::Serializer>(
    rule: &Option<Rule>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    match rule {
        Some(r) => r.serialize(s),
        None => s.serialize_str(""),
    }
}

fn rule_from_text<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Rule>, D::Error> {
    let text = String::deserialize(d)?;
    if text.is_empty() {
        return Ok(None);
    }
    Rule::deserialize(serde::de::value::StrDeserializer::<D::Error>::new(&text)).map(Some)
}

/// The target a snapshot was read from.
pub type SnapshotTarget = TargetRef;

/// The largest snapshot read: 64 MiB (a snapshot of a large cluster is a few MiB).
pub const MAX_SNAPSHOT_BYTES: u64 = 64 << 20;

/// How far ahead of this machine's clock a snapshot's `takenAt` may be (clocks drift).
const FUTURE_SKEW_SECS: i64 = 300;

/// A snapshot taken "after now" (issue 31 item 8: dated 400 days ahead) is refused, named as
/// from the future: every age in it (a stale status, a certificate's expiry) would be judged
/// as of a time that has not come, so nothing in it may count as fresh.
fn not_from_the_future(taken_at: &str, shown: &str, now: i64) -> Result<()> {
    match crate::clock::parse_rfc3339(taken_at) {
        Some(at) if at > now.saturating_add(FUTURE_SKEW_SECS) => Err(Error::input(
            format!(
                "snapshot {shown} is from the future: taken {}, {} ahead of this machine's clock ({})",
                crate::term::escape(taken_at),
                crate::duration::rough(at - now),
                crate::clock::rfc3339(now)
            ),
            "check this machine's clock and the one that took it, or take the snapshot again with `kubectl nestor discover --save FILE`",
        )),
        Some(_) | None => Ok(()),
    }
}

impl Snapshot {
    pub fn new(target: SnapshotTarget, observation: Observation) -> Snapshot {
        Snapshot {
            api_version: API_VERSION.to_string(),
            kind: "Snapshot".to_string(),
            taken_at: crate::clock::now_rfc3339(),
            target,
            observation,
            nestor_version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }
    }

    /// Read a snapshot: a regular file of at most [`MAX_SNAPSHOT_BYTES`] (a FIFO or
    /// `/dev/zero` is refused before reading).
    pub fn load(path: &Path) -> Result<Snapshot> {
        let shown = path.display();
        let bytes = crate::bounded::read_prefix(path, MAX_SNAPSHOT_BYTES + 1).map_err(|e| {
            Error::input(
                format!("cannot read snapshot {shown}: {e}"),
                "pass a file written by `kubectl nestor discover --save FILE`",
            )
        })?;
        if bytes.len() as u64 > MAX_SNAPSHOT_BYTES {
            return Err(Error::input(
                format!(
                    "snapshot {shown} is larger than {} MiB: refused before parsing",
                    MAX_SNAPSHOT_BYTES >> 20
                ),
                "pass a file written by `kubectl nestor discover --save FILE`",
            ));
        }
        let text = String::from_utf8(bytes).map_err(|_| {
            Error::input(
                format!("snapshot {shown} is not UTF-8 text"),
                "pass a file written by `kubectl nestor discover --save FILE`",
            )
        })?;
        let mut snap: Snapshot = serde_json::from_str(&text).map_err(|e| {
            Error::input(
                format!(
                    "{shown}:{}:{}: not a nestor snapshot: {e}",
                    e.line(),
                    e.column()
                ),
                "pass a file written by `kubectl nestor discover --save FILE`",
            )
        })?;
        if snap.api_version != API_VERSION || snap.kind != "Snapshot" {
            return Err(Error::input(
                format!(
                    "{shown} is `{}` `{}`, not `{API_VERSION}` `Snapshot`",
                    snap.api_version, snap.kind
                ),
                "write it again with this version's `kubectl nestor discover --save FILE`",
            ));
        }
        // A recorded endpoint is printed by `diff` and `preview --snapshot`: one with a
        // credential in it (`user:pass@`, an edited or foreign file) is refused unprinted.
        if crate::redact::url_userinfo(&snap.target.endpoint) != snap.target.endpoint {
            return Err(Error::input(
                format!(
                    "snapshot {shown}: its endpoint `{}` holds a user name or password",
                    crate::term::escape(&crate::redact::redact_url(&snap.target.endpoint))
                ),
                "credentials never belong in a server URL: take the snapshot again with `kubectl nestor discover --save FILE` from a kubeconfig whose server URL holds none",
            ));
        }
        // Ages (a stale status, a certificate's expiry) are judged as of the reading.
        snap.observation.observed_at = crate::clock::parse_rfc3339(&snap.taken_at);
        not_from_the_future(&snap.taken_at, &shown.to_string(), crate::clock::now_secs())?;
        Ok(snap)
    }

    /// Write atomically (temp file + rename), 0600 for a new file, kept mode otherwise.
    pub fn save(&self, path: &Path) -> Result<()> {
        let mut json = serde_json::to_string_pretty(self)
            .map_err(|e| Error::internal(format!("cannot encode the snapshot: {e}")))?;
        json.push('\n');
        // 0600 even over an existing file of another mode: it holds what a cluster holds.
        crate::fs::write_private(path, json.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_from_the_future_is_refused_naming_it() {
        let now = crate::clock::parse_rfc3339("2026-12-01T22:00:00Z").unwrap();
        let e = not_from_the_future("2028-01-05T22:00:00Z", "s.json", now).unwrap_err();
        assert_eq!(
            e.message,
            "snapshot s.json is from the future: taken 2028-01-05T22:00:00Z, 400d ahead of this machine's clock (2026-12-01T22:00:00Z)"
        );
        assert_eq!(e.exit, crate::error::Exit::Error);
        // A few minutes of clock skew, the past, and no parsable time are not refused here.
        for ok in ["2026-12-01T22:04:00Z", "2026-11-30T08:00:00Z", "yesterday"] {
            assert!(not_from_the_future(ok, "s.json", now).is_ok(), "{ok}");
        }
    }
}
