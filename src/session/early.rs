//! The authority check and the proxy start at the same time (SPEC §4, §11): two kubectl
//! start-ups in series were most of a preview's wall over the floor. The pinned proxy (the
//! pre-check's context and server) starts while kubectl's `config view` runs; nothing is sent
//! through it — its socket is only polled for a connection — until kubectl's view agrees with
//! the pre-check. On a disagreement the proxy is stopped having served nothing, and the
//! session refuses as it always did.

use std::path::Path;

use crate::env::Environment;
use crate::error::{Error, Result};
use crate::read::exec::Runner;
use crate::read::kubectl::Kubectl;
use crate::read::proxy::{ApiProxy, StartError};
use crate::target::authority;
use crate::target::kubeconfig::KubeTarget;

/// A proxy start made before the first batch, for the reader that runs it.
pub(super) type Early = Option<std::result::Result<ApiProxy, StartError>>;

/// kubectl's agreement on `target` and, meanwhile, the start of the proxy that will serve
/// `accept` (the paths of the first batch of reads; `None`: no batch known), pinned like
/// `kubectl`. The proxy is started on this thread (a `PR_SET_PDEATHSIG` child dies with the
/// thread that spawned it), `config view` on a scoped one.
pub(super) fn agree_while_starting(
    runner: &Runner,
    env: &Environment,
    path: &Path,
    kubectl: &Kubectl,
    target: KubeTarget,
    accept: Option<Vec<String>>,
) -> Result<(KubeTarget, Early)> {
    let began = crate::usage::since_start();
    let (agreed, early) = crate::pool::beside(
        || {
            let agreed = authority::confirm(runner, env, path, target);
            runner.step("authority (kubectl config view)", began);
            agreed
        },
        || {
            accept.map(|accept| {
                let started = ApiProxy::start(kubectl, &accept);
                runner.step("proxy start (until its socket accepts)", began);
                started
            })
        },
    );
    let agreed =
        agreed.unwrap_or_else(|| Err(Error::internal("the kubeconfig check thread panicked")));
    match agreed {
        Ok(target) => Ok((target, early)),
        Err(e) => {
            if let Some(Ok(proxy)) = &early {
                runner.trace(&format!(
                    "proxy: pid {} stopped unused: kubectl's view of the kubeconfig disagrees",
                    proxy.pid()
                ));
            }
            drop(early);
            Err(e)
        }
    }
}
