//! `--explain`: the kubectl command line a person runs to see an evidence line by hand,
//! built from the pure description of the read (`model::state::explain::ByHand`) and checked
//! against the allowlist's grammar of printed lines (`allowlist::printed_kubectl`, separate
//! from what may spawn: every `get` is refused there) — with the pins nestor adds for itself
//! (`--server`, `--cache-dir`) only for the check, not in the printed line, which names the
//! target by `--kubeconfig` and `--context` as a person would. Spawns nothing.

use crate::model::state::explain::ByHand;
use crate::read::exec::{allowlist, Tool};
use crate::shell::quote;

/// The arguments after the target: `get ...` or `api-versions`.
pub fn verb_args(by_hand: &ByHand) -> Vec<String> {
    match by_hand {
        ByHand::ApiVersions => vec!["api-versions".into()],
        ByHand::Get {
            resource,
            name,
            namespace,
            all_namespaces,
            selector,
            jsonpath,
        } => {
            let mut v = vec!["get".to_string(), resource.clone()];
            v.extend(name.iter().cloned());
            if name.is_some() {
                // A missing object is evidence too ("no ..."): shown as nothing, exit 0.
                v.push("--ignore-not-found".into());
            }
            if let Some(ns) = namespace {
                v.extend(["-n".to_string(), ns.clone()]);
            } else if *all_namespaces {
                v.push("-A".into());
            }
            if let Some(sel) = selector {
                v.extend(["-l".to_string(), sel.clone()]);
            }
            v.extend(["-o".to_string(), format!("jsonpath={jsonpath}")]);
            v
        }
    }
}

/// `kubectl --kubeconfig K --context C ARGS`, each word shell-quoted, or why the allowlist
/// refuses it (always a bug in nestor: the command is then not shown).
pub fn command(kubeconfig: &str, context: &str, by_hand: &ByHand) -> Result<String, String> {
    line(kubeconfig, context, &verb_args(by_hand))
}

/// A gate's GET as it went through the proxy: `kubectl --kubeconfig K --context C get --raw
/// TARGET` (the same path and query), checked against the printed grammar's `get --raw`.
pub fn raw_command(kubeconfig: &str, context: &str, target: &str) -> Result<String, String> {
    line(
        kubeconfig,
        context,
        &["get".to_string(), "--raw".to_string(), target.to_string()],
    )
}

fn line(kubeconfig: &str, context: &str, args: &[String]) -> Result<String, String> {
    let mut pinned: Vec<String> = [
        "--kubeconfig",
        kubeconfig,
        "--context",
        context,
        "--server",
        "https://pinned.invalid",
        "--cache-dir",
        "/nonexistent",
    ]
    .map(String::from)
    .to_vec();
    pinned.extend(args.iter().cloned());
    // Printed, never spawned: its own grammar, which cannot widen what may spawn.
    allowlist::printed_kubectl(&pinned)?;
    // `~/...` as the operator wrote it stays `~/...`, outside the quotes, for the shell to
    // expand (a quoted `~` is a directory named `~`).
    let file = match kubeconfig.strip_prefix("~/") {
        Some(rest) => format!("~/{}", quote(rest)),
        None => quote(kubeconfig),
    };
    let mut line = format!("kubectl --kubeconfig {file} --context {}", quote(context));
    for a in args {
        line.push(' ');
        line.push_str(&quote(a));
    }
    Ok(line)
}

