//! Configured is not working (SPEC §15) through the REAL kubectl: the drifts fixtures of
//! `crates/replay` (`drifts` healthy, one thing wrong in each other), read by the plugin;
//! each failure gives its state and evidence in text and JSON, the absent case installs
//! (never repairs), and every request is a GET, ConfigMaps only by name.

use crate::bed_or_skip;
use snapbox::str;

use crate::harness::text_snap;
use crate::support::*;

/// The SPEC §15 layers a stack declares, after the SPEC §1 ones.
const DRIFT_LAYERS: &str = "pod-security, kube-proxy-replacement, hubble, network-policy";

fn bed(fixture: &str) -> Option<E2e> {
    let bed = E2e::new(fixture, &[])?;
    let with = LAYERS.replace(']', &format!(", {DRIFT_LAYERS}]"));
    bed.write_stack(
        "dirqual",
        &dirqual_topology(&bed.server.url()).replace(LAYERS, &with),
    );
    Some(bed)
}

/// `preview` as JSON and text; `id` is `state` with `line` in its evidence (both outputs);
/// a degraded layer is repaired, never installed; only ConfigMaps by name were requested.
/// The whole text output is `want` (its row of `id` says `state`, and shows `line` unless
/// the layer is present).
fn expect(
    bed: &E2e,
    id: &str,
    state: &str,
    line: &str,
    want: impl snapbox::IntoData,
) -> serde_json::Value {
    let json = bed.run(&["preview", "--no-input", "-o", "json"]);
    assert_eq!(json.code, Some(0), "{json:?}");
    let v = json.json();
    let text = bed.run(&["preview", "--no-input", "--no-color"]);
    assert_eq!(text.code, Some(0), "{text:?}");
    assert_eq!(state_of(&v, id), state, "{id}: {}", layer(&v, id));
    assert_evidence_has(&v, id, line);
    // A present layer's row is its summary; the evidence of the others is listed under it,
    // wrapped at the width (80 without a terminal).
    text.stdout_snap(want);
    match state {
        "degraded" => {
            assert!(plan_ids(&v, "repair").contains(&id.to_string()), "{v}");
            assert!(!plan_ids(&v, "install").contains(&id.to_string()), "{v}");
        }
        "absent" => assert!(plan_ids(&v, "install").contains(&id.to_string()), "{v}"),
        _ => {}
    }
    assert_read_only(&bed.server);
    for e in bed.server.audit() {
        if e.path.contains("/configmaps") {
            // `/api/v1/namespaces/NS/configmaps/NAME`, nothing after, no query.
            let parts: Vec<&str> = e.path.split('/').collect();
            assert!(
                parts.len() == 7
                    && parts[..4] == ["", "api", "v1", "namespaces"]
                    && parts[5] == "configmaps"
                    && !parts[6].is_empty()
                    && e.query.is_empty(),
                "a ConfigMap read not by name: {}",
                e.path
            );
        }
        assert!(!e.path.contains("/secrets"), "{}", e.path);
    }
    v
}

