//! The target: which kubeconfig a command reads and why (SPEC §4). The rule that won is
//! always reported. For prod there is no silent fallback; for lima the bench kubeconfig is
//! authoritative so a bench command can never read another cluster.
//!
//! Files: this one, the rules (`Rule`, `Chosen`, `resolve`; `Rule::name` is every output's
//! vocabulary); `kubeconfig.rs`, nestor's strict pre-check (never decodes a credential), with
//! `plain_yaml.rs` (no anchor, alias, tag or merge key) and `credentials.rs` (which credential
//! keys a user has); `authority.rs`, kubectl's `config view --minify` agreeing with the
//! pre-check, and the `Pin`; `confirm.rs`, the target policy's words and refusals;
//! `isolation.rs`, a bench never reading prod; `context.rs`, a stack's recorded `context:`
//! against its kubeconfig's; `fetched.rs`, what `kubeconfig fetch` refuses. The target goes
//! through four types only: `Chosen` -> `KubeTarget` -> the session's pinned `Kubectl` ->
//! `TargetRef`.

pub(crate) mod authority;
pub(crate) mod confirm;
pub(crate) mod context;
pub(crate) mod credentials;
pub(crate) mod fetched;
pub(crate) mod isolation;
pub mod kubeconfig;
pub(crate) mod plain_yaml;

use std::path::{Path, PathBuf};

use crate::env::Environment;
use crate::error::{Error, Result};
use crate::stack::{TargetKind, Topology};

pub use crate::model::snapshot::Rule;

impl Rule {
    /// Where the rule took the kubeconfig from, for sentences: "rule env (the KUBECONFIG
    /// environment variable)".
    pub fn origin(self) -> &'static str {
        match self {
            Rule::Flag => "the --kubeconfig flag",
            Rule::Env => "the KUBECONFIG environment variable",
            Rule::Topology => "the topology's kubeconfig:",
            Rule::LimaBench => "the lima bench kubeconfig, authoritative for lima stacks",
            Rule::Snapshot => "a replayed snapshot",
        }
    }

    /// `rule env (the KUBECONFIG environment variable)`.
    pub fn explained(self) -> String {
        format!("rule {} ({})", self.name(), self.origin())
    }

    /// What to do when this rule chose a kubeconfig of another cluster.
    pub fn mismatch_hint(self, stack: &str) -> String {
        match self {
            Rule::Flag => format!("--kubeconfig chose that file: pass stack {stack}'s own kubeconfig, or drop the flag to use the topology's"),
            Rule::Env => format!("an exported KUBECONFIG wins over the topology: `unset KUBECONFIG`, or `eval \"$(kubectl nestor stack env {stack})\"`"),
            Rule::Topology => format!("the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack {stack}'s file (`kubectl nestor target` shows both)"),
            Rule::LimaBench => "the bench kubeconfig points at another cluster: bring the bench up again with its harness".to_string(),
            Rule::Snapshot => format!("the snapshot was read from another cluster: replay a snapshot of stack {stack} (`kubectl nestor --stack {stack} discover --save FILE`)"),
        }
    }
}

/// The chosen kubeconfig file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub rule: Rule,
    pub path: PathBuf,
    /// Things the operator should know (an ignored KUBECONFIG, ...), printed on stderr.
    pub notices: Vec<String>,
}

/// Apply SPEC §4. `stack` is `None` for commands that work on a bare kubeconfig (discover).
pub fn resolve(stack: Option<&Topology>, flag: Option<&Path>, env: &Environment) -> Result<Chosen> {
    let explicit = explicit_choice(flag, env);
    let Some(stack) = stack else {
        return match explicit {
            Some((rule, value)) => Ok(Chosen {
                rule,
                path: single_file(&value, rule, None, env)?,
                notices: vec![],
            }),
            None => Err(Error::input(
                "no target: no stack, no --kubeconfig and no KUBECONFIG",
                "pass `--kubeconfig FILE` (after `nestor`: `kubectl nestor --kubeconfig FILE ...`) or select a stack",
            )),
        };
    };
    match stack.kind() {
        TargetKind::Lima => {
            let bench = stack.bench_kubeconfig(env)?;
            let mut notices = vec![];
            if let Some((rule, value)) = explicit {
                let same = std::env::split_paths(&value)
                    .map(|p| env.absolute(&p))
                    .eq(std::iter::once(bench.clone()));
                if !same {
                    notices.push(format!(
                        "{} ({}) ignored: stack {} is a lima bench, its kubeconfig {} is authoritative (rule lima-bench)",
                        rule.origin(),
                        value.to_string_lossy(),
                        stack.name(),
                        bench.display()
                    ));
                }
            }
            Ok(Chosen {
                rule: Rule::LimaBench,
                path: bench,
                notices,
            })
        }
        TargetKind::Prod => {
            if let Some((rule, value)) = explicit {
                return Ok(Chosen {
                    rule,
                    path: single_file(&value, rule, Some(stack.name()), env)?,
                    notices: vec![],
                });
            }
            match stack.declared_kubeconfig(env)? {
                Some(path) => Ok(Chosen {
                    rule: Rule::Topology,
                    path,
                    notices: vec![],
                }),
                None => Err(not_declared(stack.name())),
            }
        }
    }
}

/// Exit 3 for a prod stack without a declared kubeconfig (SPEC §4 rule 3).
pub fn not_declared(name: &str) -> Error {
    Error::refused(
        format!(
            "kubeconfig target not declared for stack {name}: add `kubeconfig: ~/.kube/{name}.config` (no rule chose one: no --kubeconfig flag, no KUBECONFIG, no topology kubeconfig:)"
        ),
        format!(
            "run `kubectl nestor stack select {name}` (it offers to add the line), or pass `kubectl nestor --kubeconfig FILE ...`"
        ),
    )
}

