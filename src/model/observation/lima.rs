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

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::error::{Error, Result};

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
    let malformed = |e: String| {
        Error::input(
            format!("malformed output of `limactl list --json`: {e}"),
            "expected one JSON object per instance; run `limactl list --json` by hand",
        )
    };
    // A stream of whitespace-separated JSON values: NDJSON, and also the pretty-printed form.
    let mut out = vec![];
    for value in serde_json::Deserializer::from_str(ndjson).into_iter::<Value>() {
        let value = value.map_err(|e| malformed(e.to_string()))?;
        let Some(name) = value
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            return Err(malformed("an instance without a `name`".to_string()));
        };
        // One instance per name is what Lima lists: a name twice (Running, then Broken) hid
        // the second (issue 49); such an answer is not what was asked.
        if out.iter().any(|i: &LimaInstance| i.name == name) {
            return Err(malformed(format!(
                "instance `{}` listed twice",
                crate::term::escape(&name)
            )));
        }
        out.push(
            LimaInstance::deserialize(&value).unwrap_or_else(|e| {
                LimaInstance::named(&name, LimaStatus::Unreadable(e.to_string()))
            }),
        );
    }
    Ok(out)
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
