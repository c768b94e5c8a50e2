//! The control-plane certificates a gate reads over ssh (SPEC §17): a typed path that can only
//! name a public certificate file under `/etc/kubernetes/pki` (`**/*.crt`: no `..`, no glob,
//! no key, no kubeconfig, no empty or dot segment), and the file's PEM parsed by nestor with
//! `x509-parser`, bounded in size, reduced to what the expiry rules use. Nothing of the file
//! is ever printed: the facts are its path, its notAfter and whether it is a CA.

use std::fmt;

use serde::Deserialize;
use x509_parser::pem::Pem;

/// Every path starts here.
pub const PKI_DIR: &str = "/etc/kubernetes/pki/";
/// The most nestor reads of one certificate file (a kubeadm certificate is about 1.2 KiB, a
/// CA bundle a few): cut there while it is read.
pub const MAX_CERT_BYTES: usize = 64 * 1024;
/// At most this many PEM blocks in one file.
const MAX_BLOCKS: usize = 16;

/// A path matching `/etc/kubernetes/pki/**/*.crt`, checked when it is made.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(try_from = "String")]
pub struct PkiPath(String);

impl PkiPath {
    pub fn parse(path: &str) -> Result<PkiPath, String> {
        let refuse = |why: &str| {
            Err(format!(
                "`{}` is not a certificate path nestor reads: {why}",
                crate::term::escape_capped(path, 80)
            ))
        };
        let Some(rest) = path.strip_prefix(PKI_DIR) else {
            return refuse("it must be under /etc/kubernetes/pki/");
        };
        if path.len() > 256 {
            return refuse("longer than 256 bytes");
        }
        let segments: Vec<&str> = rest.split('/').collect();
        if segments.len() > 2 {
            return refuse("more than one directory under pki/ (kubeadm's is etcd/)");
        }
        for seg in &segments {
            if seg.is_empty() || seg.starts_with('.') {
                return refuse("an empty segment, `.`, `..` or a hidden name");
            }
            if !seg
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
            {
                return refuse("only letters, digits, `.`, `_` and `-` (no glob, no quote)");
            }
        }
        let file = segments.last().copied().unwrap_or_default();
        if !file.ends_with(".crt") || file.len() <= 4 {
            return refuse("only `*.crt` files (never a key, never a kubeconfig)");
        }
        Ok(PkiPath(path.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for PkiPath {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        PkiPath::parse(&s)
    }
}

impl fmt::Display for PkiPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a certificate file shows: its earliest notAfter (a bundle's first to expire).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cert {
    /// Seconds since the epoch.
    pub not_after: i64,
    /// `basicConstraints: CA:TRUE` (kubeadm never renews a CA).
    pub ca: bool,
}

/// A certificate file's bytes → its facts. Only `CERTIFICATE` PEM blocks are accepted: any
/// other block (a private key, say) refuses the whole file without a word of its content.
pub fn parse_certificate(bytes: &[u8]) -> Result<Cert, String> {
    if bytes.len() > MAX_CERT_BYTES {
        return Err(format!(
            "{} bytes, over the {} KiB nestor reads of a certificate",
            bytes.len(),
            MAX_CERT_BYTES >> 10
        ));
    }
    let mut earliest: Option<Cert> = None;
    for (n, block) in Pem::iter_from_buffer(bytes).enumerate() {
        if n >= MAX_BLOCKS {
            return Err(format!("more than {MAX_BLOCKS} PEM blocks"));
        }
        let Ok(pem) = block else {
            return Err("not a PEM file".into());
        };
        if pem.label != "CERTIFICATE" {
            return Err("a PEM block that is not a CERTIFICATE: nothing of it was kept".into());
        }
        let Ok(x509) = pem.parse_x509() else {
            return Err("a CERTIFICATE block that is not an X.509 certificate".into());
        };
        let cert = Cert {
            not_after: x509.validity().not_after.timestamp(),
            ca: x509.is_ca(),
        };
        if earliest.is_none_or(|e| cert.not_after < e.not_after) {
            earliest = Some(cert);
        }
    }
    earliest.ok_or_else(|| "no PEM CERTIFICATE block".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! pem {
        ($name:literal) => {
            include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/gate/pki/",
                $name
            ))
        };
    }

    #[test]
    fn only_public_certificate_paths_under_pki() {
        for ok in [
            "/etc/kubernetes/pki/apiserver.crt",
            "/etc/kubernetes/pki/etcd/server.crt",
            "/etc/kubernetes/pki/front-proxy-ca.crt",
        ] {
            assert_eq!(PkiPath::parse(ok).map(|p| p.to_string()), Ok(ok.into()));
        }
        for bad in [
            "/etc/kubernetes/pki/apiserver.key",
            "/etc/kubernetes/pki/sa.pub",
            "/etc/kubernetes/admin.conf",
            "/etc/kubernetes/pki/../admin.conf",
            "/etc/kubernetes/pki/../pki/ca.crt",
            "/etc/kubernetes/pki/./ca.crt",
            "/etc/kubernetes/pki//ca.crt",
            "/etc/kubernetes/pki/*.crt",
            "/etc/kubernetes/pki/etcd/*.crt",
            "/etc/kubernetes/pki/.crt",
            "/etc/kubernetes/pki/.hidden.crt",
            "/etc/kubernetes/pki/ca.crt/",
            "/etc/kubernetes/pki/ca.crt.key",
            "/etc/kubernetes/pki/ca'.crt",
            "/etc/kubernetes/pki/ca crt.crt",
            "/etc/kubernetes/pki/a/b/c.crt",
            "/etc/kubernetes/pkix/ca.crt",
            "etc/kubernetes/pki/ca.crt",
            "/etc/kubernetes/pki/",
            "/etc/kubernetes/pki/ca.crt\n",
        ] {
            assert!(PkiPath::parse(bad).is_err(), "{bad:?} was admitted");
        }
    }

    #[test]
    fn a_kubeadm_certificate_gives_its_not_after() {
        // openssl x509 -enddate: notAfter=Nov 30 09:00:00 2036 GMT
        let c = parse_certificate(pem!("apiserver-valid.crt")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(crate::clock::rfc3339(c.not_after), "2036-11-30T09:00:00Z");
        assert!(!c.ca);
        let ca = parse_certificate(pem!("ca.crt")).unwrap_or_else(|e| panic!("{e}"));
        assert!(ca.ca);
        let old =
            parse_certificate(pem!("apiserver-expired.crt")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(crate::clock::rfc3339(old.not_after), "2025-06-01T00:00:00Z");
    }

    #[test]
    fn a_bundle_gives_its_first_expiry() {
        let mut both = pem!("apiserver-valid.crt").to_vec();
        both.extend_from_slice(pem!("apiserver-expired.crt"));
        let c = parse_certificate(&both).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(crate::clock::rfc3339(c.not_after), "2025-06-01T00:00:00Z");
    }

    #[test]
    fn keys_garbage_and_oversize_are_refused_without_their_bytes() {
        let key = b"-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIHNlY3JldC1rZXktYnl0ZXMtbmV2ZXItcHJpbnRlZA==\n-----END PRIVATE KEY-----\n";
        let e = parse_certificate(key).err().unwrap_or_default();
        assert_eq!(
            e,
            "a PEM block that is not a CERTIFICATE: nothing of it was kept"
        );
        let mut cert_then_key = pem!("apiserver-valid.crt").to_vec();
        cert_then_key.extend_from_slice(key);
        assert_eq!(
            parse_certificate(&cert_then_key).err().unwrap_or_default(),
            e
        );
        assert_eq!(
            parse_certificate(b"").err().unwrap_or_default(),
            "no PEM CERTIFICATE block"
        );
        assert_eq!(
            parse_certificate(b"hello\n").err().unwrap_or_default(),
            "no PEM CERTIFICATE block"
        );
        let bad = b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
        assert_eq!(
            parse_certificate(bad).err().unwrap_or_default(),
            "a CERTIFICATE block that is not an X.509 certificate"
        );
        let big = vec![b'A'; MAX_CERT_BYTES + 1];
        assert_eq!(
            parse_certificate(&big).err().unwrap_or_default(),
            "65537 bytes, over the 64 KiB nestor reads of a certificate"
        );
    }
}
