//! Server-side printing: `meta.k8s.io/v1 Table` responses with the columns the real
//! apiserver prints for the built-in types, `additionalPrinterColumns` for custom types,
//! and the helpers they need (a small JSONPath, RFC 3339 parsing, human ages).

use crate::fixture::{PrinterColumn, ResourceType};
use serde_json::{json, Value};
use std::time::{SystemTime, UNIX_EPOCH};

/// How much of each object a Table row carries (`includeObject` query parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncludeObject {
    /// No object.
    None,
    /// `PartialObjectMetadata` (the apiserver's default).
    Metadata,
    /// The full object.
    Object,
}

impl IncludeObject {
    /// Parses the `includeObject` query value; `Metadata` when absent or unknown.
    pub fn parse(v: Option<&str>) -> IncludeObject {
        match v {
            Some("None") => IncludeObject::None,
            Some("Object") => IncludeObject::Object,
            _ => IncludeObject::Metadata,
        }
    }
}

fn col(name: &str, type_: &str, format: &str, priority: i64, description: &str) -> Value {
    json!({
        "name": name,
        "type": type_,
        "format": format,
        "description": description,
        "priority": priority,
    })
}

const NAME_DESC: &str = "Name must be unique within a namespace. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const AGE_DESC: &str =
    "CreationTimestamp is a timestamp representing the server time when this object was created.";

/// Evaluates a simple JSONPath (`.a.b`, `.a[0].b`, `{.a.b}`) on a value.
pub fn json_path<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    let p = path.trim().trim_start_matches('{').trim_end_matches('}');
    let mut cur = v;
    for seg in p.split('.').filter(|s| !s.is_empty()) {
        let (key, mut idx) = match seg.find('[') {
            Some(i) => (&seg[..i], &seg[i..]),
            None => (seg, ""),
        };
        if !key.is_empty() {
            cur = cur.get(key)?;
        }
        while let Some(rest) = idx.strip_prefix('[') {
            let end = rest.find(']')?;
            let inner = &rest[..end];
            cur = match inner.parse::<usize>() {
                Ok(n) => cur.get(n)?,
                Err(_) => cur.get(inner.trim_matches('\'').trim_matches('"'))?,
            };
            idx = &rest[end + 1..];
        }
    }
    Some(cur)
}

fn s<'a>(v: &'a Value, path: &str) -> &'a str {
    json_path(v, path).and_then(Value::as_str).unwrap_or("")
}

fn i(v: &Value, path: &str) -> i64 {
    json_path(v, path).and_then(Value::as_i64).unwrap_or(0)
}

/// Seconds since the Unix epoch of an RFC 3339 timestamp.
pub fn parse_rfc3339(ts: &str) -> Option<i64> {
    let b = ts.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' {
        return None;
    }
    let n = |r: std::ops::Range<usize>| ts.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (n(0..4)?, n(5..7)?, n(8..10)?);
    let (h, mi, se) = (n(11..13)?, n(14..16)?, n(17..19)?);
    let mut rest = &ts[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.chars().take_while(|c| c.is_ascii_digit()).count();
        rest = &frac[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            let oh: i64 = rest.get(1..3)?.parse().ok()?;
            let om: i64 = rest.get(4..6)?.parse().ok()?;
            sign * (oh * 3600 + om * 60)
        }
    };
    // days_from_civil (Howard Hinnant).
    let yy = if mo <= 2 { y - 1 } else { y };
    let era = if yy >= 0 { yy } else { yy - 399 } / 400;
    let yoe = yy - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + mi * 60 + se - offset)
}

/// `duration.HumanDuration` from apimachinery: `45s`, `3m20s`, `5h`, `12d`, `2y3d`.
pub fn human_duration(secs: i64) -> String {
    if secs < -1 {
        return "<invalid>".into();
    }
    if secs < 0 {
        return "0s".into();
    }
    if secs < 120 {
        return format!("{secs}s");
    }
    let minutes = secs / 60;
    if minutes < 10 {
        let s = secs % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = secs / 3600;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        return if dy == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{dy}d", hours / 24 / 365)
        };
    }
    format!("{}y", hours / 24 / 365)
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Human age of a timestamp, `<unknown>` when it does not parse.
pub fn age(ts: &str) -> String {
    match parse_rfc3339(ts) {
        Some(t) => human_duration(now() - t),
        None => "<unknown>".into(),
    }
}

