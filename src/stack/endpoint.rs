//! API server URLs compared as servers, not strings (SPEC §5, §14): the one comparison
//! behind the prod endpoint check, bench/prod isolation, `diff`'s same-endpoint rule and
//! `stack list`'s duplicate warning. A string compare let `http://localhost:P` pass as
//! another server than `http://127.0.0.1:P`, so the bench read prod.
//!
//! A URL is parsed with the `url` crate (scheme and default port filled in, the path's dot
//! segments resolved); the host is lowercased without its trailing dot; IP literals are
//! canonical (IPv4-mapped IPv6 is IPv4); every loopback address, `0.0.0.0`, `::`,
//! `localhost` and the `/etc/hosts` names of a loopback address are one "local" host;
//! other `/etc/hosts` names are their address. No DNS is ever asked. Userinfo, query and
//! fragment are refused outright (an API server URL never needs them; a `user:pass@` is a
//! live credential kubectl would send), and so is an IPv4 address spelled other than as
//! four plain decimals (`0127.0.0.1`, `0x7f.1`: readers disagree on what they mean).

use std::net::IpAddr;
use std::sync::OnceLock;

/// The host of a server, as compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    /// Any address of this machine: loopback, `0.0.0.0`, `::`, `localhost`, and the
    /// `/etc/hosts` names of a loopback address. Fails closed: all of them are one host.
    Local,
    Ip(IpAddr),
    /// A DNS name, lowercased, without its trailing dot, not in `/etc/hosts`.
    Name(String),
}

/// One API server URL, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    pub scheme: String,
    pub host: Host,
    pub port: u16,
    /// The path without its trailing slashes (`""` for `/`), dot segments resolved.
    pub path: String,
    /// As written, normalised only in form: `https://api.example:443/k8s` (messages).
    pub shown: String,
}

impl Server {
    /// The same listener: same host and port, whatever the scheme or the path (isolation
    /// fails closed on it).
    pub fn same_listener(&self, other: &Server) -> bool {
        self.host == other.host && self.port == other.port
    }

    /// The same endpoint: the same listener, scheme and path (the prod endpoint check).
    pub fn same_endpoint(&self, other: &Server) -> bool {
        self.same_listener(other) && self.scheme == other.scheme && self.path == other.path
    }

    /// A canonical spelling: `https://api.example:443`, `http://local:80/k8s`.
    pub fn canonical(&self) -> String {
        let host = match &self.host {
            Host::Local => "local".to_string(),
            Host::Ip(IpAddr::V6(ip)) => format!("[{ip}]"),
            Host::Ip(ip) => ip.to_string(),
            Host::Name(n) => n.clone(),
        };
        format!("{}://{host}:{}{}", self.scheme, self.port, self.path)
    }

    /// The listener's canonical spelling (`local:6443`): the key of the duplicate warning.
    pub fn listener(&self) -> String {
        let c = self.canonical();
        let rest = c.split_once("://").map(|(_, r)| r).unwrap_or(&c);
        let end = rest.find('/').unwrap_or(rest.len());
        rest[..end].to_string()
    }
}

/// Why a URL is not an API server URL: `(what, hint)`.
pub type Refusal = (String, String);

/// Parse `url` as an API server URL, with the local `/etc/hosts` view.
pub fn parse(url: &str) -> Result<Server, Refusal> {
    parse_with(url, local_hosts())
}

