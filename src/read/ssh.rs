//! The ssh connection argv, from an inventory host's connection variables (validated here,
//! before anything runs): `[-p PORT] [-i KEY] -o ConnectTimeout=N [-o BatchMode=yes]
//! [USER@]HOST`. `kubeconfig fetch` and the host checks append their remote command to it.
//! Host-key checking is left as the operator's ssh has it: no option here can weaken it.

use std::path::Path;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::read::exec::allowlist::{is_ssh_host, is_ssh_user};
use crate::stack::inventory::SshTarget;

/// `ConnectTimeout` for ssh: the request timeout in whole seconds, rounded up, at least 1.
pub fn connect_timeout_secs(timeout: Duration) -> u64 {
    timeout.as_secs_f64().ceil().max(1.0) as u64
}

/// `[USER@]HOST` and the argv up to it, every inventory value validated first; `host_name`
/// and `inventory` only serve the error messages.
pub fn connection(
    target: &SshTarget,
    key: Option<&Path>,
    timeout: Duration,
    batch: bool,
    host_name: &str,
    inventory: &Path,
) -> Result<(String, Vec<String>)> {
    let bad = |what: String| {
        Error::input(
            format!(
                "host `{host_name}` in inventory {}: {what}; no host was contacted",
                inventory.display()
            ),
            format!(
                "fix the host's connection variables in {} (ansible_host, ansible_user, ansible_ssh_private_key_file)",
                inventory.display()
            ),
        )
    };
    if !is_ssh_host(&target.host) {
        return Err(bad(format!(
            "address `{}` is not a plain host name or IP address",
            target.host
        )));
    }
    let destination = match &target.user {
        Some(user) if !is_ssh_user(user) => {
            return Err(bad(format!(
                "ansible_user `{user}` is not a plain login name"
            )))
        }
        Some(user) => format!("{user}@{}", target.host),
        None => target.host.clone(),
    };
    let mut argv = Vec::new();
    if let Some(port) = target.port {
        argv.extend(["-p".to_string(), port.to_string()]);
    }
    if let Some(key) = key {
        let shown = key
            .to_str()
            .filter(|k| key.is_absolute() && !k.is_empty() && !k.contains(['\n', '\r']));
        let Some(k) = shown else {
            return Err(bad(format!(
                "ssh key path {} is not an absolute UTF-8 path",
                key.display()
            )));
        };
        argv.extend(["-i".to_string(), k.to_string()]);
    }
    argv.extend([
        "-o".to_string(),
        format!("ConnectTimeout={}", connect_timeout_secs(timeout)),
    ]);
    if batch {
        argv.extend(["-o".to_string(), "BatchMode=yes".to_string()]);
    }
    argv.push(destination.clone());
    Ok((destination, argv))
}

/// What ssh (exit 255) prints when the host could not be reached at all: the words that
/// make a failed ssh "unreachable" rather than refused or broken.
pub const UNREACHABLE: &[&str] = &[
    "Connection refused",
    "timed out",
    "No route to host",
    "Could not resolve",
    "Network is unreachable",
    "Connection closed",
    "Connection reset",
    "Name or service not known",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_round_up_to_whole_seconds() {
        assert_eq!(connect_timeout_secs(Duration::from_millis(1)), 1);
        assert_eq!(connect_timeout_secs(Duration::from_secs(10)), 10);
        assert_eq!(connect_timeout_secs(Duration::from_millis(10_100)), 11);
    }
}
