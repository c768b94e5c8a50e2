//! The least privilege nestor needs, written once for operators (docs/rbac.md) and kept
//! true: every path the read proxy may serve — for every built-in layer, and for every gate —
//! must be granted by the documented ClusterRole (and the namespaced Roles beside it), and
//! the Roles grant nothing nestor never reads (no Secret, no write verb, no ConfigMap list).
//! The paths come from the proxy's own `--accept-paths` (`-v` prints the exact argv), so a
//! new read that the doc does not grant fails here, not on an operator's cluster.

use crate::support::*;
use serde::Deserialize;
use std::collections::BTreeSet;

const ENDPOINT: &str = "https://10.67.2.11:6443";

/// One `rules:` entry of a Role or ClusterRole, as RBAC reads it.
#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
struct Rule {
    #[serde(default)]
    api_groups: Vec<String>,
    #[serde(default)]
    resources: Vec<String>,
    #[serde(default)]
    resource_names: Vec<String>,
    verbs: Vec<String>,
}

#[derive(Deserialize, Debug)]
struct Meta {
    #[serde(default)]
    namespace: Option<String>,
}

#[derive(Deserialize, Debug)]
struct RoleDoc {
    kind: String,
    metadata: Meta,
    #[serde(default)]
    rules: Vec<Rule>,
}

/// The Roles and the ClusterRole of docs/rbac.md's first ```yaml block.
fn documented() -> Vec<RoleDoc> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rbac.md"))
        .expect("docs/rbac.md");
    let start = doc
        .find("```yaml\n")
        .expect("a ```yaml block in docs/rbac.md")
        + 8;
    let end = start + doc[start..].find("```").expect("the block's end");
    yaml_serde::Deserializer::from_str(&doc[start..end])
        .filter_map(|d| {
            let v = yaml_serde::Value::deserialize(d).expect("yaml document");
            let kind = v.get("kind").and_then(|k| k.as_str()).unwrap_or("");
            matches!(kind, "Role" | "ClusterRole")
                .then(|| yaml_serde::from_value::<RoleDoc>(v).expect("a Role"))
        })
        .collect()
}

/// What one API path asks for: group, resource, namespace (None: cluster-wide), name.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone)]
struct Access {
    group: String,
    resource: String,
    namespace: Option<String>,
    name: Option<String>,
}

/// `^/apis/apps/v1/namespaces/argocd/deployments$` → apps deployments in argocd. Discovery
/// paths (`/api`, `/apis`, `/apis/GROUP[/VERSION]`) are open to every authenticated user
/// (`system:discovery`): None. A version pattern (`[a-z0-9]+`) is any version.
fn access(pattern: &str) -> Option<Access> {
    let path = pattern
        .trim_start_matches('^')
        .trim_end_matches('$')
        .replace("\\.", ".");
    let words: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (group, rest) = match words.as_slice() {
        ["api", "v1", rest @ ..] => (String::new(), rest),
        ["apis", group, _version, rest @ ..] => (group.to_string(), rest),
        _ => return None,
    };
    match rest {
        [] => None,
        ["namespaces", ns, resource] => Some(Access {
            group,
            resource: resource.to_string(),
            namespace: Some(ns.to_string()),
            name: None,
        }),
        ["namespaces", ns, resource, name] => Some(Access {
            group,
            resource: resource.to_string(),
            namespace: Some(ns.to_string()),
            name: Some(name.to_string()),
        }),
        [resource] => Some(Access {
            group,
            resource: resource.to_string(),
            namespace: None,
            name: None,
        }),
        [resource, name] => Some(Access {
            group,
            resource: resource.to_string(),
            namespace: None,
            name: Some(name.to_string()),
        }),
        _ => panic!("a path this test cannot read: {pattern}"),
    }
}