/// [`parse`] with an explicit `/etc/hosts` view (`(name, address)` pairs), for the tests.
pub fn parse_with(url: &str, hosts: &[(String, IpAddr)]) -> Result<Server, Refusal> {
    let plain = "write the API server URL alone, e.g. https://10.67.2.11:6443".to_string();
    let shown = crate::redact::redact_url(url);
    let u = url::Url::parse(url.trim())
        .map_err(|_| (format!("`{shown}` is not an http(s) URL"), plain.clone()))?;
    let scheme = u.scheme().to_string();
    if scheme != "http" && scheme != "https" {
        return Err((format!("`{shown}` is not an http(s) URL"), plain));
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Err((
            format!("`{shown}` holds a user name or password"),
            "credentials belong in the kubeconfig's user entry, never in a server URL (kubectl would send them to whoever answers)".into(),
        ));
    }
    if u.query().is_some() || u.fragment().is_some() {
        return Err((
            format!("`{shown}` holds a query or a fragment"),
            format!("an API server URL never needs `?` or `#`: {plain}"),
        ));
    }
    let host = match u.host() {
        None => return Err((format!("`{shown}` names no host"), plain)),
        Some(url::Host::Ipv4(ip)) => {
            if raw_host(url).trim_end_matches('.') != ip.to_string() {
                return Err((
                    format!("`{shown}` spells the IPv4 address {ip} ambiguously"),
                    format!("write it as four plain decimals ({ip}): readers disagree on leading zeros, hex and short forms"),
                ));
            }
            ip_host(IpAddr::V4(ip))
        }
        Some(url::Host::Ipv6(ip)) => ip_host(IpAddr::V6(ip)),
        Some(url::Host::Domain(d)) => name_host(d, hosts),
    };
    let port = u
        .port_or_known_default()
        .filter(|p| *p > 0)
        .ok_or_else(|| (format!("`{shown}` has no valid port"), plain.clone()))?;
    let path = u.path().trim_end_matches('/').to_string();
    let shown = format!("{scheme}://{}:{port}{path}", u.host_str().unwrap_or(""));
    Ok(Server {
        scheme,
        host,
        port,
        path,
        shown,
    })
}

/// The host as written (between `://` and the port), for the IPv4 spelling check.
fn raw_host(url: &str) -> String {
    let rest = url.trim().split_once("://").map(|(_, r)| r).unwrap_or("");
    let authority = rest.split(['/', '?', '#', '\\']).next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let host = match authority.rsplit_once(':') {
        Some((h, _)) if !authority.starts_with('[') => h,
        _ => authority,
    };
    host.to_ascii_lowercase()
}

fn ip_host(ip: IpAddr) -> Host {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
        v4 => v4,
    };
    if ip.is_loopback() || ip.is_unspecified() {
        Host::Local
    } else {
        Host::Ip(ip)
    }
}

fn name_host(name: &str, hosts: &[(String, IpAddr)]) -> Host {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    if name == "localhost" || name.ends_with(".localhost") {
        return Host::Local;
    }
    let addrs: Vec<Host> = hosts
        .iter()
        .filter(|(n, _)| *n == name)
        .map(|(_, ip)| ip_host(*ip))
        .collect();
    // A name with a loopback address among its addresses is local (fail closed).
    if addrs.contains(&Host::Local) {
        return Host::Local;
    }
    addrs.into_iter().next().unwrap_or(Host::Name(name))
}

/// The largest `/etc/hosts` read: 256 KiB (the rest is ignored).
const MAX_HOSTS_BYTES: u64 = 256 * 1024;

/// `/etc/hosts`, read once, bounded, regular files only; empty when unreadable.
fn local_hosts() -> &'static [(String, IpAddr)] {
    static HOSTS: OnceLock<Vec<(String, IpAddr)>> = OnceLock::new();
    HOSTS.get_or_init(|| {
        let text = crate::bounded::read_prefix(std::path::Path::new("/etc/hosts"), MAX_HOSTS_BYTES)
            .unwrap_or_default();
        parse_hosts(&String::from_utf8_lossy(&text))
    })
}

/// `(name, address)` pairs of an `/etc/hosts` text, names lowercased.
pub fn parse_hosts(text: &str) -> Vec<(String, IpAddr)> {
    let mut out = vec![];
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        let mut words = line.split_whitespace();
        let Some(ip) = words.next().and_then(|w| w.parse::<IpAddr>().ok()) else {
            continue;
        };
        for name in words {
            out.push((name.trim_end_matches('.').to_ascii_lowercase(), ip));
        }
    }
    out
}

/// `https://API.example:443/` → `https://api.example:443`. `None` if not an API server URL.
#[cfg(test)]
pub fn normalize(url: &str) -> Option<String> {
    parse(url).ok().map(|s| s.shown)
}

/// The host part of a URL (no port, IPv6 brackets removed), for messages and DNS checks.
// url::Host: only its IPv6 form is bracketed, every other host is printed as it is.
#[allow(clippy::wildcard_enum_match_arm)]
pub fn host(url: &str) -> Option<String> {
    let u = url::Url::parse(url.trim()).ok()?;
    match u.host()? {
        url::Host::Ipv6(ip) => Some(ip.to_string()),
        h => Some(h.to_string()),
    }
}

