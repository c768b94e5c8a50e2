//! Strict decoding of `distinctNodes: {namespace, selector, atLeast, daemonLabel?, what?,
//! says?}`: every name validated before it can reach a read.

use serde::Deserialize;

use super::agents::label_selector;
use crate::model::catalog::check::DistinctNodesCheck;
use crate::model::catalog::scalars::{is_dns_label, is_label_key};

/// The most distinct nodes a check may ask for (a CRUSH failure domain count, not a fleet).
const MAX_AT_LEAST: u32 = 64;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawDistinctNodes {
    namespace: String,
    selector: String,
    at_least: u32,
    daemon_label: Option<String>,
    what: Option<String>,
    says: Option<String>,
}

impl RawDistinctNodes {
    pub(super) fn into_check(self) -> Result<DistinctNodesCheck, String> {
        if !is_dns_label(&self.namespace) {
            return Err(format!(
                "`distinctNodes.namespace: {}` is not a namespace name",
                self.namespace
            ));
        }
        label_selector(&self.selector, "app=rook-ceph-mon")?;
        if !(2..=MAX_AT_LEAST).contains(&self.at_least) {
            return Err(format!(
                "`distinctNodes.atLeast: {}` must be from 2 to {MAX_AT_LEAST} (one node is no spread)",
                self.at_least
            ));
        }
        if let Some(bad) = self.daemon_label.as_deref().filter(|l| !is_label_key(l)) {
            return Err(format!(
                "`distinctNodes.daemonLabel: {bad}` is not a label key like `ceph_daemon_id`"
            ));
        }
        let words = |key: &str, text: &Option<String>, max: usize| match text {
            Some(t) if t.trim().is_empty() || t.len() > max || t.chars().any(char::is_control) => {
                Err(format!(
                    "`distinctNodes.{key}:` must be 1 to {max} printable characters, or left out"
                ))
            }
            _ => Ok(()),
        };
        words("what", &self.what, 40)?;
        words("says", &self.says, 200)?;
        Ok(DistinctNodesCheck {
            namespace: self.namespace,
            selector: self.selector,
            at_least: self.at_least,
            daemon_label: self.daemon_label,
            what: self.what,
            says: self.says,
        })
    }
}
