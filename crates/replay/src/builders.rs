//! The builders every fixture is made of, with no knowledge of any scenario: Kubernetes
//! objects shaped as the API server and the controllers write them (Node, Namespace,
//! workloads, StorageClass, CRDs and their schemas, custom objects, pods), the [`Builder`]
//! that gathers objects with the custom types they need, and the times and the version the
//! fixtures share. Scenario modules use these; these use no scenario module.

use crate::fixture::{Fixture, ResourceType};
use serde_json::{json, Map, Value};

pub(crate) const K8S_VERSION: &str = "v1.31.4";
pub(crate) const T_INSTALL: &str = "2025-01-15T09:00:00Z";
pub(crate) const T_CILIUM: &str = "2025-01-15T09:12:31Z";
pub(crate) const T_CEPH: &str = "2025-01-15T10:03:17Z";
pub(crate) const T_LAYERS: &str = "2025-01-16T08:40:02Z";
pub(crate) const T_DATA: &str = "2025-02-03T14:21:45Z";
/// When the objects of the deletion scenarios were deleted.
pub const T_DELETED: &str = "2026-11-30T22:14:05Z";

fn version_body(git: &str) -> Value {
    let minor = git
        .trim_start_matches('v')
        .split('.')
        .nth(1)
        .unwrap_or("31");
    json!({
        "major": "1",
        "minor": minor,
        "gitVersion": git,
        "gitCommit": "a78aa47129b8539636eb86a9d00e31b2720fe06b",
        "gitTreeState": "clean",
        "buildDate": "2024-12-10T18:05:09Z",
        "goVersion": "go1.22.10",
        "compiler": "gc",
        "platform": "linux/amd64"
    })
}

/// Node shape: control plane or worker, Ready or not.
pub struct NodeSpec<'a> {
    /// Node name.
    pub name: &'a str,
    /// InternalIP.
    pub ip: &'a str,
    /// Carries the control-plane role and taint.
    pub control_plane: bool,
    /// Ready=True, or Ready=Unknown with the unreachable taints.
    pub ready: bool,
    /// Kubelet version.
    pub kubelet: &'a str,
    /// `/etc/os-release` pretty name.
    pub os_image: &'a str,
    /// `uname -r`.
    pub kernel: &'a str,
    /// Pod CIDR.
    pub pod_cidr: &'a str,
    /// CPU count.
    pub cpus: u32,
    /// Memory in KiB.
    pub memory_ki: u64,
}

