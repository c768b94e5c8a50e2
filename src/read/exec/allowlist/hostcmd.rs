//! The allowlist's grammar of host-check remote commands (SPEC §9, §13), written as "what may
//! pass". ssh hands the host's shell ONE string (its argv words after the destination joined
//! by spaces), so every word must be single-quoted, and one ssh carries exactly ONE of these
//! forms and nothing else:
//!
//! ```text
//! ['sudo' '-n'] 'systemctl' 'show' 'UNIT' '--property=P1,P2,...'
//! ['sudo' '-n'] 'find' 'DIR' '-maxdepth' '1' '-type' 'f' '-name' 'PATTERN' '-printf' '%T@ %s %p\n'
//! ['sudo' '-n'] 'sshd' '-T'
//! ```
//!
//! and the gates' `'timedatectl' 'show'` and `'cat' '/etc/kubernetes/pki/[DIR/]NAME.crt'`
//! (`hostgate`, never behind `sudo`). `sudo -n` never for `root@`. Anything else — another flag, `-exec`, `-delete`, an unquoted
//! word, a second command, `;`, `&&`, `|`, a redirection, `echo` — is refused. The exit status
//! comes from ssh itself, so nothing needs to be appended. This check is independent of the
//! builder in `read::hosts`: a builder bug is caught here, before anything is spawned.

use crate::model::catalog::host::{is_file_pattern, is_remote_dir, is_unit_name};

/// The properties `systemctl show` may be asked for.
const PROPERTIES: [&str; 7] = [
    "LoadState",
    "ActiveState",
    "SubState",
    "Result",
    "ExecMainStatus",
    "ExecMainCode",
    "LastTriggerUSec",
];

/// `'word'` → `word`; `None` unless the word is exactly one single-quoted string.
fn unquote(w: &str) -> Option<&str> {
    let inner = w.strip_prefix('\'')?.strip_suffix('\'')?;
    (!inner.contains('\'')).then_some(inner)
}

/// Are `words` (after `dest`) exactly one host check?
pub fn admits(dest: &str, words: &[&str]) -> Result<(), String> {
    if words.is_empty() {
        return Err("ssh: no remote command".into());
    }
    let root = dest.split_once('@').is_some_and(|(u, _)| u == "root");
    let (command, sudo) = match words {
        [sudo, n, rest @ ..] if unquote(sudo) == Some("sudo") && unquote(n) == Some("-n") => {
            if root {
                return Err("ssh: `sudo` is never used as root".into());
            }
            (rest, true)
        }
        _ => (words, false),
    };
    let q: Vec<Option<&str>> = command.iter().map(|w| unquote(w)).collect();
    if sudo && matches!(super::hostgate::form(&q), Some(Ok(_))) {
        return Err(
            "ssh: a gate's `timedatectl show` and `cat` of a certificate run never behind sudo"
                .into(),
        );
    }
    let used = form(command)?;
    match command.get(used..) {
        Some([]) => Ok(()),
        Some(extra) => Err(format!(
            "ssh: `{}` after the host check: one ssh runs exactly one of `systemctl show`, `find -printf`, `sshd -T`, and nothing else",
            extra.iter().take(8).copied().collect::<Vec<_>>().join(" ")
        )),
        None => Err("ssh: a host check is shorter than its form".into()),
    }
}

