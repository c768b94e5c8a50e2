//! API discovery (`/api`, `/apis`): which groups are served, at which version, and what a
//! custom type's read means when its group is not served.
use super::*;

/// One API group as `/apis` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Group {
    name: String,
    /// Served versions, in the server's order of preference.
    versions: Vec<String>,
    preferred: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawGroupList {
    groups: Vec<RawGroup>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawGroup {
    name: String,
    versions: Vec<RawGroupVersion>,
    preferred_version: RawGroupVersion,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawGroupVersion {
    group_version: String,
    version: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawApiVersions {
    versions: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawResourceList {
    resources: Vec<RawResource>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawResource {
    name: String,
}

/// What discovery said: the core versions (`/api`) and the groups (`/apis`), or why not.
pub(super) struct ApiDiscovery {
    core: Option<Result<Vec<String>, ReadFailure>>,
    groups: Option<Result<Vec<Group>, ReadFailure>>,
}

/// How one custom resource read ends.
pub(super) enum TypeRead {
    Done(Read<Vec<CustomObject>>),
    /// Fetch it at the first of these versions that serves the type.
    Fetch(Vec<String>),
}

pub(super) fn bad_discovery(target: &str, e: serde_json::Error) -> ReadFailure {
    ReadFailure::new(
        FailureKind::BadOutput,
        format!("malformed discovery answer for GET {target}: {e}"),
    )
}

impl ApiDiscovery {
    pub(super) fn from_answers(answers: &BTreeMap<String, Answer>) -> ApiDiscovery {
        let not_asked = |said: String| ReadFailure::new(FailureKind::BadOutput, said);
        let core = answers.get("/api").map(|a| {
            text_of("/api", a).and_then(|text| {
                answer::check_discovery(&text, "APIVersions").map_err(not_asked)?;
                serde_json::from_str::<RawApiVersions>(&text)
                    .map(|v| v.versions)
                    .map_err(|e| bad_discovery("/api", e))
            })
        });
        let groups = answers.get("/apis").map(|a| {
            text_of("/apis", a).and_then(|text| {
                answer::check_discovery(&text, "APIGroupList").map_err(not_asked)?;
                serde_json::from_str::<RawGroupList>(&text)
                    .map(|l| {
                        l.groups
                            .into_iter()
                            .map(|g| Group {
                                versions: g.versions.into_iter().map(|v| v.version).collect(),
                                preferred: g.preferred_version.version,
                                name: g.name,
                            })
                            .collect()
                    })
                    .map_err(|e| bad_discovery("/apis", e))
            })
        });
        ApiDiscovery { core, groups }
    }

    /// What `kubectl api-versions` prints: every `group/version` (and `v1`), sorted.
    pub(super) fn api_versions_text(&self) -> Result<String, ReadFailure> {
        let missing = || ReadFailure::new(FailureKind::ApiError, "discovery was not read");
        let core = self.core.clone().ok_or_else(missing)??;
        let groups = self.groups.clone().ok_or_else(missing)??;
        let mut lines: Vec<String> = core;
        for g in &groups {
            lines.extend(g.versions.iter().map(|v| format!("{}/{v}", g.name)));
        }
        lines.sort();
        lines.dedup();
        Ok(lines.iter().map(|l| format!("{l}\n")).collect())
    }

    /// Settle a custom resource read from the first round, or say which versions to try.
    pub(super) fn resolve(&self, t: &str, lists: &mut BTreeMap<String, ListAnswer>) -> TypeRead {
        let Some((plural, group)) = split_type(t) else {
            return TypeRead::Done(Err(no_such_type(t)));
        };
        let groups = match &self.groups {
            Some(Ok(groups)) => groups,
            Some(Err(f)) => return TypeRead::Done(Err(f.clone())),
            None => {
                return TypeRead::Done(Err(ReadFailure::new(
                    FailureKind::ApiError,
                    "discovery was not read",
                )))
            }
        };
        let Some(g) = groups.iter().find(|g| g.name == group) else {
            return TypeRead::Done(Err(no_such_type(plural)));
        };
        let mut order = vec![g.preferred.clone()];
        order.extend(g.versions.iter().filter(|v| **v != g.preferred).cloned());
        let speculative = speculative_version(group);
        if g.preferred != speculative {
            return TypeRead::Fetch(order);
        }
        let target = resource_path(group, speculative, plural);
        match lists.remove(&target) {
            // Not at the preferred version: maybe at another one, as kubectl would find.
            Some(Ok(Listed::Status(r))) if r.status == 404 => TypeRead::Fetch(order[1..].to_vec()),
            Some(answer) => TypeRead::Done(listed(&target, answer)),
            None => TypeRead::Fetch(order),
        }
    }

    /// Second round for one type: the first version (in preference order) whose resource
    /// list names the type, then its list. The preferred version is fetched directly.
    pub(super) fn fetch_resource(
        &self,
        kubectl: &Kubectl,
        proxy: &ApiProxy,
        t: &str,
        versions: &[String],
        uses: &BTreeSet<FieldUse>,
        budget: &crate::pool::Budget,
    ) -> Read<Vec<CustomObject>> {
        let Some((plural, group)) = split_type(t) else {
            return Err(no_such_type(t));
        };
        let preferred = match &self.groups {
            Some(Ok(groups)) => groups
                .iter()
                .find(|g| g.name == group)
                .map(|g| g.preferred.clone()),
            _ => None,
        };
        for version in versions {
            if Some(version) != preferred.as_ref() {
                let list_target = format!("/apis/{group}/{version}");
                let served = fetch(kubectl, proxy, &list_target);
                let text = text_of(&list_target, &served)?;
                answer::check_discovery(&text, "APIResourceList")
                    .map_err(|said| ReadFailure::new(FailureKind::BadOutput, said))?;
                let list: RawResourceList =
                    serde_json::from_str(&text).map_err(|e| bad_discovery(&list_target, e))?;
                if !list.resources.iter().any(|r| r.name == plural) {
                    continue;
                }
            }
            let target = resource_path(group, version, plural);
            let answer = fetch_list(kubectl, proxy, &target, uses, budget);
            match &answer {
                Ok(Listed::Status(r)) if r.status == 404 && Some(version) == preferred.as_ref() => {
                    continue
                }
                _ => return listed(&target, answer),
            }
        }
        Err(no_such_type(plural))
    }
}

/// kubectl's words when discovery does not list the type.
pub(super) fn no_such_type(plural: &str) -> ReadFailure {
    ReadFailure::new(
        FailureKind::NotFound,
        format!("error: the server doesn't have a resource type \"{plural}\""),
    )
}
