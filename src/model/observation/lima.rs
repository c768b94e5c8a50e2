//! Parser of `limactl list --json`: the VMs of a local bench. limactl prints one JSON object
//! per instance (NDJSON; pretty-printed only on a terminal, which nestor never is), with the
//! fields of lima's `store.FormatData` (`name`, `status`, `dir`, `vmType`, `arch`, `cpus`,
//! `memory`, `disk`, `sshLocalPort`, `errors`, ... plus the host fields).
//!
//! Read as each release writes it (fixtures `tests/fixtures/limactl/lima-*.ndjson`): 0.2x has
//! no `hostname`, 1.x adds it, 2.x drops `cpuType`; every field but `name` and `status` may be
//! absent. `errors` is Go's `[]error` encoded by value: a plain error is `{}`, a path error
//! `{"Op","Path","Err"}` (errno), and from 2.0 limactl deletes the empty objects (`[]`); Lima's
//! own string marshaller is not used by `list`, but strings are accepted too. An instance whose
//! fields cannot be decoded is kept by name as [`LimaStatus::Unreadable`], so that only the
//! stack's own instances can ever matter.

use std::collections::HashSet;
use std::io::Read;

use schemars::JsonSchema;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::item_cap::{Capped, ItemCap};
use crate::error::{Error, Result};
use crate::pool::{Budget, OVER_BUDGET};

/// At most this many error texts per instance, each at most this many characters.
const MAX_ERRORS: usize = 8;
const MAX_ERROR_CHARS: usize = 300;

/// An instance status. Lima also knows `Uninitialized`, `Installing` and `""` (unknown);
/// anything that is not one of the three useful values is kept as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LimaStatus {
    Running,
    Stopped,
    Broken,
    Other(String),
    /// The instance's object could not be decoded (why, as serde says it).
    Unreadable(String),
}

impl LimaStatus {
    pub fn as_str(&self) -> &str {
        match self {
            LimaStatus::Running => "Running",
            LimaStatus::Stopped => "Stopped",
            LimaStatus::Broken => "Broken",
            LimaStatus::Other(s) => s,
            LimaStatus::Unreadable(_) => "unreadable",
        }
    }
}

impl From<String> for LimaStatus {
    fn from(s: String) -> Self {
        match s.as_str() {
            "Running" => LimaStatus::Running,
            "Stopped" => LimaStatus::Stopped,
            "Broken" => LimaStatus::Broken,
            _ => LimaStatus::Other(s),
        }
    }
}

impl Default for LimaStatus {
    fn default() -> Self {
        LimaStatus::Other(String::new())
    }
}

impl Serialize for LimaStatus {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for LimaStatus {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        String::deserialize(d).map(LimaStatus::from)
    }
}

/// One Lima instance, only the fields nestor uses or shows. Only `name` and `status` are
/// required: every other field is absent in some release or state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LimaInstance {
    pub name: String,
    #[schemars(with = "String")]
    pub status: LimaStatus,
    #[serde(default)]
    pub dir: String,
    #[serde(default)]
    pub vm_type: String,
    #[serde(default)]
    pub arch: String,
    #[serde(default)]
    pub cpus: u32,
    /// Bytes.
    #[serde(default)]
    pub memory: u64,
    /// Bytes.
    #[serde(default)]
    pub disk: u64,
    #[serde(default)]
    pub ssh_local_port: u16,
    /// Why lima considers the instance broken: what text its JSON holds (an error Go encoded
    /// as `{}` has none).
    #[serde(default, deserialize_with = "error_texts")]
    pub errors: Vec<String>,
}

impl LimaInstance {
    /// An instance known by name only.
    pub fn named(name: &str, status: LimaStatus) -> LimaInstance {
        LimaInstance {
            name: name.to_string(),
            status,
            dir: String::new(),
            vm_type: String::new(),
            arch: String::new(),
            cpus: 0,
            memory: 0,
            disk: 0,
            ssh_local_port: 0,
            errors: vec![],
        }
    }
}

