//! The kubeconfig fetch's `cat`: exactly the admin.conf `kubeconfig fetch` names.

use super::super::{check, check_fetching};
use crate::read::exec::Tool;

fn fetch(tail: &[&str]) -> Vec<String> {
    [
        "-o",
        "ConnectTimeout=10",
        "-o",
        "BatchMode=yes",
        "debian@10.67.2.11",
    ]
    .iter()
    .chain(tail)
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn kubeadms_admin_conf_and_the_topologys_admin_conf_are_fetched() {
    for tail in [
        &["sudo", "-n", "cat", "/etc/kubernetes/admin.conf"][..],
        &["cat", "/etc/kubernetes/admin.conf"][..],
    ] {
        assert_eq!(check(Tool::Ssh, &fetch(tail)), Ok(()), "{tail:?}");
    }
    let custom = "/etc/rancher/k3s/k3s.yaml";
    let argv = fetch(&["sudo", "-n", "cat", custom]);
    assert_eq!(check_fetching(Tool::Ssh, &argv, Some(custom)), Ok(()));
    // Only the path the runner was given: another stack's admin_conf is not.
    assert!(check(Tool::Ssh, &argv).is_err());
    assert!(check_fetching(Tool::Ssh, &argv, Some("/etc/other/admin.conf")).is_err());
    for ok in [
        "/tmp/.tmpAb12/etc-kubernetes/admin.conf",
        "/srv/kube/config",
        "/srv/kube/kubeconfig",
        "/srv/admin.kubeconfig",
        "/srv/a.yml",
    ] {
        let argv = fetch(&["cat", ok]);
        assert_eq!(check_fetching(Tool::Ssh, &argv, Some(ok)), Ok(()), "{ok}");
    }
}

#[test]
fn secrets_keys_and_escapes_are_refused_even_when_the_topology_names_them() {
    for bad in [
        "/etc/shadow",
        "/root/.ssh/id_rsa",
        "/root/.ssh/config",
        "/etc/kubernetes/.admin.conf",
        "/home/debian/.ssh/id_ed25519",
        "/etc/kubernetes/pki/ca.key",
        "/etc/kubernetes/pki/sa.key",
        "/etc/kubernetes/pki/apiserver.key",
        "/etc/kubernetes/../shadow",
        "/etc/kubernetes/pki/../admin.conf",
        "/etc/kubernetes/./admin.conf",
        "/etc/kubernetes//admin.conf",
        "/etc/kubernetes/pki/apiserver.crt",
        "/etc/kubernetes/admin.conf.key",
        "/etc/ssl/private/server.pem",
        "/etc/kubernetes/.conf",
        "/dev/zero",
        "relative/admin.conf",
    ] {
        for tail in [&["sudo", "-n", "cat", bad][..], &["cat", bad][..]] {
            let argv = fetch(tail);
            assert!(check(Tool::Ssh, &argv).is_err(), "{bad}");
            assert!(
                check_fetching(Tool::Ssh, &argv, Some(bad)).is_err(),
                "{bad} (named by the topology)"
            );
        }
    }
    let why = check(Tool::Ssh, &fetch(&["cat", "/etc/shadow"])).expect_err("refused");
    assert!(
        why.starts_with("ssh: cat reads only the kubeconfig"),
        "{why}"
    );
}