/// True when both are URLs of the same API server endpoint (listener, scheme and path).
pub fn same(a: &str, b: &str) -> bool {
    matches!((parse(a), parse(b)), (Ok(x), Ok(y)) if x.same_endpoint(&y))
}

/// True when both are URLs of the same listener (host and port), or when either cannot be
/// parsed (fails closed: what is not understood is not known to be another server).
pub fn same_listener(a: &str, b: &str) -> bool {
    match (parse(a), parse(b)) {
        (Ok(x), Ok(y)) => x.same_listener(&y),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts() -> Vec<(String, IpAddr)> {
        parse_hosts("127.0.0.1 localhost runsc\n::1 ip6-localhost\n10.0.0.7 cp.lan CP2.lan. # x\n")
    }

    fn p(url: &str) -> Result<Server, Refusal> {
        parse_with(url, &hosts())
    }

    fn listener(a: &str, b: &str) -> bool {
        p(a).expect(a).same_listener(&p(b).expect(b))
    }

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

    /// Every spelling of the one loopback listener on port 6443 is that listener.
    #[test]
    fn spellings_of_one_server() {
        let base = "http://127.0.0.1:6443";
        for s in [
            "http://localhost:6443",
            "http://LOCALHOST:6443",
            "http://localhost.:6443",
            "http://[::ffff:127.0.0.1]:6443",
            "http://[::1]:6443",
            "http://0.0.0.0:6443",
            "http://[::]:6443",
            "http://127.0.0.2:6443",
            "http://runsc:6443",
            "http://RUNSC.:6443",
            "http://ip6-localhost:6443",
            "http://api.localhost:6443",
            "https://127.0.0.1:6443",
            "http://127.0.0.1:6443/k8s",
            "http://127.0.0.1:6443/./",
            "HTTP://127.0.0.1:6443//",
        ] {
            assert!(listener(base, s), "{s} is the listener of {base}");
        }
        assert!(listener("https://cp.lan:6443", "https://10.0.0.7:6443"));
        assert!(listener("https://cp2.lan:6443", "https://CP.LAN.:6443/"));
        assert!(listener("http://127.0.0.1", "http://localhost:80"));
        assert!(listener("https://127.0.0.1", "http://localhost:443"));
        assert!(!listener(base, "http://127.0.0.1:6444"));
        assert!(!listener(base, "http://10.0.0.7:6443"));
        assert!(!listener("https://cp.lan:6443", "https://cp.example:6443"));
    }

    #[test]
    fn the_endpoint_compares_scheme_and_path_too() {
        let a = p("https://10.0.0.7:6443/k8s").expect("url");
        assert!(a.same_endpoint(&p("https://cp.lan:6443/k8s/").expect("url")));
        assert!(a.same_endpoint(&p("https://10.0.0.7:6443/x/../k8s").expect("url")));
        assert!(!a.same_endpoint(&p("https://10.0.0.7:6443").expect("url")));
        assert!(!a.same_endpoint(&p("http://10.0.0.7:6443/k8s").expect("url")));
    }

    #[test]
    fn userinfo_query_fragment_and_odd_ipv4_are_refused() {
        for s in [
            "http://x@127.0.0.1:6443",
            "http://admin:PASS@127.0.0.1:6443",
            "http://:PASS@127.0.0.1:6443",
            "https://127.0.0.1:6443?x=1",
            "https://127.0.0.1:6443/?",
            "https://127.0.0.1:6443#frag",
            "https://127.0.0.1:6443/#",
            "https://0127.0.0.1:6443",
            "https://0x7f.0.0.1:6443",
            "https://2130706433:6443",
            "https://127.1:6443",
            "https://:6443",
            "unix:///run/x",
        ] {
            let r = p(s);
            assert!(r.is_err(), "{s} accepted: {r:?}");
        }
        let (what, _) = p("http://admin:PASS@127.0.0.1:6443").expect_err("refused");
        assert!(!what.contains("PASS"), "{what}");
    }

    #[test]
    fn unparsable_fails_closed_for_isolation() {
        assert!(same_listener("http://x@127.0.0.1:1", "https://10.1.1.1"));
        assert!(!same("http://x@127.0.0.1:1", "http://x@127.0.0.1:1"));
    }
}