/// `errors` as any JSON value: strings as written, objects by their text (see [`text_of`]),
/// `null`, `[]` and `{}` as nothing.
// a serde Value: every shape but the expected ones is the same error.
#[allow(clippy::wildcard_enum_match_arm)]
fn error_texts<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Vec<String>, D::Error> {
    let value = Value::deserialize(d)?;
    let items = match value {
        Value::Array(items) => items,
        other => vec![other],
    };
    Ok(items
        .iter()
        .filter_map(text_of)
        .take(MAX_ERRORS)
        .map(|t| t.chars().take(MAX_ERROR_CHARS).collect())
        .collect())
}

/// The text of one encoded Go error: a string as is; a path error (`Op`, `Path`, `Err`) as
/// Go words it, with the errno as a number (its name depends on the host's OS); another
/// object by its text fields in order (`Op`, `URL`, `Path`, `message`, `msg`, ...) then its
/// nested `Err`. `None` when there is no text at all.
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Number(n) => Some(errno_text(n.as_u64())),
        Value::Object(map) => {
            let mut words: Vec<String> = vec![];
            for key in ["Op", "URL", "Net", "Path", "Addr", "Source"] {
                if let Some(Value::String(s)) = map.get(key) {
                    words.push(s.clone());
                }
            }
            let mut head = words.join(" ");
            for (k, v) in map {
                let known = ["Op", "URL", "Net", "Path", "Addr", "Source", "Err"];
                if let (false, Value::String(s)) = (known.contains(&k.as_str()), v) {
                    if !head.is_empty() {
                        head.push_str(": ");
                    }
                    head.push_str(s);
                }
            }
            let cause = map.get("Err").and_then(text_of);
            match (head.is_empty(), cause) {
                (true, None) => None,
                (true, Some(c)) => Some(c),
                (false, None) => Some(head),
                (false, Some(c)) => Some(format!("{head}: {c}")),
            }
        }
        Value::Array(items) => {
            let texts: Vec<String> = items.iter().filter_map(text_of).collect();
            (!texts.is_empty()).then(|| texts.join("; "))
        }
        Value::String(_) | Value::Null | Value::Bool(_) => None,
    }
}

/// Go's text of a `syscall.Errno`: errnos 1 to 34 are the same on Linux, macOS and the BSDs
/// (Version 7 Unix's), so the common ones are worded as Go words them; any other by number.
fn errno_text(n: Option<u64>) -> String {
    match n {
        Some(1) => "operation not permitted".into(),
        Some(2) => "no such file or directory".into(),
        Some(3) => "no such process".into(),
        Some(13) => "permission denied".into(),
        Some(20) => "not a directory".into(),
        Some(21) => "is a directory".into(),
        Some(28) => "no space left on device".into(),
        Some(30) => "read-only file system".into(),
        Some(n) => format!("errno {n}"),
        None => "errno ?".into(),
    }
}

/// `limactl list --json`. Empty output means no instance. A stream that is not JSON, or an
/// instance without a string `name`, is an error; an instance whose other fields cannot be
/// decoded is [`LimaStatus::Unreadable`] (it matters only if it is one of the stack's).
pub fn parse_limactl_list(ndjson: &str) -> Result<Vec<LimaInstance>> {
    let unbounded = Budget::new(usize::MAX);
    decode_limactl_list(ndjson.as_bytes(), &|_| true, &unbounded)
}

/// The fields of an instance nestor reads; every other one (`config`, `network`, the host
/// fields) is skipped unread, whatever it weighs.
const READ_FIELDS: [&str; 10] = [
    "name",
    "status",
    "dir",
    "vmType",
    "arch",
    "cpus",
    "memory",
    "disk",
    "sshLocalPort",
    "errors",
];

/// What a name costs the budget beside its text (the set's slot, the allocation).
const NAME_OVERHEAD: usize = 64;

