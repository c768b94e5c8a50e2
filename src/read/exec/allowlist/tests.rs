//! Tests of the read-only allowlist: what passes, and its neighbours that are refused.

use super::*;

fn argv(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

const PIN: &str =
    "--kubeconfig /k/c --context c --server https://10.0.0.1:6443 --cache-dir=/h/.kube/cache";

fn kube(s: &str) -> Result<(), String> {
    check(Tool::Kubectl, &argv(&format!("{PIN} {s}")))
}

/// A line `--explain` prints (never spawned).
fn printed(s: &str) -> Result<(), String> {
    printed_kubectl(&argv(&format!("{PIN} {s}")))
}

/// Refused both to spawn and to print.
fn refused_everywhere(s: &str) -> bool {
    kube(s).is_err() && printed(s).is_err()
}

#[test]
fn every_call_is_pinned() {
    for unpinned in [
        "--kubeconfig /k/c --cache-dir=/c get nodes -o json",
        "--kubeconfig /k/c --context c --cache-dir=/c get nodes -o json",
        "--kubeconfig /k/c --server https://x --cache-dir=/c get nodes -o json",
        "--kubeconfig /k/c --context c --server https://x get nodes -o json",
        "--kubeconfig /k/c --context c --context d --server https://x --cache-dir=/c get nodes",
        "--kubeconfig /k/c --context c --server https://x --server https://y --cache-dir=/c get nodes",
        "--kubeconfig /k/c --context c --server localhost:8080 --cache-dir=/c get nodes",
        "--kubeconfig /k/a:/k/b --context c --server https://x --cache-dir=/c get nodes",
        "--kubeconfig /k/c --cache-dir=/c config view --minify -o=json",
    ] {
        assert!(check(Tool::Kubectl, &argv(unpinned)).is_err(), "{unpinned}");
        assert!(printed_kubectl(&argv(unpinned)).is_err(), "{unpinned}");
    }
    for escape in ["-s https://y", "--cluster=x", "--user=x"] {
        assert!(
            refused_everywhere(&format!("{escape} get nodes")),
            "{escape}"
        );
    }
    assert_eq!(
        printed("--tls-server-name=api.lan get nodes -o json"),
        Ok(())
    );
    assert_eq!(kube("config view --minify -o=json"), Ok(()));
}

/// SPEC §9 v0.4: the allowlist is exactly what runs — kubectl's `config view` of the target
/// (`--minify`) and of the whole file (`kubeconfig fetch`), and the pinned proxy.
#[test]
fn only_the_forms_nestor_runs_pass() {
    assert_eq!(kube("config view --minify -o=json"), Ok(()));
    assert_eq!(kube("config view -o=json"), Ok(()));
    assert_eq!(check(Tool::Limactl, &argv("list --json")), Ok(()));
    assert_eq!(
        check(
            Tool::Ssh,
            &argv("-p 2222 -i /k/id -o ConnectTimeout=5 -o BatchMode=yes root@10.0.0.1 cat /etc/kubernetes/admin.conf")
        ),
        Ok(())
    );
    assert_eq!(
        check(
            Tool::Ssh,
            &argv("-o ConnectTimeout=5 ops@cp1 sudo -n cat /etc/kubernetes/admin.conf")
        ),
        Ok(())
    );
}

/// Issue 30 item 3: the forms no command runs any more are refused like a write, with the
/// reason naming what does run.
#[test]
fn removed_forms_are_refused_like_a_write() {
    for gone in [
        "get nodes -o json",
        "--request-timeout=10s get nodes,namespaces -o json",
        "get daemonsets -A -o json",
        "get cephclusters.ceph.rook.io -n rook-ceph -o json",
        "get configmap cilium-config -n kube-system -o json",
        "api-versions",
        "version -o json",
        "version",
        "api-resources",
        "api-resources -o=name --api-group=ceph.rook.io",
        "config current-context",
        "config get-contexts -o=name",
        "config view",
        "config view --minify",
        "config view --minify -o=yaml",
        "config view --minify --output=json",
        "config view -o=json --minify",
        "config view --minify -o=json --raw",
    ] {
        let verb = gone
            .split_whitespace()
            .find(|w| !w.starts_with("--request"))
            .unwrap();
        assert_eq!(
            kube(gone),
            Err(format!("kubectl: `{verb}` is not a form nestor runs (only `config view [--minify] -o=json` and the pinned `proxy`)")),
            "{gone}"
        );
    }
    // The forms only the removed processes path used, and `--raw` (issue 21) but for a
    // gate's own GETs (`printed_tests.rs`), are not even printed.
    assert!(kube("get --raw /api/v1/nodes").is_err() && printed("get --raw /api/v1/nodes").is_ok());
    for gone in [
        "get --raw /apis",
        "get ns --chunk-size=500 -o json",
        "get configmap cilium-config -n kube-system -o json --show-managed-fields",
    ] {
        assert!(refused_everywhere(gone), "{gone}");
    }
}

/// `--explain`'s printed lines keep their own grammar (reads a person may run by hand).
#[test]
fn printed_reads_pass_their_own_grammar_only() {
    for ok in [
        "get nodes -o json",
        "get daemonsets -A -o json",
        "get cephclusters.ceph.rook.io rook-ceph -n rook-ceph --ignore-not-found -o jsonpath={.status.ceph.health}",
        "api-versions",
        "get configmap cilium-config -n kube-system -o json",
    ] {
        assert_eq!(printed(ok), Ok(()), "{ok}");
        assert!(kube(ok).is_err(), "{ok} may spawn");
    }
    for not_printed in ["config view --minify -o=json", "proxy", "version -o json"] {
        assert!(printed(not_printed).is_err(), "{not_printed}");
    }
}

#[test]
fn ssh_destination_without_user_is_a_validated_host() {
    for ok in [
        "-o ConnectTimeout=5 cp1.lan sudo -n cat /etc/kubernetes/admin.conf",
        "-p 2222 -o ConnectTimeout=1 -o BatchMode=yes 10.67.2.11 cat /etc/kubernetes/admin.conf",
        "-o ConnectTimeout=5 fe80::1 true",
    ] {
        assert_eq!(check(Tool::Ssh, &argv(ok)), Ok(()), "{ok}");
    }
    for bad in [
        "-o ConnectTimeout=5 @cp1 true",
        "-o ConnectTimeout=5 ops@ true",
        "-o ConnectTimeout=5 1ops@cp1 true",
        "-o ConnectTimeout=5 cp1;id true",
        "-o ConnectTimeout=5 cp1$(id) true",
        "-o ConnectTimeout=5 ops@-oProxyCommand=x true",
        "-o ConnectTimeout=5",
    ] {
        assert!(check(Tool::Ssh, &argv(bad)).is_err(), "{bad}");
    }
    let bare = vec![
        "-o".to_string(),
        "ConnectTimeout=5".into(),
        "cp 1".into(),
        "true".into(),
    ];
    assert!(check(Tool::Ssh, &bare).is_err());
    assert!(is_ssh_host("cp1.lan") && !is_ssh_host("-x") && !is_ssh_host(""));
    assert!(is_ssh_user("ops") && !is_ssh_user("-l") && !is_ssh_user(""));
}

#[test]
fn mutations_and_escapes_are_refused() {
    for bad in [
        "apply -f x.yaml",
        "create ns x",
        "patch node a -p {}",
        "delete ns x",
        "edit node a",
        "label node a x=y",
        "annotate node a x=y",
        "scale deploy a --replicas=0",
        "rollout restart deploy a",
        "drain a",
        "cordon a",
        "exec -it p -- sh",
        "port-forward p 80",
        "proxy",
        "proxy --port=8001",
        "config use-context x",
        "config set-context x",
        "config view --raw",
        "get nodes --watch",
        "get nodes -w",
        "get secrets -A -o json",
        "get secret/x -o json",
        "get nodes -o go-template-file=/x",
        "get --raw /api/v1/secrets",
        "get --raw /api/v1/%73ecrets",
        "get --raw /api/v1/%2573ecrets",
        "get --raw /api/v1/namespaces/x/pods/p/proxy",
        "get --raw /api/v1/namespaces/x/pods/p/log",
        "get --raw /api/v1/namespaces/x/pods/p/exec",
        "get --raw /api/v1/namespaces/x/services/s:80/proxy/",
        "get --raw /api/v1/nodes/n/proxy/metrics",
        "get --raw /api/v1/nodes?watch=true",
        "get --raw /apis/%2e%2e/x",
        "auth can-i get nodes",
        "get",
    ] {
        assert!(refused_everywhere(bad), "{bad} passed");
    }
    assert!(check(Tool::Kubectl, &argv("get nodes -o json")).is_err());
    assert!(check(
        Tool::Kubectl,
        &argv(&format!("{PIN} --kubeconfig /b get nodes"))
    )
    .is_err());
    for bad in [
        "start x",
        "stop x",
        "delete x",
        "shell x",
        "list",
        "list --json x",
    ] {
        assert!(check(Tool::Limactl, &argv(bad)).is_err(), "{bad}");
    }
    for bad in [
        "-o ConnectTimeout=5 root@h rm -rf /",
        "-o ConnectTimeout=5 -o StrictHostKeyChecking=no root@h true",
        "-o ConnectTimeout=5 root@h cat /etc/kubernetes/admin.conf;id",
        "root@h true",
        "-o ConnectTimeout=5 -oProxyCommand=x root@h true",
        "-o ConnectTimeout=5 --x root@h true",
    ] {
        assert!(check(Tool::Ssh, &argv(bad)).is_err(), "{bad}");
    }
}

#[test]
fn proxy_only_in_restricted_form() {
    let dir = tempfile::tempdir().ok();
    let Some(dir) = dir else { return };
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700));
    let sock = dir.path().join("s");
    let good = vec![
        "--kubeconfig=/k".to_string(),
        "--context=c".into(),
        "--server=https://10.0.0.1:6443".into(),
        "--cache-dir=/h/.kube/cache".into(),
        "proxy".into(),
        format!("--unix-socket={}", sock.display()),
        format!("--reject-methods={PROXY_REJECT_METHODS}"),
        "--accept-paths=^/api/v1/nodes$,^/apis/ceph\\.rook\\.io/[a-z0-9]+/cephclusters$,^/api/v1/namespaces/kube-system/pods$"
            .to_string(),
        format!("--reject-paths={PROXY_REJECT_PATHS}"),
    ];
    assert_eq!(check(Tool::Kubectl, &good), Ok(()));
    let mut loose = good.clone();
    loose[6] = "--reject-methods=^POST$".into();
    assert!(check(Tool::Kubectl, &loose).is_err());
    for wide in [
        "^/(version|api|apis)(/[a-z0-9.-]+)*/?$",
        "^/api/v1/configmaps$",
        "^/api/v1/namespaces/rook-ceph/configmaps$",
        "^/api/v1/namespaces/rook-ceph/configmaps/a/b$",
        "^/api/v1/configmaps/rook-ceph-mon-endpoints$",
        "^/api/v1/namespaces/x/secrets/rook-ceph-mon$",
        "^/api/v1/namespaces/kube-system/configmaps$",
        "^/api/v1/namespaces/kube-system/configmaps/[a-z0-9]+$",
        "^/api/v1/namespaces/kube-system/configmaps/cilium-config/x$",
        "^/api/v1/namespaces/kube-system/secrets/cilium-config$",
        "^/api/v1/namespaces/x/pods/p/log$",
        "^/api/v1/namespaces/x/pods/p$",
        "^/api/v1/pods$",
        "^/api/v1/namespaces/x/pods?labelSelector=a$",
        "^/api/v1/events$",
        "^/api/v1/serviceaccounts$",
        "^/api/v1/secrets$",
        "^/api/v1/watch/nodes$",
        "/api/v1/nodes",
        "^/api/v1/nodes",
        "^/api/v1/.*$",
        "^/apis/x/[a-z0-9]+/[a-z0-9]+$",
        "^/api/v1/no.es$",
        "",
    ] {
        let mut l = good.clone();
        l[7] = format!("--accept-paths={wide}");
        assert!(check(Tool::Kubectl, &l).is_err(), "{wide}");
    }
    let _ = std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755));
    assert!(check(Tool::Kubectl, &good).is_err());
}

