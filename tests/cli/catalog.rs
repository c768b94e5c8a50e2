//! `catalog list` / `catalog show ID`: the stack's catalog (built-in plus its `catalog:`
//! file), every check documented with its reason, text and JSON; no cluster is read.

use serde_json::Value;

use snapbox::str;

use crate::harness::text_snap;

use crate::support::*;

fn run(bed: &Bed, args: &[&str]) -> Outcome {
    bed.cmd().args(args).run()
}

fn json(out: &Outcome) -> Value {
    out.code(0);
    let v = serde_json::from_slice(&out.stdout_bytes)
        .unwrap_or_else(|e| panic!("{e}: {}", stdout_of(out)));
    crate::doc_schema::check(&v);
    v
}

/// The built-in layer ids in catalog order, from the catalog itself: adding a built-in layer
/// changes no list here.
fn builtin_ids() -> Vec<String> {
    nestor::model::catalog::Catalog::builtin()
        .expect("the built-in catalog")
        .ids()
        .into_iter()
        .map(String::from)
        .collect()
}

#[test]
fn list_names_every_layer_in_order_text_and_json() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let out = run(&bed, &["catalog", "list"]);
    out.code(0);
    let text = stdout_of(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["ID", "TITLE", "AFTER", "DETECT", "HEALTHY"]
    );
    let ids: Vec<&str> = lines[1..]
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(ids, builtin_ids());
    // The whole table (gitops's title, etcd-backup's 4 host checks among its rows).
    out.stdout_snap(str![[r#"
ID                      TITLE                                                     AFTER         DETECT  HEALTHY
k8s                     Kubernetes (kubeadm)                                      -             1       4
cni                     Cilium CNI                                                k8s           2       4
ceph                    Rook-Ceph cluster                                         cni           1       8
storage                 Ceph RBD storage classes                                  ceph          1       3
datalake                S3 datalake (Ceph object store)                           ceph,storage  2       4
gateway                 Gateway API (Cilium)                                      cni           1       5
certs                   cert-manager                                              k8s           1       8
monitoring              Monitoring (kube-prometheus-stack)                        storage       1       5
gitops                  GitOps (Argo CD + Gitea)                                  storage       1       8
registry                Container registry                                        storage       1       1
dataops                 DataOps (CloudNativePG + Dagster + Marquez)               storage       1       6
etcd-backup             etcd backup timer                                         k8s           -       host: 4
audit-log               API server audit log                                      k8s           1       1
encryption-at-rest      Secrets encrypted at rest (etcd)                          k8s           1       1
sshd-hardening          sshd hardening                                            -             -       host: 1
os-hardening            Host hardening (auditd, fail2ban, postfix, sshd drop-in)  -             -       host: 4
pod-security            Pod Security admission on every namespace                 k8s           1       1
kube-proxy-replacement  Cilium kube-proxy replacement (kube-proxy removed)        cni           1       3
hubble                  Hubble (Cilium flow observability)                        cni           1       1
cni-encryption          Cilium WireGuard encryption (really active)               cni           1       2
network-policy          Default-deny ingress NetworkPolicy in every namespace     cni           2       2

"#]]);

    let v = json(&run(&bed, &["catalog", "list", "-o", "json"]));
    assert_eq!(v["apiVersion"], "nestor/v1");
    assert_eq!(v["kind"], "Catalog");
    assert_eq!(v["source"]["stack"], "dirqual");
    assert_eq!(v["source"]["overrides"], Value::Null);
    let layers = v["layers"].as_array().expect("layers");
    let ids: Vec<&str> = layers.iter().filter_map(|l| l["id"].as_str()).collect();
    assert_eq!(ids, builtin_ids());
    // Every health check of the built-in catalog says why the operators gate on it.
    for l in layers {
        for c in l["healthy"].as_array().expect("healthy") {
            assert!(c["why"].is_string(), "{}: {c}", l["id"]);
            assert!(!c["check"].as_str().unwrap_or("").is_empty());
        }
    }
    assert!(bed.calls("kubectl").is_empty(), "no cluster is read");
}

/// `catalog show` documents every check of every layer: as many lines as the catalog has
/// checks, each with its kind and its words.
#[test]
fn show_documents_every_check_of_every_layer() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let all = json(&run(&bed, &["catalog", "list", "-o", "json"]));
    let cases = crate::harness::Table::new();
    for layer in all["layers"].as_array().expect("layers") {
        let id = layer["id"].as_str().expect("id");
        let v = json(&run(&bed, &["catalog", "show", id, "-o", "json"]));
        assert_eq!(v["kind"], "CatalogLayer");
        assert_eq!(v["id"], id);
        assert_eq!(v["detect"], layer["detect"], "{id}");
        assert_eq!(v["healthy"], layer["healthy"], "{id}");
        let out = run(&bed, &["catalog", "show", id]);
        out.code(0);
        cases.add(id, &out);
        let text = stdout_of(&out);
        for c in v["detect"]
            .as_array()
            .into_iter()
            .chain(v["healthy"].as_array())
            .chain(v["host"]["checks"].as_array())
            .flatten()
        {
            let line = format!(
                "  - {:12}  {}",
                c["kind"].as_str().unwrap_or(""),
                c["check"].as_str().unwrap_or("")
            );
            // A relation between the two outputs (each check of the JSON is a line of the
            // text), which the table snapshot below does not state by itself.
            assert!(text.contains(&line), "{id}: no {line:?} in\n{text}");
            if let Some(why) = c["why"].as_str() {
                assert!(text.contains(&format!("why: {why}")), "{id}: {text}");
            }
        }
    }
    cases.table_snap(str![[r#"
== k8s: exit 0
--- stdout
layer     k8s (Kubernetes (kubeadm))
after     -
defined   builtin catalog (src/model/catalog/builtin.yaml):15:3
install   ansible-playbook bootstrap/k8s.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - nodes         at least 1 node(s) registered
                  id: k8s/registered
                  why: a registered node means a control plane answers

healthy (all true: the layer is healthy)
  - nodes         every declared node Ready
                  id: k8s/nodes-ready
                  why: every declared node must be Ready; a NotReady node loses its pods and its Ceph OSDs
  - nodes         no two nodes announce the same InternalIP
                  id: k8s/distinct-ips
                  why: bench #3, #4: every VM announced its NAT address 10.0.2.15 as InternalIP; the nodes were Ready, and every node-to-node path (kubelet logs, Cilium tunnels, Ceph) went nowhere
  - nodes         every Ready node schedulable: no MemoryPressure/DiskPressure/PIDPressure/NetworkUnavailable condition True, not cordoned (spec.unschedulable), no NoSchedule/NoExecute taint but node-role.kubernetes.io/control-plane:NoSchedule on control-plane nodes (not counted here, another check judges it: node.cilium.io/agent-not-ready)
                  id: k8s/schedulable
                  why: a Ready node under MemoryPressure, DiskPressure or PIDPressure evicts pods and admits no new ones, one whose NetworkUnavailable is True has no pod network, a cordoned one was drained and forgotten, and a NoSchedule/NoExecute taint nobody expects keeps pods away: each still counts as Ready
  - apiServices   every APIService served by a Service Available=True (a local one always is); an unavailable one is named, and every check on its group is unknown, never absent
                  id: k8s/apiservices-available
                  why: an APIService whose Service has no ready backend (metrics-server down) leaves its group out of discovery: the group looks not installed while it is, and kubectl top, HPAs and namespace deletion wait on it
== cni: exit 0
--- stdout
layer     cni (Cilium CNI)
after     k8s
defined   builtin catalog (src/model/catalog/builtin.yaml):52:3
install   ansible-playbook platform/cilium.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - apiGroup      API group cilium.io served
                  id: cni/api
  - workload      DaemonSet kube-system/cilium exists
                  id: cni/agent-exists

healthy (all true: the layer is healthy)
  - workload      DaemonSet kube-system/cilium: at least one, each rolled out as `kubectl rollout status` says
                  id: cni/agent
                  why: the agent must run the current version on every node, or pods there have no network
  - workload      Deployment kube-system/cilium-operator: at least one, each rolled out as `kubectl rollout status` says
                  id: cni/operator
                  why: the operator allocates pod CIDRs and identities; without it new nodes and pods stall
  - nodes         no node carries the taint node.cilium.io/agent-not-ready
                  id: cni/agent-ready-taint
                  why: Cilium taints a node whose agent is not ready; the DaemonSet can look rolled out while that node schedules pods without network
  - oneVersion    one version across DaemonSet kube-system/cilium (container cilium-agent's image tag), Deployment kube-system/cilium-operator (container cilium-operator's image tag) (else: upgrade half done)
                  id: cni/one-version
                  why: an agent at 1.19 with its operator still at 1.18 is an upgrade half done: both look rolled out, and the Cilium upgrade guide runs them on one version
== ceph: exit 0
--- stdout
layer     ceph (Rook-Ceph cluster)
after     cni
defined   builtin catalog (src/model/catalog/builtin.yaml):82:3
install   ansible-playbook platform/ceph.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - apiGroup      API group ceph.rook.io served
                  id: ceph/api

healthy (all true: the layer is healthy)
  - tolerate      every CephCluster in rook-ceph: .status.ceph.health = HEALTH_OK, or HEALTH_WARN whose every check in .status.ceph.details is benign (RECENT_MGR_MODULE_CRASH); not trusted when .status.ceph.lastChecked is older than 10m
                  id: ceph/health
                  why: the operators' gate: HEALTH_OK, or HEALTH_WARN whose only checks are benign; RECENT_MGR_MODULE_CRASH is the mgr prometheus module's known start-up race and made a strict HEALTH_OK gate fail on healthy clusters
  - workload      Deployment rook-ceph/rook-ceph-mon-*: at least one, each rolled out as `kubectl rollout status` says
                  id: ceph/mons
                  why: the mons hold the cluster map; a mon that is not rolled out costs quorum margin
  - count         at least as many Deployment rook-ceph/rook-ceph-mon-* as CephCluster in rook-ceph .spec.mon.count says (the operator's default 3 when it is absent)
                  id: ceph/mon-count
                  why: as many mons as the CephCluster asks for (.spec.mon.count, which Rook defaults to 3), or quorum is at risk
  - workload      Deployment rook-ceph/rook-ceph-osd-*: at least one, each rolled out as `kubectl rollout status` says
                  id: ceph/osds
                  why: every OSD must run the current version; a stalled OSD rollout leaves data degraded
  - configMap     ConfigMap rook-ceph/rook-ceph-mon-endpoints (read by name): key outOfQuorum empty or absent
                  id: ceph/mon-quorum
                  why: Rook lists there the mons out of quorum; a mon Deployment can be rolled out while its mon is not in quorum
  - oneVersion    one version across Deployment rook-ceph/rook-ceph-* (label rook-version) (else: upgrade half done)
                  id: ceph/one-version
                  why: Rook labels each daemon's Deployment with the rook-version that last updated it; a mix is an upgrade half done (Rook's upgrade guide waits until every Deployment shows one)
  - distinctNodes  the pods of rook-ceph with app=rook-ceph-mon run on at least 3 distinct nodes when the cluster has 3 or more (each node named with its pods' ceph_daemon_id; unscheduled pods named, not counted); else: failureDomain: host is a promise the placement does not keep
                  id: ceph/mon-placement
                  why: two mons on one node lose quorum with that node; Rook's allowMultiplePerNode or a scheduling constraint can stack them silently while every mon Deployment is rolled out
  - distinctNodes  the pods of rook-ceph with app=rook-ceph-osd run on at least 3 distinct nodes when the cluster has 3 or more (each node named with its pods' ceph_daemon_id; unscheduled pods named, not counted); else: failureDomain: host is a promise the placement does not keep
                  id: ceph/osd-placement
                  why: a size-3 pool with failureDomain host needs OSDs on 3 hosts; with fewer, its placement groups stay undersized and one node's loss can take every copy
== storage: exit 0
--- stdout
layer     storage (Ceph RBD storage classes)
after     ceph
defined   builtin catalog (src/model/catalog/builtin.yaml):154:3
install   ansible-playbook platform/storage.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - storageClass  a StorageClass of provisioner rook-ceph.rbd.csi.ceph.com
                  id: storage/class

healthy (all true: the layer is healthy)
  - storageClass  a default StorageClass of provisioner rook-ceph.rbd.csi.ceph.com
                  id: storage/default-class
                  why: claims without a class must land on Ceph RBD, so the default class is of that provisioner
  - csiDriver     the default StorageClass's provisioner registered as a CSIDriver and listed in every node's CSINode .spec.drivers[].name; the nodes without it are named
                  id: storage/csi-driver
                  why: bench #9 and #22: the StorageClass existed while no CSI plugin had registered its driver, and every claim stayed Pending; a node whose CSINode lacks the driver cannot mount a volume of that class
  - claims        no PersistentVolumeClaim of a checked namespace (unless of another provisioner's class) Pending over 5m or Lost, no PersistentVolume of a rook-ceph.rbd.csi.ceph.com class Failed (Released: named)
                  id: storage/claims
                  why: a claim Pending for minutes was never provisioned (pool full, provisioner down, a class that does not exist) and its pod never starts; a Lost claim's volume is gone; a Failed volume could not be reclaimed. Released volumes are kept data, named and not counted
== datalake: exit 0
--- stdout
layer     datalake (S3 datalake (Ceph object store))
after     ceph, storage
defined   builtin catalog (src/model/catalog/builtin.yaml):181:3
install   ansible-playbook platform/datalake.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - resource      a CephObjectStore in rook-ceph exists
                  id: datalake/object-store
  - storageClass  a StorageClass of provisioner rook-ceph.ceph.rook.io/bucket
                  id: datalake/bucket-class-exists

healthy (all true: the layer is healthy)
  - resource      every CephObjectStore in rook-ceph, at least one: .status.phase = Ready
                  id: datalake/object-store-ready
                  why: Rook sets phase Ready once the store's pools and gateways are configured
  - workload      Deployment rook-ceph/rook-ceph-rgw-*: at least one, each rolled out as `kubectl rollout status` says
                  id: datalake/rgw
                  why: the RGW pods serve S3; a store that is Ready without rolled-out gateways serves nothing
  - storageClass  a StorageClass of provisioner rook-ceph.ceph.rook.io/bucket
                  id: datalake/bucket-class
                  why: bucket claims need the bucket provisioner's class
  - all           every ObjectBucketClaim (none is fine): .status.phase = Bound; the ones that fail are named
                  id: datalake/bucket-claims
                  why: a claim that is not Bound has no bucket and no credentials; the application waiting on it never starts
== gateway: exit 0
--- stdout
layer     gateway (Gateway API (Cilium))
after     cni
defined   builtin catalog (src/model/catalog/builtin.yaml):213:3
install   ansible-playbook platform/gateway.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - every         a GatewayClass with .spec.controllerName = io.cilium/gateway-controller exists
                  id: gateway/class-exists

healthy (all true: the layer is healthy)
  - every         every GatewayClass with .spec.controllerName = io.cilium/gateway-controller (none is fine once detected): condition Accepted True; the ones that fail are named; Accepted reason Pending means: the Cilium operator started before the Gateway API CRDs; restart cilium-operator
                  id: gateway/class-accepted
                  why: Run #10: the class stayed "Waiting for controller" because cilium-operator started before the Gateway API CRDs existed, and it never looks again until restarted
  - every         every Gateway whose .spec.gatewayClassName names a GatewayClass with .spec.controllerName = io.cilium/gateway-controller (none is fine once detected): condition Accepted and Programmed True, a .status.addresses[] entry (its value); the ones that fail are named; Programmed reason AddressNotAssigned means: its LoadBalancer Service has no IP; check the CiliumLoadBalancerIPPools
                  id: gateway/gateways
                  why: Run #13: a Gateway is served only once Cilium programmed it and its LoadBalancer Service got an address from an IP pool; until then it waits, silently
  - parents       every HTTPRoute with a status.parents[] entry of io.cilium/gateway-controller (none is fine): condition Accepted and ResolvedRefs True on each such entry; the ones that fail are named with their parent
                  id: gateway/http-routes
                  why: a route not Accepted is not attached to its Gateway; one whose refs do not resolve (BackendNotFound) answers 500
  - parents       every GRPCRoute with a status.parents[] entry of io.cilium/gateway-controller (none is fine): condition Accepted and ResolvedRefs True on each such entry; the ones that fail are named with their parent
                  id: gateway/grpc-routes
                  why: the same for gRPC routes (GRPCRoute is v1 since Gateway API 1.1)
  - every         every CiliumLoadBalancerIPPool (none is fine once detected): condition cilium.io/PoolConflict not True, condition cilium.io/IPsAvailable's count above 0; the ones that fail are named
                  id: gateway/ip-pools
                  why: Cilium disables a pool whose range overlaps another's (PoolConflict) and an exhausted pool assigns nothing: either way the next Gateway waits for an address
== certs: exit 0
--- stdout
layer     certs (cert-manager)
after     k8s
defined   builtin catalog (src/model/catalog/builtin.yaml):277:3
install   ansible-playbook platform/cert-manager.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - apiGroup      API group cert-manager.io served
                  id: certs/api

healthy (all true: the layer is healthy)
  - workload      Deployment cert-manager/cert-manager: at least one, each rolled out as `kubectl rollout status` says
                  id: certs/controller
                  why: the controller issues and renews certificates
  - workload      Deployment cert-manager/cert-manager-cainjector: at least one, each rolled out as `kubectl rollout status` says
                  id: certs/cainjector
                  why: the cainjector keeps webhook CA bundles current
  - workload      Deployment cert-manager/cert-manager-webhook: at least one, each rolled out as `kubectl rollout status` says
                  id: certs/webhook
                  why: without the webhook every cert-manager resource write is refused
  - condition     every ClusterIssuer, at least one: condition Ready True
                  id: certs/cluster-issuers
                  why: an issuer that is not Ready (bad ACME account, missing CA secret) issues nothing
  - all           every Issuer (none is fine): condition Ready True; the ones that fail are named
                  id: certs/issuers
                  why: a namespaced Issuer that is not Ready issues nothing in its namespace
  - all           every Certificate (none is fine): condition Ready True; the ones that fail are named
                  id: certs/certificates
                  why: a Certificate that is not Ready has no valid key pair in its Secret
  - all           every Certificate (none is fine): .status.notAfter more than 7d away; the ones that fail are named
                  id: certs/certificate-validity
                  why: cert-manager renews well before expiry; one expiring within 7 days means renewal is failing
  - webhooks      every Validating/MutatingWebhookConfiguration webhook served from namespace cert-manager with failurePolicy Fail has a ready endpoint (its Service's EndpointSlices); Ignore webhooks never degrade, url webhooks are skipped
                  id: certs/webhook-endpoints
                  why: with failurePolicy Fail and no ready endpoint behind cert-manager's webhook, every Certificate, Issuer and ClusterIssuer write is refused and namespaces holding them stay Terminating, while the certificates already issued still read present
== monitoring: exit 0
--- stdout
layer     monitoring (Monitoring (kube-prometheus-stack))
after     storage
defined   builtin catalog (src/model/catalog/builtin.yaml):315:3
install   ansible-playbook platform/monitoring.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - apiGroup      API group monitoring.coreos.com served
                  id: monitoring/api

healthy (all true: the layer is healthy)
  - condition     every Prometheus, at least one: condition Available True
                  id: monitoring/prometheus
                  why: the operator says Available only when the Prometheus pods run and are ready
  - condition     every Alertmanager, at least one: condition Available True
                  id: monitoring/alertmanager
                  why: alerts go nowhere without a ready Alertmanager
  - workload      StatefulSet monitoring/prometheus-*: at least one, each rolled out as `kubectl rollout status` says
                  id: monitoring/prometheus-pods
                  why: the Prometheus StatefulSets must be rolled out, not half on an old spec
  - workload      StatefulSet monitoring/alertmanager-*: at least one, each rolled out as `kubectl rollout status` says
                  id: monitoring/alertmanager-pods
                  why: the Alertmanager StatefulSets must be rolled out
  - workload      Deployment monitoring/kube-prometheus-stack-grafana: at least one, each rolled out as `kubectl rollout status` says
                  id: monitoring/grafana
                  why: the dashboards the operators read
== gitops: exit 0
--- stdout
layer     gitops (GitOps (Argo CD + Gitea))
after     storage
defined   builtin catalog (src/model/catalog/builtin.yaml):339:3
install   ansible-playbook platform/gitops.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - apiGroup      API group argoproj.io served
                  id: gitops/api

healthy (all true: the layer is healthy)
  - workload      Deployment argocd/argocd-server: at least one, each rolled out as `kubectl rollout status` says
                  id: gitops/server
                  why: the API and UI
  - workload      Deployment argocd/argocd-repo-server: at least one, each rolled out as `kubectl rollout status` says
                  id: gitops/repo-server
                  why: renders manifests from git; without it nothing syncs
  - workload      StatefulSet argocd/argocd-application-controller: at least one, each rolled out as `kubectl rollout status` says
                  id: gitops/application-controller
                  why: reconciles Applications
  - workload      Deployment gitea/gitea: at least one, each rolled out as `kubectl rollout status` says
                  id: gitops/gitea
                  why: the git server Argo CD pulls from
  - all           every Application (none is fine): .status.sync.status = Synced; the ones that fail are named
                  id: gitops/apps-synced
                  why: an OutOfSync Application means the cluster is not what git says
  - all           every Application (none is fine): .status.health.status = Healthy; the ones that fail are named
                  id: gitops/apps-healthy
                  why: Argo CD's own health of what it deployed (Degraded, Missing, Progressing are not healthy)
  - all           every Application (none is fine): .status.operationState.phase not in [Failed, Error] (a failure quotes .status.operationState.message); the ones that fail are named
                  id: gitops/apps-last-operation
                  why: a sync whose operation Failed or Errored (a hook that failed, a manifest the API server refused) can leave the Application Synced and Healthy by the resources it did apply while the change it was asked for never landed; Argo CD retries it, nestor says so
  - all           every Application (none is fine): none of the conditions ComparisonError, InvalidSpecError, SyncError, DeletionError, UnknownError present; the ones that fail are named
                  id: gitops/apps-no-error-conditions
                  why: Argo CD could not compare, sync or delete the Application (a repository it cannot reach, a manifest that does not render, a spec it refuses): until that clears, what git says never reaches the cluster, whatever the last sync status still reads
== registry: exit 0
--- stdout
layer     registry (Container registry)
after     storage
defined   builtin catalog (src/model/catalog/builtin.yaml):381:3
install   ansible-playbook platform/registry.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - namespace     namespace registry exists
                  id: registry/namespace

healthy (all true: the layer is healthy)
  - workload      DaemonSet, Deployment or StatefulSet in registry: at least one, each rolled out as `kubectl rollout status` says
                  id: registry/workloads
                  why: every workload of the registry namespace rolled out
== dataops: exit 0
--- stdout
layer     dataops (DataOps (CloudNativePG + Dagster + Marquez))
after     storage
defined   builtin catalog (src/model/catalog/builtin.yaml):393:3
install   ansible-playbook platform/dataops.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - apiGroup      API group postgresql.cnpg.io served
                  id: dataops/api

healthy (all true: the layer is healthy)
  - resource      every Cluster, at least one: .status.readyInstances = .status.instances
                  id: dataops/pg-instances
                  why: every PostgreSQL instance of each CNPG Cluster ready (the READY and INSTANCES columns)
  - resource      every Cluster, at least one: .status.phase = Cluster in healthy state
                  id: dataops/pg-phase
                  why: CNPG's own verdict; failover, switchover and upgrades show here first
  - all           every Cluster (none is fine): condition ContinuousArchiving not False; the ones that fail are named
                  id: dataops/pg-wal-archiving
                  why: WAL archiving stopped (an object store it cannot write) means point-in-time recovery ends there, while CNPG still says the cluster is healthy
  - all           every Cluster (none is fine): those with .spec.backup set: .status.lastSuccessfulBackup at most 26h ago; the ones that fail are named
                  id: dataops/pg-last-backup
                  why: a Cluster with backups configured whose last base backup is more than a day old has no recent restore point; none at all means it never had one
  - workload      Deployment dataops/dagster-*: at least one, each rolled out as `kubectl rollout status` says
                  id: dataops/dagster
                  why: the Dagster webserver and daemon run the pipelines
  - workload      Deployment dataops/marquez*: at least one, each rolled out as `kubectl rollout status` says
                  id: dataops/marquez
                  why: Marquez records the pipelines' lineage
== etcd-backup: exit 0
--- stdout
layer     etcd-backup (etcd backup timer)
after     k8s
defined   builtin catalog (src/model/catalog/builtin.yaml):428:3
install   ansible-playbook hardening/etcd-backup.yaml   (printed in the plan, never run)

host (read over ssh on every host of inventory group control_plane; all true: healthy)
  - unit          systemctl show etcd-snapshot.timer: loaded, active
                  id: etcd-backup/timer
  - unit          systemctl show etcd-snapshot.service: loaded, last run success
                  id: etcd-backup/last-run
  - newestFile    the newest /var/lib/etcd-backups/etcd-*.db younger than 26h and at least 1 byte(s) (through sudo -n)
                  id: etcd-backup/newest-snapshot
  - executable    etcdutl, crictl each a regular file in /usr/bin, /usr/local/bin, /usr/sbin (find -maxdepth 1 -type f -name, one per directory)
                  id: etcd-backup/restore-tools
                  why: a snapshot is only a backup where it can be restored: etcd 3.6 restores with etcdutl (etcdctl snapshot restore is gone) and the restore stops the static pods with crictl; the bench lacked crictl (#13) and the restore tool (scenario 09)
== audit-log: exit 0
--- stdout
layer     audit-log (API server audit log)
after     k8s
defined   builtin catalog (src/model/catalog/builtin.yaml):458:3
install   ansible-playbook hardening/audit-log.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - podFlags      kube-apiserver pods (kube-system, component=kube-apiserver) exist
                  id: audit-log/apiserver-pods
                  why: the kube-apiserver static pods are readable through the API

healthy (all true: the layer is healthy)
  - podFlags      every control-plane node's kube-apiserver pod (kube-system, component=kube-apiserver) runs with --audit-policy-file, --audit-log-path
                  id: audit-log/flags
                  why: without both flags the API server records no audit trail; every control plane must log
== encryption-at-rest: exit 0
--- stdout
layer     encryption-at-rest (Secrets encrypted at rest (etcd))
after     k8s
defined   builtin catalog (src/model/catalog/builtin.yaml):471:3
install   ansible-playbook hardening/encryption-at-rest.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - podFlags      kube-apiserver pods (kube-system, component=kube-apiserver) exist
                  id: encryption-at-rest/apiserver-pods
                  why: the kube-apiserver static pods are readable through the API

healthy (all true: the layer is healthy)
  - podFlags      every control-plane node's kube-apiserver pod (kube-system, component=kube-apiserver) runs with --encryption-provider-config
                  id: encryption-at-rest/flags
                  why: enabled at kubeadm init; a control plane without it writes Secrets to etcd in clear
== sshd-hardening: exit 0
--- stdout
layer     sshd-hardening (sshd hardening)
after     -
defined   builtin catalog (src/model/catalog/builtin.yaml):484:3
install   ansible-playbook hardening/sshd.yaml   (printed in the plan, never run)

host (read over ssh on every host of inventory group all; all true: healthy)
  - sshd          sshd -T shows passwordauthentication no, permitrootlogin no|prohibit-password (through sudo -n)
                  id: sshd-hardening/sshd
== os-hardening: exit 0
--- stdout
layer     os-hardening (Host hardening (auditd, fail2ban, postfix, sshd drop-in))
after     -
defined   builtin catalog (src/model/catalog/builtin.yaml):495:3
install   ansible-playbook hardening/os.yaml   (printed in the plan, never run)

host (read over ssh on every host of inventory group all; all true: healthy)
  detected by auditd.service being installed on a host
  - unit          systemctl show auditd.service: loaded, active
                  id: os-hardening/auditd
                  why: the kernel audit trail of every host; the hardening playbook installs and starts it
  - unit          systemctl show fail2ban.service: loaded, active
                  id: os-hardening/fail2ban
                  why: bans the ssh brute-forcing every exposed host sees
  - unit          systemctl show postfix.service: loaded, active
                  id: os-hardening/postfix
                  why: auditd, fail2ban and unattended upgrades mail the operators through the local postfix
  - file          /etc/ssh/sshd_config.d/00-hardening.conf present (find -maxdepth 1 -type f -name)
                  id: os-hardening/sshd-dropin
                  why: the sshd drop-in of the hardening playbook; hosts never hardened lack it ("sshd drop-in absent", scenario 13), and sshd-hardening alone does not say which file set a value
== pod-security: exit 0
--- stdout
layer     pod-security (Pod Security admission on every namespace)
after     k8s
defined   builtin catalog (src/model/catalog/builtin.yaml):522:3
install   ansible-playbook hardening/pod-security.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - namespaceLabel  some namespace labelled pod-security.kubernetes.io/enforce
                  id: pod-security/labeled
                  why: some namespace enforces a Pod Security level, so the platform uses Pod Security admission

healthy (all true: the layer is healthy)
  - namespaceLabel  every namespace except kube-system, kube-public, kube-node-lease, rook-ceph, cilium-secrets labelled pod-security.kubernetes.io/enforce = baseline or restricted; the others are named
                  id: pod-security/enforced
                  why: a namespace without `enforce: baseline` or `restricted` admits privileged pods; the system namespaces that need privileged pods (the CNI, Ceph's OSDs) are exempt
== kube-proxy-replacement: exit 0
--- stdout
layer     kube-proxy-replacement (Cilium kube-proxy replacement (kube-proxy removed))
after     cni
defined   builtin catalog (src/model/catalog/builtin.yaml):543:3
install   ansible-playbook platform/cilium.yaml -e kube_proxy_replacement=true   (printed in the plan, never run)

detect (any true: the layer exists)
  - configMapKey  ConfigMap kube-system/cilium-config (read by name) has kube-proxy-replacement = true or strict
                  id: kube-proxy-replacement/enabled
                  why: cilium-config says Cilium serves Services itself (`strict` is the pre-1.14 spelling)

healthy (all true: the layer is healthy)
  - absent        no DaemonSet kube-system/kube-proxy: two service datapaths
                  id: kube-proxy-replacement/no-kube-proxy
                  why: bench #23: with the replacement on and kube-proxy still running, Services were programmed twice, by Cilium's eBPF and by kube-proxy's iptables
  - absent        no ConfigMap kube-system/kube-proxy (read by name): the next kubeadm upgrade reinstalls kube-proxy
                  id: kube-proxy-replacement/no-kube-proxy-config
                  why: deleting only the DaemonSet is not enough: `kubeadm upgrade` re-creates kube-proxy while its ConfigMap kube-system/kube-proxy exists
  - configMapKey  ConfigMap kube-system/cilium-config (read by name) has kube-proxy-replacement = true
                  id: kube-proxy-replacement/boolean-setting
                  why: Cilium 1.14 made the setting a boolean and deprecated `strict`; agents that read `strict` do not enable everything `true` does (cilium/cilium#32711)
== hubble: exit 0
--- stdout
layer     hubble (Hubble (Cilium flow observability))
after     cni
defined   builtin catalog (src/model/catalog/builtin.yaml):578:3
install   ansible-playbook platform/cilium.yaml -e hubble=true   (printed in the plan, never run)

detect (any true: the layer exists)
  - configMapKey  ConfigMap kube-system/cilium-config (read by name) has enable-hubble = true
                  id: hubble/enabled
                  why: cilium-config turns Hubble on in every agent

healthy (all true: the layer is healthy)
  - workload      Deployment kube-system/hubble-relay: at least one, each rolled out as `kubectl rollout status` says
                  id: hubble/relay
                  why: the relay gathers the agents' flows; without it `hubble observe` and the UI see nothing
== cni-encryption: exit 0
--- stdout
layer     cni-encryption (Cilium WireGuard encryption (really active))
after     cni
defined   builtin catalog (src/model/catalog/builtin.yaml):591:3
install   ansible-playbook platform/cilium.yaml -e wireguard=true   (printed in the plan, never run)

detect (any true: the layer exists)
  - configMapKey  ConfigMap kube-system/cilium-config (read by name) has enable-wireguard = true
                  id: cni-encryption/enabled
                  why: cilium-config asks every agent to encrypt pod traffic with WireGuard

healthy (all true: the layer is healthy)
  - annotated     every CiliumNode carries the annotation network.cilium.io/wg-pub-key (or its older spelling io.cilium.network.wg-pub-key), no two with the same value; one per registered node, by its name; the ones that fail are named
                  id: cni-encryption/wireguard-keys
                  why: each agent that encrypts publishes its node's own WireGuard public key on its CiliumNode (older agents as io.cilium.network.wg-pub-key); a node without one sends and receives in clear, two nodes with one key cannot both be peers
  - startedAfter  every running cilium-agent container of the pods of kube-system with k8s-app=cilium started after ConfigMap kube-system/cilium-config last changed (its newest metadata.managedFields[].time); else: restart DaemonSet cilium
                  id: cni-encryption/agents-restarted
                  why: an agent reads cilium-config when it starts; one started before the config's last write runs the configuration of before it (bench #16: WireGuard on in the ConfigMap, off in the agents)
== network-policy: exit 0
--- stdout
layer     network-policy (Default-deny ingress NetworkPolicy in every namespace)
after     cni
defined   builtin catalog (src/model/catalog/builtin.yaml):623:3
install   ansible-playbook hardening/network-policy.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - resource      a NetworkPolicy exists
                  id: network-policy/policies
                  why: some NetworkPolicy exists, so the platform uses network policies
  - resource      a CiliumNetworkPolicy exists
                  id: network-policy/cilium-policies
                  why: some CiliumNetworkPolicy exists, so the platform uses network policies

healthy (all true: the layer is healthy)
  - defaultDenyIngress  every namespace except kube-system, kube-public, kube-node-lease, rook-ceph, cilium-secrets has a default-deny ingress policy (a NetworkPolicy with an empty podSelector, Ingress among its policyTypes and no ingress rule: `ingress: [{}]` allows all; or a CiliumNetworkPolicy with an empty endpointSelector and an ingress section); the others are named
                  id: network-policy/default-deny
                  why: a namespace without a default-deny ingress policy accepts traffic from every pod of the cluster; the system namespaces are exempt
  - configMapKey  ConfigMap kube-system/cilium-config (read by name) does not have enable-policy = never (a missing ConfigMap or key holds)
                  id: network-policy/policy-enforced
                  why: with `enable-policy: never` Cilium ignores every NetworkPolicy and CiliumNetworkPolicy

"#]]);
}

#[test]
fn show_ceph_and_gitops_in_words() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let text = stdout_of(&run(&bed, &["catalog", "show", "ceph"]));
    assert!(
        text.starts_with("layer     ceph (Rook-Ceph cluster)\nafter     cni\n"),
        "{text}"
    );
    text_snap(
        &text,
        str![[r#"
layer     ceph (Rook-Ceph cluster)
after     cni
defined   builtin catalog (src/model/catalog/builtin.yaml):82:3
install   ansible-playbook platform/ceph.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - apiGroup      API group ceph.rook.io served
                  id: ceph/api

healthy (all true: the layer is healthy)
  - tolerate      every CephCluster in rook-ceph: .status.ceph.health = HEALTH_OK, or HEALTH_WARN whose every check in .status.ceph.details is benign (RECENT_MGR_MODULE_CRASH); not trusted when .status.ceph.lastChecked is older than 10m
                  id: ceph/health
                  why: the operators' gate: HEALTH_OK, or HEALTH_WARN whose only checks are benign; RECENT_MGR_MODULE_CRASH is the mgr prometheus module's known start-up race and made a strict HEALTH_OK gate fail on healthy clusters
  - workload      Deployment rook-ceph/rook-ceph-mon-*: at least one, each rolled out as `kubectl rollout status` says
                  id: ceph/mons
                  why: the mons hold the cluster map; a mon that is not rolled out costs quorum margin
  - count         at least as many Deployment rook-ceph/rook-ceph-mon-* as CephCluster in rook-ceph .spec.mon.count says (the operator's default 3 when it is absent)
                  id: ceph/mon-count
                  why: as many mons as the CephCluster asks for (.spec.mon.count, which Rook defaults to 3), or quorum is at risk
  - workload      Deployment rook-ceph/rook-ceph-osd-*: at least one, each rolled out as `kubectl rollout status` says
                  id: ceph/osds
                  why: every OSD must run the current version; a stalled OSD rollout leaves data degraded
  - configMap     ConfigMap rook-ceph/rook-ceph-mon-endpoints (read by name): key outOfQuorum empty or absent
                  id: ceph/mon-quorum
                  why: Rook lists there the mons out of quorum; a mon Deployment can be rolled out while its mon is not in quorum
  - oneVersion    one version across Deployment rook-ceph/rook-ceph-* (label rook-version) (else: upgrade half done)
                  id: ceph/one-version
                  why: Rook labels each daemon's Deployment with the rook-version that last updated it; a mix is an upgrade half done (Rook's upgrade guide waits until every Deployment shows one)
  - distinctNodes  the pods of rook-ceph with app=rook-ceph-mon run on at least 3 distinct nodes when the cluster has 3 or more (each node named with its pods' ceph_daemon_id; unscheduled pods named, not counted); else: failureDomain: host is a promise the placement does not keep
                  id: ceph/mon-placement
                  why: two mons on one node lose quorum with that node; Rook's allowMultiplePerNode or a scheduling constraint can stack them silently while every mon Deployment is rolled out
  - distinctNodes  the pods of rook-ceph with app=rook-ceph-osd run on at least 3 distinct nodes when the cluster has 3 or more (each node named with its pods' ceph_daemon_id; unscheduled pods named, not counted); else: failureDomain: host is a promise the placement does not keep
                  id: ceph/osd-placement
                  why: a size-3 pool with failureDomain host needs OSDs on 3 hosts; with fewer, its placement groups stay undersized and one node's loss can take every copy

"#]],
    );
    let text = stdout_of(&run(&bed, &["catalog", "show", "gitops"]));
    text_snap(
        &text,
        str![[r#"
layer     gitops (GitOps (Argo CD + Gitea))
after     storage
defined   builtin catalog (src/model/catalog/builtin.yaml):339:3
install   ansible-playbook platform/gitops.yaml   (printed in the plan, never run)

detect (any true: the layer exists)
  - apiGroup      API group argoproj.io served
                  id: gitops/api

healthy (all true: the layer is healthy)
  - workload      Deployment argocd/argocd-server: at least one, each rolled out as `kubectl rollout status` says
                  id: gitops/server
                  why: the API and UI
  - workload      Deployment argocd/argocd-repo-server: at least one, each rolled out as `kubectl rollout status` says
                  id: gitops/repo-server
                  why: renders manifests from git; without it nothing syncs
  - workload      StatefulSet argocd/argocd-application-controller: at least one, each rolled out as `kubectl rollout status` says
                  id: gitops/application-controller
                  why: reconciles Applications
  - workload      Deployment gitea/gitea: at least one, each rolled out as `kubectl rollout status` says
                  id: gitops/gitea
                  why: the git server Argo CD pulls from
  - all           every Application (none is fine): .status.sync.status = Synced; the ones that fail are named
                  id: gitops/apps-synced
                  why: an OutOfSync Application means the cluster is not what git says
  - all           every Application (none is fine): .status.health.status = Healthy; the ones that fail are named
                  id: gitops/apps-healthy
                  why: Argo CD's own health of what it deployed (Degraded, Missing, Progressing are not healthy)
  - all           every Application (none is fine): .status.operationState.phase not in [Failed, Error] (a failure quotes .status.operationState.message); the ones that fail are named
                  id: gitops/apps-last-operation
                  why: a sync whose operation Failed or Errored (a hook that failed, a manifest the API server refused) can leave the Application Synced and Healthy by the resources it did apply while the change it was asked for never landed; Argo CD retries it, nestor says so
  - all           every Application (none is fine): none of the conditions ComparisonError, InvalidSpecError, SyncError, DeletionError, UnknownError present; the ones that fail are named
                  id: gitops/apps-no-error-conditions
                  why: Argo CD could not compare, sync or delete the Application (a repository it cannot reach, a manifest that does not render, a spec it refuses): until that clears, what git says never reaches the cluster, whatever the last sync status still reads

"#]],
    );
    let text = stdout_of(&run(&bed, &["catalog", "show", "etcd-backup"]));
    text_snap(
        &text,
        str![[r#"
layer     etcd-backup (etcd backup timer)
after     k8s
defined   builtin catalog (src/model/catalog/builtin.yaml):428:3
install   ansible-playbook hardening/etcd-backup.yaml   (printed in the plan, never run)

host (read over ssh on every host of inventory group control_plane; all true: healthy)
  - unit          systemctl show etcd-snapshot.timer: loaded, active
                  id: etcd-backup/timer
  - unit          systemctl show etcd-snapshot.service: loaded, last run success
                  id: etcd-backup/last-run
  - newestFile    the newest /var/lib/etcd-backups/etcd-*.db younger than 26h and at least 1 byte(s) (through sudo -n)
                  id: etcd-backup/newest-snapshot
  - executable    etcdutl, crictl each a regular file in /usr/bin, /usr/local/bin, /usr/sbin (find -maxdepth 1 -type f -name, one per directory)
                  id: etcd-backup/restore-tools
                  why: a snapshot is only a backup where it can be restored: etcd 3.6 restores with etcdutl (etcdctl snapshot restore is gone) and the restore stops the static pods with crictl; the bench lacked crictl (#13) and the restore tool (scenario 09)

"#]],
    );
}

#[test]
fn unknown_layer_is_exit_1_with_did_you_mean() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let before = bed.tree();
    let out = run(&bed, &["catalog", "show", "gitop"]);
    out.code(1);
    assert_eq!(
        stderr_of(&out),
        "kubectl-nestor: error: no layer `gitop` in the catalog (did you mean `gitops`?)\nhint: `kubectl nestor catalog list` shows the layer ids\n"
    );
    out.no_stdout();
    assert_eq!(bed.tree(), before, "nothing written");
}

/// The stack's `catalog:` file overrides a layer and adds one; both show, and the source
/// names the file.
#[test]
fn overrides_from_the_stacks_catalog_file_show() {
    let bed = Bed::new();
    std::fs::write(
        bed.stacks.join("layers.yaml"),
        "- id: registry\n  title: Harbor\n  after: [storage]\n  detect:\n    - namespace: harbor\n  healthy:\n    - workload: {kind: Deployment, namespace: harbor, namePrefix: harbor-}\n      why: every Harbor component rolled out\n  install: make harbor\n- id: vault\n  title: Vault\n  after: [certs]\n  detect:\n    - apiGroup: secrets.hashicorp.com\n  install: make vault\n",
    )
    .expect("write");
    bed.write_stack(
        "lab",
        "name: lab\ntarget_kind: prod\nnodes:\n  - { name: n1, role: control-plane }\nlayers: [k8s, registry, vault]\ncatalog: layers.yaml\n",
    );
    bed.select("lab");
    let v = json(&run(&bed, &["catalog", "list", "-o", "json"]));
    assert!(
        v["source"]["overrides"]
            .as_str()
            .unwrap_or("")
            .ends_with("stacks/layers.yaml"),
        "{v}"
    );
    let ids: Vec<&str> = v["layers"]
        .as_array()
        .expect("layers")
        .iter()
        .filter_map(|l| l["id"].as_str())
        .collect();
    assert_eq!(ids.last(), Some(&"vault"));
    let text = stdout_of(&run(&bed, &["catalog", "show", "registry"]));
    text_snap(
        &text,
        str![[r#"
layer     registry (Harbor)
after     storage
defined   /tmp/.tmpXXXXXX/repo/stacks/layers.yaml:1:3
install   make harbor   (printed in the plan, never run)

detect (any true: the layer exists)
  - namespace     namespace harbor exists
                  id: registry/detect-1

healthy (all true: the layer is healthy)
  - workload      Deployment harbor/harbor-*: at least one, each rolled out as `kubectl rollout status` says
                  id: registry/healthy-1
                  why: every Harbor component rolled out

"#]],
    );
}

/// Without any stack (no stacks directory), the built-in catalog is shown, with a notice.
#[test]
fn without_a_stack_the_builtin_catalog_shows_with_a_notice() {
    let bed = Bed::new();
    let out = bed
        .cmd()
        .current_dir(bed.tmp.path())
        .args(["catalog", "list", "-o", "json"])
        .run();
    let v = json(&out);
    assert_eq!(v["source"]["stack"], Value::Null);
    out.stderr_has("showing the built-in catalog");
    // Naming a stack that does not exist is an error, not the built-in catalog.
    let out = run(&bed, &["--stack", "nope", "catalog", "list"]);
    out.code(1);
}

/// A host check's age bound reads as the catalog writes it (`maxAge: 26h`), not in seconds.
#[test]
fn show_words_the_age_bound_as_a_duration() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let out = run(&bed, &["catalog", "show", "etcd-backup"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    out.stdout_snap(str![[r#"
layer     etcd-backup (etcd backup timer)
after     k8s
defined   builtin catalog (src/model/catalog/builtin.yaml):428:3
install   ansible-playbook hardening/etcd-backup.yaml   (printed in the plan, never run)

host (read over ssh on every host of inventory group control_plane; all true: healthy)
  - unit          systemctl show etcd-snapshot.timer: loaded, active
                  id: etcd-backup/timer
  - unit          systemctl show etcd-snapshot.service: loaded, last run success
                  id: etcd-backup/last-run
  - newestFile    the newest /var/lib/etcd-backups/etcd-*.db younger than 26h and at least 1 byte(s) (through sudo -n)
                  id: etcd-backup/newest-snapshot
  - executable    etcdutl, crictl each a regular file in /usr/bin, /usr/local/bin, /usr/sbin (find -maxdepth 1 -type f -name, one per directory)
                  id: etcd-backup/restore-tools
                  why: a snapshot is only a backup where it can be restored: etcd 3.6 restores with etcdutl (etcdctl snapshot restore is gone) and the restore stops the static pods with crictl; the bench lacked crictl (#13) and the restore tool (scenario 09)

"#]]);
}

/// Ceph's capacity codes are never benign (SPEC §6 v0.4): a stack catalog that says so is
/// refused by every command that reads it, with the file position, and nothing is read or
/// written.
#[test]
fn a_capacity_code_on_the_benign_list_is_refused_exit_1() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    std::fs::write(
        bed.stacks.join("layers.yaml"),
        "- id: ceph\n  title: Rook-Ceph cluster\n  detect:\n    - apiGroup: ceph.rook.io\n  healthy:\n    - tolerate: {resource: cephclusters.ceph.rook.io, kind: CephCluster, namespace: rook-ceph, field: .status.ceph.health, ok: [HEALTH_OK], warn: HEALTH_WARN, details: .status.ceph.details, benign: [RECENT_MGR_MODULE_CRASH, OSD_NEARFULL]}\n  install: ansible-playbook platform/ceph.yaml\n",
    )
    .expect("write");
    let topology = PROD_DECLARED.replace("layers:", "catalog: layers.yaml\nlayers:");
    bed.write_stack("dirqual", &topology);
    let before = bed.tree();
    for args in [
        &["--stack", "dirqual", "catalog", "show", "ceph"][..],
        &["preview", "--no-input"],
    ] {
        let out = bed.stable(run(&bed, args));
        out.code(1);
        out.no_stdout();
        assert_eq!(
            stderr_of(&out),
            "kubectl-nestor: error: /t/repo/stacks/layers.yaml:6:5: [0].healthy: `benign: [OSD_NEARFULL]`: OSD_NEARFULL is a capacity warning and never benign (OSD_NEARFULL, OSD_BACKFILLFULL, OSD_FULL, POOL_NEARFULL, POOL_FULL): a cluster filling up is repaired, not tolerated; remove it from `benign:`\nhint: a catalog file is a YAML list of layers: `- id:`, `title:`, `after:`, `detect:`, `healthy:`, `install:`, `observable:`, `host:` (the built-in catalog, src/model/catalog/builtin.yaml, is the example)\n",
            "{args:?}"
        );
    }
    assert_eq!(bed.tree(), before, "nothing written");
    assert!(bed.requests().is_empty(), "{:?}", bed.requests());
}