/// [`parse_limactl_list`] decoded as the bytes arrive (issue 49 item 9, SPEC §9 "Bounded per
/// run"): each instance, bounded by what `budget` has left while it is decoded, is read into
/// [`READ_FIELDS`] only; the instances `keep` names are kept, every name is charged to
/// `budget` (a name listed twice is refused, whichever instance it is). Over the budget the
/// read fails naming it: VMs are never planned from part of a listing.
pub fn decode_limactl_list<R: Read>(
    reader: R,
    keep: &dyn Fn(&str) -> bool,
    budget: &Budget,
) -> Result<Vec<LimaInstance>> {
    let what = "`limactl list --json`";
    let malformed = |e: String| {
        Error::input(
            format!("malformed output of {what}: {e}"),
            "expected one JSON object per instance; run `limactl list --json` by hand",
        )
    };
    let over = |e: String| {
        let said = e.rsplit_once(" at line ").map_or(e.as_str(), |(s, _)| s);
        Error::input(
            format!("{what} not read: {said}"),
            "list fewer instances (`limactl delete` the ones no bench uses) or run `limactl list --json` by hand",
        )
    };
    let cap = ItemCap::default();
    let capped = Capped {
        inner: reader,
        cap: &cap,
        what,
    };
    // A stream of whitespace-separated JSON values: NDJSON, and also the pretty-printed form.
    let mut stream = serde_json::Deserializer::from_reader(capped).into_iter::<ReadFields>();
    let (mut names, mut out) = (HashSet::new(), vec![]);
    loop {
        // No instance may cost more than the budget has left, before it is decoded.
        cap.open(budget);
        let next = stream.next();
        cap.close();
        let Some(next) = next else {
            return Ok(out);
        };
        let ReadFields(fields) = next.map_err(|e| {
            let text = e.to_string();
            if text.starts_with(OVER_BUDGET) {
                over(text)
            } else {
                malformed(text)
            }
        })?;
        let Some(name) = fields.get("name").and_then(Value::as_str) else {
            return Err(malformed("an instance without a `name`".to_string()));
        };
        let name = name.to_string();
        budget
            .charge(name.len() + NAME_OVERHEAD, what)
            .map_err(over)?;
        // One instance per name is what Lima lists: a name twice (Running, then Broken) hid
        // the second (issue 49); such an answer is not what was asked.
        if !names.insert(name.clone()) {
            return Err(malformed(format!(
                "instance `{}` listed twice",
                crate::term::escape(&name)
            )));
        }
        if keep(&name) {
            let instance = LimaInstance::deserialize(Value::Object(fields)).unwrap_or_else(|e| {
                LimaInstance::named(&name, LimaStatus::Unreadable(e.to_string()))
            });
            budget
                .charge(super::typed_list::weight(&instance), what)
                .map_err(over)?;
            out.push(instance);
        }
    }
}

/// One instance's [`READ_FIELDS`], as written; the others skipped unread.
struct ReadFields(serde_json::Map<String, Value>);

impl<'de> Deserialize<'de> for ReadFields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_map(ReadFieldsVisitor)
    }
}

struct ReadFieldsVisitor;