/// SPEC §6 v0.3: pods only as a namespace's list by a label selector (a workload's own),
/// ConfigMaps only by name; every neighbour refused, Secrets never.
#[test]
fn pods_by_selector_and_configmaps_by_name_only() {
    for ok in [
        "get pods -n argocd -l app.kubernetes.io/name=argocd-redis -o json",
        "get pods -n kube-system -l component=kube-apiserver -o json",
        "get pods -n dataops -l app=a,tier=b -o json",
        "get configmap rook-ceph-mon-endpoints -n rook-ceph -o json",
    ] {
        assert_eq!(printed(ok), Ok(()), "{ok}");
    }
    for refused in [
        "get pods -A -o json",
        "get pods --all-namespaces -l app=a -o json",
        "get pods -n argocd -o json",
        "get pods -l app=a -o json",
        "get pods argocd-redis-0 -n argocd -o json",
        "get pod -n argocd -l app=a -o json",
        "get po -n argocd -l app=a -o json",
        "get pods,deployments -n argocd -l app=a -o json",
        "get deployments,pods -n argocd -l app=a -o json",
        "get pods -n argocd -l app -o json",
        "get configmaps -A -o json",
        "get configmaps -n rook-ceph -o json",
        "get configmap -n rook-ceph -o json",
        "get cm rook-ceph-mon-endpoints -n rook-ceph -o json",
        "get configmap rook-ceph-mon-endpoints -o json",
        "get configmap a,b -n rook-ceph -o json",
        "get configmap rook-ceph-mon-endpoints -n rook-ceph -l a=b -o json",
        "get configmap/rook-ceph-mon-endpoints -n rook-ceph -o json",
        "get secrets -n rook-ceph -o json",
        "get secret rook-ceph-mon -n rook-ceph -o json",
        "get --raw /api/v1/namespaces/rook-ceph/configmaps/rook-ceph-mon-endpoints",
        "get --raw /api/v1/namespaces/argocd/pods",
    ] {
        assert!(refused_everywhere(refused), "{refused}");
    }
    assert!(
        accept_paths_ok("^/api/v1/namespaces/rook-ceph/configmaps/rook-ceph-mon-endpoints$")
            .is_ok()
    );
    assert!(accept_paths_ok("^/api/v1/namespaces/argocd/pods$").is_ok());
}

