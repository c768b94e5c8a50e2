//! The check-kind names (issue 30 item 2): [`CheckKey`] is derived from `CheckKind`'s
//! variants (`strum::EnumDiscriminants` in `check.rs`), so a kind's catalog key is spelled
//! once, as its variant, and everything else derives from it — `CheckKind::key`, the list in
//! "a check needs one of …", the one-check-per-item test of a raw check. A new kind is a new
//! `CheckKind` variant; the compiler then names every match that must learn it.

use strum::VariantArray;

use super::{CheckKey, CheckKind};

impl CheckKey {
    /// The key as written in a catalog (`distinctNodes`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Every key, quoted and comma-separated, for "a check needs one of …".
    pub fn listed() -> String {
        CheckKey::VARIANTS
            .iter()
            .map(|k| format!("`{}`", k.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl CheckKind {
    /// Which kind this is, as its catalog key.
    pub fn check_key(&self) -> CheckKey {
        CheckKey::from(self)
    }

    /// The catalog key of the check kind (`workload`, `tolerate`, ...).
    pub fn key(&self) -> &'static str {
        self.check_key().as_str()
    }
}
