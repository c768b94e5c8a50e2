//! Stack topologies (SPEC §3): where the stacks directory is, which stack is active, and the
//! parsed topology with its paths resolved against the repo root.
//!
//! Files: this one, the stacks directory, the active stack and `Topology`; `choice.rs`, which
//! stack a run names; `schema.rs`, strict decoding with line, column and did-you-mean
//! (`schema/seed.rs`: its per-parse context; `schema/acks.rs`: the `acknowledged:` list);
//! `edit/`, the one-line `kubeconfig:` insertion that keeps every other byte (`scan.rs`: its
//! line scanner); `endpoint.rs`, the one comparison of API server URLs; `inventory/`, Ansible
//! YAML inventories; `skeleton.rs`, the stack file `discover --emit-topology` writes.

mod choice;
pub use choice::{looks_like_path, select_file, Choice, StackSource};
pub(crate) mod edit;
pub(crate) mod endpoint;
pub mod inventory;
pub mod schema;
pub(crate) mod skeleton;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::env::{expand_tilde, Environment};
use crate::error::{Error, Result};
use crate::model::catalog::Catalog;
use crate::model::state::DeclaredNode;
pub use schema::{NodeDecl, RawTopology, Role, TargetKind};

/// The name of the active-stack symlink inside the stacks directory.
pub const CURRENT: &str = "current.yaml";
/// Where the Lima bench harness writes its kubeconfig, relative to the repo root.
pub const BENCH_KUBECONFIG: &str = "bench/lima/.work/kubeconfig";
/// Default Ansible inventory, relative to the repo root.
pub const DEFAULT_INVENTORY: &str = "bootstrap/hosts.yaml";
/// Default remote path of the kubeadm admin kubeconfig.
pub const DEFAULT_ADMIN_CONF: &str = "/etc/kubernetes/admin.conf";

/// The stacks directory and how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StacksDir {
    pub path: PathBuf,
    pub found_by: &'static str,
}

impl StacksDir {
    /// `--stacks-dir`, else `NESTOR_STACKS_DIR`, else the first `stacks/` walking up from the
    /// current directory.
    pub fn locate(flag: Option<&Path>, env: &Environment) -> Result<StacksDir> {
        let explicit = match (flag, &env.stacks_dir) {
            (Some(p), _) => Some((p.to_path_buf(), "--stacks-dir")),
            (None, Some(p)) => Some((p.clone(), "NESTOR_STACKS_DIR")),
            (None, None) => None,
        };
        if let Some((path, found_by)) = explicit {
            let path = env.absolute(&path);
            if !path.is_dir() {
                return Err(Error::input(
                    format!(
                        "stacks directory {} (from {found_by}) does not exist",
                        path.display()
                    ),
                    "pass the `stacks/` directory of your platform repo with --stacks-dir",
                ));
            }
            return Ok(StacksDir { path, found_by });
        }
        for dir in env.cwd.ancestors() {
            let candidate = dir.join("stacks");
            if candidate.is_dir() {
                return Ok(StacksDir {
                    path: candidate,
                    found_by: "found walking up from the current directory",
                });
            }
        }
        Err(Error::input(
            format!(
                "no stacks/ directory in {} or any parent",
                env.cwd.display()
            ),
            "run from inside your platform repo, or pass --stacks-dir DIR (or set NESTOR_STACKS_DIR)",
        ))
    }

