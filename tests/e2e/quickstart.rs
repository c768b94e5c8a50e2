//! The README's "On your own cluster", run as written: its four commands, copied from the
//! README itself, in an empty directory, through `sh`, with the REAL kubectl finding the
//! plugin on PATH and the replay server as "your cluster" (its kubeconfig at the path the
//! README names, `~/.kube/lab.config`). What they print is compared with golden files
//! (`tests/e2e/golden/`; `SNAPSHOTS=overwrite` rewrites them).

use std::fs;
use std::path::PathBuf;

use crate::bed_or_skip;
use snapbox::str;

use crate::harness::text_snap;
use crate::support::*;

/// The shell block under the README's "## On your own cluster".
fn readme_quickstart() -> Vec<String> {
    doc_block("README.md", "## On your own cluster")
}

struct Shell<'a> {
    bed: &'a E2e,
    dir: PathBuf,
}

impl Shell<'_> {
    /// One README line through `sh -c`, as a fresh non-interactive shell would run it.
    fn run(&self, line: &str) -> Outcome {
        let mut c = Run::new("/bin/sh");
        c.args(["-c", line])
            .current_dir(&self.dir)
            .env_clear()
            .env("HOME", &self.bed.home)
            .env("PATH", self.bed.path());
        run(&c)
    }

    /// Output with the run's variable parts made stable.
    fn stable(&self, text: &str) -> String {
        let url = self.bed.server.url();
        text.replace(&url, "http://127.0.0.1:PORT")
            .replace(&self.bed.tmp.path().display().to_string(), "/t")
            .lines()
            .map(|l| match l.find("--emit-topology` on ") {
                Some(i) => format!("{}--emit-topology` on TIME", &l[..i]),
                None => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    }
}

#[test]
fn the_readme_quickstart_reaches_a_preview_in_four_commands() {
    let bed = bed_or_skip!(E2e::dirqual());
    let lines = readme_quickstart();
    assert_eq!(
        lines.len(),
        4,
        "the README promises four commands: {lines:?}"
    );
    // "Your cluster": its kubeconfig where the README says it is.
    bed.server
        .write_kubeconfig(&bed.home.join(".kube/lab.config"))
        .expect("kubeconfig");
    let dir = bed.tmp.path().join("fresh");
    fs::create_dir(&dir).expect("mkdir");
    for up in dir.ancestors() {
        assert!(
            !up.join("stacks").exists(),
            "{} exists: the quickstart must start with no stacks directory",
            up.join("stacks").display()
        );
    }
    let sh = Shell { bed: &bed, dir };

    // 1. mkdir stacks
    let r = sh.run(&lines[0]);
    r.code(0);
    assert!(sh.dir.join("stacks").is_dir());

    // 2. discover --write: stacks/lab.yaml (named after lab.config), a stack file that loads.
    let r = sh.run(&lines[1]);
    r.code(0);
    assert_eq!(
        r.stderr,
        format!(
            "kubectl-nestor: no stack: discovering the cluster of {} alone (rule flag)\n\
             kubectl-nestor: wrote {}/stacks/lab.yaml (stack lab): review its layers, then `kubectl nestor stack select lab`\n",
            bed.home.join(".kube/lab.config").display(),
            sh.dir.display()
        ),
        "it says it works without a stack, and what it wrote"
    );
    assert_eq!(r.stdout, "", "the file is written, not printed");
    let topology = fs::read_to_string(sh.dir.join("stacks/lab.yaml")).expect("stacks/lab.yaml");
    // The whole file: `name: lab`, `kubeconfig: ~/.kube/lab.config`, the server as its
    // `endpoint:`, and each absent layer a comment with its reason (`# - datalake ...`).
    golden("quickstart-lab.yaml", &sh.stable(&topology));

    // 3. stack select lab: accepted as written.
    let r = sh.run(&lines[2]);
    r.code(0);
    assert_eq!(r.stderr, "", "{r:?}");
    assert_eq!(
        fs::read_link(sh.dir.join("stacks/current.yaml")).expect("current.yaml"),
        PathBuf::from("lab.yaml")
    );

    // 4. preview: the real state, confirmed by the endpoint (no terminal), nothing to do
    // for the layers it declared.
    let r = sh.run(&lines[3]);
    r.code(0);
    assert_eq!(r.stderr, "", "{r:?}");
    golden("quickstart-preview.txt", &sh.stable(&r.stdout));
    r.stdout_has("dirqual1..4, 4/4 Ready");
    r.stdout_has("PLAN: nothing to do");

    // And as JSON, the target was confirmed by the endpoint the topology recorded.
    let v = sh
        .run("kubectl nestor preview -o json --detailed-exitcode")
        .json();
    assert_eq!(v["target"]["rule"], "topology");
    assert_eq!(v["target"]["confirmedBy"], "endpoint");
    assert_eq!(v["stack"]["name"], "lab");
}

/// `discover` with only `--kubeconfig`, in a directory with no `stacks/` anywhere above it:
/// it works, and says so.
#[test]
fn discover_with_only_a_kubeconfig_and_no_stacks_directory_says_so() {
    let bed = bed_or_skip!(E2e::dirqual());
    let dir = bed.tmp.path().join("nowhere");
    fs::create_dir(&dir).expect("mkdir");
    let sh = Shell { bed: &bed, dir };
    let line = format!(
        "kubectl nestor discover --kubeconfig {}",
        bed.kubeconfig.display()
    );
    let r = sh.run(&line);
    r.code(0);
    assert_eq!(
        r.stderr,
        format!(
            "kubectl-nestor: no stack: discovering the cluster of {} alone (rule flag) (no stacks/ directory here or above: nothing else is needed for discover)\n",
            bed.kubeconfig.display()
        )
    );
    r.stdout_has("DISCOVERED (read live, not stored)");
    r.stdout_has("(rule: flag)");
    // Without --name, the stack is named after the kubeconfig file (dirqual.config).
    let r = sh.run(&format!("{line} --emit-topology"));
    r.code(0);
    r.stdout_has("\nname: dirqual\n");
    let r = sh.run(&format!("{line} --emit-topology --name Bad_Name"));
    r.error(1, "`Bad_Name` is not a stack name");
}

/// Run through kubectl's plugin discovery, the help says `kubectl nestor`, not the binary's
/// file name.
#[test]
fn help_through_kubectl_says_kubectl_nestor() {
    let bed = bed_or_skip!(E2e::dirqual());
    for args in [&["preview", "--help"][..], &["stack", "list", "--help"][..]] {
        let r = run(&bed.through_kubectl("nestor", args));
        r.code(0);
        let usage = format!(
            "\nUsage: kubectl nestor {} [OPTIONS]\n",
            args[..args.len() - 1].join(" ")
        );
        assert!(r.stdout.contains(&usage), "{}", r.stdout);
        r.stdout_has("\nExamples:\n");
    }
}

/// A CRD simply not installed (cert-manager and the Gateway API on dirqual: no
/// `cert-manager.io` nor `gateway.networking.k8s.io` group served) is listed as not installed, never as a FAILED READ, in text and JSON.
#[test]
fn discover_lists_a_crd_not_installed_as_not_installed() {
    let bed = bed_or_skip!(E2e::dirqual());
    let r = bed.run(&["--no-input", "discover", "--no-color"]);
    assert_eq!(r.code, Some(0), "{r:?}");
    // The whole text: `not installed (API group not served): certificates.cert-manager.io,
    // ...` as its own line, no FAILED READ.
    r.stdout_snap(str![[r#"
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

DISCOVERED (read live, not stored)
  NAME      READY  ROLES          INTERNAL-IP  VERSION
  dirqual1  Ready  control-plane  10.67.2.11   v1.31.4
  dirqual2  Ready  <none>         10.67.2.12   v1.31.4
  dirqual3  Ready  <none>         10.67.2.13   v1.31.4
  dirqual4  Ready  <none>         10.67.2.14   v1.31.4
  namespaces (11)     argocd, cnpg-system, dataops, default, gitea,
                      kube-node-lease, kube-public, kube-system, monitoring,
                      registry, rook-ceph
  storageclasses (1)  ceph-block (rook-ceph.rbd.csi.ceph.com, default)
  API groups (14)     admissionregistration.k8s.io, apiextensions.k8s.io,
                      apiregistration.k8s.io, apps, argoproj.io, ceph.rook.io,
                      cilium.io, discovery.k8s.io, events.k8s.io,
                      monitoring.coreos.com, networking.k8s.io, objectbucket.io,
                      … and 2 more

LAYERS (catalog, with evidence)
  k8s                     present  5 checks hold
  cni                     present  5 checks hold
  ceph                    present  9 checks hold
  storage                 present  3 checks hold
  datalake                absent   not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  gateway                 absent   not found
    ✗ no GatewayClass with .spec.controllerName = io.cilium/gateway-controller
  certs                   absent   not found
    ✗ API group cert-manager.io not served
  monitoring              present  6 checks hold
  gitops                  present  9 checks hold
  registry                present  2 checks hold
  dataops                 present  7 checks hold
  etcd-backup             unknown  could not be decided
    ? not read: host-level, read over ssh on the hosts of a prod stack's
      inventory
  audit-log               present  2 checks hold
  encryption-at-rest      present  2 checks hold
  sshd-hardening          unknown  could not be decided
    ? not read: host-level, read over ssh on the hosts of a prod stack's
      inventory
  os-hardening            unknown  could not be decided
    ? not read: host-level, read over ssh on the hosts of a prod stack's
      inventory
  pod-security            absent   not found
    ✗ no namespace labelled pod-security.kubernetes.io/enforce
  kube-proxy-replacement  absent   not found
    ✗ no ConfigMap kube-system/cilium-config
  hubble                  absent   not found
    ✗ no ConfigMap kube-system/cilium-config
  cni-encryption          absent   not found
    ✗ no ConfigMap kube-system/cilium-config
  network-policy          absent   not found
    ✗ no NetworkPolicy
    ✗ no CiliumNetworkPolicy

not installed (API group not served): certificates.cert-manager.io, clusterissuers.cert-manager.io, gatewayclasses.gateway.networking.k8s.io, gateways.gateway.networking.k8s.io, grpcroutes.gateway.networking.k8s.io, httproutes.gateway.networking.k8s.io, issuers.cert-manager.io

"#]]);
    let v = bed.run(&["--no-input", "discover", "-o", "json"]).json();
    assert_eq!(
        v["notInstalled"],
        serde_json::json!([
            "certificates.cert-manager.io",
            "clusterissuers.cert-manager.io",
            "gatewayclasses.gateway.networking.k8s.io",
            "gateways.gateway.networking.k8s.io",
            "grpcroutes.gateway.networking.k8s.io",
            "httproutes.gateway.networking.k8s.io",
            "issuers.cert-manager.io"
        ])
    );
    assert_eq!(v["failedReads"], serde_json::json!([]));
}

/// docs/stacks.md's `NESTOR_STACK` lines, as written, as one shell session (an `export` lasts
/// for the lines after it): this shell works on staging while the repository's active stack
/// stays dirqual, then goes back to it.
#[test]
fn the_readme_nestor_stack_lines_run_as_written() {
    let bed = bed_or_skip!(E2e::dirqual());
    bed.write_stack(
        "staging",
        &dirqual_topology(&bed.server.url()).replace("\nname: dirqual\n", "\nname: staging\n"),
    );
    let lines = doc_block(
        "docs/stacks.md",
        "### One stack per shell: `NESTOR_STACK` and `stack current`",
    );
    assert_eq!(lines.len(), 5, "{lines:?}");
    let r = bed.sh(&lines.join("\n"));
    assert_eq!(r.code, Some(0), "{r:?}");
    let out = &r.stdout;
    let staging = out
        .find("chosen by  NESTOR_STACK=staging in this shell; the active stack (stacks/current.yaml) is dirqual\n")
        .unwrap_or_else(|| panic!("{out}"));
    let back = out
        .find("chosen by  stacks/current.yaml, the active stack of ")
        .unwrap_or_else(|| panic!("{out}"));
    assert!(staging < back, "{out}");
    // Between the two: staging's preview, its plan included.
    let preview = &out[staging..back];
    assert!(preview.contains("staging (prod)"), "{out}");
    assert!(preview.contains("PLAN"), "{out}");
    // The active stack never moved.
    assert_eq!(
        fs::read_link(bed.stacks.join("current.yaml")).expect("current.yaml"),
        PathBuf::from("dirqual.yaml")
    );
}

/// A second cluster onboards in one command while another stack is active: `discover
/// --kubeconfig F --write` reads F's cluster alone (the active stack's endpoint policy is
/// about dirqual, not this file), names the stack after the file and writes it; the stacks
/// directory stays valid. Written twice, the second run refuses before reading anything.
#[test]
fn a_second_cluster_onboards_with_another_stack_active() {
    let bed = bed_or_skip!(E2e::dirqual());
    let staging = nestor_replay::Server::start(nestor_replay::Config::new(
        nestor_replay::fixtures::degraded(),
    ))
    .expect("staging server");
    let kc = bed.home.join(".kube/staging.config");
    staging.write_kubeconfig(&kc).expect("kubeconfig");
    let line = "kubectl nestor discover --kubeconfig ~/.kube/staging.config --write";
    let r = bed.sh(line);
    assert_eq!(r.code, Some(0), "{r:?}");
    let file = bed.stacks.join("staging.yaml");
    assert_eq!(
        r.stderr,
        format!(
            "kubectl-nestor: not stack dirqual (active here): discovering the cluster of {} alone (rule flag)\n\
             kubectl-nestor: wrote {} (stack staging): review its layers, then `kubectl nestor stack select staging`\n",
            kc.display(),
            file.display()
        )
    );
    let text = fs::read_to_string(&file).expect("stacks/staging.yaml");
    text_snap(
        &text.replace(&staging.url(), "http://127.0.0.1:STAGING-PORT"),
        str![[r#"
# Stack staging, written by `kubectl nestor discover --emit-topology` on NOW
# from http://127.0.0.1:STAGING-PORT (context replay). Review it: declare the layers this stack should have.
name: staging
target_kind: prod
kubeconfig: ~/.kube/staging.config
endpoint: http://127.0.0.1:STAGING-PORT
context: replay
# no Ansible inventory found at /tmp/.tmpXXXXXX/repo/bootstrap/hosts.yaml: nestor reads no host over ssh (host layers and host gate rules are skipped).
# To read them, set `inventory: PATH` to your Ansible YAML inventory (relative to the repo root).
inventory: none
nodes:
  - { name: dirqual1, role: control-plane }
  - { name: dirqual2, role: worker }
  - { name: dirqual3, role: worker }
  - { name: dirqual4, role: worker }
layers:
  - k8s
    # degraded: 3/4 declared nodes Ready: dirqual3 NotReady
  - cni
  - ceph
    # degraded: CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: OSD_DOWN (1 osds down), OSD_HOST_DOWN (1 host (1 osds) down), PG_DEGRADED (Degraded data redu…
  - storage
  # - datalake                absent: no CephObjectStore in rook-ceph; no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  # - gateway                 absent: no GatewayClass with .spec.controllerName = io.cilium/gateway-controller
  # - certs                   absent: API group cert-manager.io not served
  - monitoring
  - gitops
  - registry
  - dataops
  # - etcd-backup             unknown: not read: host-level, read over ssh on the hosts of a prod stack's inventory
  - audit-log
  - encryption-at-rest
  # - sshd-hardening          unknown: not read: host-level, read over ssh on the hosts of a prod stack's inventory
  # - os-hardening            unknown: not read: host-level, read over ssh on the hosts of a prod stack's inventory
  # - pod-security            absent: no namespace labelled pod-security.kubernetes.io/enforce
  # - kube-proxy-replacement  absent: no ConfigMap kube-system/cilium-config
  # - hubble                  absent: no ConfigMap kube-system/cilium-config
  # - cni-encryption          absent: no ConfigMap kube-system/cilium-config
  # - network-policy          absent: no NetworkPolicy; no CiliumNetworkPolicy

"#]],
    );
    // The stacks directory is still valid, and the new stack previews.
    let r = bed.run(&["stack", "list"]);
    assert_eq!(r.code, Some(0), "{r:?}");
    r.stdout_snap(str![[r#"
   NAME     KIND  KUBECONFIG
*  dirqual  prod  ~/.kube/dirqual.config
   staging  prod  ~/.kube/staging.config

"#]]);
    let r = bed.run(&["--stack", "staging", "--no-input", "preview", "-o", "json"]);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert_eq!(r.json()["target"]["endpoint"], staging.url());
    // The active stack did not move, and the plain inventory works the same way.
    assert_eq!(
        fs::read_link(bed.stacks.join("current.yaml")).expect("link"),
        PathBuf::from("dirqual.yaml")
    );
    let r = bed.run(&["--kubeconfig", kc.to_str().unwrap_or_default(), "discover"]);
    assert_eq!(r.code, Some(0), "{r:?}");
    // Again: refused before anything is read, the file untouched.
    let before = staging.audit().len();
    let r = bed.sh(line);
    r.error(
        1,
        &format!(
            "{} already exists: refusing to overwrite stack staging",
            file.display()
        ),
    );
    r.stderr_snap(str![[r#"
kubectl-nestor: error: /t/repo/stacks/staging.yaml already exists: refusing to overwrite stack staging
hint: to onboard another cluster, name it: `--name NAME` (the default, staging, comes from the kubeconfig file's name or the stack); or move the existing file away

"#]]);
    assert_eq!(staging.audit().len(), before, "nothing was read");
    assert_eq!(fs::read_to_string(&file).expect("still there"), text);
    assert!(read_only_violations(&staging).is_empty());
}

/// A failed read leaves nothing: no stack file, no temporary file (the redirect form,
/// `> stacks/NAME.yaml`, left an empty file that broke `stack list`).
#[test]
fn write_after_a_failed_read_leaves_nothing() {
    let bed = bed_or_skip!(E2e::dirqual());
    let kc = bed.kubeconfig_for(
        &bed.home.join(".kube/edge.config"),
        &format!("https://127.0.0.1:{}", closed_port()),
    );
    let before: Vec<_> = fs::read_dir(&bed.stacks)
        .expect("ls")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    let r = bed.run(&[
        "--kubeconfig",
        kc.to_str().unwrap_or_default(),
        "--request-timeout",
        "3s",
        "discover",
        "--write",
    ]);
    assert_eq!(r.code, Some(4), "{r:?}");
    let after: Vec<_> = fs::read_dir(&bed.stacks)
        .expect("ls")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(after, before, "{r:?}");
    assert!(!bed.stacks.join("edge.yaml").exists());
    let r = bed.run(&["stack", "list"]);
    assert_eq!(r.code, Some(0), "{r:?}");
}

/// A kubeconfig with several contexts: a warning, and the topology records which one was
/// current (nestor reads no other).
#[test]
fn a_kubeconfig_with_several_contexts_is_warned_about_and_recorded() {
    let bed = bed_or_skip!(E2e::dirqual());
    let kc = bed.home.join(".kube/multi.config");
    let text = bed.server.kubeconfig().replace(
        "contexts:\n",
        "contexts:\n- name: other\n  context:\n    cluster: replay\n    user: replay\n",
    );
    fs::write(&kc, text).expect("write");
    let r = bed.run(&[
        "--kubeconfig",
        kc.to_str().unwrap_or_default(),
        "discover",
        "--emit-topology",
    ]);
    assert_eq!(r.code, Some(0), "{r:?}");
    r.stderr_snap(str![[r#"
kubectl-nestor: not stack dirqual (active here): discovering the cluster of /t/home/.kube/multi.config alone (rule flag)
kubectl-nestor: warning: /t/home/.kube/multi.config holds 2 contexts: nestor reads its current-context replay only (the topology records it: `context: replay`)

"#]]);
    r.stdout_snap(str![[r#"
# Stack multi, written by `kubectl nestor discover --emit-topology` on NOW
# from http://127.0.0.1:PORT (context replay). Review it: declare the layers this stack should have.
# The kubeconfig holds 2 contexts: this stack is its current-context, replay (nestor reads no other).
name: multi
target_kind: prod
kubeconfig: ~/.kube/multi.config
endpoint: http://127.0.0.1:PORT
context: replay
# no Ansible inventory found at /t/repo/bootstrap/hosts.yaml: nestor reads no host over ssh (host layers and host gate rules are skipped).
# To read them, set `inventory: PATH` to your Ansible YAML inventory (relative to the repo root).
inventory: none
nodes:
  - { name: dirqual1, role: control-plane }
  - { name: dirqual2, role: worker }
  - { name: dirqual3, role: worker }
  - { name: dirqual4, role: worker }
layers:
  - k8s
  - cni
  - ceph
  - storage
  # - datalake                absent: no CephObjectStore in rook-ceph; no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  # - gateway                 absent: no GatewayClass with .spec.controllerName = io.cilium/gateway-controller
  # - certs                   absent: API group cert-manager.io not served
  - monitoring
  - gitops
  - registry
  - dataops
  # - etcd-backup             unknown: not read: host-level, read over ssh on the hosts of a prod stack's inventory
  - audit-log
  - encryption-at-rest
  # - sshd-hardening          unknown: not read: host-level, read over ssh on the hosts of a prod stack's inventory
  # - os-hardening            unknown: not read: host-level, read over ssh on the hosts of a prod stack's inventory
  # - pod-security            absent: no namespace labelled pod-security.kubernetes.io/enforce
  # - kube-proxy-replacement  absent: no ConfigMap kube-system/cilium-config
  # - hubble                  absent: no ConfigMap kube-system/cilium-config
  # - cni-encryption          absent: no ConfigMap kube-system/cilium-config
  # - network-policy          absent: no NetworkPolicy; no CiliumNetworkPolicy

"#]]);
}
