//! ssh: exactly the admin.conf fetch, the host-check forms and a connectivity `true`, to a
//! destination that cannot be read as an option.

pub(super) fn ssh(args: &[String]) -> Result<(), String> {
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
        ["sudo", "-n", "cat", path] | ["cat", path] if is_remote_path(path) => Ok(()),
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

pub(super) fn is_remote_path(p: &str) -> bool {
    p.starts_with('/')
        && !p.contains("..")
        && p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(&b))
}