impl<'de> Visitor<'de> for ReadFieldsVisitor {
    type Value = ReadFields;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("one JSON object per instance")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<ReadFields, A::Error> {
        let mut fields = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if READ_FIELDS.contains(&key.as_str()) {
                let value: Value = map.next_value()?;
                fields.insert(key, value);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(ReadFields(fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instance_listed_twice_is_no_answer() {
        let twice = r#"{"name":"bench-node1","status":"Running","dir":"/l/bench-node1"}
{"name":"bench-node1","status":"Broken","dir":"/l/bench-node1"}"#;
        let e = parse_limactl_list(twice).unwrap_err().to_string();
        assert!(e.contains("instance `bench-node1` listed twice"), "{e}");
        let once = r#"{"name":"bench-node1","status":"Running","dir":"/l/bench-node1"}
{"name":"bench-node2","status":"Broken","dir":"/l/bench-node2"}"#;
        assert_eq!(parse_limactl_list(once).unwrap().len(), 2);
    }

    /// Issue 49 item 9: what is kept is charged as it arrives; past the budget the listing is
    /// a failed read naming it (never an empty bench), and an instance larger than what the
    /// budget has left is refused while it is read, its unread fields never decoded.
    #[test]
    fn a_listing_over_the_budget_is_a_failed_read_naming_it() {
        let line = |i: usize| {
            format!(
                "{{\"name\":\"ci-{i:04}\",\"status\":\"Stopped\",\"config\":{{\"images\":[]}}}}\n"
            )
        };
        let text: String = (0..2000).map(line).collect();
        let keep = |n: &str| n == "ci-0007";
        let roomy = Budget::new(1 << 20);
        let kept = decode_limactl_list(text.as_bytes(), &keep, &roomy).unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].name, "ci-0007");
        let tight = Budget::new(64 << 10);
        let e = decode_limactl_list(text.as_bytes(), &keep, &tight).unwrap_err();
        assert_eq!(
            e.message,
            "`limactl list --json` not read: over nestor's memory budget of 0 MiB for one read of a cluster: `limactl list --json` not kept (it holds more than nestor keeps)"
        );
        let huge = format!(
            "{{\"name\":\"a\",\"status\":\"Broken\",\"errors\":[\"{}\"]}}",
            "y".repeat(5 << 20)
        );
        let e = decode_limactl_list(huge.as_bytes(), &|_| true, &tight).unwrap_err();
        assert!(
            e.message
                .starts_with("`limactl list --json` not read: over nestor's memory budget")
                && e.message.contains("larger than what the budget has left"),
            "{}",
            e.message
        );
    }

    #[test]
    fn bench_instances() {
        let list = parse_limactl_list(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/limactl/list-bench.ndjson"
        )))
        .unwrap();
        let v: Vec<_> = list
            .iter()
            .map(|i| (i.name.as_str(), i.status.as_str()))
            .collect();
        assert_eq!(
            v,
            [
                ("default", "Running"),
                ("node1", "Running"),
                ("node2", "Stopped"),
                ("old", "Broken")
            ]
        );
        assert_eq!(
            list[1],
            LimaInstance {
                name: "node1".into(),
                status: LimaStatus::Running,
                dir: "/Users/ops/.lima/node1".into(),
                vm_type: "vz".into(),
                arch: "aarch64".into(),
                cpus: 4,
                memory: 8589934592,
                disk: 53687091200,
                ssh_local_port: 60023,
                errors: vec![],
            }
        );
        assert_eq!(list[2].ssh_local_port, 0);
        assert_eq!(list[3].status, LimaStatus::Broken);
        assert_eq!(
            list[3].errors,
            ["open /Users/ops/.lima/old/ha.pid: permission denied"]
        );
    }