/// A Node object like the kubelet registers it.
pub fn node(n: &NodeSpec) -> Value {
    let mut labels = Map::new();
    for (k, v) in [
        ("beta.kubernetes.io/arch", "amd64"),
        ("beta.kubernetes.io/os", "linux"),
        ("kubernetes.io/arch", "amd64"),
        ("kubernetes.io/hostname", n.name),
        ("kubernetes.io/os", "linux"),
    ] {
        labels.insert(k.into(), json!(v));
    }
    let mut taints = Vec::new();
    if n.control_plane {
        labels.insert("node-role.kubernetes.io/control-plane".into(), json!(""));
        labels.insert(
            "node.kubernetes.io/exclude-from-external-load-balancers".into(),
            json!(""),
        );
        taints
            .push(json!({"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}));
    }
    let hb = "2025-03-02T07:41:10Z";
    let cond = |t: &str, st: &str, reason: &str, msg: &str| {
        json!({
            "type": t, "status": st, "reason": reason, "message": msg,
            "lastHeartbeatTime": hb, "lastTransitionTime": T_INSTALL,
        })
    };
    let mut conditions = if n.ready {
        vec![
            cond(
                "MemoryPressure",
                "False",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available",
            ),
            cond(
                "DiskPressure",
                "False",
                "KubeletHasNoDiskPressure",
                "kubelet has no disk pressure",
            ),
            cond(
                "PIDPressure",
                "False",
                "KubeletHasSufficientPID",
                "kubelet has sufficient PID available",
            ),
            cond(
                "Ready",
                "True",
                "KubeletReady",
                "kubelet is posting ready status",
            ),
        ]
    } else {
        let gone = "Kubelet stopped posting node status.";
        vec![
            cond("MemoryPressure", "Unknown", "NodeStatusUnknown", gone),
            cond("DiskPressure", "Unknown", "NodeStatusUnknown", gone),
            cond("PIDPressure", "Unknown", "NodeStatusUnknown", gone),
            cond("Ready", "Unknown", "NodeStatusUnknown", gone),
        ]
    };
    if !n.ready {
        for c in &mut conditions {
            c["lastTransitionTime"] = json!("2025-03-02T06:58:44Z");
            c["lastHeartbeatTime"] = json!("2025-03-02T06:53:02Z");
        }
        taints.push(json!({"effect": "NoSchedule", "key": "node.kubernetes.io/unreachable", "timeAdded": "2025-03-02T06:58:44Z"}));
        taints.push(json!({"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "timeAdded": "2025-03-02T06:58:49Z"}));
    }
    let mut spec = json!({ "podCIDR": n.pod_cidr, "podCIDRs": [n.pod_cidr] });
    if !taints.is_empty() {
        spec["taints"] = json!(taints);
    }
    let mem = format!("{}Ki", n.memory_ki);
    let alloc_mem = format!("{}Ki", n.memory_ki.saturating_sub(102_400));
    let id = crate::fixture::uid_for(n.name).replace('-', "");
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": n.name,
            "labels": labels,
            "annotations": {
                "kubeadm.alpha.kubernetes.io/cri-socket": "unix:///var/run/containerd/containerd.sock",
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true"
            },
            "creationTimestamp": T_INSTALL,
        },
        "spec": spec,
        "status": {
            "addresses": [
                {"type": "InternalIP", "address": n.ip},
                {"type": "Hostname", "address": n.name}
            ],
            "allocatable": {"cpu": n.cpus.to_string(), "ephemeral-storage": "450570684636", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": alloc_mem, "pods": "110"},
            "capacity": {"cpu": n.cpus.to_string(), "ephemeral-storage": "488903712Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": mem, "pods": "110"},
            "conditions": conditions,
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": crate::fixture::uid_for(&format!("boot/{}", n.name)),
                "containerRuntimeVersion": "containerd://1.7.24",
                "kernelVersion": n.kernel,
                "kubeProxyVersion": "",
                "kubeletVersion": n.kubelet,
                "machineID": &id[..32.min(id.len())],
                "operatingSystem": "linux",
                "osImage": n.os_image,
                "systemUUID": crate::fixture::uid_for(&format!("system/{}", n.name)).to_uppercase()
            }
        }
    })
}

/// A Namespace, Active.
pub fn namespace(name: &str, created: &str) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": name,
            "labels": {"kubernetes.io/metadata.name": name},
            "creationTimestamp": created,
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"}
    })
}

fn template(app: &str, image: &str) -> Value {
    let name = image
        .rsplit('/')
        .next()
        .unwrap_or(app)
        .split(':')
        .next()
        .unwrap_or(app);
    json!({
        "metadata": {"labels": {"app.kubernetes.io/name": app}},
        "spec": {
            "containers": [{
                "name": name,
                "image": image,
                "imagePullPolicy": "IfNotPresent",
                "resources": {},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File"
            }],
            "dnsPolicy": "ClusterFirst",
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "securityContext": {},
            "terminationGracePeriodSeconds": 30
        }
    })
}

fn workload_meta(ns: &str, name: &str, created: &str, generation: i64) -> Value {
    json!({
        "name": name,
        "namespace": ns,
        "labels": {"app.kubernetes.io/name": name},
        "generation": generation,
        "creationTimestamp": created,
    })
}