fn obj_age(o: &Value) -> String {
    age(s(o, ".metadata.creationTimestamp"))
}

fn name(o: &Value) -> String {
    s(o, ".metadata.name").to_string()
}

fn none_if_empty(v: String) -> String {
    if v.is_empty() {
        "<none>".into()
    } else {
        v
    }
}

fn selector_string(sel: &Value) -> String {
    let mut parts: Vec<String> = sel["matchLabels"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
                .collect()
        })
        .unwrap_or_default();
    for e in sel["matchExpressions"].as_array().into_iter().flatten() {
        let vals: Vec<&str> = e["values"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let op = s(e, ".operator").to_ascii_lowercase();
        parts.push(format!("{} {op} ({})", s(e, ".key"), vals.join(",")));
    }
    none_if_empty(parts.join(","))
}

fn containers_and_images(o: &Value) -> (String, String) {
    let cs = json_path(o, ".spec.template.spec.containers")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let names: Vec<&str> = cs.iter().map(|c| s(c, ".name")).collect();
    let images: Vec<&str> = cs.iter().map(|c| s(c, ".image")).collect();
    (names.join(","), images.join(","))
}

fn node_status(o: &Value) -> String {
    let conditions = o["status"]["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut st = match conditions.iter().find(|c| c["type"] == "Ready") {
        Some(c) if c["status"] == "True" => "Ready".to_string(),
        Some(_) => "NotReady".to_string(),
        None => "Unknown".to_string(),
    };
    if o["spec"]["unschedulable"] == Value::Bool(true) {
        st.push_str(",SchedulingDisabled");
    }
    st
}

fn node_roles(o: &Value) -> String {
    let mut roles: Vec<String> = Vec::new();
    if let Some(labels) = o["metadata"]["labels"].as_object() {
        for (k, v) in labels {
            if let Some(r) = k.strip_prefix("node-role.kubernetes.io/") {
                if !r.is_empty() {
                    roles.push(r.to_string());
                }
            } else if k == "kubernetes.io/role" {
                if let Some(r) = v.as_str() {
                    roles.push(r.to_string());
                }
            }
        }
    }
    roles.sort();
    roles.dedup();
    none_if_empty(roles.join(","))
}