    /// The repo root: the parent of the stacks directory.
    pub fn repo_root(&self) -> PathBuf {
        self.path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| self.path.clone())
    }

    /// Every `<name>.yaml` stack file, sorted, without the `current.yaml` link.
    pub fn stack_files(&self) -> Result<Vec<PathBuf>> {
        let entries = fs::read_dir(&self.path).map_err(|e| {
            Error::input(
                format!("cannot read stacks directory {}: {e}", self.path.display()),
                "check the directory's permissions",
            )
        })?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|x| x == "yaml")
                    && p.file_name().is_some_and(|n| n != CURRENT)
                    && !is_catalog_file(p)
            })
            .collect();
        files.sort();
        Ok(files)
    }

    /// Files that look like stack files but are not read: `NAME.yml`, `NAME.YAML`, ... (one
    /// spelling, `.yaml`, so that listing and opening agree on every file system, including
    /// the case-insensitive ones). `stack list` warns about each; `--stack NAME` names it.
    pub fn misnamed_files(&self) -> Vec<PathBuf> {
        let Ok(entries) = fs::read_dir(&self.path) else {
            return vec![];
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|x| {
                    x != "yaml" && (x.eq_ignore_ascii_case("yaml") || x.eq_ignore_ascii_case("yml"))
                })
            })
            .collect();
        files.sort();
        files
    }

    /// The entry of this directory whose name is `file_name` exactly (`Ok(true)`), or whose
    /// name differs only in case (`Err(that entry)`): a case-insensitive file system opens it
    /// for `file_name`, and the stack would then not be the one `stack list` shows.
    fn exact_entry(&self, file_name: &str) -> std::result::Result<bool, PathBuf> {
        let Ok(entries) = fs::read_dir(&self.path) else {
            return Ok(false);
        };
        let mut other_case = None;
        for e in entries.flatten() {
            let name = e.file_name();
            if name.as_os_str() == std::ffi::OsStr::new(file_name) {
                return Ok(true);
            }
            if name.to_string_lossy().eq_ignore_ascii_case(file_name) {
                other_case = Some(e.path());
            }
        }
        other_case.map_or(Ok(false), Err)
    }

    /// The stack file whose name equals `arg` but for case, or with `.yml`: for hints.
    fn near_file(&self, arg: &str) -> Option<PathBuf> {
        let Ok(entries) = fs::read_dir(&self.path) else {
            return None;
        };
        let mut near: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let ext_ok = p.extension().is_some_and(|x| {
                    x.eq_ignore_ascii_case("yaml") || x.eq_ignore_ascii_case("yml")
                });
                ext_ok && stem(p).is_some_and(|s| s.eq_ignore_ascii_case(arg))
            })
            .collect();
        near.sort();
        near.into_iter().next()
    }

    /// The stack `current.yaml` points at, if the link exists and is not dangling.
    pub fn active_name(&self) -> Option<String> {
        let target = fs::read_link(self.path.join(CURRENT)).ok()?;
        let target = if target.is_absolute() {
            target
        } else {
            self.path.join(target)
        };
        target.exists().then(|| stem(&target))?
    }
}

/// A layer catalog (`catalog:` files live in the stacks directory too) is a YAML list;
/// a topology is a mapping. Catalogs are not stacks.
fn is_catalog_file(p: &Path) -> bool {
    crate::bounded::read(p, "catalog")
        .ok()
        .and_then(Result::ok)
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|t| yaml_serde::from_str::<yaml_serde::Value>(&t).ok())
        .is_some_and(|v| v.is_sequence())
}

fn stem(p: &Path) -> Option<String> {
    p.file_stem().map(|s| s.to_string_lossy().into_owned())
}

/// The `inventory:` value that says a stack has no hosts to read.
pub const NO_INVENTORY: &str = "none";

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// A parsed, validated topology and where it lives, with the catalog its layers are judged
/// by (built-in plus its `catalog:` file), read once with it.
#[derive(Debug, Clone)]
pub struct Topology {
    pub raw: RawTopology,
    pub file: PathBuf,
    pub stacks_dir: PathBuf,
    pub repo_root: PathBuf,
    /// The built-in catalog with the stack's `catalog:` overrides, read when the file was.
    pub catalog: Catalog,
}

