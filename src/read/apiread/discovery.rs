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
        let speculative = speculative_version(plural, group);
        let target = resource_path(group, speculative, plural);
        let answer = lists.remove(&target);
        if !g.versions.iter().any(|v| v == speculative) {
            // The group does not serve the hinted version: the first round's answer (a 404,
            // or anything else a server said at a version it does not list) says nothing.
            return TypeRead::Fetch(order);
        }
        match answer {
            // Not at the hinted version: maybe at another one, as kubectl would find.
            Some(Ok(Listed::Status(r))) if r.status == 404 => {
                TypeRead::Fetch(order.into_iter().filter(|v| v != speculative).collect())
            }
            // At a version the group serves (the preferred one or another, the catalog's
            // checks being written for the hinted one): the same objects, settled.
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

/// What a round left for the next one: the custom resources discovery says to fetch at
/// another version than the one the round asked (SPEC §11: settled in the second round, beside
/// what the first round's answers name, never a round of their own).
pub struct Unsettled {
    pub(super) discovery: ApiDiscovery,
    pub(super) fetches: Vec<(String, Vec<String>)>,
    pub(super) keep: BTreeMap<String, BTreeSet<FieldUse>>,
}

impl Unsettled {
    /// Nothing left to fetch.
    pub fn is_empty(&self) -> bool {
        self.fetches.is_empty()
    }

    /// How many GETs settling takes at least (one per type).
    pub fn len(&self) -> usize {
        self.fetches.len()
    }
}

/// The custom resources a round left [`Unsettled`], fetched at the version discovery named,
/// at most `in_flight` at once, into `obs`.
pub fn settle(
    kubectl: &Kubectl,
    (proxy, in_flight): (&ApiProxy, usize),
    unsettled: Unsettled,
    obs: &mut Observation,
    budget: &crate::pool::Budget,
) {
    let Unsettled {
        discovery,
        fetches,
        keep,
    } = unsettled;
    let fetched = crate::pool::map_reads(&fetches, in_flight, |(t, versions)| {
        let uses = keep.get(t).unwrap_or(&NOTHING);
        discovery.fetch_resource(kubectl, proxy, t, versions, uses, budget)
    });
    for ((t, _), result) in fetches.into_iter().zip(fetched) {
        let result = result.unwrap_or_else(|| {
            Err(ReadFailure::new(
                FailureKind::ApiError,
                "a read thread panicked",
            ))
        });
        obs.resources.insert(t, result);
    }
}

/// kubectl's words when discovery does not list the type.
pub(super) fn no_such_type(plural: &str) -> ReadFailure {
    ReadFailure::new(
        FailureKind::NotFound,
        format!("error: the server doesn't have a resource type \"{plural}\""),
    )
}