    fn fixture(version: &str) -> String {
        let path = format!(
            "{}/tests/fixtures/limactl/lima-{version}.ndjson",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(path).unwrap()
    }

    fn summary(list: &[LimaInstance]) -> Vec<(String, String, Vec<String>)> {
        list.iter()
            .map(|i| {
                (
                    i.name.clone(),
                    i.status.as_str().to_string(),
                    i.errors.clone(),
                )
            })
            .collect()
    }

    /// Each release's own encoding of the same four instances: 1.x writes the plain error as
    /// `{}`, 2.x deletes it (`[]`); the path error is an object in all of them.
    #[test]
    fn each_release_as_it_prints() {
        let node3 = "open /Users/ops/.lima/node3/ha.pid: permission denied".to_string();
        for version in ["0.23.2", "1.0.6", "1.2.2", "2.0.3", "2.0.3-strings"] {
            let list = parse_limactl_list(&fixture(version)).unwrap();
            let default_errors = match version {
                "2.0.3-strings" => vec!["host agent is running but driver is not".to_string()],
                _ => vec![],
            };
            assert_eq!(
                summary(&list),
                [
                    ("default".into(), "Broken".into(), default_errors),
                    ("node1".into(), "Running".into(), vec![]),
                    ("node2".into(), "Stopped".into(), vec![]),
                    ("node3".into(), "Broken".into(), vec![node3.clone()]),
                ],
                "Lima {version}"
            );
            assert_eq!(list[1].ssh_local_port, 60023, "Lima {version}");
        }
    }

    #[test]
    fn errors_as_any_json_value() {
        let cases: &[(&str, &[&str])] = &[
            ("null", &[]),
            ("[]", &[]),
            ("{}", &[]),
            ("[{},{}]", &[]),
            ("\"disk full\"", &["disk full"]),
            ("[\"a\",\"\",{}]", &["a"]),
            (
                "[{\"Op\":\"open\",\"Path\":\"/h/x.pid\",\"Err\":2}]",
                &["open /h/x.pid: no such file or directory"],
            ),
            (
                "[{\"Op\":\"read\",\"Path\":\"/p\",\"Err\":99}]",
                &["read /p: errno 99"],
            ),
            (
                "[{\"Op\":\"dial\",\"Net\":\"unix\",\"Err\":{\"Syscall\":\"connect\",\"Err\":61}}]",
                &["dial unix: connect: errno 61"],
            ),
            ("[{\"message\":\"boom\"}]", &["boom"]),
            ("[7, true]", &["errno 7"]),
        ];
        for (errors, expected) in cases {
            let line = format!("{{\"name\":\"a\",\"status\":\"Broken\",\"errors\":{errors}}}");
            let list = parse_limactl_list(&line).unwrap();
            assert_eq!(list[0].errors, *expected, "errors: {errors}");
        }
        let many = format!("[{}]", vec!["\"x\""; 20].join(","));
        let long = format!("[\"{}\"]", "y".repeat(5000));
        for (errors, count, chars) in [(many, MAX_ERRORS, 1), (long, 1, MAX_ERROR_CHARS)] {
            let line = format!("{{\"name\":\"a\",\"status\":\"Broken\",\"errors\":{errors}}}");
            let list = parse_limactl_list(&line).unwrap();
            assert_eq!(list[0].errors.len(), count);
            assert_eq!(list[0].errors[0].chars().count(), chars);
        }
    }

    #[test]
    fn name_is_required_other_fields_make_an_unreadable_instance() {
        let e = parse_limactl_list("{\"status\":\"Running\"}\n").unwrap_err();
        assert_eq!(
            e.message,
            "malformed output of `limactl list --json`: an instance without a `name`"
        );
        let list = parse_limactl_list(
            "{\"name\":\"a\"}\n{\"name\":\"b\",\"status\":\"Running\",\"cpus\":\"four\"}\n",
        )
        .unwrap();
        assert_eq!(
            list[0].status,
            LimaStatus::Unreadable("missing field `status`".into())
        );
        assert_eq!(
            list[1].status,
            LimaStatus::Unreadable("invalid type: string \"four\", expected u32".into())
        );
        assert_eq!(list[1].name, "b");
    }

    #[test]
    fn unknown_status_is_kept() {
        let list = parse_limactl_list(
            "{\"name\":\"node3\",\"status\":\"Installing\",\"dir\":\"/home/ops/.lima/node3\"}\n",
        )
        .unwrap();
        assert_eq!(list[0].status, LimaStatus::Other("Installing".into()));
        assert_eq!(
            serde_json::to_string(&list[0].status).unwrap(),
            "\"Installing\""
        );
    }

    #[test]
    fn empty_output_is_no_instance() {
        assert_eq!(parse_limactl_list("").unwrap(), []);
        assert_eq!(parse_limactl_list("\n").unwrap(), []);
    }

    #[test]
    fn garbage_is_an_error() {
        let e = parse_limactl_list(
            "{\"name\":\"a\",\"status\":\"Running\"}\nlevel=warning msg=\"oops\"\n",
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "malformed output of `limactl list --json`: expected value at line 2 column 1"
        );
    }
}
