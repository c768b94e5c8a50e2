//! The API server's `/readyz?verbose` as kube-apiserver writes it: one `[+]`/`[-]` line per
//! check, then its verdict; a verdict that disagrees with the lines is no answer.

use crate::error::{Error, Result};
use crate::model::gate::facts::ReadyzCheck;

/// `/readyz?verbose`: `[+]name ok` / `[-]name failed: ...` lines and the closing verdict
/// (`readyz check passed` / `readyz check failed`). The verdict must agree with the lines:
/// a contradiction, or no verdict, is a failed read (CANNOT TELL naming it), never GO.
pub fn readyz(text: &str) -> Result<Vec<ReadyzCheck>> {
    let checks: Vec<ReadyzCheck> = text
        .lines()
        .filter_map(|l| {
            let (ok, rest) = if let Some(r) = l.strip_prefix("[+]") {
                (true, r)
            } else {
                (false, l.strip_prefix("[-]")?)
            };
            let name = rest.split_whitespace().next()?.to_string();
            Some(ReadyzCheck { name, ok })
        })
        .collect();
    if checks.is_empty() {
        return Err(Error::input(
            "the API server's /readyz?verbose listed no check",
            "expected lines such as `[+]etcd ok`; run `kubectl get --raw '/readyz?verbose'` to see it",
        ));
    }
    let verdict = text
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    let all_pass = checks.iter().all(|c| c.ok);
    let said = match verdict {
        "readyz check passed" => true,
        "readyz check failed" => false,
        other => {
            return Err(Error::input(
                format!(
                    "the API server's /readyz?verbose ends without its verdict (`{}`)",
                    crate::term::escape_capped(other, 60)
                ),
                "kube-apiserver closes the list with `readyz check passed` or `readyz check failed`; run `kubectl get --raw '/readyz?verbose'` to see it",
            ))
        }
    };
    if said != all_pass {
        return Err(Error::input(
            format!(
                "the API server's /readyz?verbose contradicts itself: {} but it says `{verdict}`",
                if all_pass {
                    "every check line passes"
                } else {
                    "a check line fails"
                }
            ),
            "read it by hand (`kubectl get --raw '/readyz?verbose'`): nestor cannot tell which to believe",
        ));
    }
    Ok(checks)
}