#[test]
fn drifts_healthy_cluster_every_new_layer_present_nothing_to_repair() {
    let bed = bed_or_skip!(bed("drifts"));
    let v = expect(
        &bed,
        "kube-proxy-replacement",
        "present",
        "no ConfigMap kube-system/kube-proxy",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml

REAL (read live, not stored)
  nodes                            dirqual1..4, 4/4 Ready
  k8s                     present  5 checks hold
  cni                     present  5 checks hold
  ceph                    present  9 checks hold
  storage                 present  3 checks hold
  monitoring              present  6 checks hold
  gitops                  present  9 checks hold
  registry                present  2 checks hold
  dataops                 present  7 checks hold
  datalake                absent   not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs                   absent   not found
    ✗ API group cert-manager.io not served
  pod-security            present  2 checks hold
  kube-proxy-replacement  present  3 checks hold
  hubble                  present  2 checks hold
  network-policy          present  4 checks hold

"#]],
    );
    for id in [
        "pod-security",
        "kube-proxy-replacement",
        "hubble",
        "network-policy",
        "k8s",
        "cni",
    ] {
        assert_eq!(state_of(&v, id), "present", "{id}: {}", layer(&v, id));
    }
    assert!(plan_ids(&v, "repair").is_empty(), "{v}");
    // hubble's whole evidence, hubble-relay's rollout included.
    let ev = serde_json::to_string_pretty(&layer(&v, "hubble")["evidence"]).unwrap_or_default();
    text_snap(
        &ev,
        str![[r#"
[
  "ConfigMap kube-system/cilium-config enable-hubble = true",
  "Deployment kube-system/hubble-relay rolled out (1/1 available)"
]
"#]],
    );
    // Both ConfigMaps were read, by name, once per preview run at most.
    assert!(!bed
        .requests_to("/api/v1/namespaces/kube-system/configmaps/kube-proxy")
        .is_empty());
    assert!(bed
        .requests_to("/api/v1/namespaces/kube-system/configmaps")
        .is_empty());
    assert!(bed.requests_to("/api/v1/configmaps").is_empty());
}

#[test]
fn drifts_kube_proxy_config_map_left_is_degraded() {
    let bed = bed_or_skip!(bed("drifts-kube-proxy-left"));
    expect(
        &bed,
        "kube-proxy-replacement",
        "degraded",
        "ConfigMap kube-system/kube-proxy exists: the next kubeadm upgrade reinstalls kube-proxy",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 4 to install, 1 to repair
  install datalake               ansible-playbook platform/datalake.yaml
  install certs                  ansible-playbook platform/cert-manager.yaml
  install pod-security           ansible-playbook hardening/pod-security.yaml
  install network-policy         ansible-playbook hardening/network-policy.yaml
  repair kube-proxy-replacement  repair in place; never reinstall over an
                                 existing layer
    kube-proxy-replacement: kube-proxy-replacement/no-kube-proxy-config fails

REAL (read live, not stored)
  nodes                             dirqual1..4, 4/4 Ready
  k8s                     present   5 checks hold
  cni                     present   5 checks hold
  ceph                    present   9 checks hold
  storage                 present   3 checks hold
  monitoring              present   6 checks hold
  gitops                  present   9 checks hold
  registry                present   2 checks hold
  dataops                 present   7 checks hold
  datalake                absent    not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs                   absent    not found
    ✗ API group cert-manager.io not served
  pod-security            absent    not found
    ✗ no namespace labelled pod-security.kubernetes.io/enforce
  kube-proxy-replacement  degraded  1 of 3 checks fails
    ✗ ConfigMap kube-system/kube-proxy exists: the next kubeadm upgrade
      reinstalls kube-proxy
  hubble                  present   2 checks hold
  network-policy          absent    not found
    ✗ no NetworkPolicy
    ✗ no CiliumNetworkPolicy

"#]],
    );
}

#[test]
fn drifts_kube_proxy_still_running_is_two_service_datapaths() {
    let bed = bed_or_skip!(bed("drifts-kube-proxy-running"));
    expect(
        &bed,
        "kube-proxy-replacement",
        "degraded",
        "DaemonSet kube-system/kube-proxy exists: two service datapaths",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 4 to install, 1 to repair
  install datalake               ansible-playbook platform/datalake.yaml
  install certs                  ansible-playbook platform/cert-manager.yaml
  install pod-security           ansible-playbook hardening/pod-security.yaml
  install network-policy         ansible-playbook hardening/network-policy.yaml
  repair kube-proxy-replacement  repair in place; never reinstall over an
                                 existing layer
    kube-proxy-replacement: kube-proxy-replacement/no-kube-proxy fails

REAL (read live, not stored)
  nodes                             dirqual1..4, 4/4 Ready
  k8s                     present   5 checks hold
  cni                     present   5 checks hold
  ceph                    present   9 checks hold
  storage                 present   3 checks hold
  monitoring              present   6 checks hold
  gitops                  present   9 checks hold
  registry                present   2 checks hold
  dataops                 present   7 checks hold
  datalake                absent    not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs                   absent    not found
    ✗ API group cert-manager.io not served
  pod-security            absent    not found
    ✗ no namespace labelled pod-security.kubernetes.io/enforce
  kube-proxy-replacement  degraded  1 of 3 checks fails
    ✗ DaemonSet kube-system/kube-proxy exists: two service datapaths
  hubble                  present   2 checks hold
  network-policy          absent    not found
    ✗ no NetworkPolicy
    ✗ no CiliumNetworkPolicy

"#]],
    );
}

#[test]
fn drifts_strict_is_a_deprecated_value() {
    let bed = bed_or_skip!(bed("drifts-strict"));
    expect(
        &bed,
        "kube-proxy-replacement",
        "degraded",
        "ConfigMap kube-system/cilium-config kube-proxy-replacement = strict (want true): deprecated value, use true",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 4 to install, 1 to repair
  install datalake               ansible-playbook platform/datalake.yaml
  install certs                  ansible-playbook platform/cert-manager.yaml
  install pod-security           ansible-playbook hardening/pod-security.yaml
  install network-policy         ansible-playbook hardening/network-policy.yaml
  repair kube-proxy-replacement  repair in place; never reinstall over an
                                 existing layer
    kube-proxy-replacement: kube-proxy-replacement/boolean-setting fails

REAL (read live, not stored)
  nodes                             dirqual1..4, 4/4 Ready
  k8s                     present   5 checks hold
  cni                     present   5 checks hold
  ceph                    present   9 checks hold
  storage                 present   3 checks hold
  monitoring              present   6 checks hold
  gitops                  present   9 checks hold
  registry                present   2 checks hold
  dataops                 present   7 checks hold
  datalake                absent    not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs                   absent    not found
    ✗ API group cert-manager.io not served
  pod-security            absent    not found
    ✗ no namespace labelled pod-security.kubernetes.io/enforce
  kube-proxy-replacement  degraded  1 of 4 checks fails
    ✗ ConfigMap kube-system/cilium-config kube-proxy-replacement = strict (want
      true): deprecated value, use true
  hubble                  present   2 checks hold
  network-policy          absent    not found
    ✗ no NetworkPolicy
    ✗ no CiliumNetworkPolicy

"#]],
    );
}

#[test]
fn drifts_hubble_without_relay_is_degraded() {
    let bed = bed_or_skip!(bed("drifts-no-relay"));
    expect(
        &bed,
        "hubble",
        "degraded",
        "no Deployment kube-system/hubble-relay",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 1 to repair
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml
  repair hubble     repair in place; never reinstall over an existing layer
    hubble: hubble/relay fails

REAL (read live, not stored)
  nodes                             dirqual1..4, 4/4 Ready
  k8s                     present   5 checks hold
  cni                     present   5 checks hold
  ceph                    present   9 checks hold
  storage                 present   3 checks hold
  monitoring              present   6 checks hold
  gitops                  present   9 checks hold
  registry                present   2 checks hold
  dataops                 present   7 checks hold
  datalake                absent    not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs                   absent    not found
    ✗ API group cert-manager.io not served
  pod-security            present   2 checks hold
  kube-proxy-replacement  present   3 checks hold
  hubble                  degraded  1 of 2 checks fails
    ✗ no Deployment kube-system/hubble-relay
  network-policy          present   4 checks hold

"#]],
    );
}

#[test]
fn drifts_namespaces_without_pod_security_are_named() {
    let bed = bed_or_skip!(bed("drifts-unlabelled-namespace"));
    expect(
        &bed,
        "pod-security",
        "degraded",
        "team-a (no pod-security.kubernetes.io/enforce); team-b (privileged)",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 3 to install, 1 to repair
  install datalake        ansible-playbook platform/datalake.yaml
  install certs           ansible-playbook platform/cert-manager.yaml
  install network-policy  ansible-playbook hardening/network-policy.yaml
  repair pod-security     repair in place; never reinstall over an existing
                          layer
    pod-security: pod-security/enforced fails

REAL (read live, not stored)
  nodes                             dirqual1..4, 4/4 Ready
  k8s                     present   5 checks hold
  cni                     present   5 checks hold
  ceph                    present   9 checks hold
  storage                 present   3 checks hold
  monitoring              present   6 checks hold
  gitops                  present   9 checks hold
  registry                present   2 checks hold
  dataops                 present   7 checks hold
  datalake                absent    not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs                   absent    not found
    ✗ API group cert-manager.io not served
  pod-security            degraded  1 of 2 checks fails
    ✗ 2/9 namespaces not labelled pod-security.kubernetes.io/enforce = baseline
      or restricted: team-a (no pod-security.kubernetes.io/enforce); team-b
      (privileged)
  kube-proxy-replacement  present   3 checks hold
  hubble                  present   2 checks hold
  network-policy          absent    not found
    ✗ no NetworkPolicy
    ✗ no CiliumNetworkPolicy

"#]],
    );
}

#[test]
fn drifts_nodes_announcing_the_nat_address_are_named() {
    let bed = bed_or_skip!(bed("drifts-nat-ips"));
    expect(
        &bed,
        "k8s",
        "degraded",
        "InternalIP shared: dirqual1, dirqual2, dirqual3, dirqual4 all announce 10.0.2.15",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 1 to repair
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml
  repair k8s        repair in place; never reinstall over an existing layer
    k8s: k8s/distinct-ips fails

REAL (read live, not stored)
  nodes                             dirqual1..4, 4/4 Ready
  k8s                     degraded  1 of 5 checks fails
    ✗ InternalIP shared: dirqual1, dirqual2, dirqual3, dirqual4 all announce
      10.0.2.15
  cni                     present   5 checks hold
  ceph                    present   9 checks hold
  storage                 present   3 checks hold
  monitoring              present   6 checks hold
  gitops                  present   9 checks hold
  registry                present   2 checks hold
  dataops                 present   7 checks hold
  datalake                absent    not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs                   absent    not found
    ✗ API group cert-manager.io not served
  pod-security            present   2 checks hold
  kube-proxy-replacement  present   3 checks hold
  hubble                  present   2 checks hold
  network-policy          present   4 checks hold

"#]],
    );
}

#[test]
fn drifts_node_tainted_agent_not_ready_is_named() {
    let bed = bed_or_skip!(bed("drifts-agent-not-ready"));
    expect(
        &bed,
        "cni",
        "degraded",
        "tainted node.cilium.io/agent-not-ready: dirqual3",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 1 to repair
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml
  repair cni        repair in place; never reinstall over an existing layer
    cni: cni/agent-ready-taint fails

REAL (read live, not stored)
  nodes                             dirqual1..4, 4/4 Ready
  k8s                     present   5 checks hold
  cni                     degraded  1 of 5 checks fails
    ✗ tainted node.cilium.io/agent-not-ready: dirqual3
  ceph                    present   9 checks hold
  storage                 present   3 checks hold
  monitoring              present   6 checks hold
  gitops                  present   9 checks hold
  registry                present   2 checks hold
  dataops                 present   7 checks hold
  datalake                absent    not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs                   absent    not found
    ✗ API group cert-manager.io not served
  pod-security            present   2 checks hold
  kube-proxy-replacement  present   3 checks hold
  hubble                  present   2 checks hold
  network-policy          present   4 checks hold

"#]],
    );
}

#[test]
fn drifts_not_configured_is_absent_install_never_degraded() {
    let bed = bed_or_skip!(bed("drifts-off"));
    let v = expect(
        &bed,
        "kube-proxy-replacement",
        "absent",
        "no ConfigMap kube-system/cilium-config",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 6 to install
  install datalake                ansible-playbook platform/datalake.yaml
  install certs                   ansible-playbook platform/cert-manager.yaml
  install pod-security            ansible-playbook hardening/pod-security.yaml
  install kube-proxy-replacement  ansible-playbook platform/cilium.yaml -e
                                  kube_proxy_replacement=true
  install hubble                  ansible-playbook platform/cilium.yaml -e
                                  hubble=true
  install network-policy          ansible-playbook hardening/network-policy.yaml

REAL (read live, not stored)
  nodes                            dirqual1..4, 4/4 Ready
  k8s                     present  5 checks hold
  cni                     present  5 checks hold
  ceph                    present  9 checks hold
  storage                 present  3 checks hold
  monitoring              present  6 checks hold
  gitops                  present  9 checks hold
  registry                present  2 checks hold
  dataops                 present  7 checks hold
  datalake                absent   not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs                   absent   not found
    ✗ API group cert-manager.io not served
  pod-security            absent   not found
    ✗ no namespace labelled pod-security.kubernetes.io/enforce
  kube-proxy-replacement  absent   not found
    ✗ no ConfigMap kube-system/cilium-config
  hubble                  absent   not found
    ✗ no ConfigMap kube-system/cilium-config
  network-policy          absent   not found
    ✗ no NetworkPolicy
    ✗ no CiliumNetworkPolicy

"#]],
    );
    for id in ["pod-security", "hubble", "network-policy"] {
        assert_eq!(state_of(&v, id), "absent", "{id}: {}", layer(&v, id));
    }
    // The whole plan: the three planned for install, nothing to repair.
    text_snap(
        &plan_lines(&v),
        str![[r#"
install: datalake, certs, pod-security, kube-proxy-replacement, hubble, network-policy
repair: -
undecided: -

"#]],
    );
}

/// The policies were listed (GET, every namespace) and nothing else of the networking API.
fn assert_policies_listed(bed: &E2e) {
    assert!(!bed
        .requests_to("/apis/networking.k8s.io/v1/networkpolicies")
        .is_empty());
    assert!(!bed
        .requests_to("/apis/cilium.io/v2/ciliumnetworkpolicies")
        .is_empty());
}

#[test]
fn drifts_default_deny_everywhere_is_present_cilium_policies_included() {
    let bed = bed_or_skip!(bed("drifts"));
    let v = expect(
        &bed,
        "network-policy",
        "present",
        "namespaces with a default-deny ingress policy",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml

REAL (read live, not stored)
  nodes                            dirqual1..4, 4/4 Ready
  k8s                     present  5 checks hold
  cni                     present  5 checks hold
  ceph                    present  9 checks hold
  storage                 present  3 checks hold
  monitoring              present  6 checks hold
  gitops                  present  9 checks hold
  registry                present  2 checks hold
  dataops                 present  7 checks hold
  datalake                absent   not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs                   absent   not found
    ✗ API group cert-manager.io not served
  pod-security            present  2 checks hold
  kube-proxy-replacement  present  3 checks hold
  hubble                  present  2 checks hold
  network-policy          present  4 checks hold

"#]],
    );
    // network-policy's whole evidence, Cilium's `enable-policy = default` included.
    let ev =
        serde_json::to_string_pretty(&layer(&v, "network-policy")["evidence"]).unwrap_or_default();
    text_snap(
        &ev,
        str![[r#"
[
  "NetworkPolicy argocd/default-deny-ingress exists; NetworkPolicy cnpg-system/default-deny-ingress exists; NetworkPolicy dataops/default-deny-ingress exists; NetworkPolicy default/default-deny-ingress exists; NetworkPolicy gitea/allow-web exists; and 2 more",
  "CiliumNetworkPolicy registry/default-deny exists",
  "7 namespaces with a default-deny ingress policy (4 exempt)",
  "ConfigMap kube-system/cilium-config enable-policy = default"
]
"#]],
    );
    assert_policies_listed(&bed);
}

#[test]
fn drifts_namespace_without_default_deny_is_named_and_allow_all_is_not_one() {
    let bed = bed_or_skip!(bed("drifts-netpol-missing"));
    expect(
        &bed,
        "network-policy",
        "degraded",
        "namespaces without a default-deny ingress policy: dataops; monitoring",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 1 to repair
  install datalake       ansible-playbook platform/datalake.yaml
  install certs          ansible-playbook platform/cert-manager.yaml
  repair network-policy  repair in place; never reinstall over an existing layer
    network-policy: network-policy/default-deny fails

REAL (read live, not stored)
  nodes                             dirqual1..4, 4/4 Ready
  k8s                     present   5 checks hold
  cni                     present   5 checks hold
  ceph                    present   9 checks hold
  storage                 present   3 checks hold
  monitoring              present   6 checks hold
  gitops                  present   9 checks hold
  registry                present   2 checks hold
  dataops                 present   7 checks hold
  datalake                absent    not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs                   absent    not found
    ✗ API group cert-manager.io not served
  pod-security            present   2 checks hold
  kube-proxy-replacement  present   3 checks hold
  hubble                  present   2 checks hold
  network-policy          degraded  1 of 4 checks fails
    ✗ 2/7 namespaces without a default-deny ingress policy: dataops; monitoring

"#]],
    );
    assert_policies_listed(&bed);
}

#[test]
fn drifts_policies_not_enforced_is_degraded() {
    let bed = bed_or_skip!(bed("drifts-policy-never"));
    expect(
        &bed,
        "network-policy",
        "degraded",
        "ConfigMap kube-system/cilium-config enable-policy = never: policies are not enforced",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 1 to repair
  install datalake       ansible-playbook platform/datalake.yaml
  install certs          ansible-playbook platform/cert-manager.yaml
  repair network-policy  repair in place; never reinstall over an existing layer
    network-policy: network-policy/policy-enforced fails

REAL (read live, not stored)
  nodes                             dirqual1..4, 4/4 Ready
  k8s                     present   5 checks hold
  cni                     present   5 checks hold
  ceph                    present   9 checks hold
  storage                 present   3 checks hold
  monitoring              present   6 checks hold
  gitops                  present   9 checks hold
  registry                present   2 checks hold
  dataops                 present   7 checks hold
  datalake                absent    not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs                   absent    not found
    ✗ API group cert-manager.io not served
  pod-security            present   2 checks hold
  kube-proxy-replacement  present   3 checks hold
  hubble                  present   2 checks hold
  network-policy          degraded  1 of 4 checks fails
    ✗ ConfigMap kube-system/cilium-config enable-policy = never: policies are
      not enforced

"#]],
    );
}
