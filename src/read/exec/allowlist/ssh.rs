//! ssh: exactly the admin.conf fetch, the host-check forms and a connectivity `true`, to a
//! destination that cannot be read as an option. The fetch's unquoted `[sudo -n] cat PATH`
//! reads only kubeadm's `/etc/kubernetes/admin.conf` or the topology's `admin_conf:` the
//! runner was given, and even that only when it looks like a kubeconfig
//! ([`is_kubeconfig_path`]): never `/etc/shadow`, a key, a hidden file or a `..`.

/// kubeadm's admin kubeconfig, the default `admin_conf:`.
pub(super) const KUBEADM_ADMIN_CONF: &str = "/etc/kubernetes/admin.conf";

pub(super) fn ssh(args: &[String], admin_conf: Option<&str>) -> Result<(), String> {
    let mut i = 0;
    let (mut port, mut key, mut timeout, mut batch) = (false, false, false, false);
    while i < args.len() && args[i].starts_with('-') {
        let value = args.get(i + 1).map(String::as_str).unwrap_or_default();
        match args[i].as_str() {
            "-p" if !port && value.parse::<u16>().is_ok_and(|p| p > 0) => port = true,
            "-i" if !key && value.starts_with('/') => key = true,
            "-o" if !timeout
                && value
                    .strip_prefix("ConnectTimeout=")
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) =>
            {
                timeout = true
            }
            "-o" if !batch && value == "BatchMode=yes" => batch = true,
            other => return Err(format!("ssh: option `{other} {value}` is not allowed")),
        }
        i += 2;
    }
    if !timeout {
        return Err("ssh: -o ConnectTimeout=N is required".into());
    }
    let dest = args.get(i).map(String::as_str).unwrap_or_default();
    if !is_destination(dest) {
        return Err(format!("ssh: destination `{dest}` is not [user@]host"));
    }
    let command: Vec<&str> = args[i + 1..].iter().map(String::as_str).collect();
    match command.as_slice() {
        ["true"] => Ok(()),
        ["sudo", "-n", "cat", path] | ["cat", path] if is_remote_path(path) => {
            admin_conf_ok(path, admin_conf)
        }
        // One host check of SPEC §13 per ssh, each word quoted (their own grammar).
        words => super::hostcmd::admits(dest, words),
    }
}

/// `user@host` or a bare `host` (ssh then picks the user): the same host rules either way.
pub(super) fn is_destination(dest: &str) -> bool {
    match dest.split_once('@') {
        Some((user, host)) => is_ssh_user(user) && is_ssh_host(host),
        None => is_ssh_host(dest),
    }
}

/// A login name nestor may put in an ssh destination (POSIX-ish, never an option).
pub fn is_ssh_user(user: &str) -> bool {
    user.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && user
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
}

/// A host name or IP address nestor may put in an ssh destination (never an option).
pub fn is_ssh_host(host: &str) -> bool {
    !host.is_empty()
        && !host.starts_with('-')
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".:-[]".contains(&b))
}

/// The fetch's `cat PATH`: kubeadm's admin.conf or the runner's `admin_conf`, and
/// kubeconfig-shaped.
fn admin_conf_ok(path: &str, admin_conf: Option<&str>) -> Result<(), String> {
    let named = path == KUBEADM_ADMIN_CONF || admin_conf == Some(path);
    if named && is_kubeconfig_path(path) {
        Ok(())
    } else {
        Err(format!(
            "ssh: cat reads only the kubeconfig `kubeconfig fetch` names ({KUBEADM_ADMIN_CONF} or the topology's admin_conf, a *.conf/*.yaml/*.yml/*.kubeconfig or a file named config or kubeconfig), not `{}`",
            crate::term::escape_capped(path, 120)
        ))
    }
}

/// Directories that hold keys, never a kubeconfig.
const KEY_DIRS: &[&str] = &[".ssh", ".gnupg", "private"];

/// A path a kubeconfig lives at: absolute, plain segments (none empty, `.` or `..`, none a
/// key directory such as `~/.ssh`), the file not hidden and a `*.conf`, `*.yaml`, `*.yml`,
/// `*.kubeconfig` or named `config`/`kubeconfig`; never a key (`*.key`, `*.pem`, `id_rsa`).
pub fn is_kubeconfig_path(p: &str) -> bool {
    let Some(rest) = p.strip_prefix('/') else {
        return false;
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let plain = segments.iter().all(|s| {
        !s.is_empty()
            && *s != "."
            && *s != ".."
            && !KEY_DIRS.contains(s)
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    });
    let file = segments.last().copied().unwrap_or_default();
    if file.starts_with('.') {
        return false;
    }
    let named = [".conf", ".yaml", ".yml", ".kubeconfig"]
        .iter()
        .any(|ext| file.len() > ext.len() && file.ends_with(ext))
        || file == "config"
        || file == "kubeconfig";
    p.len() <= 256 && plain && named
}

pub(super) fn is_remote_path(p: &str) -> bool {
    p.starts_with('/')
        && !p.contains("..")
        && p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(&b))
}

#[cfg(test)]
#[path = "ssh_tests.rs"]
mod tests;
