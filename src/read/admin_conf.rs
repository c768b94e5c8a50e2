//! The pieces of `kubeconfig fetch` that are not the flow itself: the exact ssh argv, what
//! an ssh failure means, the git-work-tree guard, the `server:` rewrite, the backup name and
//! the private (0600, atomic) write. The flow lives in `cmd::fetch`; nothing here spawns a
//! process or prompts.
//!
//! The fetched bytes hold the cluster's admin credentials: no function here puts them (or
//! any line of them but the `server:` URL) in a message.

use std::path::Path;
use std::time::Duration;

use crate::error::{one_line, Error, Result};
use crate::read::exec::{ExecError, Failure};
use crate::stack::inventory::SshTarget;

/// How to reach the control-plane host and what to read there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshFetch {
    /// `host` or `user@host`, as passed to ssh.
    pub destination: String,
    /// The full argv after `ssh`.
    pub argv: Vec<String>,
}

/// The argv of SPEC §7, exactly:
/// `[-p PORT] [-i KEY] -o ConnectTimeout=N [-o BatchMode=yes] [USER@]HOST sudo -n cat ADMIN_CONF`
/// (plain `cat` when the user is `root`). `key` must already be absolute. Host-key checking
/// is left as the operator's ssh configuration has it: no option here can weaken it.
///
/// `host_name` and `inventory` only serve the error messages.
pub fn ssh_argv(
    target: &SshTarget,
    key: Option<&Path>,
    timeout: Duration,
    batch: bool,
    admin_conf: &str,
    host_name: &str,
    inventory: &Path,
) -> Result<SshFetch> {
    let (destination, mut argv) =
        crate::read::ssh::connection(target, key, timeout, batch, host_name, inventory)?;
    if target.user.as_deref() != Some("root") {
        argv.extend(["sudo".to_string(), "-n".to_string()]);
    }
    argv.extend(["cat".to_string(), admin_conf.to_string()]);
    Ok(SshFetch { destination, argv })
}

/// What a failed ssh run means for the operator. `destination` is `[user@]host`, `host`
/// the bare address (for `ssh-keygen -R`), `port` the one used, if any.
pub fn ssh_error(
    e: ExecError,
    destination: &str,
    host: &str,
    port: Option<u16>,
    admin_conf: &str,
) -> Error {
    let (code, stderr) = match &e.failure {
        Failure::Exit { code, stderr } => (*code, stderr.clone()),
        Failure::Refused { .. }
        | Failure::Missing { .. }
        | Failure::Spawn { .. }
        | Failure::Exhausted { .. }
        | Failure::TimedOut { .. }
        | Failure::Signaled { .. }
        | Failure::TooLarge { .. } => return e.into_error(),
    };
    let has = |needle: &str| {
        stderr
            .to_ascii_lowercase()
            .contains(&needle.to_ascii_lowercase())
    };
    let known_hosts_name = match port {
        Some(p) if p != 22 => format!("[{host}]:{p}"),
        _ => host.to_string(),
    };
    let never = "nestor never disables or weakens ssh host-key checking";
    if has("REMOTE HOST IDENTIFICATION HAS CHANGED") {
        return Error::input(
            format!(
                "ssh to {destination}: the host key does NOT match the one in known_hosts (REMOTE HOST IDENTIFICATION HAS CHANGED); {never}, nothing was fetched{}",
                crate::error::quoted(&pick_lines(&stderr, &["Host key for", "Offending", "Host key verification failed"]))
            ),
            format!(
                "verify the host's new key out of band (console, provisioning records); only then `ssh-keygen -R '{known_hosts_name}'` and connect once with ssh to accept it"
            ),
        );
    }
    if has("Host key verification failed") {
        return Error::input(
            format!(
                "ssh to {destination}: host key verification failed (the host is not in known_hosts, or its key differs); {never}, nothing was fetched{}",
                crate::error::quoted(&pick_lines(&stderr, &["Host key", "No ED25519", "No RSA", "No ECDSA", "verification failed"]))
            ),
            format!(
                "check the key's fingerprint out of band, then connect once with `ssh {}{destination}` to add it to known_hosts, and retry",
                port.map(|p| format!("-p {p} ")).unwrap_or_default()
            ),
        );
    }
    if code == 255 && crate::read::ssh::UNREACHABLE.iter().any(|n| has(n)) {
        return Error::unreachable(
            format!(
                "cannot reach {destination} over ssh{}",
                crate::error::quoted(&format!("ssh: {}", one_line(&stderr)))
            ),
            "check that the host is up, that sshd listens on the inventory's port, and the address in the inventory (ansible_host, ansible_port)",
        );
    }
    if code == 255 && has("Permission denied") {
        return Error::input(
            format!(
                "ssh to {destination}: authentication refused{}",
                crate::error::quoted(&format!("ssh: {}", one_line(&stderr)))
            ),
            "check ansible_user and ansible_ssh_private_key_file in the inventory, and that your key is loaded (`ssh-add -l`) or readable",
        );
    }
    if has("sudo:")
        && (has("password is required")
            || has("terminal is required")
            || has("no tty present")
            || has("askpass"))
    {
        return Error::input(
            format!(
                "sudo on {destination} asks for a password: nestor runs `sudo -n cat {admin_conf}` and never types one"
            ),
            format!(
                "allow it without a password (sudoers: `USER ALL=(root) NOPASSWD: /usr/bin/cat {admin_conf}`), or set ansible_user: root for this host"
            ),
        );
    }
    if code != 255 && has("No such file or directory") {
        return Error::input(
            format!("{admin_conf} does not exist on {destination}"),
            "set `admin_conf:` in the topology to the kubeadm admin kubeconfig on the control-plane host (default /etc/kubernetes/admin.conf), or check `control_group:`",
        );
    }
    if code != 255 && has("Permission denied") {
        return Error::input(
            format!(
                "{destination} may not read {admin_conf}{}",
                crate::error::quoted(&one_line(&stderr))
            ),
            "the file is root's: use a user with passwordless sudo for that `cat`, or ansible_user: root",
        );
    }
    e.into_error()
}