/// SPEC §6, §15: a ConfigMap is read by name in its namespace, nothing wider; secrets and
/// pods other than a namespace's list by label stay refused, in both read paths.
#[test]
fn configmaps_only_by_name_secrets_never_other_pods_never() {
    for refused in [
        "get configmaps -A -o json",
        "get configmaps -n kube-system -o json",
        "get cm cilium-config -n kube-system -o json",
        "get configmap cilium-config -o json",
        "get configmap cilium-config -n kube-system -l a=b -o json",
        "get configmap/cilium-config -n kube-system -o json",
        "get configmap a,b -n kube-system -o json",
        "get nodes,configmaps -o json",
        "get secret cilium-ca -n kube-system -o json",
        "get secrets -A -o json",
        "get --raw /api/v1/namespaces/kube-system/configmaps/cilium-config",
        "get --raw /api/v1/namespaces/kube-system/pods",
    ] {
        assert!(refused_everywhere(refused), "{refused}");
    }
    assert_eq!(
        accept_paths_ok("^/api/v1/namespaces/kube-system/configmaps/cilium-config$"),
        Ok(())
    );
    for refused in [
        "^/api/v1/configmaps$",
        "^/api/v1/namespaces/kube-system/configmaps$",
        "^/api/v1/namespaces/kube-system/configmaps/.*$",
        "^/api/v1/namespaces/kube-system/secrets/cilium-ca$",
        "^/api/v1/namespaces/kube-system/pods/cilium-abcde$",
        "^/api/v1/pods$",
    ] {
        assert!(accept_paths_ok(refused).is_err(), "{refused}");
    }
}

