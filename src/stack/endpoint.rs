//! API server URLs compared the way an operator means them: scheme and host case-folded,
//! the default port made explicit, a trailing slash ignored (SPEC §5).

/// `https://API.example:443/` → `https://api.example:443`. `None` if not an http(s) URL.
pub fn normalize(url: &str) -> Option<String> {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "https" => 443,
        "http" => 80,
        _ => return None,
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], rest[i..].trim_end_matches('/')),
        None => (rest, ""),
    };
    if authority.is_empty() || authority.contains('@') || path.contains(['?', '#']) {
        return None;
    }
    let (host, port) = split_host_port(authority)?;
    let port = match port {
        Some(p) => p.parse::<u16>().ok().filter(|p| *p > 0)?,
        None => default_port,
    };
    let host = host.to_ascii_lowercase();
    let valid_host = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b));
    valid_host.then(|| format!("{scheme}://{host}:{port}{path}"))
}

/// The host part of a URL (no port, IPv6 brackets removed), for messages and DNS checks.
pub fn host(url: &str) -> Option<String> {
    let rest = url.trim().split_once("://")?.1;
    let authority = rest.split('/').next()?;
    let (host, _) = split_host_port(authority)?;
    Some(
        host.trim_start_matches('[')
            .trim_end_matches(']')
            .to_string(),
    )
}

fn split_host_port(authority: &str) -> Option<(&str, Option<&str>)> {
    if authority.starts_with('[') {
        let end = authority.find(']')?;
        let host = &authority[..=end];
        let after = &authority[end + 1..];
        return match after.strip_prefix(':') {
            Some(p) => Some((host, Some(p))),
            None if after.is_empty() => Some((host, None)),
            None => None,
        };
    }
    match authority.rsplit_once(':') {
        Some((h, p)) => Some((h, Some(p))),
        None => Some((authority, None)),
    }
}

/// True when both are URLs that denote the same API server.
pub fn same(a: &str, b: &str) -> bool {
    matches!((normalize(a), normalize(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_rules() {
        assert_eq!(
            normalize("HTTPS://API.Example.com/").as_deref(),
            Some("https://api.example.com:443")
        );
        assert!(same("https://10.67.2.11:6443", "https://10.67.2.11:6443/"));
        assert!(same("https://k.example", "https://K.EXAMPLE:443"));
        assert!(!same("https://10.67.2.11:6443", "https://10.67.2.12:6443"));
        assert!(!same("http://k:443", "https://k:443"));
        assert!(same("https://[::1]:6443", "https://[::1]:6443/"));
        assert_eq!(normalize("10.0.0.1:6443"), None);
        assert_eq!(normalize("ftp://x"), None);
        assert_eq!(normalize("https://x:99999"), None);
        assert_eq!(normalize("https://user@x"), None);
        assert_eq!(host("https://[::1]:6443").as_deref(), Some("::1"));
        assert_eq!(host("https://cp.lan:6443/x").as_deref(), Some("cp.lan"));
    }
}