/// The lines of `text` containing one of `needles`, joined (the rest is banner).
fn pick_lines(text: &str, needles: &[&str]) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| needles.iter().any(|n| l.contains(n)))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// True when `host` resolves to an address here (an IP literal always does).
pub fn resolves(host: &str) -> bool {
    use std::net::ToSocketAddrs;
    (host, 0u16)
        .to_socket_addrs()
        .is_ok_and(|mut a| a.next().is_some())
}

/// The kubeconfig `bytes` with every `server: OLD` line's value replaced by `new`, as a text
/// edit: indentation, quoting, comments and line endings stay. `None` if no line matched.
pub fn rewrite_server(bytes: &[u8], old: &str, new: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len() + new.len());
    let mut changed = false;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        match server_value_span(line) {
            Some((start, end)) if unquote(&line[start..end]) == Some(old.as_bytes()) => {
                let value = &line[start..end];
                out.extend_from_slice(&line[..start]);
                match value.first() {
                    Some(&q) if q == b'"' || q == b'\'' => {
                        out.push(q);
                        out.extend_from_slice(new.as_bytes());
                        out.push(q);
                    }
                    _ => out.extend_from_slice(new.as_bytes()),
                }
                out.extend_from_slice(&line[end..]);
                changed = true;
            }
            _ => out.extend_from_slice(line),
        }
    }
    changed.then_some(out)
}

/// In a line `  server: VALUE  # comment\r\n`, the byte span of VALUE.
fn server_value_span(line: &[u8]) -> Option<(usize, usize)> {
    let indent = line.iter().take_while(|&&b| b == b' ').count();
    let rest = line[indent..].strip_prefix(b"server:")?;
    let gap = rest
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    if gap == 0 {
        return None;
    }
    let start = indent + b"server:".len() + gap;
    let tail = &line[start..];
    let len = match tail.first() {
        Some(&q) if q == b'"' || q == b'\'' => tail[1..].iter().position(|&b| b == q)? + 2,
        _ => tail
            .iter()
            .position(|&b| b == b' ' || b == b'\t' || b == b'\r' || b == b'\n' || b == b'#')
            .unwrap_or(tail.len()),
    };
    (len > 0).then_some((start, start + len))
}