/// A Deployment with `ready` of `replicas` pods ready.
pub fn deployment(
    ns: &str,
    name: &str,
    image: &str,
    replicas: i64,
    ready: i64,
    created: &str,
) -> Value {
    let mut status = json!({
        "observedGeneration": 1,
        "replicas": replicas,
        "updatedReplicas": replicas,
        "conditions": [
            {"type": "Available", "status": if ready >= replicas { "True" } else { "False" },
             "reason": if ready >= replicas { "MinimumReplicasAvailable" } else { "MinimumReplicasUnavailable" },
             "message": if ready >= replicas { "Deployment has minimum availability." } else { "Deployment does not have minimum availability." },
             "lastTransitionTime": created, "lastUpdateTime": created},
            {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable",
             "message": format!("ReplicaSet \"{name}-5d8c7b9f6d\" has successfully progressed."),
             "lastTransitionTime": created, "lastUpdateTime": created}
        ]
    });
    if ready > 0 {
        status["readyReplicas"] = json!(ready);
        status["availableReplicas"] = json!(ready);
    }
    if ready < replicas {
        status["unavailableReplicas"] = json!(replicas - ready);
    }
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": workload_meta(ns, name, created, 1),
        "spec": {
            "replicas": replicas,
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "template": template(name, image)
        },
        "status": status
    })
}

/// A DaemonSet scheduled on `desired` nodes, `ready` of them ready.
pub fn daemonset(
    ns: &str,
    name: &str,
    image: &str,
    desired: i64,
    ready: i64,
    created: &str,
) -> Value {
    let mut status = json!({
        "currentNumberScheduled": desired,
        "desiredNumberScheduled": desired,
        "numberMisscheduled": 0,
        "numberReady": ready,
        "numberAvailable": ready,
        "observedGeneration": 1,
        "updatedNumberScheduled": desired
    });
    if ready < desired {
        status["numberUnavailable"] = json!(desired - ready);
    }
    let mut tpl = template(name, image);
    tpl["spec"]["nodeSelector"] = json!({"kubernetes.io/os": "linux"});
    json!({
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": workload_meta(ns, name, created, 1),
        "spec": {
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "template": tpl,
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}
        },
        "status": status
    })
}

/// A StatefulSet with `ready` of `replicas` pods ready.
pub fn statefulset(
    ns: &str,
    name: &str,
    image: &str,
    replicas: i64,
    ready: i64,
    created: &str,
) -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": workload_meta(ns, name, created, 1),
        "spec": {
            "replicas": replicas,
            "serviceName": name,
            "podManagementPolicy": "Parallel",
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "template": template(name, image),
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
        },
        "status": {
            "availableReplicas": ready,
            "currentReplicas": replicas,
            "observedGeneration": 1,
            "readyReplicas": ready,
            "replicas": replicas,
            "updatedReplicas": replicas,
            "collisionCount": 0
        }
    })
}

/// A StorageClass, marked default when asked.
pub fn storage_class(
    name: &str,
    provisioner: &str,
    default: bool,
    parameters: Value,
    created: &str,
) -> Value {
    let mut md = json!({"name": name, "creationTimestamp": created});
    if default {
        md["annotations"] = json!({"storageclass.kubernetes.io/is-default-class": "true"});
    }
    json!({
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": md,
        "provisioner": provisioner,
        "parameters": parameters,
        "reclaimPolicy": "Delete",
        "allowVolumeExpansion": true,
        "volumeBindingMode": "Immediate"
    })
}

/// Description of a custom type for [`crd`].
pub struct CrdSpec<'a> {
    /// API group.
    pub group: &'a str,
    /// Served (and storage) version.
    pub version: &'a str,
    /// Kind.
    pub kind: &'a str,
    /// Plural.
    pub plural: &'a str,
    /// Namespaced scope.
    pub namespaced: bool,
    /// Short names.
    pub short: &'a [&'a str],
    /// Categories.
    pub categories: &'a [&'a str],
    /// `additionalPrinterColumns`: (name, type, jsonPath).
    pub columns: &'a [(&'a str, &'a str, &'a str)],
}

