//! `--explain` (SPEC §16): every command printed beside an evidence line, run as printed by
//! `sh` with the real kubectl against the replay server, shows what the evidence says — the
//! fixtures' healthy and degraded clusters, every Kubernetes layer of the catalog.

use crate::bed_or_skip;
use snapbox::str;

use crate::support::*;

/// Run one printed command line as a person would: `sh -c LINE`, `kubectl` on PATH being the
/// real one, the bed's HOME.
fn run_as_printed(bed: &E2e, line: &str) -> Outcome {
    let dir = bed.tmp.path().join("explain-bin");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let link = dir.join("kubectl");
    if !link.exists() {
        std::os::unix::fs::symlink(&bed.kubectl, &link).expect("symlink");
    }
    let mut c = Run::new("/bin/sh");
    c.args(["-c", line])
        .env("HOME", &bed.home)
        .env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
        .env_remove("KUBECONFIG")
        .env("KUBERNETES_MASTER", decoy().url());
    run(&c)
}

/// The words of `text` that carry a value: names, numbers, states (punctuation around them
/// dropped, the glue words of evidence left out).
fn values(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || "(),;=:".contains(c))
        .map(|w| w.trim_matches(|c: char| "'\"[]{}".contains(c)))
        .filter(|w| w.len() >= 3 || w.chars().all(|c| c.is_ascii_digit() || c == '/'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn check_every_command(bed: &E2e, fixture: &str) -> usize {
    let r = bed.run(&["preview", "--no-input", "--explain", "-o", "json"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    r.stderr_snap(str![]);
    let doc = r.json();
    let mut ran = 0;
    for layer in doc["real"]["layers"].as_array().expect("layers") {
        let evidence: Vec<&str> = layer["evidence"]
            .as_array()
            .expect("evidence")
            .iter()
            .filter_map(|e| e.as_str())
            .collect();
        let explain = layer["explain"].as_array().cloned().unwrap_or_default();
        let kubernetes =
            layer["hosts"].is_null() && layer["reason"] != "not observable through Kubernetes";
        if kubernetes {
            for e in &evidence {
                assert!(
                    explain.iter().any(|x| x["evidence"] == *e),
                    "{fixture}: no command for `{e}` of {}",
                    layer["id"]
                );
            }
        }
        for item in &explain {
            let line = item["command"].as_str().expect("command");
            let said = item["evidence"].as_str().expect("evidence");
            assert!(line.starts_with("kubectl --kubeconfig "), "{line}");
            assert!(line.contains(" --context replay "), "{line}");
            let out = run_as_printed(bed, line);
            assert_eq!(
                out.code,
                Some(0),
                "{fixture}: `{line}` failed: {}",
                out.stderr
            );
            ran += 1;
            let absence = said.starts_with("no ") || said.ends_with(" not served");
            // `cilium.io/v2` shows the group `cilium.io`: the output's words split at `/` too.
            let shown: Vec<String> = values(&out.stdout)
                .iter()
                .flat_map(|w| w.split('/').map(str::to_string).collect::<Vec<_>>())
                .filter(|w| w.len() >= 3)
                .chain(values(&out.stdout))
                .collect();
            if absence {
                // What the evidence says is missing is not in what the command shows.
                let missing = values(said)
                    .into_iter()
                    .find(|w| w.contains('.') || w.contains('/'));
                if let Some(m) = missing {
                    assert!(
                        !shown.iter().any(|w| w == &m),
                        "{fixture}: `{said}` yet `{line}` shows {m}:\n{}",
                        out.stdout
                    );
                }
            } else {
                // A value of the evidence is in the output, or the evidence counts the rows
                // the command lists (`4 nodes registered`, `3/4 ... Ready`).
                let rows = out.stdout.lines().filter(|l| !l.trim().is_empty()).count();
                let counted = values(said)
                    .iter()
                    .any(|w| w.split('/').any(|n| n.parse::<usize>() == Ok(rows)));
                // `Deployment rook-ceph/rook-ceph-osd-*`: the command lists those by name.
                let prefixed = values(said)
                    .iter()
                    .filter_map(|w| w.strip_suffix('*'))
                    .any(|p| {
                        let p = p.rsplit('/').next().unwrap_or(p);
                        shown.iter().any(|w| w.starts_with(p))
                    });
                // `... outOfQuorum empty`: the command prints nothing.
                let empty = said.ends_with(" empty") && out.stdout.trim().is_empty();
                // A short object name the command lists first (`pg`) named in the evidence as
                // `NAMESPACE/NAME ` (`Cluster dataops/pg without .spec.backup: ...`).
                let named = out
                    .stdout
                    .lines()
                    .filter_map(|l| l.split_whitespace().next())
                    .any(|n| said.contains(&format!("/{n} ")));
                assert!(
                    empty
                        || counted
                        || prefixed
                        || named
                        || shown.iter().any(|w| said.contains(w.as_str())),
                    "{fixture}: `{line}` shows none of `{said}`:\n{}",
                    out.stdout
                );
            }
        }
    }
    ran
}

#[test]
fn explain_commands_run_as_printed_and_show_the_evidence_healthy() {
    let bed = bed_or_skip!(E2e::dirqual());
    assert!(check_every_command(&bed, "dirqual") >= 20);
}

#[test]
fn explain_commands_run_as_printed_and_show_the_evidence_degraded() {
    let bed = bed_or_skip!(E2e::new("degraded", &[]));
    assert!(check_every_command(&bed, "degraded") >= 20);
    // The degraded value itself, over the list the check walks, as SPEC §16 words it.
    let r = bed.run(&["preview", "--no-input", "--explain", "-o", "json"]);
    let doc = r.json();
    let ceph = doc["real"]["layers"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["id"] == "ceph"))
        .expect("ceph");
    let health = ceph["explain"]
        .as_array()
        .and_then(|x| {
            x.iter().find(|e| {
                e["evidence"]
                    .as_str()
                    .is_some_and(|s| s.contains("HEALTH_WARN"))
            })
        })
        .expect("the health line has a command");
    let line = health["command"].as_str().expect("command");
    assert!(
        line.ends_with(r#" get cephclusters.ceph.rook.io -n rook-ceph -o 'jsonpath={range .items[*]}{.metadata.name} {.status.ceph.health} {.status.ceph.details}{"\n"}{end}'"#),
        "{line}"
    );
    let shown = run_as_printed(&bed, line).stdout;
    assert!(shown.starts_with("rook-ceph HEALTH_WARN "), "{shown}");
    // In text, under its evidence line, whole.
    let t = bed.run(&["preview", "--no-input", "--no-color", "--explain"]);
    // The whole text: the health line's `      $ kubectl ... get cephclusters.ceph.rook.io
    // ...` under it.
    t.stdout_snap(str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 2 to repair
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml
  repair k8s, ceph  repair in place; never reinstall over an existing layer
    k8s: k8s/nodes-ready fails
    ceph: ceph/health and 1 more check fail

REAL (read live, not stored)
  nodes                 dirqual1..4, 3/4 Ready
  k8s         degraded  1 of 5 checks fails
    ✓ 4 nodes registered
      check k8s/registered
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get nodes -o 'jsonpath={range .items[*]}{.metadata.name} Ready={.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}'
    ✗ 3/4 declared nodes Ready: dirqual3 NotReady
      check k8s/nodes-ready
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get nodes -o 'jsonpath={range .items[*]}{.metadata.name} Ready={.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}'
    ✓ 4 nodes with distinct InternalIPs
      check k8s/distinct-ips
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get nodes -o 'jsonpath={range .items[*]}{.metadata.name} {.status.addresses[?(@.type=="InternalIP")].address}{"\n"}{end}'
    ✓ 3/3 Ready nodes schedulable (no pressure, cordon or unexpected taint)
      check k8s/schedulable
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get nodes -o 'jsonpath={range .items[*]}{.metadata.name} Ready={.status.conditions[?(@.type=="Ready")].status} MemoryPressure={.status.conditions[?(@.type=="MemoryPressure")].status} DiskPressure={.status.conditions[?(@.type=="DiskPressure")].status} PIDPressure={.status.conditions[?(@.type=="PIDPressure")].status} NetworkUnavailable={.status.conditions[?(@.type=="NetworkUnavailable")].status} unschedulable={.spec.unschedulable} taints={range .spec.taints[*]}{.key}:{.effect} {end}{"\n"}{end}'
    ✓ every APIService available (0 served by a Service)
      check k8s/apiservices-available
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get apiservices.apiregistration.k8s.io -A -o 'jsonpath={range .items[*]}{.metadata.name} {.spec.group} {.spec.service.name} Available={.status.conditions[?(@.type=="Available")].status}{"\n"}{end}'
  cni         present   5 checks hold
    ✓ API group cilium.io served
      check cni/api
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay api-versions
    ✓ DaemonSet kube-system/cilium rolled out (4/4 available)
      check cni/agent-exists, cni/agent
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get daemonsets cilium --ignore-not-found -n kube-system -o 'jsonpath=updated {.status.updatedNumberScheduled} available {.status.numberAvailable}/{.status.desiredNumberScheduled}'
    ✓ Deployment kube-system/cilium-operator rolled out (2/2 available)
      check cni/operator
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get deployments cilium-operator --ignore-not-found -n kube-system -o 'jsonpath=updated {.status.updatedReplicas} available {.status.availableReplicas}/{.spec.replicas}'
    ✓ no node tainted node.cilium.io/agent-not-ready
      check cni/agent-ready-taint
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get nodes -o 'jsonpath={range .items[*]}{.metadata.name} {.spec.taints[*].key}{"\n"}{end}'
    ✓ no version to compare on DaemonSet kube-system/cilium (cilium-agent),
      Deployment kube-system/cilium-operator (cilium-operator)
      check cni/one-version
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get daemonsets cilium --ignore-not-found -n kube-system -o 'jsonpath={.spec.template.spec.containers[?(@.name=="cilium-agent")].image}'
  ceph        degraded  2 of 9 checks fail
    ✓ API group ceph.rook.io served
      check ceph/api
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay api-versions
    ✗ CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN:
      OSD_DOWN (1 osds down), OSD_HOST_DOWN (1 host (1 osds) down), PG_DEGRADED
      (Degraded data redundancy: 2461/7383 objects degraded (33.333%), 97 pgs
      degraded, 97 pgs undersized) not on the benign list
      (RECENT_MGR_MODULE_CRASH)
      check ceph/health
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get cephclusters.ceph.rook.io -n rook-ceph -o 'jsonpath={range .items[*]}{.metadata.name} {.status.ceph.health} {.status.ceph.details}{"\n"}{end}'
    ✓ 3/3 Deployment rook-ceph/rook-ceph-mon-* rolled out (rook-ceph-mon-a,
      rook-ceph-mon-b, rook-ceph-mon-c)
      check ceph/mons
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get deployments -n rook-ceph -o 'jsonpath={range .items[*]}{.metadata.name} updated {.status.updatedReplicas} available {.status.availableReplicas}/{.spec.replicas}{"\n"}{end}'
    ✓ 3 Deployment rook-ceph/rook-ceph-mon-* (want at least 3: CephCluster
      rook-ceph/rook-ceph .spec.mon.count)
      check ceph/mon-count
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get deployments -n rook-ceph -o 'jsonpath={range .items[*]}{.metadata.name} updated {.status.updatedReplicas} available {.status.availableReplicas}/{.spec.replicas}{"\n"}{end}'
    ✗ 3/4 Deployment rook-ceph/rook-ceph-osd-* rolled out; Deployment
      rook-ceph/rook-ceph-osd-2: rollout in progress: 0/1 updated available
      check ceph/osds
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get deployments -n rook-ceph -o 'jsonpath={range .items[*]}{.metadata.name} updated {.status.updatedReplicas} available {.status.availableReplicas}/{.spec.replicas}{"\n"}{end}'
    ✓ ConfigMap rook-ceph/rook-ceph-mon-endpoints outOfQuorum empty
      check ceph/mon-quorum
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get configmap rook-ceph-mon-endpoints --ignore-not-found -n rook-ceph -o 'jsonpath={.data.outOfQuorum}'
    ✓ no version to compare on Deployment rook-ceph/rook-ceph-* (rook-version)
      check ceph/one-version
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get deployments -n rook-ceph -o 'jsonpath={range .items[*]}{.metadata.name} {.metadata.labels.rook-version}{"\n"}{end}'
    ✓ mons on 3 distinct nodes of 4: dirqual1 (a), dirqual2 (b), dirqual3 (c)
      check ceph/mon-placement
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get pods -n rook-ceph -l app=rook-ceph-mon -o 'jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} {.status.phase} {.metadata.labels.ceph_daemon_id}{"\n"}{end}'
    ✓ OSDs on 4 distinct nodes of 4: dirqual1 (0), dirqual2 (1), dirqual3 (2),
      dirqual4 (3)
      check ceph/osd-placement
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get pods -n rook-ceph -l app=rook-ceph-osd -o 'jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} {.status.phase} {.metadata.labels.ceph_daemon_id}{"\n"}{end}'
  storage     present   3 checks hold
    ✓ StorageClass ceph-block (rook-ceph.rbd.csi.ceph.com, default)
      check storage/class, storage/default-class
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get storageclasses -o 'jsonpath={range .items[*]}{.metadata.name} {.provisioner} default={.metadata.annotations.storageclass\.kubernetes\.io/is-default-class}{"\n"}{end}'
    ✓ CSIDriver rook-ceph.rbd.csi.ceph.com registered on 4/4 nodes
      check storage/csi-driver
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get csinodes.storage.k8s.io -A -o 'jsonpath={range .items[*]}{.metadata.name} {.spec.drivers[*].name}{"\n"}{end}'
    ✓ 0 claims in 8 checked namespaces: none Lost or Pending too long; 0 volumes
      of rook-ceph.rbd.csi.ceph.com: none Failed
      check storage/claims
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get persistentvolumeclaims -A -o 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {.spec.storageClassName} {.status.phase} {.metadata.creationTimestamp}{"\n"}{end}'
  monitoring  present   6 checks hold
    ✓ API group monitoring.coreos.com served
      check monitoring/api
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay api-versions
    ✓ Prometheus monitoring/kube-prometheus-stack-prometheus Available
      check monitoring/prometheus
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get prometheuses.monitoring.coreos.com -A -o 'jsonpath={range .items[*]}{.metadata.name} Available={.status.conditions[?(@.type=="Available")].status}{"\n"}{end}'
    ✓ Alertmanager monitoring/kube-prometheus-stack-alertmanager Available
      check monitoring/alertmanager
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get alertmanagers.monitoring.coreos.com -A -o 'jsonpath={range .items[*]}{.metadata.name} Available={.status.conditions[?(@.type=="Available")].status}{"\n"}{end}'
    ✓ StatefulSet monitoring/prometheus-kube-prometheus-stack-prometheus rolled
      out (1/1 ready)
      check monitoring/prometheus-pods
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get statefulsets -n monitoring -o 'jsonpath={range .items[*]}{.metadata.name} updated {.status.updatedReplicas} ready {.status.readyReplicas}/{.spec.replicas}{"\n"}{end}'
    ✓ StatefulSet monitoring/alertmanager-kube-prometheus-stack-alertmanager
      rolled out (1/1 ready)
      check monitoring/alertmanager-pods
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get statefulsets -n monitoring -o 'jsonpath={range .items[*]}{.metadata.name} updated {.status.updatedReplicas} ready {.status.readyReplicas}/{.spec.replicas}{"\n"}{end}'
    ✓ Deployment monitoring/kube-prometheus-stack-grafana rolled out (1/1
      available)
      check monitoring/grafana
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get deployments kube-prometheus-stack-grafana --ignore-not-found -n monitoring -o 'jsonpath=updated {.status.updatedReplicas} available {.status.availableReplicas}/{.spec.replicas}'
  gitops      present   9 checks hold
    ✓ API group argoproj.io served
      check gitops/api
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay api-versions
    ✓ Deployment argocd/argocd-server rolled out (1/1 available)
      check gitops/server
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get deployments argocd-server --ignore-not-found -n argocd -o 'jsonpath=updated {.status.updatedReplicas} available {.status.availableReplicas}/{.spec.replicas}'
    ✓ Deployment argocd/argocd-repo-server rolled out (1/1 available)
      check gitops/repo-server
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get deployments argocd-repo-server --ignore-not-found -n argocd -o 'jsonpath=updated {.status.updatedReplicas} available {.status.availableReplicas}/{.spec.replicas}'
    ✓ StatefulSet argocd/argocd-application-controller rolled out (1/1 ready)
      check gitops/application-controller
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get statefulsets argocd-application-controller --ignore-not-found -n argocd -o 'jsonpath=updated {.status.updatedReplicas} ready {.status.readyReplicas}/{.spec.replicas}'
    ✓ Deployment gitea/gitea rolled out (1/1 available)
      check gitops/gitea
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get deployments gitea --ignore-not-found -n gitea -o 'jsonpath=updated {.status.updatedReplicas} available {.status.availableReplicas}/{.spec.replicas}'
    ✓ 2/2 Application .status.sync.status = Synced
      check gitops/apps-synced
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get applications.argoproj.io -A -o 'jsonpath={range .items[*]}{.metadata.name} {.status.sync.status}{"\n"}{end}'
    ✓ 2/2 Application .status.health.status = Healthy
      check gitops/apps-healthy
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get applications.argoproj.io -A -o 'jsonpath={range .items[*]}{.metadata.name} {.status.health.status}{"\n"}{end}'
    ✓ 2/2 Application .status.operationState.phase not in Failed, Error
      check gitops/apps-last-operation
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get applications.argoproj.io -A -o 'jsonpath={range .items[*]}{.metadata.name} {.status.operationState.phase}{"\n"}{end}'
    ✓ 2/2 Application without ComparisonError, InvalidSpecError, SyncError,
      DeletionError, UnknownError
      check gitops/apps-no-error-conditions
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get applications.argoproj.io -A -o 'jsonpath={range .items[*]}{.metadata.name} ComparisonError={.status.conditions[?(@.type=="ComparisonError")].status} InvalidSpecError={.status.conditions[?(@.type=="InvalidSpecError")].status} SyncError={.status.conditions[?(@.type=="SyncError")].status} DeletionError={.status.conditions[?(@.type=="DeletionError")].status} UnknownError={.status.conditions[?(@.type=="UnknownError")].status}{"\n"}{end}'
  registry    present   2 checks hold
    ✓ namespace registry exists
      check registry/namespace
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get namespaces registry --ignore-not-found -o 'jsonpath={.metadata.name} {.status.phase}'
    ✓ Deployment registry/registry rolled out (1/1 available)
      check registry/workloads
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get daemonsets,deployments,statefulsets -n registry -o 'jsonpath={range .items[*]}{.metadata.name} {.kind}{"\n"}{end}'
  dataops     present   7 checks hold
    ✓ API group postgresql.cnpg.io served
      check dataops/api
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay api-versions
    ✓ Cluster dataops/pg .status.readyInstances = 3
      check dataops/pg-instances
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get clusters.postgresql.cnpg.io -A -o 'jsonpath={range .items[*]}{.metadata.name} {.status.readyInstances}{"\n"}{end}'
    ✓ Cluster dataops/pg .status.phase = Cluster in healthy state
      check dataops/pg-phase
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get clusters.postgresql.cnpg.io -A -o 'jsonpath={range .items[*]}{.metadata.name} {.status.phase}{"\n"}{end}'
    ✓ 1/1 Cluster ContinuousArchiving not False
      check dataops/pg-wal-archiving
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get clusters.postgresql.cnpg.io -A -o 'jsonpath={range .items[*]}{.metadata.name} ContinuousArchiving={.status.conditions[?(@.type=="ContinuousArchiving")].status}{"\n"}{end}'
    ✓ Cluster dataops/pg without .spec.backup: nothing to judge
      check dataops/pg-last-backup
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get clusters.postgresql.cnpg.io -A -o 'jsonpath={range .items[*]}{.metadata.name} {.status.lastSuccessfulBackup}{"\n"}{end}'
    ✓ 2/2 Deployment dataops/dagster-* rolled out (dagster-daemon,
      dagster-dagster-webserver)
      check dataops/dagster
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get deployments -n dataops -o 'jsonpath={range .items[*]}{.metadata.name} updated {.status.updatedReplicas} available {.status.availableReplicas}/{.spec.replicas}{"\n"}{end}'
    ✓ 2/2 Deployment dataops/marquez* rolled out (marquez, marquez-web)
      check dataops/marquez
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get deployments -n dataops -o 'jsonpath={range .items[*]}{.metadata.name} updated {.status.updatedReplicas} available {.status.availableReplicas}/{.spec.replicas}{"\n"}{end}'
  datalake    absent    not found
    ✗ no CephObjectStore in rook-ceph
      check datalake/object-store
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get cephobjectstores.ceph.rook.io -n rook-ceph -o 'jsonpath={range .items[*]}{.metadata.name} {.metadata.name}{"\n"}{end}'
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
      check datalake/bucket-class-exists
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get storageclasses -o 'jsonpath={range .items[*]}{.metadata.name} {.provisioner} default={.metadata.annotations.storageclass\.kubernetes\.io/is-default-class}{"\n"}{end}'
  certs       absent    not found
    ✗ API group cert-manager.io not served
      check certs/api
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay api-versions

"#]]);
}
