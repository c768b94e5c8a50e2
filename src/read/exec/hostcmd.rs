//! The allowlist's grammar of host-check remote commands (SPEC §9, §13), written as "what may
//! pass". ssh hands the host's shell ONE string (its argv words after the destination joined
//! by spaces), so every word of a command must be single-quoted, and the only unquoted words
//! are the fixed framing `2>&1;`, `echo`, `nestor-exit-NONCE:$?;` after each command:
//!
//! ```text
//! ['sudo' '-n'] 'systemctl' 'show' 'UNIT' '--property=P1,P2,...'
//! ['sudo' '-n'] 'find' 'DIR' '-maxdepth' '1' '-type' 'f' '-name' 'PATTERN' '-printf' '%T@ %s %p\n'
//! ['sudo' '-n'] 'sshd' '-T'
//! ```
//!
//! `sudo -n` never for `root@`. Anything else — another flag, `-exec`, `-delete`, an unquoted
//! word, a second nonce — is refused. This check is independent of the builder in
//! `read::hosts`: a builder bug is caught here, before anything is spawned.

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

/// Most checks one ssh may run.
const MAX_SEGMENTS: usize = 32;

/// `'word'` → `word`; `None` unless the word is exactly one single-quoted string.
fn unquote(w: &str) -> Option<&str> {
    let inner = w.strip_prefix('\'')?.strip_suffix('\'')?;
    (!inner.contains('\'')).then_some(inner)
}

/// Does `words` (after `dest`) form a sequence of host checks?
pub fn admits(dest: &str, words: &[&str]) -> Result<(), String> {
    if words.is_empty() {
        return Err("ssh: no remote command".into());
    }
    let root = dest.split_once('@').is_some_and(|(u, _)| u == "root");
    let mut nonce: Option<&str> = None;
    let mut rest = words;
    let mut segments = 0;
    while !rest.is_empty() {
        segments += 1;
        if segments > MAX_SEGMENTS {
            return Err(format!(
                "ssh: more than {MAX_SEGMENTS} host checks in one command"
            ));
        }
        if rest.len() >= 2 && unquote(rest[0]) == Some("sudo") && unquote(rest[1]) == Some("-n") {
            if root {
                return Err("ssh: `sudo` is never used as root".into());
            }
            rest = &rest[2..];
        }
        let used = form(rest)?;
        rest = &rest[used..];
        let [redirect, echo, mark, tail @ ..] = rest else {
            return Err(
                "ssh: a host check must end with `2>&1; echo nestor-exit-NONCE:$?;`".into(),
            );
        };
        let this = mark
            .strip_prefix("nestor-exit-")
            .and_then(|m| m.strip_suffix(":$?;"))
            .filter(|n| n.len() == 16 && n.bytes().all(|b| b.is_ascii_hexdigit()));
        if *redirect != "2>&1;" || *echo != "echo" || this.is_none() {
            return Err(format!(
                "ssh: `{redirect} {echo} {mark}` is not the framing `2>&1; echo nestor-exit-NONCE:$?;`"
            ));
        }
        if nonce.is_some() && nonce != this {
            return Err("ssh: one nonce per command".into());
        }
        nonce = this;
        rest = tail;
    }
    Ok(())
}

/// The length of the allowed command form at the start of `words`.
fn form(words: &[&str]) -> Result<usize, String> {
    let q: Vec<Option<&str>> = words.iter().map(|w| unquote(w)).collect();
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
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const FRAME: [&str; 3] = ["2>&1;", "echo", "nestor-exit-0123456789abcdef:$?;"];

    fn words(s: &str) -> Vec<&str> {
        s.split(' ').collect()
    }

    fn with_frame(cmd: &[&str]) -> Vec<String> {
        cmd.iter()
            .chain(FRAME.iter())
            .map(|s| s.to_string())
            .collect()
    }

    fn ok(dest: &str, w: &[String]) -> Result<(), String> {
        admits(dest, &w.iter().map(String::as_str).collect::<Vec<_>>())
    }

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

    #[test]
    fn the_three_forms_pass_alone_and_together() {
        let unit = words("'systemctl' 'show' 'etcd-snapshot.timer' '--property=LoadState,ActiveState,SubState,Result,ExecMainStatus'");
        let sshd = words("'sshd' '-T'");
        for cmd in [&unit[..], &FIND[..], &sshd[..]] {
            ok("ops@h", &with_frame(cmd)).unwrap();
            let mut sudo = vec!["'sudo'", "'-n'"];
            sudo.extend(cmd);
            ok("ops@h", &with_frame(&sudo)).unwrap();
            ok("h", &with_frame(&sudo)).unwrap();
        }
        let mut all = with_frame(&unit);
        all.extend(with_frame(&FIND));
        all.extend(with_frame(&sshd));
        ok("root@h", &all).unwrap();
    }

    #[test]
    fn variants_are_refused() {
        let mut cases: Vec<(Vec<&str>, &str)> = vec![
            // extra flags, -exec, -delete
            (
                words("'systemctl' 'show' 'a.timer' '--property=LoadState' '--host=x'"),
                "is not the framing",
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
                words("'systemctl' 'show' '-H' '--property=LoadState'"),
                "is not `systemctl show UNIT",
            ),
            (words("'sshd' '-T' '-f'"), "is not the framing"),
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
            (
                words("'sudo' '-n' 'cat' '/etc/shadow'"),
                "not the kubeconfig fetch",
            ),
            (
                words("'sudo' '-n' 'sudo' '-n' 'sshd' '-T'"),
                "not the kubeconfig fetch",
            ),
        ];
        let mut exec = FIND.to_vec();
        exec.extend(["'-exec'", "'rm'", "'{}'", "';'"]);
        cases.push((exec, "is not the framing"));
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
        for (cmd, needle) in cases {
            let e = ok("ops@h", &with_frame(&cmd)).unwrap_err();
            assert!(e.contains(needle), "{cmd:?}: {e}");
        }
    }

    #[test]
    fn the_framing_is_exact() {
        let sshd = ["'sshd'", "'-T'"];
        for frame in [
            ["2>&1;", "echo", "nestor-exit-0123:$?;"],
            ["2>&1;", "echo", "nestor-exit-0123456789abcdef:$?; reboot"],
            ["2>&1", "echo", "nestor-exit-0123456789abcdef:$?;"],
            ["2>&1;", "printf", "nestor-exit-0123456789abcdef:$?;"],
            ["2>&1;", "echo", "$(reboot);"],
        ] {
            let w: Vec<&str> = sshd.iter().chain(frame.iter()).copied().collect();
            assert!(admits("ops@h", &w).is_err(), "{w:?}");
        }
        let w: Vec<&str> = sshd.to_vec();
        assert!(admits("ops@h", &w).unwrap_err().contains("must end with"));
        // two nonces in one command
        let mut w = with_frame(&sshd);
        w.extend(
            [
                "'sshd'",
                "'-T'",
                "2>&1;",
                "echo",
                "nestor-exit-ffffffffffffffff:$?;",
            ]
            .map(String::from),
        );
        assert!(ok("ops@h", &w).unwrap_err().contains("one nonce"));
        // trailing words
        let mut w = with_frame(&sshd);
        w.push("reboot".into());
        assert!(ok("ops@h", &w).is_err());
    }

    #[test]
    fn sudo_is_never_used_as_root() {
        let w = with_frame(&["'sudo'", "'-n'", "'sshd'", "'-T'"]);
        assert!(ok("root@h", &w).unwrap_err().contains("never used as root"));
    }
}