/// A CustomResourceDefinition, Established, with the given OpenAPI v3 schema.
pub fn crd(c: &CrdSpec, schema: Value, created: &str) -> Value {
    let singular = c.kind.to_ascii_lowercase();
    let mut names = json!({
        "kind": c.kind,
        "listKind": format!("{}List", c.kind),
        "plural": c.plural,
        "singular": singular,
    });
    if !c.short.is_empty() {
        names["shortNames"] = json!(c.short);
    }
    if !c.categories.is_empty() {
        names["categories"] = json!(c.categories);
    }
    let mut version = json!({
        "name": c.version,
        "served": true,
        "storage": true,
        "schema": {"openAPIV3Schema": schema},
        "subresources": {"status": {}},
    });
    if !c.columns.is_empty() {
        let cols: Vec<Value> = c
            .columns
            .iter()
            .map(|(n, t, p)| json!({"name": n, "type": t, "jsonPath": p}))
            .collect();
        version["additionalPrinterColumns"] = json!(cols);
    }
    let name = format!("{}.{}", c.plural, c.group);
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": name,
            "generation": 1,
            "creationTimestamp": created,
        },
        "spec": {
            "group": c.group,
            "names": names,
            "scope": if c.namespaced { "Namespaced" } else { "Cluster" },
            "versions": [version],
            "conversion": {"strategy": "None"}
        },
        "status": {
            "acceptedNames": names,
            "conditions": [
                {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "message": "no conflicts found", "lastTransitionTime": created},
                {"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted", "lastTransitionTime": created}
            ],
            "storedVersions": [c.version]
        }
    })
}

pub(crate) fn small_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
        }
    })
}

/// An OpenAPI v3 schema of about `kb` KB, deterministic, shaped like a generated operator
/// schema (nested objects, long descriptions).
pub fn big_schema(seed: usize, kb: usize) -> Value {
    let desc = "Specifies the desired behaviour of this field as reconciled by the controller; \
                when unset the operator default applies and is reported back in status. \
                Changing it triggers a rolling update of the managed workloads.";
    let mut groups = Map::new();
    // Each leaf property serializes to about 295 bytes.
    let leaves = kb * 1024 / 295;
    let per_group = 20;
    for g in 0..leaves.div_ceil(per_group) {
        let mut props = Map::new();
        for p in 0..per_group.min(leaves - g * per_group) {
            let ty = ["string", "integer", "boolean", "string"][(seed + g + p) % 4];
            props.insert(
                format!("setting{p:02}Of{g:02}"),
                json!({"type": ty, "description": format!("{desc} ({seed}.{g}.{p})")}),
            );
        }
        groups.insert(
            format!("section{g:02}"),
            json!({"type": "object", "description": desc, "properties": props}),
        );
    }
    json!({
        "description": format!("Generated resource {seed}"),
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": groups},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
        }
    })
}

/// A custom object.
pub fn custom(
    api_version: &str,
    kind: &str,
    ns: Option<&str>,
    name: &str,
    spec: Value,
    status: Value,
    created: &str,
) -> Value {
    let mut md = json!({"name": name, "generation": 1, "creationTimestamp": created});
    if let Some(ns) = ns {
        md["namespace"] = json!(ns);
    }
    json!({"apiVersion": api_version, "kind": kind, "metadata": md, "spec": spec, "status": status})
}

/// Fixture under construction: objects plus the custom types they need.
#[derive(Default)]
pub(crate) struct Builder {
    pub(crate) resources: Vec<ResourceType>,
    pub(crate) objects: Vec<Value>,
}

impl Builder {
    pub(crate) fn obj(&mut self, o: Value) {
        self.objects.push(o);
    }

