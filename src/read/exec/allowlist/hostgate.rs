//! The gates' remote commands (SPEC §17), beside section 13's forms in `hostcmd`: exactly
//!
//! ```text
//! 'timedatectl' 'show'
//! 'cat' '/etc/kubernetes/pki/[DIR/]NAME.crt'
//! ```
//!
//! never behind `sudo` (the clock is anyone's to read, kubeadm writes its certificates 0644).
//! The path is checked here on its own terms, not by the builder's type: one directory at
//! most under `pki/`, each segment plain (letters, digits, `.`, `_`, `-`; not starting with
//! `.`, so no `..` and no hidden file), the file ending in `.crt`: never a key, a kubeconfig
//! (`admin.conf`), a glob or a path that leaves `pki/`.

/// The length of a gate form at the start of `q` (unquoted words), `None` if it is not one.
pub(super) fn form(q: &[Option<&str>]) -> Option<Result<usize, String>> {
    match q {
        [Some("timedatectl"), Some("show"), ..] => Some(Ok(2)),
        [Some("timedatectl"), ..] => Some(Err(
            "ssh: this timedatectl is not the kubeconfig fetch nor a host check: timedatectl runs only as `timedatectl show`".into(),
        )),
        [Some("cat"), Some(path), ..] if is_pki_cert(path) => Some(Ok(2)),
        [Some("cat"), ..] => Some(Err(
            "ssh: this cat is not the kubeconfig fetch nor a host check: cat reads only a public certificate, /etc/kubernetes/pki/[DIR/]NAME.crt (never a key, never a kubeconfig)".into(),
        )),
        _ => None,
    }
}

/// `/etc/kubernetes/pki/NAME.crt` or `/etc/kubernetes/pki/DIR/NAME.crt`, plain segments.
pub(super) fn is_pki_cert(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/etc/kubernetes/pki/") else {
        return false;
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let plain = |s: &&str| {
        !s.is_empty()
            && !s.starts_with('.')
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    };
    path.len() <= 256
        && (1..=2).contains(&segments.len())
        && segments.iter().all(plain)
        && segments
            .last()
            .is_some_and(|f| f.len() > 4 && f.ends_with(".crt"))
}

#[cfg(test)]
mod tests {
    use super::super::hostcmd::admits;

    fn words(s: &str) -> Vec<&str> {
        s.split(' ').collect()
    }

    #[test]
    fn the_gate_forms_pass_alone() {
        for cmd in [
            "'timedatectl' 'show'",
            "'cat' '/etc/kubernetes/pki/apiserver.crt'",
            "'cat' '/etc/kubernetes/pki/etcd/server.crt'",
            "'cat' '/etc/kubernetes/pki/front-proxy-ca.crt'",
        ] {
            admits("ops@h", &words(cmd)).unwrap();
            admits("root@h", &words(cmd)).unwrap();
        }
        // The cgroup probe is section 13's `find` form, as `read::hosts::gate` builds it.
        let find = words("'find' '/sys/fs/cgroup' '-maxdepth' '1' '-type' 'f' '-name' 'cgroup.controllers' '-printf'");
        let find: Vec<&str> = find.into_iter().chain([r"'%T@ %s %p\n'"]).collect();
        admits("ops@h", &find).unwrap();
    }

    #[test]
    fn keys_kubeconfigs_and_variants_are_refused() {
        let cat = "cat reads only a public certificate";
        let cases = [
            ("'cat' '/etc/kubernetes/pki/apiserver.key'", cat),
            ("'cat' '/etc/kubernetes/pki/ca.key'", cat),
            ("'cat' '/etc/kubernetes/pki/etcd/peer.key'", cat),
            ("'cat' '/etc/kubernetes/pki/sa.key'", cat),
            ("'cat' '/etc/kubernetes/pki/sa.pub'", cat),
            ("'cat' '/etc/kubernetes/admin.conf'", cat),
            ("'cat' '/etc/kubernetes/super-admin.conf'", cat),
            ("'cat' '/etc/kubernetes/kubelet.conf'", cat),
            ("'cat' '/etc/kubernetes/pki/../admin.conf'", cat),
            ("'cat' '/etc/kubernetes/pki/../pki/ca.crt'", cat),
            ("'cat' '/etc/kubernetes/pki/./ca.crt'", cat),
            ("'cat' '/etc/kubernetes/pki//ca.crt'", cat),
            ("'cat' '/etc/kubernetes/pki/*.crt'", cat),
            ("'cat' '/etc/kubernetes/pki/etcd/*'", cat),
            ("'cat' '/etc/kubernetes/pki/.crt'", cat),
            ("'cat' '/etc/kubernetes/pki/a/b/c.crt'", cat),
            ("'cat' '/etc/kubernetes/pki/ca.crt.key'", cat),
            ("'cat' '/etc/kubernetes/pki/$(id).crt'", cat),
            ("'cat' '/etc/shadow'", cat),
            ("'cat' '-v' '/etc/kubernetes/pki/ca.crt'", cat),
            ("'cat'", cat),
            // unquoted, two files, chained
            (
                "cat '/etc/kubernetes/pki/ca.crt'",
                "not the kubeconfig fetch nor a host check",
            ),
            ("'cat' /etc/kubernetes/pki/ca.crt", cat),
            (
                "'cat' '/etc/kubernetes/pki/ca.crt' '/etc/kubernetes/pki/ca.key'",
                "after the host check",
            ),
            (
                "'cat' '/etc/kubernetes/pki/ca.crt' ; 'cat' '/etc/kubernetes/pki/ca.key'",
                "after the host check",
            ),
            ("'timedatectl' 'show' '--all'", "after the host check"),
            (
                "'timedatectl' 'set-ntp' 'false'",
                "timedatectl runs only as",
            ),
            (
                "'timedatectl' 'set-time' '2020-01-01'",
                "timedatectl runs only as",
            ),
            ("'timedatectl'", "timedatectl runs only as"),
            ("'timedatectl' 'show' '&&' 'reboot'", "after the host check"),
            // never behind sudo
            ("'sudo' '-n' 'timedatectl' 'show'", "never behind sudo"),
            (
                "'sudo' '-n' 'cat' '/etc/kubernetes/pki/ca.crt'",
                "never behind sudo",
            ),
        ];
        for (cmd, needle) in cases {
            let e = admits("ops@h", &words(cmd)).unwrap_err();
            assert!(e.contains(needle), "{cmd}: {e}");
        }
    }
}
