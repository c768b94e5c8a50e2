//! Warning Events as evidence (issue 34 item 4, SPEC §6 v0.4 "Warnings explain"): the
//! claims of `claims-degraded` with the Events the PersistentVolume controller and the
//! external-provisioner record about them (`events.k8s.io/v1`, shaped as the API server
//! serves them), through the real kubectl against the replay server. `storage` stays
//! degraded by its claims and quotes at most three recent Warnings about its failing
//! claims, newest first: the Normal one, the one older than an hour, the one about another
//! object and the fourth are left out; a hostile note is escaped and capped. The reads: one
//! Events list per namespace of the failing claims, by `type=Warning` with a `limit`, never
//! the cluster's; a healthy cluster sends no Events request; a forbidden one changes neither
//! the state nor the exit code.

use serde_json::json;

use crate::bed_or_skip;
use snapbox::str;

use crate::harness::text_snap;
use crate::support::*;

const MONITORING: &str = "/apis/events.k8s.io/v1/namespaces/monitoring/events";
const GITEA: &str = "/apis/events.k8s.io/v1/namespaces/gitea/events";
const DEFAULT: &str = "/apis/events.k8s.io/v1/namespaces/default/events";

/// The storage layer's claims check (`storage/claims`).
fn claims_check(v: &serde_json::Value) -> serde_json::Value {
    layer(v, "storage")["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["id"] == "storage/claims").cloned())
        .unwrap_or_default()
}

/// Every Events request of the run, as (path, query).
fn event_reads(bed: &E2e) -> Vec<(String, String)> {
    bed.server
        .audit()
        .into_iter()
        .filter(|e| e.path.contains("events"))
        .map(|e| (e.path, e.query))
        .collect()
}

const AM: &str = "PersistentVolumeClaim monitoring/alertmanager-main-db-alertmanager-main-0";

#[test]
fn a_degraded_layer_quotes_three_recent_warnings_about_its_failing_objects() {
    let bed = bed_or_skip!(E2e::new("events-degraded", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    r.code(0);
    let v = r.json();
    crate::doc_schema::check(&v);
    let l = layer(&v, "storage");
    assert_eq!(l["state"], "degraded", "{l:#}");
    assert_eq!(plan_ids(&v, "repair"), ["storage"]);
    let c = claims_check(&v);
    let quoted: Vec<serde_json::Value> = c["events"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|e| json!([e["object"], e["reason"], e["count"], e["message"]]))
        .collect();
    // Escaped first, then capped at 200 characters of what is printed.
    let head = "failed to provision volume with StorageClass \"ceph-block\": rpc error: \\x1b[2J\\x1b]0;owned\\x07 ";
    let hostile = format!("{head}{}…", "x".repeat(200 - head.chars().count()));
    assert_eq!(
        quoted,
        [
            json!([AM, "ProvisioningFailed", 14, "failed to provision volume with StorageClass \"ceph-block\": rpc error: code = DeadlineExceeded desc = context deadline exceeded"]),
            json!(["PersistentVolumeClaim gitea/data-gitea-0", "ClaimLost", 1, "Bound claim has lost its PersistentVolume. Data on the volume is lost!"]),
            json!([AM, "ProvisioningFailed", 1, hostile]),
        ],
        "{c:#}"
    );
    assert!(c.get("eventsNotRead").is_none(), "{c:#}");
    // One list per namespace of the failing claims, Warnings only, with a limit.
    let reads = event_reads(&bed);
    let mut paths: Vec<&str> = reads.iter().map(|(p, _)| p.as_str()).collect();
    paths.sort();
    // `default` too: the Failed volume's Events (it is cluster-scoped).
    assert_eq!(paths, [DEFAULT, GITEA, MONITORING], "{reads:#?}");
    for (_, q) in &reads {
        assert_eq!(q, "fieldSelector=type%3DWarning&limit=100");
    }
    assert_read_only(&bed.server);
}

#[test]
fn the_text_shows_the_warnings_under_their_check_and_explain_its_command() {
    let bed = bed_or_skip!(E2e::new("events-degraded", &[]));
    let r = bed.run(&["preview", "--no-input", "--no-color", "--explain"]);
    r.code(0);
    let text = bed.stable(&r.stdout);
    let ours: Vec<&str> = text.lines().filter(|l| l.contains("↳")).collect();
    assert_eq!(ours.len(), 3, "{text}");
    assert_eq!(
        ours,
        [
            "      ↳ Warning ProvisioningFailed (14×, 2m ago) on PersistentVolumeClaim",
            "      ↳ Warning ClaimLost (1×, 10m ago) on PersistentVolumeClaim",
            "      ↳ Warning ProvisioningFailed (1×, 30m ago) on PersistentVolumeClaim",
        ],
        "{text}"
    );
    // The whole text: the hostile message escaped (`\x1b[2J\x1b]0;owned\x07`), each
    // warning's `$ kubectl ... get events.events.k8s.io -n NS ...` command under it. The
    // Lost claim's age grows by the day (its creation date is fixed): `[..]`.
    text_snap(
        &text,
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 1 to repair
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml
  repair storage    repair in place; never reinstall over an existing layer
    storage: storage/claims fails

REAL (read live, not stored)
  nodes                 dirqual1..4, 4/4 Ready
  k8s         present   5 checks hold
    ✓ 4 nodes registered
      check k8s/registered
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get nodes -o 'jsonpath={range .items[*]}{.metadata.name} Ready={.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}'
    ✓ 4/4 declared nodes Ready
      check k8s/nodes-ready
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get nodes -o 'jsonpath={range .items[*]}{.metadata.name} Ready={.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}'
    ✓ 4 nodes with distinct InternalIPs
      check k8s/distinct-ips
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get nodes -o 'jsonpath={range .items[*]}{.metadata.name} {.status.addresses[?(@.type=="InternalIP")].address}{"\n"}{end}'
    ✓ 4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)
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
  ceph        present   9 checks hold
    ✓ API group ceph.rook.io served
      check ceph/api
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay api-versions
    ✓ CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK
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
    ✓ 4/4 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0,
      rook-ceph-osd-1, rook-ceph-osd-2, rook-ceph-osd-3)
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
  storage     degraded  1 of 3 checks fails
    ✓ StorageClass ceph-block (rook-ceph.rbd.csi.ceph.com, default)
      check storage/class, storage/default-class
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get storageclasses -o 'jsonpath={range .items[*]}{.metadata.name} {.provisioner} default={.metadata.annotations.storageclass\.kubernetes\.io/is-default-class}{"\n"}{end}'
    ✓ CSIDriver rook-ceph.rbd.csi.ceph.com registered on 4/4 nodes
      check storage/csi-driver
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get csinodes.storage.k8s.io -A -o 'jsonpath={range .items[*]}{.metadata.name} {.spec.drivers[*].name}{"\n"}{end}'
    ✗ PersistentVolumeClaim gitea/data-gitea-0 Lost, created [..]d ago: its
      volume is gone; PersistentVolumeClaim
      monitoring/alertmanager-main-db-alertmanager-main-0 Pending for 2h (class
      ceph-block; maxPending 5m); PersistentVolume
      pvc-6ce1f3f1-d32d-48e4-a08e-f3f1d32d08e4 (claim registry/data-registry-0)
      Failed
      check storage/claims
      $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get persistentvolumeclaims -A -o 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {.spec.storageClassName} {.status.phase} {.metadata.creationTimestamp}{"\n"}{end}'
      ↳ Warning ProvisioningFailed (14×, 2m ago) on PersistentVolumeClaim
        monitoring/alertmanager-main-db-alertmanager-main-0: failed to provision
        volume with StorageClass "ceph-block": rpc error: code =
        DeadlineExceeded desc = context deadline exceeded
        $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get events.events.k8s.io -n monitoring -o 'jsonpath={range .items[?(@.type=="Warning")]}{.regarding.kind} {.regarding.namespace}/{.regarding.name} {.reason} {.note}{"\n"}{end}'
      ↳ Warning ClaimLost (1×, 10m ago) on PersistentVolumeClaim
        gitea/data-gitea-0: Bound claim has lost its PersistentVolume. Data on
        the volume is lost!
        $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get events.events.k8s.io -n gitea -o 'jsonpath={range .items[?(@.type=="Warning")]}{.regarding.kind} {.regarding.namespace}/{.regarding.name} {.reason} {.note}{"\n"}{end}'
      ↳ Warning ProvisioningFailed (1×, 30m ago) on PersistentVolumeClaim
        monitoring/alertmanager-main-db-alertmanager-main-0: failed to provision
        volume with StorageClass "ceph-block": rpc error:
        \x1b[2J\x1b]0;owned\x07
        xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
        xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…
        $ kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get events.events.k8s.io -n monitoring -o 'jsonpath={range .items[?(@.type=="Warning")]}{.regarding.kind} {.regarding.namespace}/{.regarding.name} {.reason} {.note}{"\n"}{end}'
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

"#]],
    );
    // And nowhere a raw ESC (a snapshot shows none, but says so only to a reader).
    assert!(!text.contains('\u{1b}'), "a raw ESC reached the terminal");
}

#[test]
fn a_healthy_cluster_sends_no_events_request() {
    let bed = bed_or_skip!(E2e::new("claims-bound", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    let v = r.json();
    assert_eq!(layer(&v, "storage")["state"], "present");
    let degraded: Vec<&serde_json::Value> = v["real"]["layers"]
        .as_array()
        .map(|a| a.iter().filter(|l| l["state"] == "degraded").collect())
        .unwrap_or_default();
    assert!(degraded.is_empty(), "{degraded:#?}");
    assert_eq!(event_reads(&bed), Vec::<(String, String)>::new());
}

#[test]
fn a_forbidden_events_read_changes_neither_the_state_nor_the_exit_code() {
    let bed = bed_or_skip!(E2e::new("events-degraded", &[&format!("{MONITORING}=403")]));
    let r = bed.run(&["preview", "--no-input", "-o", "json", "--detailed-exitcode"]);
    let plain = bed_or_skip!(E2e::new("claims-degraded", &[]));
    let without = plain.run(&["preview", "--no-input", "-o", "json", "--detailed-exitcode"]);
    assert_eq!(r.code, without.code);
    let (v, w) = (r.json(), without.json());
    assert_eq!(layer(&v, "storage")["state"], "degraded");
    assert_eq!(
        layer(&v, "storage")["reason"],
        layer(&w, "storage")["reason"]
    );
    assert_eq!(
        layer(&v, "storage")["evidence"],
        layer(&w, "storage")["evidence"]
    );
    let c = claims_check(&v);
    assert_eq!(
        c["eventsNotRead"],
        json!(["events not read in monitoring: Forbidden"])
    );
    // The other namespace's Warnings are still quoted.
    let reasons: Vec<&serde_json::Value> = c["events"]
        .as_array()
        .map(|a| a.iter().map(|e| &e["reason"]).collect())
        .unwrap_or_default();
    assert_eq!(
        reasons,
        [&json!("ClaimLost"), &json!("FailedBinding")],
        "{c:#}"
    );
}

/// A saved observation keeps the Events read: `--snapshot` quotes the same Warnings, with no
/// cluster at all.
#[test]
fn a_snapshot_replays_the_same_quotes() {
    let bed = bed_or_skip!(E2e::new("events-degraded", &[]));
    let snap = bed.tmp.path().join("events.json").display().to_string();
    let live = bed.run(&["preview", "--no-input", "--save", &snap, "-o", "json"]);
    live.code(0);
    let replay = bed.run(&["preview", "--snapshot", &snap, "-o", "json"]);
    replay.code(0);
    let quoted = |v: &serde_json::Value| claims_check(v)["events"].clone();
    let want = quoted(&live.json());
    assert_eq!(want.as_array().map(Vec::len), Some(3), "{want:#}");
    assert_eq!(quoted(&replay.json()), want);
}

/// An `all` check's failing objects, by the catalog's `kind:` (issue 34 item 4): Argo CD's
/// Warning about the Application whose sync failed is quoted once, under the first failing
/// check naming it; the one about another, healthy Application and the Normal one are not.
#[test]
fn an_all_checks_failing_application_quotes_argo_cds_warning() {
    let bed = bed_or_skip!(E2e::new("events-app", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    r.code(0);
    let v = r.json();
    crate::doc_schema::check(&v);
    let l = layer(&v, "gitops");
    assert_eq!(l["state"], "degraded", "{l:#}");
    let quoted: Vec<serde_json::Value> = l["checks"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .flat_map(|c| {
            let id = c["id"].clone();
            c["events"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(move |e| json!([id, e["object"], e["reason"], e["message"]]))
        })
        .collect();
    assert_eq!(
        quoted,
        [json!([
            "gitops/apps-last-operation",
            "Application argocd/marquez",
            "OperationCompleted",
            "Sync operation to 9b2d7c1e5a40 failed: one or more synchronization tasks completed unsuccessfully"
        ])],
        "{l:#}"
    );
    let reads = event_reads(&bed);
    assert_eq!(
        reads,
        [(
            "/apis/events.k8s.io/v1/namespaces/argocd/events".to_string(),
            "fieldSelector=type%3DWarning&limit=100".to_string()
        )]
    );
}