    pub(crate) fn ns(&mut self, name: &str, created: &str) {
        self.obj(namespace(name, created));
    }

    /// Registers a custom type: its CRD object and its `resources` entry.
    pub(crate) fn crd(&mut self, c: &CrdSpec, schema: Value, created: &str) {
        self.obj(crd(c, schema, created));
        self.resources.push(ResourceType {
            group: c.group.into(),
            version: c.version.into(),
            kind: c.kind.into(),
            plural: c.plural.into(),
            singular: c.kind.to_ascii_lowercase(),
            namespaced: c.namespaced,
            verbs: crate::fixture::ALL_VERBS
                .iter()
                .map(|v| v.to_string())
                .collect(),
            short_names: c.short.iter().map(|s| s.to_string()).collect(),
            categories: c.categories.iter().map(|s| s.to_string()).collect(),
            printer_columns: vec![],
            subresources: vec!["status".into()],
        });
    }

    pub(crate) fn crds(
        &mut self,
        group: &str,
        version: &str,
        namespaced: bool,
        kinds: &[(&str, &str)],
        created: &str,
    ) {
        for (kind, plural) in kinds {
            self.crd(
                &CrdSpec {
                    group,
                    version,
                    kind,
                    plural,
                    namespaced,
                    short: &[],
                    categories: &[],
                    columns: &[],
                },
                small_schema(),
                created,
            );
        }
    }

    pub(crate) fn finish(self, version: &str) -> Fixture {
        Fixture {
            version: Some(version_body(version)),
            resources: self.resources,
            objects: self.objects,
        }
    }
}

/// The objects of a fixture matching `kind` and `name`.
pub(crate) fn find<'a>(
    f: &'a mut Fixture,
    kind: &str,
    name: &str,
) -> impl Iterator<Item = &'a mut Value> {
    let (kind, name) = (kind.to_string(), name.to_string());
    f.objects
        .iter_mut()
        .filter(move |o| o["kind"] == kind.as_str() && o["metadata"]["name"] == name.as_str())
}

/// The volume name the external-provisioner gives a claim: `pvc-` and the claim's uid.
pub(crate) fn uid(namespace: &str, name: &str) -> String {
    let h = format!("{namespace}/{name}")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    format!(
        "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
        h >> 32,
        (h >> 16) & 0xffff,
        h & 0xfff,
        (h >> 4) & 0xfff,
        h & 0xffff_ffff_ffff
    )
}

/// A running, ready pod on `node`, controlled by `owner` (kind, name).
pub fn pod(
    ns: &str,
    name: &str,
    node: &str,
    labels: Value,
    owner: (&str, &str),
    image: &str,
) -> Value {
    let api = match owner.0 {
        "Node" => "v1",
        "Cluster" => "postgresql.cnpg.io/v1",
        _ => "apps/v1",
    };
    let mut md = json!({
        "name": name, "namespace": ns, "creationTimestamp": T_CEPH, "labels": labels,
        "ownerReferences": [{"apiVersion": api, "kind": owner.0, "name": owner.1,
                             "uid": format!("uid-{}", owner.1), "controller": true, "blockOwnerDeletion": true}]
    });
    if owner.0 == "Node" {
        md["annotations"] =
            json!({"kubernetes.io/config.mirror": "3f8a", "kubernetes.io/config.source": "file"});
    }
    json!({
        "apiVersion": "v1", "kind": "Pod", "metadata": md,
        "spec": {
            "nodeName": node,
            "containers": [{"name": "main", "image": image,
                            "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}],
            "volumes": [{"name": "kube-api-access", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}}]
        },
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": T_CEPH}],
            "startTime": T_CEPH
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_schema_is_about_the_asked_size() {
        let n = serde_json::to_string(&big_schema(7, 100))
            .expect("json")
            .len();
        assert!((90_000..120_000).contains(&n), "{n}");
    }
}
