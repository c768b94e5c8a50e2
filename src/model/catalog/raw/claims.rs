//! Strict decoding of `claims: {provisioner: P, maxPending: 5m}`.

use serde::Deserialize;

use crate::model::catalog::check::{ClaimsCheck, DEFAULT_MAX_PENDING_SECS};

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawClaims {
    provisioner: String,
    max_pending: Option<String>,
}

impl RawClaims {
    pub(super) fn into_check(self) -> Result<ClaimsCheck, String> {
        let p = &self.provisioner;
        if p.is_empty() || p.len() > 253 || p.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!(
                "`claims.provisioner` `{}` is not a provisioner name (rook-ceph.rbd.csi.ceph.com)",
                self.provisioner
            ));
        }
        let max_pending_secs = match &self.max_pending {
            None => DEFAULT_MAX_PENDING_SECS,
            Some(text) => crate::duration::parse(text.trim())
                .ok()
                .map(|d| d.as_secs())
                .filter(|s| *s > 0)
                .ok_or_else(|| {
                    format!(
                        "`claims.maxPending` `{text}` is not a duration of at least 1s (5m, 1h)"
                    )
                })?,
        };
        Ok(ClaimsCheck {
            provisioner: self.provisioner,
            max_pending_secs,
        })
    }
}