/// `ssh [OPTIONS] DESTINATION "REMOTE"`: the connection nestor uses (`options`, up to the
/// destination) and the remote command as nestor sends it (`remote`, each word already quoted
/// for the remote shell), checked against the allowlist. The remote command is one word for
/// the local shell — ssh joins its arguments with spaces, so the remote shell reads exactly
/// what it reads for nestor.
pub fn ssh_command(options: &[String], remote: &[String]) -> Result<String, String> {
    let mut argv = options.to_vec();
    argv.extend(remote.iter().cloned());
    allowlist::check(Tool::Ssh, &argv)?;
    let joined = remote.join(" ");
    let plain = !joined.contains(['"', '$', '`', '!'])
        && !joined
            .as_bytes()
            .windows(2)
            .any(|w| w[0] == b'\\' && b"$`\"\\\n".contains(&w[1]));
    let remote_word = if plain {
        format!("\"{joined}\"")
    } else {
        quote(&joined)
    };
    let mut line = "ssh".to_string();
    for o in options {
        line.push(' ');
        line.push_str(&quote(o));
    }
    line.push(' ');
    line.push_str(&remote_word);
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_is_a_read_by_name_with_its_jsonpath_and_passes_the_allowlist() {
        let hand = ByHand::Get {
            resource: "cephclusters.ceph.rook.io".into(),
            name: Some("rook-ceph".into()),
            namespace: Some("rook-ceph".into()),
            all_namespaces: false,
            selector: None,
            jsonpath: "{.status.ceph.health}".into(),
        };
        assert_eq!(
            command("/home/op/.kube/dirqual.config", "admin@dirqual", &hand).as_deref(),
            Ok("kubectl --kubeconfig /home/op/.kube/dirqual.config --context admin@dirqual get cephclusters.ceph.rook.io rook-ceph --ignore-not-found -n rook-ceph -o 'jsonpath={.status.ceph.health}'")
        );
        assert!(command("k", "c", &ByHand::ApiVersions).is_ok_and(|c| c.ends_with(" api-versions")));
        assert_eq!(
            command("~/.kube/my lab.config", "c", &ByHand::ApiVersions).as_deref(),
            Ok("kubectl --kubeconfig ~/'.kube/my lab.config' --context c api-versions")
        );
    }

    #[test]
    fn an_ssh_command_is_nestors_own_connection_and_remote_words() {
        let options: Vec<String> = ["-p", "2222", "-o", "ConnectTimeout=10", "debian@10.67.2.11"]
            .map(String::from)
            .to_vec();
        let remote: Vec<String> = [
            "'systemctl'",
            "'show'",
            "'etcd-snapshot.timer'",
            "'--property=ActiveState'",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            ssh_command(&options, &remote).as_deref(),
            Ok("ssh -p 2222 -o ConnectTimeout=10 debian@10.67.2.11 \"'systemctl' 'show' 'etcd-snapshot.timer' '--property=ActiveState'\"")
        );
        let evil: Vec<String> = vec!["'rm'".into(), "'-rf'".into(), "'/'".into()];
        assert!(
            ssh_command(&options, &evil).is_err(),
            "the allowlist decides"
        );
    }

    #[test]
    fn a_gates_get_is_printed_as_it_was_sent() {
        assert_eq!(
            raw_command("/k/c", "admin@dirqual", "/api/v1/pods?fieldSelector=spec.nodeName%3Ddirqual2").as_deref(),
            Ok("kubectl --kubeconfig /k/c --context admin@dirqual get --raw '/api/v1/pods?fieldSelector=spec.nodeName%3Ddirqual2'")
        );
        assert_eq!(
            raw_command("/k/c", "c", "/api/v1/nodes").as_deref(),
            Ok("kubectl --kubeconfig /k/c --context c get --raw /api/v1/nodes")
        );
        assert!(raw_command("/k/c", "c", "/api/v1/namespaces/x/secrets").is_err());
    }

    #[test]
    fn a_read_the_allowlist_refuses_is_never_shown() {
        let secrets = ByHand::Get {
            resource: "secrets".into(),
            name: None,
            namespace: Some("x".into()),
            all_namespaces: false,
            selector: None,
            jsonpath: "{.data}".into(),
        };
        assert!(command("k", "c", &secrets).is_err());
        assert!(command("a:b", "c", &ByHand::ApiVersions).is_err());
    }
}
