//! Release numbers as the gates compare them: a minor (`1.34`) and a version (`v1.34.8`,
//! `1.18.2`, `containerd://1.7.22`, `v1.15.4-rc.1`). Only the numbers count; what follows a
//! `-` or a `+` (pre-release, build) is kept out of the comparison.

use std::fmt;

use serde::de::{self, Deserializer};
use serde::Deserialize;

/// `MAJOR.MINOR`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Minor {
    pub major: u32,
    pub minor: u32,
}

/// `MAJOR.MINOR.PATCH` (a missing patch is 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

fn number(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

impl Version {
    /// `v1.34.8`, `1.34`, `containerd://1.7.22`, `1.7.22-k3s1`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Version> {
        let t = text.trim();
        let t = t.rsplit_once("://").map_or(t, |(_, v)| v);
        let t = t.strip_prefix('v').unwrap_or(t);
        let t = t.split(['-', '+']).next()?;
        let mut parts = t.split('.');
        let major = number(parts.next()?)?;
        let minor = number(parts.next()?)?;
        let patch = match parts.next() {
            Some(p) => number(p)?,
            None => 0,
        };
        if parts.next().is_some() {
            return None;
        }
        Some(Version {
            major,
            minor,
            patch,
        })
    }

    /// The tag of an image reference (`quay.io/cilium/cilium:v1.18.2@sha256:...` → v1.18.2).
    pub fn of_image(image: &str) -> Option<Version> {
        let no_digest = image.split('@').next()?;
        let last = no_digest.rsplit('/').next()?;
        let (_, tag) = last.split_once(':')?;
        Version::parse(tag)
    }

    pub fn minor(self) -> Minor {
        Minor {
            major: self.major,
            minor: self.minor,
        }
    }
}

impl Minor {
    pub fn parse(text: &str) -> Option<Minor> {
        let v = Version::parse(text)?;
        // A minor is written without a patch.
        (text.trim().trim_start_matches('v').split('.').count() == 2).then_some(v.minor())
    }

    /// The next minor (`1.34` → `1.35`).
    pub fn next(self) -> Minor {
        Minor {
            major: self.major,
            minor: self.minor.saturating_add(1),
        }
    }

    /// How many minors `self` is behind `other` (same major; 0 when not behind).
    pub fn behind(self, other: Minor) -> u32 {
        if self.major != other.major {
            return if self.major < other.major {
                u32::MAX
            } else {
                0
            };
        }
        other.minor.saturating_sub(self.minor)
    }
}

impl fmt::Display for Minor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl<'de> Deserialize<'de> for Minor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Minor::parse(&s).ok_or_else(|| {
            de::Error::invalid_value(de::Unexpected::Str(&s), &"a minor release such as \"1.34\"")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_as_the_cluster_writes_them() {
        let v = |major, minor, patch| {
            Some(Version {
                major,
                minor,
                patch,
            })
        };
        assert_eq!(Version::parse("v1.34.8"), v(1, 34, 8));
        assert_eq!(Version::parse("containerd://1.7.22"), v(1, 7, 22));
        assert_eq!(Version::parse("v1.30.4+k3s1"), v(1, 30, 4));
        assert_eq!(Version::parse("1.35"), v(1, 35, 0));
        assert_eq!(Version::parse("v1.15.0-rc.1"), v(1, 15, 0));
        assert_eq!(Version::parse("latest"), None);
        assert_eq!(Version::parse("1.2.3.4"), None);
        assert_eq!(Version::parse("1..3"), None);
        assert_eq!(
            Version::of_image("quay.io/cilium/cilium:v1.18.2@sha256:858f807ea4e20e85e3ea3240a762e1f4b29f1cb5bbd0463b8aa77e7b097c0667"),
            v(1, 18, 2)
        );
        assert_eq!(
            Version::of_image("localhost:5000/cilium/operator-generic"),
            None
        );
        assert_eq!(
            Minor::parse("1.35"),
            Some(Minor {
                major: 1,
                minor: 35
            })
        );
        assert_eq!(Minor::parse("1.35.1"), None);
        let m = Minor {
            major: 1,
            minor: 31,
        };
        assert_eq!(
            m.behind(Minor {
                major: 1,
                minor: 35
            }),
            4
        );
        assert_eq!(
            Minor {
                major: 1,
                minor: 36
            }
            .behind(m),
            0
        );
        assert_eq!(m.next().to_string(), "1.32");
    }
}