impl Topology {
    /// Read and validate `file` and its catalog. The text is parsed once; only when a layer
    /// id is not in the catalog is it parsed again, to locate the id (line and column).
    pub fn load(file: &Path, stacks_dir: &Path) -> Result<Topology> {
        let bytes = crate::bounded::read(file, "topology").map_err(|e| {
            Error::input(
                format!("cannot read topology {}: {e}", file.display()),
                "check that the file exists and is readable",
            )
        })??;
        let text = String::from_utf8(bytes).map_err(|_| {
            Error::input(
                format!("{}: the topology is not UTF-8 text", file.display()),
                "save the file as UTF-8",
            )
        })?;
        let stem = stem(file).unwrap_or_default();
        // Without layer-id checks: the file itself tells where the stack's catalog is.
        let raw = schema::parse(&text, file, &stem, None)?;
        let catalog_file = raw.catalog.as_deref().map(|c| stacks_dir.join(c));
        let catalog = crate::model::catalog::catalog_for(catalog_file.as_deref())?;
        let known: BTreeSet<String> = catalog.ids().into_iter().map(String::from).collect();
        if raw.layers.iter().any(|l| !known.contains(&l.to_string())) {
            // The located "unknown layer" error of the strict parse.
            schema::parse(&text, file, &stem, Some(&known))?;
            return Err(Error::internal(
                "a layer id outside the catalog passed the strict parse",
            ));
        }
        let repo_root = stacks_dir
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| stacks_dir.to_path_buf());
        Ok(Topology {
            raw,
            file: file.to_path_buf(),
            stacks_dir: stacks_dir.to_path_buf(),
            repo_root,
            catalog,
        })
    }

    pub fn name(&self) -> &str {
        self.raw.name.as_str()
    }

    pub fn kind(&self) -> TargetKind {
        self.raw.target_kind
    }

    /// A path written in the topology: `~` expanded, relative paths against the repo root.
    pub fn resolve_path(&self, written: &str, env: &Environment) -> Result<PathBuf> {
        let expanded = expand_tilde(written, env).map_err(|e| {
            e.with_hint(format!(
                "set HOME, or write an absolute path in {}",
                self.file.display()
            ))
        })?;
        Ok(if expanded.is_absolute() {
            expanded
        } else {
            self.repo_root.join(expanded)
        })
    }

    /// The recorded `context:` (the kubeconfig's current-context it was written for).
    pub fn context(&self) -> Option<&str> {
        self.raw.context.as_deref()
    }

    /// The declared `kubeconfig:`, resolved.
    pub fn declared_kubeconfig(&self, env: &Environment) -> Result<Option<PathBuf>> {
        self.raw
            .kubeconfig
            .as_deref()
            .map(|k| self.resolve_path(k, env))
            .transpose()
    }

    /// The kubeconfig this stack's commands read: a bench's ([`Self::bench_kubeconfig`]), a
    /// prod stack's declared one (`None`: it declares none, and its commands refuse).
    pub fn kubeconfig_path(&self, env: &Environment) -> Result<Option<PathBuf>> {
        match self.kind() {
            TargetKind::Lima => self.bench_kubeconfig(env).map(Some),
            TargetKind::Prod => self.declared_kubeconfig(env),
        }
    }

    /// The Lima bench kubeconfig: the declared one, else the harness's path in the repo.
    pub fn bench_kubeconfig(&self, env: &Environment) -> Result<PathBuf> {
        Ok(match self.declared_kubeconfig(env)? {
            Some(p) => p,
            None => self.repo_root.join(BENCH_KUBECONFIG),
        })
    }

    /// `inventory: none`: the stack says it has no hosts to read over ssh (SPEC §6 v0.5): host
    /// checks and host gate rules are skipped and named so, without a flag.
    pub fn has_no_inventory(&self) -> bool {
        self.raw.inventory.as_deref() == Some(NO_INVENTORY)
    }

    pub fn inventory(&self, env: &Environment) -> Result<PathBuf> {
        self.resolve_path(
            self.raw.inventory.as_deref().unwrap_or(DEFAULT_INVENTORY),
            env,
        )
    }

    pub fn admin_conf(&self) -> &str {
        self.raw
            .admin_conf
            .as_ref()
            .map(|p| p.as_str())
            .unwrap_or(DEFAULT_ADMIN_CONF)
    }

    pub fn node_names(&self) -> Vec<String> {
        self.raw.nodes.iter().map(|n| n.name.to_string()).collect()
    }

    /// Lima instance names: prefix + node name.
    pub fn instance_names(&self) -> Vec<String> {
        let prefix = self.instance_prefix();
        self.raw
            .nodes
            .iter()
            .map(|n| format!("{prefix}{}", n.name))
            .collect()
    }

    fn instance_prefix(&self) -> &str {
        self.raw
            .lima
            .as_ref()
            .map(|l| l.instance_prefix.as_str())
            .unwrap_or("")
    }

    /// The declared nodes as the layer checks match them: on a Lima bench a node also
    /// matches the name Lima gives its guest (`lima-<instance>`, SPEC §18); on prod only its
    /// own name.
    pub fn declared_nodes(&self) -> Vec<DeclaredNode> {
        let prefix = self.instance_prefix();
        self.raw
            .nodes
            .iter()
            .map(|n| match self.kind() {
                TargetKind::Lima => {
                    DeclaredNode::lima(n.name.as_str(), &format!("{prefix}{}", n.name))
                }
                TargetKind::Prod => DeclaredNode::named(n.name.as_str()),
            })
            .collect()
    }

    /// The stack's `catalog:` file, relative to the stacks directory.
    pub fn catalog_path(&self) -> Option<PathBuf> {
        self.raw.catalog.as_deref().map(|c| self.stacks_dir.join(c))
    }

    pub fn layer_ids(&self) -> Vec<String> {
        self.raw.layers.iter().map(|l| l.to_string()).collect()
    }
}
