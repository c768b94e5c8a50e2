//! Bench/prod isolation (SPEC §14): the bench never reads prod. A lima stack whose
//! kubeconfig's server is the API endpoint of a prod stack of the same stacks directory is
//! refused (exit 3) before any process runs, whatever the command; two prod stacks that
//! declare the same endpoint are flagged (`preview --all`, `stack list`).
//!
//! A prod stack's endpoints are its declared `endpoint:` and the server of its declared
//! kubeconfig file when that file is there and readable: a lima stack that names the prod
//! kubeconfig file is caught even when the prod topology declares no `endpoint:`.
//!
//! The check fails closed: a bench kubeconfig that cannot be read, or a stack file whose
//! kind and endpoint cannot be known, refuses the bench; and the reading it checked is the
//! one the session pins its target to.

use std::path::Path;

use crate::env::Environment;
use crate::error::{Error, Result};
use crate::stack::endpoint;
use crate::stack::{StacksDir, TargetKind, Topology};
use crate::target::kubeconfig::{self, KubeTarget};

/// One API endpoint a prod stack is known by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProdEndpoint {
    pub stack: String,
    pub endpoint: String,
    /// `endpoint:` (declared in the topology) or `kubeconfig` (its declared file's server).
    pub from: &'static str,
}

/// Every endpoint of every prod stack in `stacks_dir`. Fails closed: a stack file that cannot
/// be read or loaded (a typo, a missing `catalog:` file, a FIFO) is refused naming the file,
/// unless it plainly says `target_kind: lima` (a bench is no prod endpoint); so is a stacks
/// directory that cannot be listed. A prod kubeconfig file that is not there yet (not
/// fetched) adds nothing; its declared `endpoint:` still counts.
pub fn prod_endpoints(stacks_dir: &Path, env: &Environment) -> Result<Vec<ProdEndpoint>> {
    let (found, unknown) = scan(stacks_dir, env)?;
    match unknown.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(found),
    }
}

/// The endpoints of the prod stacks that load, for the duplicate warnings of a listing
/// (`stack list`, `preview --all`), whose rows report the files that do not load.
pub fn known_prod_endpoints(stacks_dir: &Path, env: &Environment) -> Vec<ProdEndpoint> {
    scan(stacks_dir, env).map(|(f, _)| f).unwrap_or_default()
}

/// The endpoints found, and one refusal per stack file whose endpoints cannot be known.
fn scan(stacks_dir: &Path, env: &Environment) -> Result<(Vec<ProdEndpoint>, Vec<Error>)> {
    let dir = StacksDir {
        path: stacks_dir.to_path_buf(),
        found_by: "the stack's directory",
    };
    let mut out = vec![];
    let mut unknown = vec![];
    for file in dir.stack_files().map_err(unlisted)? {
        let t = match Topology::load(&file, stacks_dir) {
            Ok(t) => t,
            Err(_) if plainly_lima(&file) => continue,
            Err(e) => {
                unknown.push(unknown_stack(&file, &e));
                continue;
            }
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
        // A declared kubeconfig that exists but cannot be read (not a regular file,
        // unreadable, not a kubeconfig) leaves that prod server unknown: refuse, never skip.
        let declared = t.declared_kubeconfig(env).ok().flatten();
        if let Some(path) = declared.filter(|p| p.symlink_metadata().is_ok()) {
            match kubeconfig::read(&path) {
                Ok(k) => out.push(ProdEndpoint {
                    stack: t.name().to_string(),
                    endpoint: k.server,
                    from: "kubeconfig",
                }),
                Err(e) => unknown.push(unreadable_kubeconfig(t.name(), &path, &e)),
            }
        }
    }
    Ok((out, unknown))
}

/// A stack file that does not load but whose top level says `target_kind: lima` in plain
/// YAML: not a prod stack, so not an endpoint the bench could read.
fn plainly_lima(file: &Path) -> bool {
    crate::bounded::read(file, "topology")
        .ok()
        .and_then(|r| r.ok())
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|t| yaml_serde::from_str::<yaml_serde::Value>(&t).ok())
        .is_some_and(|v| v.get("target_kind").and_then(|k| k.as_str()) == Some("lima"))
}

const UNCHECKED: &str =
    "the bench never runs unless every prod stack of its stacks directory is known, so that it can never read a prod cluster";

fn unknown_stack(file: &Path, e: &Error) -> Error {
    Error::refused(
        format!(
            "bench/prod isolation cannot be checked: stack file {} does not load, so its endpoint is unknown: {}",
            file.display(),
            e.message
        ),
        format!("fix that file (`kubectl nestor stack list` shows every file's error) or move it out of the stacks directory; {UNCHECKED}"),
    )
}

