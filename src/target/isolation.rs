//! Bench/prod isolation (SPEC §14): the bench never reads prod. A lima stack whose
//! kubeconfig's server is the API endpoint of a prod stack of the same stacks directory is
//! refused (exit 3) before any process runs, whatever the command; two prod stacks that
//! declare the same endpoint are flagged (`preview --all`, `stack list`).
//!
//! A prod stack's endpoints are its declared `endpoint:` and the server of its declared
//! kubeconfig file when that file is there and readable: a lima stack that names the prod
//! kubeconfig file is caught even when the prod topology declares no `endpoint:`.

use std::path::Path;

use crate::env::Environment;
use crate::error::{Error, Result};
use crate::stack::endpoint;
use crate::stack::{StacksDir, TargetKind, Topology};
use crate::target::kubeconfig;

/// One API endpoint a prod stack is known by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProdEndpoint {
    pub stack: String,
    pub endpoint: String,
    /// `endpoint:` (declared in the topology) or `kubeconfig` (its declared file's server).
    pub from: &'static str,
}

/// Every endpoint of every valid prod stack in `stacks_dir`. Invalid files are left out
/// (`stack list` reports them); so are unreadable kubeconfig files.
pub fn prod_endpoints(stacks_dir: &Path, env: &Environment) -> Vec<ProdEndpoint> {
    let dir = StacksDir {
        path: stacks_dir.to_path_buf(),
        found_by: "the stack's directory",
    };
    let mut out = vec![];
    for file in dir.stack_files().unwrap_or_default() {
        let Ok(t) = Topology::load(&file, stacks_dir, &crate::model::catalog::known_ids) else {
            continue;
        };
        if t.kind() != TargetKind::Prod {
            continue;
        }
        if let Some(e) = &t.raw.endpoint {
            out.push(ProdEndpoint {
                stack: t.name().to_string(),
                endpoint: e.to_string(),
                from: "endpoint:",
            });
        }
        let server = t
            .declared_kubeconfig(env)
            .ok()
            .flatten()
            .filter(|p| p.is_file())
            .and_then(|p| kubeconfig::read(&p).ok())
            .map(|k| k.server);
        if let Some(server) = server {
            out.push(ProdEndpoint {
                stack: t.name().to_string(),
                endpoint: server,
                from: "kubeconfig",
            });
        }
    }
    out
}

/// The prod endpoint whose listener `server` is, if any: the same host and port is the same
/// server whatever the scheme, the path or the spelling (`stack::endpoint`); a prod endpoint
/// that cannot be parsed matches every server (fails closed).
pub fn prod_match<'a>(server: &str, prods: &'a [ProdEndpoint]) -> Option<&'a ProdEndpoint> {
    prods
        .iter()
        .find(|p| endpoint::same_listener(&p.endpoint, server))
}

/// Exit 3 when the lima `stack`'s bench kubeconfig `kubeconfig_file` points at a prod
/// stack's endpoint. Nothing to check when the bench kubeconfig does not exist (nothing is
/// read then); one that cannot be read as a kubeconfig is refused with that error.
pub fn check_lima(stack: &Topology, kubeconfig_file: &Path, env: &Environment) -> Result<()> {
    if stack.kind() != TargetKind::Lima {
        return Ok(());
    }
    // Fails closed: only a bench kubeconfig that is not there at all is nothing to check.
    // One that is there but is a FIFO, a device, unreadable or not a kubeconfig is refused
    // here with the read's own error (it used to pass the check).
    match std::fs::symlink_metadata(kubeconfig_file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        _ => {}
    }
    let kc = kubeconfig::read(kubeconfig_file)?;
    if let Err((what, hint)) = endpoint::parse(&kc.server) {
        return Err(Error::refused(
            format!(
                "lima stack {}: the server of its kubeconfig {} cannot be compared with the prod stacks' endpoints: {what}",
                stack.name(),
                kubeconfig_file.display()
            ),
            hint,
        ));
    }
    let prods = prod_endpoints(&stack.stacks_dir, env);
    match prod_match(&kc.server, &prods) {
        None => Ok(()),
        Some(p) => Err(Error::refused(
            format!(
                "lima stack {} would read prod: its kubeconfig {} points at {}, the {} of prod stack {}",
                stack.name(),
                kubeconfig_file.display(),
                crate::redact::redact_url(&kc.server),
                match p.from {
                    "endpoint:" => "endpoint:",
                    _ => "kubeconfig server",
                },
                p.stack
            ),
            "the bench never reads prod: give the lima stack its own bench kubeconfig (the harness writes bench/lima/.work/kubeconfig)",
        )),
    }
}

