//! The control-plane certificates of `gate upgrade kubernetes` (SPEC §17): the table's
//! `certificates.files` read on every control-plane node, an expired one a blocker
//! (`k8s-certs-expired`: the control plane breaks before `kubeadm upgrade` can renew it),
//! one expiring within `warnWithinDays` a warning (`k8s-certs-expiring`: the upgrade renews
//! every certificate kubeadm manages, never a CA). The evidence is the node, the path and its
//! notAfter, never a byte of the file.

use crate::model::gate::cert::{Cert, PKI_DIR};
use crate::model::gate::check::{Check, Finding};
use crate::model::gate::facts::{CertFile, Facts};
use crate::model::gate::table::Table;

const DAY: i64 = 86_400;

/// `kubeadm certs renew`'s name for a file (`etcd/server.crt` → `etcd-server`).
fn renew_name(path: &str) -> String {
    let rest = path.strip_prefix(PKI_DIR).unwrap_or(path);
    rest.strip_suffix(".crt").unwrap_or(rest).replace('/', "-")
}

/// One certificate read: its node, its file, what it showed.
type Seen<'a> = (&'a str, &'a CertFile, Cert);

/// The time of the read and every certificate of every control-plane node, or why the rule
/// cannot say.
fn certificates(facts: &Facts) -> Result<(i64, Vec<Seen<'_>>), Check> {
    let (Ok(hosts), Ok(nodes), Some(now)) = (&facts.host_certs, &facts.nodes, facts.observed_at)
    else {
        return Err(Check::Unknown(
            "certificates, nodes or the time not read".into(),
        ));
    };
    let mut unknown = Vec::new();
    for n in nodes.iter().filter(|n| n.is_control_plane()) {
        if !hosts.contains_key(&n.name) {
            unknown.push(format!("{}: not read", n.name));
        }
    }
    if nodes.iter().all(|n| !n.is_control_plane()) {
        return Err(Check::Unknown("no node has the control-plane role".into()));
    }
    let mut out = Vec::new();
    for (host, read) in hosts {
        let files = match read {
            Ok(files) => files,
            Err(f) => {
                unknown.push(format!("{host}: {f}"));
                continue;
            }
        };
        let mut found = 0;
        for file in files {
            match &file.read {
                Ok(Some(cert)) => {
                    found += 1;
                    out.push((host.as_str(), file, *cert));
                }
                Ok(None) => {}
                Err(f) => unknown.push(format!("{host} {}: {f}", file.path)),
            }
        }
        if found == 0 && !files.iter().any(|f| f.read.is_err()) {
            unknown.push(format!(
                "{host}: none of the {} certificate files is there (not a kubeadm control plane?)",
                files.len()
            ));
        }
    }
    if !unknown.is_empty() {
        return Err(Check::Unknown(format!(
            "not read on {}",
            unknown.join("; ")
        )));
    }
    Ok((now, out))
}

fn days(secs: i64) -> i64 {
    secs.abs() / DAY
}

pub(in crate::model::gate) fn certs_expired(facts: &Facts) -> Check {
    let (now, certs) = match certificates(facts) {
        Ok(c) => c,
        Err(c) => return c,
    };
    let findings: Vec<Finding> = certs
        .iter()
        .filter(|(_, _, c)| c.not_after <= now)
        .map(|(host, file, c)| {
            let clears = if c.ca {
                "rotate this CA by hand first (kubeadm never renews a CA: Manual Rotation of CA Certificates)".to_string()
            } else {
                format!(
                    "renew it on {host} first (`kubeadm certs renew {}`, then restart the static pods that use it)",
                    renew_name(file.path.as_str())
                )
            };
            Finding::new(
                format!("node {host} {}", file.path),
                format!(
                    "notAfter {}: expired {} days ago",
                    crate::clock::rfc3339(c.not_after),
                    days(now - c.not_after)
                ),
                clears,
            )
        })
        .collect();
    if !findings.is_empty() {
        return Check::Fails(findings);
    }
    match certs
        .iter()
        .map(|(_, f, c)| (c.not_after, f))
        .min_by_key(|(t, _)| *t)
    {
        Some((first, file)) => Check::Holds(format!(
            "{} certificates, none expired; the first to expire: {} on {}",
            certs.len(),
            file.path,
            crate::clock::rfc3339(first)
        )),
        None => Check::Unknown("no certificate was read".into()),
    }
}

pub(in crate::model::gate) fn certs_expiring(facts: &Facts, table: &Table) -> Check {
    let (now, certs) = match certificates(facts) {
        Ok(c) => c,
        Err(c) => return c,
    };
    let window = i64::from(table.certificates.warn_within_days) * DAY;
    let findings: Vec<Finding> = certs
        .iter()
        .filter(|(_, _, c)| c.not_after > now && c.not_after - now <= window)
        .map(|(host, file, c)| {
            let clears = if c.ca {
                "kubeadm upgrade does not renew a CA: plan its rotation (Manual Rotation of CA Certificates)".to_string()
            } else {
                format!(
                    "`kubeadm upgrade apply` renews it (unless --certificate-renewal=false), or `kubeadm certs renew {}` on {host}",
                    renew_name(file.path.as_str())
                )
            };
            Finding::new(
                format!("node {host} {}", file.path),
                format!(
                    "notAfter {}: expires in {} days (within the table's {} days)",
                    crate::clock::rfc3339(c.not_after),
                    days(c.not_after - now),
                    table.certificates.warn_within_days
                ),
                clears,
            )
        })
        .collect();
    if !findings.is_empty() {
        return Check::Fails(findings);
    }
    Check::Holds(format!(
        "{} certificates: none expires within {} days",
        certs.len(),
        table.certificates.warn_within_days
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubeadm_renew_names() {
        assert_eq!(renew_name("/etc/kubernetes/pki/apiserver.crt"), "apiserver");
        assert_eq!(
            renew_name("/etc/kubernetes/pki/etcd/server.crt"),
            "etcd-server"
        );
        assert_eq!(
            renew_name("/etc/kubernetes/pki/etcd/healthcheck-client.crt"),
            "etcd-healthcheck-client"
        );
    }
}