/// The length of the allowed command form at the start of `words`.
fn form(words: &[&str]) -> Result<usize, String> {
    let q: Vec<Option<&str>> = words.iter().map(|w| unquote(w)).collect();
    if let Some(gate) = super::hostgate::form(&q) {
        return gate;
    }
    let shown = || words.iter().take(11).copied().collect::<Vec<_>>().join(" ");
    match q.as_slice() {
        [Some("systemctl"), Some("show"), Some(unit), Some(props), ..] => {
            let list = props.strip_prefix("--property=").unwrap_or_default();
            let mut seen = Vec::new();
            let props_ok = !list.is_empty()
                && list
                    .split(',')
                    .all(|p| PROPERTIES.contains(&p) && !seen.contains(&p) && {
                        seen.push(p);
                        true
                    });
            if is_unit_name(unit) && props_ok {
                Ok(4)
            } else {
                Err(format!("ssh: `{}` is not `systemctl show UNIT --property=...`", shown()))
            }
        }
        [Some("find"), Some(dir), Some("-maxdepth"), Some("1"), Some("-type"), Some("f"), Some("-name"), Some(pattern), Some("-printf"), Some(r"%T@ %s %p\n"), ..]
            if is_remote_dir(dir) && is_file_pattern(pattern) =>
        {
            Ok(10)
        }
        [Some("sshd"), Some("-T"), ..] => Ok(2),
        _ => Err(format!(
            "ssh: remote command `{}` is not the kubeconfig fetch nor a host check (systemctl show, find -printf, sshd -T, each word quoted)",
            shown()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<&str> {
        s.split(' ').collect()
    }

    const UNIT: &str = "'systemctl' 'show' 'etcd-snapshot.timer' '--property=LoadState,ActiveState,SubState,Result,ExecMainStatus'";
    const SSHD: [&str; 2] = ["'sshd'", "'-T'"];
    const FIND: [&str; 10] = [
        "'find'",
        "'/var/lib/etcd-backups'",
        "'-maxdepth'",
        "'1'",
        "'-type'",
        "'f'",
        "'-name'",
        "'etcd-*.db'",
        "'-printf'",
        r"'%T@ %s %p\n'",
    ];

    fn sudo(cmd: &[&'static str]) -> Vec<&'static str> {
        let mut w = vec!["'sudo'", "'-n'"];
        w.extend(cmd);
        w
    }

    fn plus(cmd: &[&'static str], tail: &[&'static str]) -> Vec<&'static str> {
        cmd.iter().chain(tail).copied().collect()
    }

    #[test]
    fn each_of_the_three_forms_passes_alone_with_or_without_sudo() {
        let unit = words(UNIT);
        for cmd in [&unit[..], &FIND[..], &SSHD[..]] {
            admits("ops@h", cmd).unwrap();
            admits("root@h", cmd).unwrap();
            admits("ops@h", &sudo(cmd)).unwrap();
            admits("h", &sudo(cmd)).unwrap();
        }
    }

    #[test]
    fn variants_are_refused() {
        let unit = words(UNIT);
        let frame = ["2>&1;", "echo", "nestor-exit-0123456789abcdef:$?;"];
        let mut cases: Vec<(Vec<&str>, &str)> = vec![
            // extra flags, -exec, -delete
            (
                words("'systemctl' 'show' 'a.timer' '--property=LoadState' '--host=x'"),
                "after the host check",
            ),
            (
                words("'systemctl' 'start' 'a.timer'"),
                "not the kubeconfig fetch nor a host check",
            ),
            (
                words("'systemctl' 'show' 'a.timer' '--property=LoadState,Environment'"),
                "is not `systemctl show UNIT",
            ),
            (
                words("'systemctl' 'show' 'a.timer' '--property=LoadState,LoadState'"),
                "is not `systemctl show UNIT",
            ),
            (
                words("'systemctl' 'show' '-H' '--property=LoadState'"),
                "is not `systemctl show UNIT",
            ),
            (plus(&SSHD, &["'-f'"]), "after the host check"),
            (
                words("'sshd' '-t'"),
                "not the kubeconfig fetch nor a host check",
            ),
            // unquoted words
            (
                words("systemctl 'show' 'a.timer' '--property=LoadState'"),
                "not the kubeconfig fetch nor a host check",
            ),
            (
                words("'systemctl' 'show' a.timer '--property=LoadState'"),
                "not the kubeconfig fetch",
            ),
            (words("sshd -T"), "not the kubeconfig fetch"),
            (words("'sshd' -T"), "not the kubeconfig fetch"),
            (words("'sshd''-T'"), "not the kubeconfig fetch"),
            (vec!["'sshd' '-T'"], "not the kubeconfig fetch"),
            (vec!["'sshd'", "'-T'\n'reboot'"], "not the kubeconfig fetch"),
            (
                words("'sudo' '-n' 'cat' '/etc/shadow'"),
                "not the kubeconfig fetch",
            ),
            (
                words("'sudo' '-n' 'sudo' '-n' 'sshd' '-T'"),
                "not the kubeconfig fetch",
            ),
            (words("'sudo' '-n'"), "not the kubeconfig fetch"),
            (words("'sudo' 'sshd' '-T'"), "not the kubeconfig fetch"),
            (words("'echo' 'x'"), "not the kubeconfig fetch"),
            (words("echo nestor"), "not the kubeconfig fetch"),
            // the old framing and every other shell word after a form
            (plus(&SSHD, &frame), "after the host check"),
            (plus(&FIND, &frame), "after the host check"),
            (plus(&unit, &frame), "after the host check"),
            (plus(&sudo(&SSHD), &frame), "after the host check"),
            (plus(&SSHD, &["2>&1"]), "after the host check"),
            (plus(&SSHD, &[";"]), "after the host check"),
            (plus(&SSHD, &[";", "'reboot'"]), "after the host check"),
            (plus(&SSHD, &["&&", "reboot"]), "after the host check"),
            (plus(&SSHD, &["||", "reboot"]), "after the host check"),
            (plus(&SSHD, &["|", "'sh'"]), "after the host check"),
            (plus(&SSHD, &["&"]), "after the host check"),
            (plus(&SSHD, &[">", "/etc/passwd"]), "after the host check"),
            (plus(&SSHD, &[">/dev/null"]), "after the host check"),
            (plus(&SSHD, &["<", "/etc/shadow"]), "after the host check"),
            (plus(&SSHD, &["echo", "$?"]), "after the host check"),
            (plus(&SSHD, &["'echo'"]), "after the host check"),
            (plus(&SSHD, &["$(reboot)"]), "after the host check"),
            (plus(&SSHD, &["`reboot`"]), "after the host check"),
            (plus(&SSHD, &["''"]), "after the host check"),
            // two forms in one ssh
            (plus(&SSHD, &SSHD), "after the host check"),
            (plus(&unit, &FIND), "after the host check"),
            (plus(&sudo(&FIND), &sudo(&SSHD)), "after the host check"),
            (plus(&[";"], &SSHD), "not the kubeconfig fetch"),
        ];
        let mut exec = FIND.to_vec();
        exec.extend(["'-exec'", "'rm'", "'{}'", "';'"]);
        cases.push((exec, "after the host check"));
        let mut delete = FIND.to_vec();
        delete.insert(9, "'-delete'");
        cases.push((delete, "not the kubeconfig fetch"));
        let mut unquoted_pattern = FIND.to_vec();
        unquoted_pattern[7] = "etcd-*.db";
        cases.push((unquoted_pattern, "not the kubeconfig fetch"));
        let mut bad_dir = FIND.to_vec();
        bad_dir[1] = "'/var/../etc'";
        cases.push((bad_dir, "not the kubeconfig fetch"));
        let mut depth = FIND.to_vec();
        depth[3] = "'2'";
        cases.push((depth, "not the kubeconfig fetch"));
        let mut format = FIND.to_vec();
        format[9] = r"'%T@ %s %p\n%u'";
        cases.push((format, "not the kubeconfig fetch"));
        for (cmd, needle) in cases {
            let e = admits("ops@h", &cmd).unwrap_err();
            assert!(e.contains(needle), "{cmd:?}: {e}");
            let e = admits("root@h", &cmd).unwrap_err();
            let needle = if cmd.starts_with(&["'sudo'", "'-n'"]) {
                "never used as root"
            } else {
                needle
            };
            assert!(e.contains(needle), "root: {cmd:?}: {e}");
        }
        assert!(admits("ops@h", &[])
            .unwrap_err()
            .contains("no remote command"));
    }

    #[test]
    fn sudo_is_never_used_as_root() {
        assert!(admits("root@h", &sudo(&SSHD))
            .unwrap_err()
            .contains("never used as root"));
    }
}