/// Prod stacks declaring the same server, however spelled (`endpoint:` compared as listeners:
/// host and port, `localhost` and `127.0.0.1` alike): `(listener, stacks)`, sorted.
pub fn shared_endpoints(prods: &[ProdEndpoint]) -> Vec<(String, Vec<String>)> {
    // (listener key, the first spelling seen, stacks)
    let mut keyed: Vec<(String, String, Vec<String>)> = vec![];
    for p in prods.iter().filter(|p| p.from == "endpoint:") {
        let (key, shown) = match endpoint::parse(&p.endpoint) {
            Ok(s) => (s.listener(), s.shown),
            Err(_) => {
                let r = crate::redact::redact_url(&p.endpoint);
                (r.clone(), r)
            }
        };
        match keyed.iter_mut().find(|(k, _, _)| *k == key) {
            Some((_, _, stacks)) if !stacks.contains(&p.stack) => stacks.push(p.stack.clone()),
            Some(_) => {}
            None => keyed.push((key, shown, vec![p.stack.clone()])),
        }
    }
    let mut groups: Vec<(String, Vec<String>)> =
        keyed.into_iter().map(|(_, shown, s)| (shown, s)).collect();
    groups.retain(|(_, s)| s.len() > 1);
    for (_, s) in groups.iter_mut() {
        s.sort();
    }
    groups.sort();
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(stack: &str, endpoint: &str, from: &'static str) -> ProdEndpoint {
        ProdEndpoint {
            stack: stack.into(),
            endpoint: endpoint.into(),
            from,
        }
    }

    #[test]
    fn shared_endpoints_are_compared_normalised() {
        let prods = [
            p("a", "https://10.0.0.1:6443", "endpoint:"),
            p("b", "https://10.0.0.1:6443/", "endpoint:"),
            p("c", "https://10.0.0.2:6443", "endpoint:"),
            p("c", "https://10.0.0.1:6443", "kubeconfig"),
        ];
        let shared = shared_endpoints(&prods);
        assert_eq!(shared.len(), 1);
        assert_eq!(shared[0].1, ["a", "b"]);
        assert_eq!(
            prod_match("https://10.0.0.2:6443/", &prods).map(|p| p.stack.as_str()),
            Some("c")
        );
        assert_eq!(prod_match("https://10.0.0.3:6443", &prods), None);
    }

    /// Two spellings of one server are one server (issue 21: `localhost` read prod).
    #[test]
    fn spellings_of_one_prod_server_match_and_are_flagged() {
        let prods = [
            p("a", "http://127.0.0.1:7443", "endpoint:"),
            p("b", "http://LOCALHOST.:7443/k8s", "endpoint:"),
            p("c", "https://[::ffff:127.0.0.1]:7443", "endpoint:"),
        ];
        let shared = shared_endpoints(&prods);
        assert_eq!(shared.len(), 1, "{shared:?}");
        assert_eq!(shared[0].1, ["a", "b", "c"]);
        for s in [
            "http://localhost:7443",
            "http://0.0.0.0:7443",
            "http://[::1]:7443/./",
            "https://127.0.0.1:7443/other",
        ] {
            assert!(prod_match(s, &prods).is_some(), "{s}");
        }
        assert_eq!(prod_match("http://127.0.0.1:7444", &prods), None);
    }
}