/// Every `--accept-paths=` pattern in the `-v` trace of a run.
fn accepted(stderr: &str) -> BTreeSet<String> {
    stderr
        .lines()
        .filter(|l| l.starts_with("kubectl-nestor: exec: ") && l.contains(" proxy "))
        .flat_map(|l| {
            let at = l.find("'--accept-paths=").map(|i| i + 16);
            let paths = at.map(|i| &l[i..i + l[i..].find('\'').unwrap_or(0)]);
            paths
                .unwrap_or("")
                .split(',')
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn grants(roles: &[RoleDoc], a: &Access) -> bool {
    // A namespace pattern (the Warning Events' one form, any namespace a failing object is
    // in): granted by a ClusterRole, or by every documented namespace Role.
    if let Some(pattern) = a.namespace.as_ref().filter(|ns| ns.contains('[')) {
        let one = |ns: &str| Access {
            namespace: Some(ns.to_string()),
            ..a.clone()
        };
        let namespaces: Vec<&String> = roles
            .iter()
            .filter(|r| r.kind == "Role")
            .filter_map(|r| r.metadata.namespace.as_ref())
            .collect();
        assert!(!namespaces.is_empty(), "no Role documented for {pattern}");
        return namespaces.iter().all(|ns| grants(roles, &one(ns)));
    }
    let verb = if a.name.is_some() { "get" } else { "list" };
    roles.iter().any(|role| {
        let scope_ok = match (role.kind.as_str(), &role.metadata.namespace, &a.namespace) {
            ("ClusterRole", _, _) => true,
            ("Role", Some(ns), Some(want)) => ns == want,
            _ => false,
        };
        scope_ok
            && role.rules.iter().any(|r| {
                r.api_groups.iter().any(|g| g == &a.group || g == "*")
                    && r.resources.iter().any(|x| x == &a.resource)
                    && r.verbs.iter().any(|v| v == verb)
                    && (r.resource_names.is_empty()
                        || a.name
                            .as_ref()
                            .is_some_and(|n| r.resource_names.contains(n)))
            })
    })
}

/// The paths the read proxy may serve for every built-in layer and for each gate.
fn every_accepted_path() -> BTreeSet<String> {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let catalog = bed.cmd().args(["catalog", "list", "-o", "json"]).run();
    catalog.code(0);
    let v: serde_json::Value = serde_json::from_slice(&catalog.stdout_bytes).expect("json");
    let ids: Vec<String> = v["layers"]
        .as_array()
        .expect("layers")
        .iter()
        .filter_map(|l| l["id"].as_str().map(str::to_string))
        .collect();
    bed.write_stack(
        "dirqual",
        &PROD_DECLARED.replace(
            "layers: [k8s, cni, ceph, storage, monitoring, gitops, registry, dataops, datalake, certs]",
            &format!("layers: [{}]", ids.join(", ")),
        ),
    );
    let mut paths = BTreeSet::new();
    for args in [
        vec!["preview", "--no-input", "--no-ssh", "-v"],
        vec!["gate", "drain", "dirqual4", "--no-input", "--no-ssh", "-v"],
        vec![
            "gate",
            "upgrade",
            "kubernetes",
            "1.32.0",
            "--no-input",
            "--no-ssh",
            "-v",
        ],
        vec![
            "gate",
            "upgrade",
            "cilium",
            "1.17.0",
            "--no-input",
            "--no-ssh",
            "-v",
        ],
        vec![
            "gate",
            "upgrade",
            "rook",
            "1.16.0",
            "--no-input",
            "--no-ssh",
            "-v",
        ],
    ] {
        let out = bed.cmd().args(&args).run();
        let found = accepted(&stderr_of(&out));
        assert!(
            !found.is_empty(),
            "{args:?} started no proxy:\n{}",
            stderr_of(&out)
        );
        paths.extend(found);
    }
    paths
}

#[test]
fn the_documented_roles_grant_every_path_nestor_reads() {
    let roles = documented();
    let missing: Vec<String> = every_accepted_path()
        .iter()
        .filter_map(|p| access(p).map(|a| (p, a)))
        .filter(|(_, a)| !grants(&roles, a))
        .map(|(p, a)| format!("{p} ({a:?})"))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/rbac.md does not grant these reads:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_documented_roles_grant_no_write_no_secret_and_no_configmap_list() {
    for role in documented() {
        for rule in &role.rules {
            for verb in &rule.verbs {
                assert!(
                    matches!(verb.as_str(), "get" | "list"),
                    "{} grants `{verb}`: nestor only reads",
                    role.kind
                );
            }
            assert!(
                !rule.resources.iter().any(|r| r == "secrets" || r == "*"),
                "{rule:?}: nestor never reads a Secret"
            );
            if rule.resources.iter().any(|r| r == "configmaps") {
                assert!(
                    !rule.resource_names.is_empty() && !rule.verbs.iter().any(|v| v == "list"),
                    "{rule:?}: ConfigMaps are read only by name"
                );
            }
        }
    }
}