fn unquote(value: &[u8]) -> Option<&[u8]> {
    match value {
        [q, inner @ .., last] if (*q == b'"' || *q == b'\'') && last == q => Some(inner),
        [] => None,
        v => Some(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(host: &str, user: Option<&str>, port: Option<u16>) -> SshTarget {
        SshTarget {
            host: host.into(),
            user: user.map(String::from),
            port,
            key: None,
        }
    }

    fn argv(t: &SshTarget, key: Option<&str>, timeout_ms: u64, batch: bool) -> Result<String> {
        ssh_argv(
            t,
            key.map(Path::new),
            Duration::from_millis(timeout_ms),
            batch,
            "/etc/kubernetes/admin.conf",
            "cp1",
            Path::new("bootstrap/hosts.yaml"),
        )
        .map(|f| f.argv.join(" "))
    }

    #[test]
    fn argv_is_exactly_the_spec_form() {
        let t = target("10.67.2.11", Some("ops"), Some(2222));
        assert_eq!(
            argv(&t, Some("/k/id"), 10_000, true).unwrap(),
            "-p 2222 -i /k/id -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf"
        );
        assert_eq!(
            argv(&target("cp1.lan", None, None), None, 500, false).unwrap(),
            "-o ConnectTimeout=1 cp1.lan sudo -n cat /etc/kubernetes/admin.conf"
        );
        assert_eq!(
            argv(&target("cp1", Some("root"), None), None, 2_500, false).unwrap(),
            "-o ConnectTimeout=3 root@cp1 cat /etc/kubernetes/admin.conf"
        );
        // every form the argv builder emits passes the allowlist
        for t in [
            target("10.67.2.11", Some("ops"), Some(2222)),
            target("cp1.lan", None, None),
            target("cp1", Some("root"), Some(22)),
        ] {
            let f = ssh_argv(
                &t,
                Some(Path::new("/k/id")),
                Duration::from_secs(10),
                true,
                "/etc/kubernetes/admin.conf",
                "cp1",
                Path::new("h.yaml"),
            )
            .unwrap();
            assert_eq!(
                crate::read::exec::allowlist::check(crate::read::exec::Tool::Ssh, &f.argv),
                Ok(())
            );
        }
    }

    #[test]
    fn argv_refuses_option_like_hosts_users_and_relative_keys() {
        let e = argv(&target("-oProxyCommand=x", None, None), None, 1000, true).unwrap_err();
        assert_eq!(
            e.message,
            "host `cp1` in inventory bootstrap/hosts.yaml: address `-oProxyCommand=x` is not a plain host name or IP address; no host was contacted"
        );
        let e = argv(&target("cp1", Some("-l"), None), None, 1000, true).unwrap_err();
        assert!(e.message.contains("ansible_user `-l`"), "{}", e.message);
        let e = argv(&target("cp1", None, None), Some("keys/id"), 1000, true).unwrap_err();
        assert!(e.message.contains("not an absolute"), "{}", e.message);
    }

    fn exit(code: i32, stderr: &str) -> ExecError {
        ExecError {
            tool: crate::read::exec::Tool::Ssh,
            argv: "ssh x".into(),
            failure: Failure::Exit {
                code,
                stderr: stderr.into(),
            },
        }
    }

    fn classify(code: i32, stderr: &str) -> Error {
        ssh_error(
            exit(code, stderr),
            "ops@cp1",
            "cp1",
            Some(2222),
            "/etc/kubernetes/admin.conf",
        )
    }

    #[test]
    fn ssh_failures_are_classified() {
        let e = classify(
            255,
            "ssh: connect to host cp1 port 2222: Connection refused",
        );
        assert_eq!(e.exit.code(), 4);
        assert_eq!(
            e.message,
            "cannot reach ops@cp1 over ssh: ssh: ssh: connect to host cp1 port 2222: Connection refused"
        );
        for m in [
            "ssh: connect to host cp1 port 22: Connection timed out",
            "ssh: connect to host cp1 port 22: No route to host",
            "ssh: Could not resolve hostname cp1: Name or service not known",
        ] {
            assert_eq!(classify(255, m).exit.code(), 4, "{m}");
        }
        let changed = "@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nIT IS POSSIBLE\nHost key for [cp1]:2222 has changed and you have requested strict checking.\nHost key verification failed.";
        let e = classify(255, changed);
        assert_eq!(e.exit.code(), 1);
        assert!(
            e.message.contains("never disables or weakens"),
            "{}",
            e.message
        );
        assert!(e.message.contains("Host key for [cp1]:2222 has changed"));
        assert!(!e.message.contains("IT IS POSSIBLE"));
        assert!(
            e.hint.contains("ssh-keygen -R '[cp1]:2222'") && e.hint.contains("out of band"),
            "{}",
            e.hint
        );
        let e = classify(255, "Host key verification failed.");
        assert_eq!(e.exit.code(), 1);
        assert!(e.hint.contains("ssh -p 2222 ops@cp1"), "{}", e.hint);
        let e = classify(1, "sudo: a password is required");
        assert_eq!(e.exit.code(), 1);
        assert!(e.hint.contains("NOPASSWD") && e.hint.contains("/etc/kubernetes/admin.conf"));
        assert!(e.hint.contains("root"));
        let e = classify(
            1,
            "cat: /etc/kubernetes/admin.conf: No such file or directory",
        );
        assert_eq!(
            e.message,
            "/etc/kubernetes/admin.conf does not exist on ops@cp1"
        );
        let e = classify(255, "ops@cp1: Permission denied (publickey).");
        assert!(
            e.message.contains("authentication refused"),
            "{}",
            e.message
        );
        let e = classify(3, "something else");
        assert!(
            e.message.contains("failed with exit code 3"),
            "{}",
            e.message
        );
    }

    #[test]
    fn server_rewrite_is_a_one_line_text_edit() {
        let text = "clusters:\r\n- cluster:\r\n    certificate-authority-data: SECRET\r\n    server: https://cp.internal:6443   # api\r\n  name: a\r\n";
        let got = rewrite_server(
            text.as_bytes(),
            "https://cp.internal:6443",
            "https://10.67.2.11:6443",
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(got).unwrap(),
            text.replace("https://cp.internal:6443", "https://10.67.2.11:6443")
        );
        let quoted = "    server: \"https://cp:6443\"\n";
        assert_eq!(
            rewrite_server(quoted.as_bytes(), "https://cp:6443", "https://e:6443").unwrap(),
            b"    server: \"https://e:6443\"\n"
        );
        assert_eq!(
            rewrite_server(b"    server: https://other:6443\n", "https://cp:6443", "x"),
            None
        );
        assert_eq!(
            rewrite_server(b"    serverx: https://cp:6443\n", "https://cp:6443", "x"),
            None
        );
        // no final newline
        assert_eq!(
            rewrite_server(b"  server: a", "a", "b").unwrap(),
            b"  server: b"
        );
    }
}