/// SPEC §17: the cluster-wide pod list (the gate reads NODE's pods by `spec.nodeName` field
/// selector) is admitted only in the gate's proxy form, beside its PDB list; preview's form
/// (no PDB list) refuses it, and the gate's form still refuses every other pod path.
#[test]
fn cluster_pod_list_only_in_the_gate_form() {
    let gate = "^/api/v1/nodes$,^/api/v1/pods$,^/apis/policy/v1/poddisruptionbudgets$";
    assert_eq!(accept_paths_ok(gate), Ok(()));
    for refused in [
        "^/api/v1/nodes$,^/api/v1/pods$",
        "^/api/v1/pods$,^/apis/policy/[a-z0-9]+/poddisruptionbudgets$",
        "^/apis/policy/v1/poddisruptionbudgets$,^/api/v1/pods/x$",
        "^/apis/policy/v1/poddisruptionbudgets$,^/api/v1/pods/.*$",
        "^/apis/policy/v1/poddisruptionbudgets$,^/api/v1/secrets$",
        "^/apis/policy/v1/poddisruptionbudgets$,^/api/v1/namespaces/a/pods/b/log$",
    ] {
        assert!(accept_paths_ok(refused).is_err(), "{refused}");
    }
}

/// SPEC §6 v0.4 "Warnings explain": Warning Events only as one namespace's events.k8s.io/v1
/// list, by the one form the allowlist names; never the cluster's list, the core Events, one
/// Event by name, or a wider pattern.
#[test]
fn events_only_as_one_namespaces_events_k8s_io_list() {
    assert_eq!(accept_paths_ok(EVENTS_ACCEPT_PATH), Ok(()));
    assert_eq!(
        accept_paths_ok(&format!("^/api/v1/nodes$,{EVENTS_ACCEPT_PATH}")),
        Ok(())
    );
    for refused in [
        "^/apis/events\\.k8s\\.io/v1/events$",
        "^/apis/events\\.k8s\\.io/[a-z0-9]+/events$",
        "^/api/v1/events$",
        "^/api/v1/namespaces/monitoring/events$",
        "^/apis/events\\.k8s\\.io/v1/namespaces/monitoring/events$",
        "^/apis/events\\.k8s\\.io/v1/namespaces/monitoring/events/x$",
        "^/apis/events\\.k8s\\.io/v1/namespaces/.*/events$",
        "^/apis/events\\.k8s\\.io/v1/namespaces/[a-z0-9][-a-z0-9]*/events",
        "^/apis/events\\.k8s\\.io/v1/namespaces/[a-z0-9][-a-z0-9]*/secrets$",
    ] {
        assert!(accept_paths_ok(refused).is_err(), "{refused}");
    }
}