fn unreadable_kubeconfig(stack: &str, path: &Path, e: &Error) -> Error {
    Error::refused(
        format!(
            "bench/prod isolation cannot be checked: prod stack {stack}'s kubeconfig {} cannot be read, so its server is unknown: {}",
            path.display(),
            e.message
        ),
        format!("make that file a readable kubeconfig, or remove it (an absent file names no server); {UNCHECKED}"),
    )
}

fn unlisted(e: Error) -> Error {
    Error::refused(
        format!("bench/prod isolation cannot be checked: {}", e.message),
        format!("{}; {UNCHECKED}", e.hint),
    )
}

/// The stacks directories a lima `stack`'s isolation is checked against: its own, and the
/// one nestor would use from the current directory (`NESTOR_STACKS_DIR`, else the first
/// `stacks/` walking up) when that is another one — a `--stack /elsewhere/bench.yaml` is
/// still checked against the prod stacks of the repo the operator stands in.
fn stacks_dirs(stack: &Topology, env: &Environment) -> Vec<std::path::PathBuf> {
    let mut dirs = vec![stack.stacks_dir.clone()];
    if let Ok(here) = StacksDir::locate(None, env) {
        let same = match (
            std::fs::canonicalize(&here.path),
            std::fs::canonicalize(&stack.stacks_dir),
        ) {
            (Ok(a), Ok(b)) => a == b,
            _ => here.path == stack.stacks_dir,
        };
        if !same {
            dirs.push(here.path);
        }
    }
    dirs
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
/// stack's endpoint. The file is read ONCE here, and what was read is returned: the session
/// pins its target to that very reading (a file replaced after the check cannot change the
/// target that was checked). `None` for a prod stack, or when the bench kubeconfig does not
/// exist (nothing is read then); one that cannot be read as a kubeconfig (a FIFO, a device,
/// a directory, unreadable) is refused with that error, naming the file.
pub fn check_lima(
    stack: &Topology,
    kubeconfig_file: &Path,
    env: &Environment,
) -> Result<Option<KubeTarget>> {
    if stack.kind() != TargetKind::Lima {
        return Ok(None);
    }
    // Fails closed: only a bench kubeconfig that is not there at all is nothing to check.
    match std::fs::symlink_metadata(kubeconfig_file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        _ => {}
    }
    let target = kubeconfig::read(kubeconfig_file)?;
    refuse_prod(stack, kubeconfig_file, &target.server, env)?;
    Ok(Some(target))
}

/// The bench kubeconfig of a lima `stack`, checked never to point at a prod stack (SPEC
/// §14): what `stack select`, `stack env` and `stack list` rely on before they name a bench.
pub fn checked_bench(stack: &Topology, env: &Environment) -> Result<std::path::PathBuf> {
    let bench = stack.bench_kubeconfig(env)?;
    check_lima(stack, &bench, env)?;
    Ok(bench)
}

/// Exit 3 when `server` (the bench kubeconfig's) is the listener of a prod stack of any of
/// the stack's [`stacks_dirs`], or when those prod stacks cannot all be known.
fn refuse_prod(
    stack: &Topology,
    kubeconfig_file: &Path,
    server: &str,
    env: &Environment,
) -> Result<()> {
    if let Err((what, hint)) = endpoint::parse(server) {
        return Err(Error::refused(
            format!(
                "lima stack {}: the server of its kubeconfig {} cannot be compared with the prod stacks' endpoints: {what}",
                stack.name(),
                kubeconfig_file.display()
            ),
            hint,
        ));
    }
    for dir in stacks_dirs(stack, env) {
        let prods = prod_endpoints(&dir, env)?;
        if let Some(p) = prod_match(server, &prods) {
            return Err(Error::refused(
                format!(
                    "lima stack {} would read prod: its kubeconfig {} points at {}, the {} of prod stack {}{}",
                    stack.name(),
                    kubeconfig_file.display(),
                    crate::redact::redact_url(server),
                    match p.from {
                        "endpoint:" => "endpoint:",
                        _ => "kubeconfig server",
                    },
                    p.stack,
                    if dir == stack.stacks_dir {
                        String::new()
                    } else {
                        format!(" (stacks directory {})", dir.display())
                    }
                ),
                "the bench never reads prod: give the lima stack its own bench kubeconfig (the harness writes bench/lima/.work/kubeconfig)",
            ));
        }
    }
    Ok(())
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