fn node_address(o: &Value, kind: &str) -> String {
    let addrs = o["status"]["addresses"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    none_if_empty(
        addrs
            .iter()
            .filter(|a| a["type"] == kind)
            .map(|a| s(a, ".address").to_string())
            .collect::<Vec<_>>()
            .join(","),
    )
}

fn pod_cells(o: &Value) -> Vec<Value> {
    let total = o["spec"]["containers"]
        .as_array()
        .map(Vec::len)
        .unwrap_or(0);
    let statuses = o["status"]["containerStatuses"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let ready = statuses.iter().filter(|c| c["ready"] == true).count();
    let restarts: i64 = statuses
        .iter()
        .map(|c| c["restartCount"].as_i64().unwrap_or(0))
        .sum();
    let mut status = s(o, ".status.reason").to_string();
    if status.is_empty() {
        status = s(o, ".status.phase").to_string();
    }
    vec![
        json!(name(o)),
        json!(format!("{ready}/{total}")),
        json!(status),
        json!(restarts),
        json!(obj_age(o)),
        json!(none_if_empty(s(o, ".status.podIP").to_string())),
        json!(none_if_empty(s(o, ".spec.nodeName").to_string())),
        json!("<none>"),
        json!("<none>"),
    ]
}

fn service_ports(o: &Value) -> String {
    let ports = o["spec"]["ports"].as_array().cloned().unwrap_or_default();
    none_if_empty(
        ports
            .iter()
            .map(|p| {
                let proto = p["protocol"].as_str().unwrap_or("TCP");
                match p["nodePort"].as_i64() {
                    Some(np) => format!("{}:{np}/{proto}", i(p, ".port")),
                    None => format!("{}/{proto}", i(p, ".port")),
                }
            })
            .collect::<Vec<_>>()
            .join(","),
    )
}

/// Column definitions and a row builder for one type.
fn columns(t: &ResourceType, crd_columns: &[PrinterColumn]) -> Vec<Value> {
    let name_col = col("Name", "string", "name", 0, NAME_DESC);
    let age_col = col("Age", "string", "", 0, AGE_DESC);
    let c = |n: &str, ty: &str, p: i64, d: &str| col(n, ty, "", p, d);
    match (t.group.as_str(), t.plural.as_str()) {
        ("", "nodes") => vec![
            name_col,
            c("Status", "string", 0, "The status of the node"),
            c("Roles", "string", 0, "The roles of the node"),
            age_col,
            c("Version", "string", 0, "Kubelet Version reported by the node."),
            c("Internal-IP", "string", 1, "List of internal IPs for the node."),
            c("External-IP", "string", 1, "List of external IPs for the node."),
            c("OS-Image", "string", 1, "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."),
            c("Kernel-Version", "string", 1, "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
            c("Container-Runtime", "string", 1, "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2)."),
        ],
        ("", "namespaces") => vec![
            name_col,
            c("Status", "string", 0, "The status of the namespace"),
            age_col,
        ],
        ("", "pods") => vec![
            name_col,
            c("Ready", "string", 0, "The aggregate readiness state of this pod for accepting traffic."),
            c("Status", "string", 0, "The aggregate status of the containers in this pod."),
            c("Restarts", "string", 0, "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
            age_col,
            c("IP", "string", 1, "IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."),
            c("Node", "string", 1, "NodeName is a request to schedule this pod onto a specific node."),
            c("Nominated Node", "string", 1, "nominatedNodeName is set only when this pod preempts other pods on the node."),
            c("Readiness Gates", "string", 1, "If specified, all readiness gates will be evaluated for pod readiness."),
        ],
        ("", "services") => vec![
            name_col,
            c("Type", "string", 0, "type determines how the Service is exposed."),
            c("Cluster-IP", "string", 0, "clusterIP is the IP address of the service."),
            c("External-IP", "string", 0, "List of IP addresses for which nodes in the cluster will also accept traffic for this service."),
            c("Port(s)", "string", 0, "The list of ports that are exposed by this service."),
            age_col,
            c("Selector", "string", 1, "Route service traffic to pods with label keys and values matching this selector."),
        ],
        ("apps", "daemonsets") => vec![
            name_col,
            c("Desired", "integer", 0, "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod)."),
            c("Current", "integer", 0, "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod."),
            c("Ready", "integer", 0, "numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition."),
            c("Up-to-date", "integer", 0, "The total number of nodes that are running updated daemon pod"),
            c("Available", "integer", 0, "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)"),
            c("Node Selector", "string", 0, "NodeSelector is a selector which must be true for the pod to fit on a node."),
            age_col,
            c("Containers", "string", 1, "Names of each container in the template."),
            c("Images", "string", 1, "Images referenced by each container in the template."),
            c("Selector", "string", 1, "A label query over pods that are managed by the daemon set."),
        ],
        ("apps", "deployments") => vec![
            name_col,
            c("Ready", "string", 0, "Number of the pod with ready state"),
            c("Up-to-date", "string", 0, "Total number of non-terminated pods targeted by this deployment that have the desired template spec."),
            c("Available", "string", 0, "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."),
            age_col,
            c("Containers", "string", 1, "Names of each container in the template."),
            c("Images", "string", 1, "Images referenced by each container in the template."),
            c("Selector", "string", 1, "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment."),
        ],
        ("apps", "statefulsets") => vec![
            name_col,
            c("Ready", "string", 0, "Number of the pod with ready state"),
            age_col,
            c("Containers", "string", 1, "Names of each container in the template."),
            c("Images", "string", 1, "Images referenced by each container in the template."),
        ],
        ("storage.k8s.io", "storageclasses") => vec![
            name_col,
            c("Provisioner", "string", 0, "provisioner indicates the type of the provisioner."),
            c("ReclaimPolicy", "string", 0, "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class."),
            c("VolumeBindingMode", "string", 0, "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound."),
            c("AllowVolumeExpansion", "string", 0, "allowVolumeExpansion shows whether the storage class allow volume expand."),
            age_col,
        ],
        ("apiextensions.k8s.io", "customresourcedefinitions") => vec![
            name_col,
            col("Created At", "date", "", 0, AGE_DESC),
        ],
        _ => {
            let mut v = vec![name_col];
            if crd_columns.is_empty() {
                v.push(age_col);
            } else {
                for pc in crd_columns {
                    v.push(col(&pc.name, &pc.type_, "", pc.priority, &pc.description));
                }
            }
            v
        }
    }
}

fn cells(t: &ResourceType, crd_columns: &[PrinterColumn], o: &Value) -> Vec<Value> {
    match (t.group.as_str(), t.plural.as_str()) {
        ("", "nodes") => vec![
            json!(name(o)),
            json!(node_status(o)),
            json!(node_roles(o)),
            json!(obj_age(o)),
            json!(s(o, ".status.nodeInfo.kubeletVersion")),
            json!(node_address(o, "InternalIP")),
            json!(node_address(o, "ExternalIP")),
            json!(s(o, ".status.nodeInfo.osImage")),
            json!(s(o, ".status.nodeInfo.kernelVersion")),
            json!(s(o, ".status.nodeInfo.containerRuntimeVersion")),
        ],
        ("", "namespaces") => vec![
            json!(name(o)),
            json!(s(o, ".status.phase")),
            json!(obj_age(o)),
        ],
        ("", "pods") => pod_cells(o),
        ("", "services") => {
            let sel = json!({ "matchLabels": o["spec"]["selector"] });
            vec![
                json!(name(o)),
                json!(s(o, ".spec.type")),
                json!(none_if_empty(s(o, ".spec.clusterIP").to_string())),
                json!("<none>"),
                json!(service_ports(o)),
                json!(obj_age(o)),
                json!(selector_string(&sel)),
            ]
        }
        ("apps", "daemonsets") => {
            let (cs, is) = containers_and_images(o);
            let ns = o["spec"]["template"]["spec"]["nodeSelector"]
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .unwrap_or_default();
            vec![
                json!(name(o)),
                json!(i(o, ".status.desiredNumberScheduled")),
                json!(i(o, ".status.currentNumberScheduled")),
                json!(i(o, ".status.numberReady")),
                json!(i(o, ".status.updatedNumberScheduled")),
                json!(i(o, ".status.numberAvailable")),
                json!(none_if_empty(ns)),
                json!(obj_age(o)),
                json!(cs),
                json!(is),
                json!(selector_string(&o["spec"]["selector"])),
            ]
        }
        ("apps", "deployments") => {
            let (cs, is) = containers_and_images(o);
            let desired = json_path(o, ".spec.replicas")
                .and_then(Value::as_i64)
                .unwrap_or(1);
            vec![
                json!(name(o)),
                json!(format!("{}/{desired}", i(o, ".status.readyReplicas"))),
                json!(i(o, ".status.updatedReplicas")),
                json!(i(o, ".status.availableReplicas")),
                json!(obj_age(o)),
                json!(cs),
                json!(is),
                json!(selector_string(&o["spec"]["selector"])),
            ]
        }
        ("apps", "statefulsets") => {
            let (cs, is) = containers_and_images(o);
            let desired = json_path(o, ".spec.replicas")
                .and_then(Value::as_i64)
                .unwrap_or(1);
            vec![
                json!(name(o)),
                json!(format!("{}/{desired}", i(o, ".status.readyReplicas"))),
                json!(obj_age(o)),
                json!(cs),
                json!(is),
            ]
        }
        ("storage.k8s.io", "storageclasses") => {
            let default = [
                "storageclass.kubernetes.io/is-default-class",
                "storageclass.beta.kubernetes.io/is-default-class",
            ]
            .iter()
            .any(|a| o["metadata"]["annotations"][a] == "true");
            let mut n = name(o);
            if default {
                n.push_str(" (default)");
            }
            let reclaim = match s(o, ".reclaimPolicy") {
                "" => "Delete",
                r => r,
            };
            let binding = match s(o, ".volumeBindingMode") {
                "" => "Immediate",
                b => b,
            };
            let expand = o["allowVolumeExpansion"].as_bool().unwrap_or(false);
            vec![
                json!(n),
                json!(s(o, ".provisioner")),
                json!(reclaim),
                json!(binding),
                json!(expand),
                json!(obj_age(o)),
            ]
        }
        ("apiextensions.k8s.io", "customresourcedefinitions") => {
            vec![json!(name(o)), json!(s(o, ".metadata.creationTimestamp"))]
        }
        _ => {
            let mut v = vec![json!(name(o))];
            if crd_columns.is_empty() {
                v.push(json!(obj_age(o)));
            }
            for pc in crd_columns {
                let val = json_path(o, &pc.json_path).cloned();
                v.push(match (pc.type_.as_str(), val) {
                    ("date", Some(Value::String(ts))) => json!(age(&ts)),
                    (_, Some(x)) => x,
                    (_, None) => Value::Null,
                });
            }
            v
        }
    }
}

fn partial_metadata(o: &Value, table_version: &str) -> Value {
    json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": format!("meta.k8s.io/{table_version}"),
        "metadata": o["metadata"],
    })
}

/// Builds a Table of `objects` (one page), with list metadata already computed.
pub fn table(
    t: &ResourceType,
    crd_columns: &[PrinterColumn],
    objects: &[&Value],
    list_metadata: Value,
    include: IncludeObject,
    table_version: &str,
) -> Value {
    let rows: Vec<Value> = objects
        .iter()
        .map(|o| {
            let mut row = json!({ "cells": cells(t, crd_columns, o) });
            match include {
                IncludeObject::None => {}
                IncludeObject::Metadata => row["object"] = partial_metadata(o, table_version),
                IncludeObject::Object => row["object"] = (*o).clone(),
            }
            row
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": format!("meta.k8s.io/{table_version}"),
        "metadata": list_metadata,
        "columnDefinitions": columns(t, crd_columns),
        "rows": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_match_apimachinery() {
        assert_eq!(human_duration(5), "5s");
        assert_eq!(human_duration(200), "3m20s");
        assert_eq!(human_duration(3600 * 5), "5h");
        assert_eq!(human_duration(3600 * 30), "30h");
        assert_eq!(human_duration(86_400 * 3 + 3600), "3d1h");
        assert_eq!(human_duration(86_400 * 300), "300d");
        assert_eq!(human_duration(86_400 * (365 * 3 + 2)), "3y2d");
    }

    #[test]
    fn timestamps_parse() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_rfc3339("2025-01-15T09:00:00Z"), Some(1_736_931_600));
        assert_eq!(
            parse_rfc3339("2025-01-15T10:00:00.123+01:00"),
            Some(1_736_931_600)
        );
        assert_eq!(parse_rfc3339("yesterday"), None);
    }

    #[test]
    fn json_path_walks_maps_and_arrays() {
        let v = json!({"status": {"ceph": {"health": "HEALTH_OK"}, "c": [{"x": 1}]}});
        assert_eq!(
            json_path(&v, ".status.ceph.health"),
            Some(&json!("HEALTH_OK"))
        );
        assert_eq!(json_path(&v, "{.status.c[0].x}"), Some(&json!(1)));
        assert_eq!(json_path(&v, ".status.nope"), None);
    }
}
