//! The context a stack was written for (`context:`, recorded by `discover --write`): when the
//! stack's kubeconfig's current-context is no longer that one, every command refuses (SPEC
//! §18) and says how to switch back. The current-context stays authoritative (SPEC §4):
//! nestor never picks a context itself, it only refuses to follow a switch it did not see.
//! Pure: the caller hands over the pre-check's reading of the file.

use std::path::Path;

use crate::env::Environment;
use crate::error::{Error, Result};
use crate::stack::Topology;
use crate::target::kubeconfig::KubeTarget;
use crate::target::Chosen;

/// Refuse (exit 3) when `chosen` is the stack's own kubeconfig (its declared one, or the
/// bench's) and its current-context, as pre-checked in `target`, is not the recorded `context:`.
/// A file the operator named that is not the stack's own is not compared: its names are
/// its own, and the endpoint rule still guards the cluster.
pub fn unchanged(
    stack: Option<&Topology>,
    chosen: &Chosen,
    target: &KubeTarget,
    env: &Environment,
) -> Result<()> {
    let Some(stack) = stack else { return Ok(()) };
    let Some(recorded) = stack.context() else {
        return Ok(());
    };
    if target.context == recorded || !is_the_stacks_own(stack, chosen, env)? {
        return Ok(());
    }
    Err(changed(&chosen.path, recorded, &target.context, stack))
}

/// Whether `chosen` is the stack's own file: what its topology declares (or the bench's).
fn is_the_stacks_own(stack: &Topology, chosen: &Chosen, env: &Environment) -> Result<bool> {
    use crate::target::Rule;
    Ok(match chosen.rule {
        Rule::Topology | Rule::LimaBench => true,
        Rule::Flag | Rule::Env => stack
            .declared_kubeconfig(env)?
            .is_some_and(|declared| env.absolute(&declared) == env.absolute(&chosen.path)),
        Rule::Snapshot => false,
    })
}

/// "current-context of F changed from A to B", and the line that restores A.
fn changed(path: &Path, recorded: &str, now: &str, stack: &Topology) -> Error {
    let shown = crate::term::escape(&path.display().to_string());
    Error::refused(
        format!(
            "current-context of {shown} changed from {} to {} since stack {} was written",
            crate::term::escape(recorded),
            crate::term::escape(now),
            stack.name(),
        ),
        format!(
            "switch it back: `kubectl --kubeconfig {} config use-context {}`; if {} is now this stack's target, set `context: {}` in {}",
            crate::shell::quote(&path.display().to_string()),
            crate::shell::quote(recorded),
            crate::term::escape(now),
            crate::term::escape(now),
            stack.file.display()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Rule;
    use std::path::PathBuf;

    fn kubeconfig(current: &str) -> KubeTarget {
        let text = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster:\n    server: https://10.0.0.1:6443\n- name: b\n  cluster:\n    server: https://10.0.0.2:6443\ncontexts:\n- name: dirqual-admin@dirqual\n  context:\n    cluster: a\n    user: u\n- name: edge\n  context:\n    cluster: b\n    user: u\ncurrent-context: {current}\nusers:\n- name: u\n  user:\n    token: t\n"
        );
        crate::target::kubeconfig::parse(text.as_bytes(), Path::new("/k/c")).unwrap()
    }

    fn stack(dir: &Path, extra: &str) -> Topology {
        let stacks = dir.join("stacks");
        std::fs::create_dir_all(&stacks).unwrap();
        let file = stacks.join("dirqual.yaml");
        let yaml =
            format!("name: dirqual\ntarget_kind: prod\nkubeconfig: /k/dirqual.config\n{extra}");
        std::fs::write(&file, yaml).unwrap();
        Topology::load(&file, &stacks).unwrap()
    }

    fn chosen(rule: Rule, path: &str) -> Chosen {
        Chosen {
            rule,
            path: PathBuf::from(path),
            notices: vec![],
        }
    }

    #[test]
    fn a_switched_context_refuses_with_the_line_that_restores_it() {
        let d = tempfile::tempdir().unwrap();
        let s = stack(d.path(), "context: dirqual-admin@dirqual\n");
        let env = Environment::default();
        let own = chosen(Rule::Topology, "/k/dirqual.config");
        let same = unchanged(Some(&s), &own, &kubeconfig("dirqual-admin@dirqual"), &env);
        assert!(same.is_ok());
        let e = unchanged(Some(&s), &own, &kubeconfig("edge"), &env).unwrap_err();
        assert_eq!(e.exit.code(), 3);
        assert_eq!(
            e.message,
            "current-context of /k/dirqual.config changed from dirqual-admin@dirqual to edge since stack dirqual was written"
        );
        assert_eq!(
            e.hint,
            format!(
                "switch it back: `kubectl --kubeconfig /k/dirqual.config config use-context dirqual-admin@dirqual`; if edge is now this stack's target, set `context: edge` in {}",
                s.file.display()
            )
        );
        // KUBECONFIG naming the stack's own file is the same file.
        let env_same = chosen(Rule::Env, "/k/dirqual.config");
        assert!(unchanged(Some(&s), &env_same, &kubeconfig("edge"), &env).is_err());
    }

    #[test]
    fn no_record_another_file_or_no_stack_is_not_compared() {
        let d = tempfile::tempdir().unwrap();
        let env = Environment::default();
        let edge = kubeconfig("edge");
        let own = chosen(Rule::Topology, "/k/dirqual.config");
        assert!(unchanged(Some(&stack(d.path(), "")), &own, &edge, &env).is_ok());
        let s = stack(d.path(), "context: dirqual-admin@dirqual\n");
        let other = chosen(Rule::Flag, "/k/other.config");
        assert!(unchanged(Some(&s), &other, &edge, &env).is_ok());
        assert!(unchanged(None, &own, &edge, &env).is_ok());
    }
}
