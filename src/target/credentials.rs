//! The credentials of a kubeconfig's users, as nestor reads them and as kubectl shows them
//! (SPEC §9): which credential keys each user has — never their values. nestor's strict
//! reader knows every key of kubectl's `AuthInfo` and refuses any other; kubectl's redacted
//! `config view` must show the same users with the same keys (`kubeconfig fetch` asks it).
//! What a fetched file may hold follows from the keys alone: nothing that runs a command
//! (`exec`, `auth-provider`) and nothing that names a file of this machine (`tokenFile`,
//! `client-certificate`, `client-key`; a cluster's `certificate-authority`).

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// Keys whose credential runs a command on this machine.
pub const RUNS_A_COMMAND: &[&str] = &["exec", "auth-provider"];
/// Keys naming a file of this machine, read and sent (or used) as a credential.
pub const LOCAL_FILES: &[&str] = &["tokenFile", "client-certificate", "client-key"];

/// One user of a kubeconfig and the credential keys it has, sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserCredentials {
    pub name: String,
    pub keys: Vec<String>,
}

/// Whether a value is written, without reading it: kubectl leaves out a `null`, and an
/// empty string, list or map (`omitempty`), but shows an empty `exec: {}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Present {
    #[default]
    Null,
    /// `""`, `[]`, `{}` or `false`.
    Empty,
    /// A mapping with at least one entry.
    Map,
    Value,
}

impl Present {
    /// As kubectl's JSON shows it: a pointer to a struct (`exec`, `auth-provider`) whenever
    /// it is not null, anything else only when not empty.
    fn shown(self, pointer: bool) -> bool {
        match self {
            Present::Null => false,
            Present::Empty => pointer,
            Present::Map | Present::Value => true,
        }
    }
}

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Present, D::Error> {
        d.deserialize_any(PresentVisitor)
    }
}

struct PresentVisitor;

impl<'de> Visitor<'de> for PresentVisitor {
    type Value = Present;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a credential value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Present, E> {
        Ok(if v { Present::Value } else { Present::Empty })
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Present, E> {
        Ok(Present::Value)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Present, E> {
        Ok(Present::Value)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Present, E> {
        Ok(Present::Value)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Present, E> {
        Ok(if v.is_empty() {
            Present::Empty
        } else {
            Present::Value
        })
    }
    fn visit_unit<E: de::Error>(self) -> Result<Present, E> {
        Ok(Present::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Present, E> {
        Ok(Present::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Present, D::Error> {
        Present::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Present, A::Error> {
        let mut any = false;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            any = true;
        }
        Ok(if any { Present::Value } else { Present::Empty })
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Present, A::Error> {
        let mut any = false;
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
            any = true;
        }
        Ok(if any { Present::Map } else { Present::Empty })
    }
}

/// A user body with every key of kubectl's `AuthInfo` (v1) and no other; values unread.
#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct UserBody {
    #[serde(rename = "client-certificate")]
    client_certificate: Present,
    #[serde(rename = "client-certificate-data")]
    client_certificate_data: Present,
    #[serde(rename = "client-key")]
    client_key: Present,
    #[serde(rename = "client-key-data")]
    client_key_data: Present,
    token: Present,
    #[serde(rename = "tokenFile")]
    token_file: Present,
    #[serde(rename = "as")]
    impersonate: Present,
    #[serde(rename = "as-uid")]
    impersonate_uid: Present,
    #[serde(rename = "as-groups")]
    impersonate_groups: Present,
    #[serde(rename = "as-user-extra")]
    impersonate_user_extra: Present,
    username: Present,
    password: Present,
    #[serde(rename = "auth-provider")]
    auth_provider: Present,
    exec: Present,
    extensions: Present,
}

impl UserBody {
    /// The keys kubectl's view shows for this body, sorted.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = [
            ("client-certificate", self.client_certificate, false),
            (
                "client-certificate-data",
                self.client_certificate_data,
                false,
            ),
            ("client-key", self.client_key, false),
            ("client-key-data", self.client_key_data, false),
            ("token", self.token, false),
            ("tokenFile", self.token_file, false),
            ("as", self.impersonate, false),
            ("as-uid", self.impersonate_uid, false),
            ("as-groups", self.impersonate_groups, false),
            ("as-user-extra", self.impersonate_user_extra, false),
            ("username", self.username, false),
            ("password", self.password, false),
            ("auth-provider", self.auth_provider, true),
            ("exec", self.exec, true),
            ("extensions", self.extensions, false),
        ]
        .into_iter()
        .filter(|(_, p, pointer)| p.shown(*pointer))
        .map(|(k, _, _)| k.to_string())
        .collect();
        keys.sort();
        keys
    }
}

/// The first thing a fetched file may not hold, as `(entry, key)`: a user's key that runs a
/// command or names a local file, else a cluster's `certificate-authority` path. `clusters`
/// are the names of the clusters that name a CA file.
pub fn forbidden_in_fetched<'a>(
    users: &'a [UserCredentials],
    ca_file_clusters: &'a [String],
) -> Option<Forbidden<'a>> {
    for list in [RUNS_A_COMMAND, LOCAL_FILES] {
        for u in users {
            if let Some(k) = u.keys.iter().find(|k| list.contains(&k.as_str())) {
                return Some(Forbidden::User {
                    user: &u.name,
                    key: k,
                });
            }
        }
    }
    ca_file_clusters
        .first()
        .map(|c| Forbidden::ClusterCaFile { cluster: c })
}

/// See [`forbidden_in_fetched`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forbidden<'a> {
    User { user: &'a str, key: &'a str },
    ClusterCaFile { cluster: &'a str },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(yaml: &str) -> Vec<String> {
        yaml_serde::from_str::<UserBody>(yaml)
            .map(|b| b.keys())
            .unwrap_or_else(|e| vec![format!("error: {e}")])
    }

    #[test]
    fn keys_are_what_kubectl_shows() {
        assert_eq!(
            keys("client-certificate-data: QQ==\nclient-key-data: QQ==\n"),
            ["client-certificate-data", "client-key-data"]
        );
        // kubectl leaves out empty values but shows an empty exec.
        assert_eq!(
            keys("token: ''\nas-groups: []\nexec: {}\nusername: null\n"),
            ["exec"]
        );
        assert_eq!(keys("tokenFile: /root/.vault-token\n"), ["tokenFile"]);
        let unknown = keys("tokenfile: /x\n");
        assert!(
            unknown[0].contains("unknown field `tokenfile`"),
            "{unknown:?}"
        );
        let merge = keys("<<: {exec: {command: sh}}\n");
        assert!(merge[0].contains("unknown field `<<`"), "{merge:?}");
    }

    #[test]
    fn a_command_comes_before_a_file_and_a_file_before_a_ca_path() {
        let u = |name: &str, k: &[&str]| UserCredentials {
            name: name.into(),
            keys: k.iter().map(|s| s.to_string()).collect(),
        };
        let users = [u("a", &["token", "tokenFile"]), u("b", &["exec"])];
        let cas = ["c".to_string()];
        assert_eq!(
            forbidden_in_fetched(&users, &cas),
            Some(Forbidden::User {
                user: "b",
                key: "exec"
            })
        );
        assert_eq!(
            forbidden_in_fetched(&users[..1], &cas),
            Some(Forbidden::User {
                user: "a",
                key: "tokenFile"
            })
        );
        assert_eq!(
            forbidden_in_fetched(&[u("a", &["client-key-data"])], &cas),
            Some(Forbidden::ClusterCaFile { cluster: "c" })
        );
        assert_eq!(forbidden_in_fetched(&[u("a", &["token"])], &[]), None);
    }
}