fn explicit_choice(flag: Option<&Path>, env: &Environment) -> Option<(Rule, std::ffi::OsString)> {
    match (flag, &env.kubeconfig) {
        (Some(f), _) => Some((Rule::Flag, f.as_os_str().to_os_string())),
        (None, Some(v)) => Some((Rule::Env, v.clone())),
        (None, None) => None,
    }
}

/// One file, never a merged list: a `KUBECONFIG` list, or a `--kubeconfig a:b`, is refused for
/// prod (exit 3) and, with no stack, refused as ambiguous too.
fn single_file(
    value: &std::ffi::OsStr,
    rule: Rule,
    prod_stack: Option<&str>,
    env: &Environment,
) -> Result<PathBuf> {
    let parts: Vec<PathBuf> = std::env::split_paths(value)
        .filter(|p| !p.as_os_str().is_empty())
        .collect();
    if parts.len() > 1 {
        let what = match prod_stack {
            Some(name) => format!("the target of prod stack {name} ambiguous"),
            None => "the target ambiguous".to_string(),
        };
        let source = if rule == Rule::Flag {
            "--kubeconfig"
        } else {
            "KUBECONFIG"
        };
        let one = if rule == Rule::Flag {
            ", but takes one"
        } else {
            ""
        };
        return Err(Error::refused(
            format!(
                "{source} lists {} files ({}){one}: merged files would make {what} (rule {})",
                parts.len(),
                value.to_string_lossy(),
                rule.name(),
            ),
            match prod_stack {
                Some(name) => format!("one file per target: `eval \"$(kubectl nestor stack env {name})\"`, or `kubectl nestor --kubeconfig FILE ...`"),
                None => "one file per target: `kubectl nestor --kubeconfig FILE ...`".to_string(),
            },
        ));
    }
    let path = parts.into_iter().next().unwrap_or_default();
    Ok(env.absolute(&path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack(dir: &Path, yaml: &str) -> Topology {
        let stacks = dir.join("stacks");
        let _ = std::fs::create_dir_all(&stacks);
        let name = yaml
            .lines()
            .find_map(|l| l.strip_prefix("name: "))
            .unwrap_or("x")
            .to_string();
        let file = stacks.join(format!("{name}.yaml"));
        let _ = std::fs::write(&file, yaml);
        match Topology::load(&file, &stacks) {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }

    fn env(home: &Path) -> Environment {
        Environment {
            cwd: home.to_path_buf(),
            home: Some(home.to_path_buf()),
            ..Environment::default()
        }
    }

    #[test]
    fn prod_without_declaration_is_refused_with_exit_3() {
        let d = tempfile::tempdir().ok();
        let d = d
            .as_ref()
            .map(|d| d.path())
            .unwrap_or(Path::new("/nonexistent"));
        let t = stack(d, "name: dirqual\ntarget_kind: prod\n");
        let e = resolve(Some(&t), None, &env(d)).err();
        let e = e.as_ref();
        assert_eq!(e.map(|e| e.exit.code()), Some(3));
        assert!(e.is_some_and(|e| e.hint.contains("kubectl nestor stack select dirqual")));
    }

    #[test]
    fn precedence_flag_env_topology() {
        let d = tempfile::tempdir().ok();
        let d = d
            .as_ref()
            .map(|d| d.path())
            .unwrap_or(Path::new("/nonexistent"));
        let t = stack(
            d,
            "name: dirqual\ntarget_kind: prod\nkubeconfig: ~/.kube/dirqual.config\n",
        );
        let mut e = env(d);
        let r = resolve(Some(&t), None, &e).ok();
        assert_eq!(r.as_ref().map(|r| r.rule), Some(Rule::Topology));
        assert_eq!(r.map(|r| r.path), Some(d.join(".kube/dirqual.config")));
        e.kubeconfig = Some("/env/one".into());
        assert_eq!(
            resolve(Some(&t), None, &e).ok().map(|r| r.rule),
            Some(Rule::Env)
        );
        let r = resolve(Some(&t), Some(Path::new("/flag/f")), &e).ok();
        assert_eq!(
            r.map(|r| (r.rule, r.path)),
            Some((Rule::Flag, PathBuf::from("/flag/f")))
        );
        e.kubeconfig = Some("/a:/b".into());
        let err = resolve(Some(&t), None, &e).err();
        assert_eq!(err.as_ref().map(|e| e.exit.code()), Some(3));
        assert!(err.is_some_and(|e| e.message.contains("KUBECONFIG lists 2 files")));
    }

    #[test]
    fn lima_bench_is_authoritative() {
        let d = tempfile::tempdir().ok();
        let d = d
            .as_ref()
            .map(|d| d.path())
            .unwrap_or(Path::new("/nonexistent"));
        let t = stack(d, "name: bench\ntarget_kind: lima\n");
        let mut e = env(d);
        e.kubeconfig = Some("/home/op/.kube/prod.config".into());
        let r = resolve(Some(&t), None, &e).ok();
        let r = r.as_ref();
        assert_eq!(r.map(|r| r.rule), Some(Rule::LimaBench));
        assert_eq!(
            r.map(|r| r.path.clone()),
            Some(d.join("bench/lima/.work/kubeconfig"))
        );
        assert!(r.is_some_and(|r| r.notices.len() == 1 && r.notices[0].contains("ignored")));
    }
}
