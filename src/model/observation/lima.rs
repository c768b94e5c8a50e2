//! Parser of `limactl list --json`: the VMs of a local bench. limactl prints one JSON object
//! per instance (NDJSON; pretty-printed only on a terminal, which nestor never is), with the
//! fields of lima's `store.FormatData` (`name`, `status`, `dir`, `vmType`, `arch`, `cpus`,
//! `memory`, `disk`, `sshLocalPort`, `errors`, ... plus the host fields).

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Result};

/// An instance status. Lima also knows `Uninitialized`, `Installing` and `""` (unknown);
/// anything that is not one of the three useful values is kept as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LimaStatus {
    Running,
    Stopped,
    Broken,
    Other(String),
}

impl LimaStatus {
    pub fn as_str(&self) -> &str {
        match self {
            LimaStatus::Running => "Running",
            LimaStatus::Stopped => "Stopped",
            LimaStatus::Broken => "Broken",
            LimaStatus::Other(s) => s,
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

/// One Lima instance, only the fields nestor uses or shows.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, JsonSchema, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct LimaInstance {
    pub name: String,
    #[schemars(with = "String")]
    pub status: LimaStatus,
    pub dir: String,
    pub vm_type: String,
    pub arch: String,
    pub cpus: u32,
    /// Bytes.
    pub memory: u64,
    /// Bytes.
    pub disk: u64,
    pub ssh_local_port: u16,
    /// Why lima considers the instance broken, as lima words it.
    pub errors: Vec<String>,
}

/// `limactl list --json`. Empty output means no instance.
pub fn parse_limactl_list(ndjson: &str) -> Result<Vec<LimaInstance>> {
    // A stream of whitespace-separated JSON values: NDJSON, and also the pretty-printed form.
    serde_json::Deserializer::from_str(ndjson)
        .into_iter::<LimaInstance>()
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| {
            Error::input(
                format!("malformed output of `limactl list --json`: {e}"),
                "expected one JSON object per instance; run `limactl list --json` by hand",
            )
        })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

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
        let e = parse_limactl_list("{\"name\":\"a\"}\nlevel=warning msg=\"oops\"\n").unwrap_err();
        assert_eq!(
            e.message,
            "malformed output of `limactl list --json`: expected value at line 2 column 1"
        );
    }
}
