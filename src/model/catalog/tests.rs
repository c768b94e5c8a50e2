//! Tests of the catalog: the built-in layers, overrides, and every error a catalog file can cause.

use super::*;

fn overlay_err(text: &str) -> Error {
    Catalog::builtin()
        .unwrap()
        .overlay_str(text, "stacks/layers.yaml")
        .unwrap_err()
}

#[test]
fn builtin_has_the_fixed_ids_in_order() {
    let c = Catalog::builtin().unwrap();
    // The ids in file order, read from the YAML's own `- id:` lines (not through the
    // parser under test), so a new built-in layer needs no edit here.
    let in_file: Vec<&str> = BUILTIN
        .lines()
        .filter_map(|l| l.strip_prefix("- id: "))
        .map(str::trim)
        .collect();
    assert!(in_file.len() >= 14, "{in_file:?}");
    assert_eq!(c.ids(), in_file);
    assert_eq!(&c.ids()[..3], ["k8s", "cni", "ceph"]);
    let ceph = c.get("ceph").unwrap();
    assert_eq!(ceph.after, ["cni"]);
    assert_eq!(
        ceph.detect.iter().map(|c| &c.kind).collect::<Vec<_>>(),
        [&CheckKind::ApiGroup(ApiGroupCheck("ceph.rook.io".into()))]
    );
    let CheckKind::Tolerate(t) = &ceph.healthy[0].kind else {
        panic!("{:?}", ceph.healthy[0]);
    };
    assert_eq!(t.objects.resource, "cephclusters.ceph.rook.io");
    assert_eq!(t.ok, ["HEALTH_OK"]);
    assert_eq!(t.warn, "HEALTH_WARN");
    assert_eq!(t.benign, ["RECENT_MGR_MODULE_CRASH"]);
    assert!(ceph.healthy[0]
        .why
        .as_deref()
        .unwrap()
        .contains("RECENT_MGR_MODULE_CRASH"));
    // Every built-in health check says why the operators gate on it.
    for layer in c.layers() {
        for check in &layer.healthy {
            assert!(check.why.is_some(), "{}: {check:?}", layer.id);
        }
    }
    assert_eq!(ceph.install, "ansible-playbook platform/ceph.yaml");
    assert!(c.get("sshd-hardening").unwrap().host.is_some());
    assert!(c.get("k8s").unwrap().observable);
}

#[test]
fn datalake_is_not_detected_by_objectbucket_group() {
    let c = Catalog::builtin().unwrap();
    let datalake = c.get("datalake").unwrap();
    let mentions_objectbucket = datalake
        .detect
        .iter()
        .any(|ch| format!("{ch:?}").contains("objectbucket"));
    assert!(!mentions_objectbucket);
    // Health reads the claims (every one Bound; none is fine), which detects nothing.
    let claims: Vec<&Check> = datalake
        .healthy
        .iter()
        .filter(|ch| format!("{ch:?}").contains("objectbucket"))
        .collect();
    assert_eq!(claims.len(), 1, "{claims:?}");
    assert!(matches!(claims[0].kind, CheckKind::All(_)), "{claims:?}");
    assert!(datalake.detect.iter().any(|c| c.kind
        == CheckKind::StorageClass(StorageClassCheck {
            provisioner: Some("rook-ceph.ceph.rook.io/bucket".into()),
            default: None
        })));
}

#[test]
fn required_reads_are_deduplicated_and_ordered() {
    let c = Catalog::builtin().unwrap();
    let ids: Vec<String> = ["k8s", "ceph", "registry", "dataops", "sshd-hardening"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        c.required_reads(&ids),
        [
            ReadRequest::Nodes,
            ReadRequest::ApiGroups,
            ReadRequest::Namespaces,
            ReadRequest::Workloads(WorkloadKind::DaemonSet),
            ReadRequest::Workloads(WorkloadKind::Deployment),
            ReadRequest::Workloads(WorkloadKind::StatefulSet),
            ReadRequest::Resource("apiservices.apiregistration.k8s.io".into()),
            ReadRequest::Resource("cephclusters.ceph.rook.io".into()),
            ReadRequest::Resource("clusters.postgresql.cnpg.io".into()),
            ReadRequest::ConfigMap {
                namespace: "rook-ceph".into(),
                name: "rook-ceph-mon-endpoints".into(),
                keys: vec!["outOfQuorum".into()],
            },
            ReadRequest::PodPlacement {
                namespace: "rook-ceph".into(),
                selector: "app=rook-ceph-mon".into(),
                labels: vec!["ceph_daemon_id".into()],
            },
            ReadRequest::PodPlacement {
                namespace: "rook-ceph".into(),
                selector: "app=rook-ceph-osd".into(),
                labels: vec!["ceph_daemon_id".into()],
            },
        ]
    );
    assert_eq!(c.required_reads(&["nope".to_string()]), []);
}

#[test]
fn workload_namespaces_are_the_ones_checks_name() {
    let c = Catalog::builtin().unwrap();
    let ids: Vec<String> = ["cni", "registry", "certs", "ceph"]
        .map(String::from)
        .to_vec();
    let ns = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(
        c.workload_namespaces(&ids),
        [
            (
                ReadRequest::Workloads(WorkloadKind::DaemonSet),
                ns(&["kube-system", "registry"])
            ),
            (
                ReadRequest::Workloads(WorkloadKind::Deployment),
                ns(&["cert-manager", "kube-system", "registry", "rook-ceph"])
            ),
            (
                ReadRequest::Workloads(WorkloadKind::StatefulSet),
                ns(&["registry"])
            ),
        ]
        .into_iter()
        .collect()
    );
    assert!(c.workload_namespaces(&["k8s".to_string()]).is_empty());
}

#[test]
fn overrides_replace_and_add() {
    let mut c = Catalog::builtin().unwrap();
    c.overlay_str(
        "# ours\n- id: ceph\n  title: Our Ceph\n  after: [k8s]\n  detect:\n    - namespace: rook-ceph\n  install: make ceph\n- id: vault\n  title: Vault\n  after: [certs]\n  detect:\n    - apiGroup: secrets.hashicorp.com\n  install: make vault\n",
        "stacks/layers.yaml",
    )
    .unwrap();
    let ids = c.ids();
    assert_eq!(ids[2], "ceph");
    assert_eq!(ids.last(), Some(&"vault"));
    assert_eq!(c.get("ceph").unwrap().title, "Our Ceph");
    assert_eq!(c.get("ceph").unwrap().healthy, []);
    assert_eq!(
        c.ancestors("vault"),
        ["certs", "k8s"].map(String::from).into_iter().collect()
    );
}

#[test]
fn with_overrides_reads_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("layers.yaml");
    std::fs::write(
        &path,
        "- id: extra\n  title: Extra\n  detect:\n    - namespace: extra\n  install: make extra\n",
    )
    .unwrap();
    let c = Catalog::with_overrides(&path).unwrap();
    assert_eq!(c.ids().last(), Some(&"extra"));
    let e = Catalog::with_overrides(&dir.path().join("missing.yaml")).unwrap_err();
    assert!(
        e.message.starts_with("cannot read catalog file "),
        "{}",
        e.message
    );
    assert!(e
        .message
        .ends_with("missing.yaml: No such file or directory (os error 2)"));
}

#[test]
fn empty_override_file_changes_nothing() {
    let mut c = Catalog::builtin().unwrap();
    c.overlay_str("# nothing yet\n\n", "stacks/layers.yaml")
        .unwrap();
    assert_eq!(c, Catalog::builtin().unwrap());
}

#[test]
fn unknown_layer_key_names_line_column_and_suggestion() {
    let e = overlay_err(
        "- id: extra\n  title: Extra\n  detect:\n    - namespace: extra\n  helthy:\n    - namespace: extra\n  install: make extra\n",
    );
    assert_eq!(
        e.message,
        "stacks/layers.yaml:5:3: [0]: unknown key `helthy`, did you mean `healthy`?"
    );
    assert_eq!(
        e.hint,
        "valid keys here: `id`, `title`, `after`, `detect`, `healthy`, `install`, `observable`, `host`"
    );
}

#[test]
fn unknown_check_key_names_line_column_and_suggestion() {
    let e = overlay_err(
        "- id: extra\n  title: Extra\n  detect:\n    - apigroup: extra.io\n  install: make extra\n",
    );
    assert_eq!(
        e.message,
        "stacks/layers.yaml:4:7: [0].detect[0]: unknown key `apigroup`, did you mean `apiGroup`?"
    );
}

#[test]
fn unknown_workload_kind_suggests_the_right_one() {
    let e = overlay_err(
        "- id: extra\n  title: Extra\n  detect:\n    - workload: {kind: Daemonset, namespace: extra}\n  install: make extra\n",
    );
    assert_eq!(
        e.message,
        "stacks/layers.yaml:4:24: [0].detect[0].workload.kind: unknown value `Daemonset`, did you mean `DaemonSet`?"
    );
    assert_eq!(
        e.hint,
        "valid values here: `DaemonSet`, `Deployment`, `StatefulSet`"
    );
}

#[test]
fn bad_checks_are_errors_with_position() {
    let cases = [
        (
            "    - {apiGroup: a.io, namespace: b}\n",
            "stacks/layers.yaml:4:5: [0].detect: one check per list item, found `apiGroup` and `namespace`; write each as its own `- ` item",
        ),
        (
            "    - resource: cephclusters\n",
            "stacks/layers.yaml:4:5: [0].detect: `resource: cephclusters` must be `plural.group`, e.g. `cephclusters.ceph.rook.io`",
        ),
        (
            "    - resource: a.b.io\n      field: status.phase\n      equals: Ready\n",
            "stacks/layers.yaml:4:5: [0].detect: field path `status.phase` must start with `.`, e.g. `.status.phase`",
        ),
        (
            "    - resource: a.b.io\n      field: .status.phase\n",
            "stacks/layers.yaml:4:5: [0].detect: `field: .status.phase` needs one of `in:`, `notIn:`, `equals:`, `equalsField:`, `exists: true`, `minValidity:` or `maxAge:`",
        ),
        (
            "    - all: {resource: a.b.io, field: .status.phase, notIn: []}\n",
            "stacks/layers.yaml:4:5: [0].detect: `notIn:` needs at least one value",
        ),
        (
            "    - all: {resource: a.b.io, field: .status.phase, notIn: [Failed], equals: Ok}\n",
            "stacks/layers.yaml:4:5: [0].detect: use only one of `in:`, `notIn:`, `equals:`, `equalsField:`, `exists:`, `minValidity:` or `maxAge:`",
        ),
        (
            "    - namespace: extra\n      field: .status.phase\n",
            "stacks/layers.yaml:4:5: [0].detect: `field` only goes with a `resource:` check",
        ),
        (
            "    - nodes: {ready: some}\n",
            "stacks/layers.yaml:4:22: [0].detect[0].nodes.ready: invalid value: string \"some\", expected `all` or a number of nodes (1 or more)",
        ),
    ];
    for (check, want) in cases {
        let text =
            format!("- id: extra\n  title: Extra\n  detect:\n{check}  install: make extra\n");
        assert_eq!(overlay_err(&text).message, want, "for {check:?}");
    }
}

#[test]
fn new_check_kinds_are_validated_with_position() {
    let cases = [
        (
            "    - workload: {kind: Deployment, namespace: x, name: a, namePrefix: a-}\n",
            "stacks/layers.yaml:4:5: [0].detect: a workload check names `name:` or `namePrefix:`, not both",
        ),
        (
            "    - workload: {namespace: x, namePrefix: A_}\n",
            "stacks/layers.yaml:4:5: [0].detect: `namePrefix: A_` must be the start of an object name, like `rook-ceph-osd-`",
        ),
        (
            "    - condition: {resource: a.b.io, type: \"\"}\n",
            "stacks/layers.yaml:4:5: [0].detect: `condition:` needs a `type:` such as `Ready`",
        ),
        (
            "    - all: {resource: a.b.io}\n",
            "stacks/layers.yaml:4:5: [0].detect: `all:` needs one of `field:` with its expectation, `condition: TYPE`, `notFalse: TYPE` or `noConditions: [TYPE, ...]`",
        ),
        (
            "    - all: {resource: a.b.io, field: .status.lastSuccessfulBackup, maxAge: soon}\n",
            "stacks/layers.yaml:4:5: [0].detect: `maxAge: soon` is not a duration like `10m`, `26h` or `7d` (s, m, h, d, w)",
        ),
        (
            "    - all: {resource: a.b.io, notFalse: Ready, withField: .metadata.labels}\n",
            "stacks/layers.yaml:4:5: [0].detect: field path `.metadata.labels`: checks read `.spec` and `.status`, never `.metadata` (annotations can hold secrets)",
        ),
        (
            "    - all: {resource: a.b.io, noConditions: []}\n",
            "stacks/layers.yaml:4:5: [0].detect: `noConditions:` needs condition types such as `[ComparisonError]`",
        ),
        (
            "    - all: {resource: a.b.io, condition: Ready, noConditions: [SyncError]}\n",
            "stacks/layers.yaml:4:5: [0].detect: `all:` needs one of `field:` with its expectation, `condition: TYPE`, `notFalse: TYPE` or `noConditions: [TYPE, ...]`",
        ),
        (
            "    - all: {resource: a.b.io, noConditions: [SyncError], quote: .metadata.annotations}\n",
            "stacks/layers.yaml:4:5: [0].detect: field path `.metadata.annotations`: checks read `.spec` and `.status`, never `.metadata` (annotations can hold secrets)",
        ),
        (
            "    - count: {resource: a.b.io}\n",
            "stacks/layers.yaml:4:5: [0].detect: `count:` needs `atLeast: N` (1 or more) or `atLeastField: {resource, field}`",
        ),
        (
            "    - tolerate: {resource: a.b.io, field: .status.h, ok: [], warn: W, details: .status.d}\n",
            "stacks/layers.yaml:4:5: [0].detect: `tolerate:` needs at least one `ok:` value",
        ),
        (
            "    - podFlags: {flags: [--audit-log-path=/x]}\n",
            "stacks/layers.yaml:4:5: [0].detect: `--audit-log-path=/x` is not a flag name like `--audit-log-path` (no value, no `=`)",
        ),
        (
            "    - resource: a.b.io\n      field: .metadata.annotations\n      exists: true\n",
            "stacks/layers.yaml:4:5: [0].detect: field path `.metadata.annotations`: checks read `.spec` and `.status`, never `.metadata` (annotations can hold secrets)",
        ),
        (
            "    - namespace: x\n      why: \"  \"\n",
            "stacks/layers.yaml:4:5: [0].detect: `why:` is empty; say why the operators check this, or leave it out",
        ),
    ];
    for (check, want) in cases {
        let text =
            format!("- id: extra\n  title: Extra\n  detect:\n{check}  install: make extra\n");
        assert_eq!(overlay_err(&text).message, want, "for {check:?}");
    }
    let e = overlay_err(
        "- id: extra\n  title: Extra\n  detect:\n    - all: {resource: a.b.io, feild: .status.x, equals: y}\n  install: make extra\n",
    );
    assert!(
        e.message
            .contains("unknown key `feild`, did you mean `field`?"),
        "{}",
        e.message
    );
}

#[test]
fn layer_without_detect_is_an_error() {
    let e = overlay_err("- id: extra\n  title: Extra\n  install: make extra\n");
    assert_eq!(
        e.message,
        "stacks/layers.yaml:1:3: layer `extra` has no `detect:` check; add one, or `observable: false` for a host-level layer"
    );
    let e = overlay_err("- id: extra\n  install: make extra\n  detect: [{namespace: x}]\n");
    assert_eq!(
        e.message,
        "stacks/layers.yaml:1:3: [0]: missing field `title`"
    );
}

#[test]
fn host_level_layer_cannot_have_checks() {
    let ok = "- id: extra\n  title: Extra\n  detect: [{namespace: x}]\n  install: make x\n";
    let e = overlay_err(&format!(
        "{ok}- id: ntp\n  title: NTP\n  observable: false\n  detect: [{{namespace: x}}]\n  install: make ntp\n"
    ));
    assert_eq!(
        e.message,
        "stacks/layers.yaml:5:3: layer `ntp` is `observable: false` (host-level) and cannot have `detect:` or `healthy:` checks"
    );
}

#[test]
fn unknown_after_id_is_an_error_with_suggestion() {
    let e = overlay_err(
        "- id: extra\n  title: Extra\n  after: [cepf]\n  detect:\n    - namespace: extra\n  install: make extra\n",
    );
    assert_eq!(
        e.message,
        "stacks/layers.yaml:1:3: layer `extra`: `after:` names unknown layer `cepf` (did you mean `ceph`?)"
    );
    assert!(e.hint.starts_with("known layers: k8s, cni, ceph,"));
}

#[test]
fn cycle_in_after_is_an_error() {
    let e = overlay_err(
        "- id: a\n  title: A\n  after: [b]\n  detect: [{namespace: a}]\n  install: make a\n\n- id: b\n  title: B\n  after: [a]\n  detect: [{namespace: b}]\n  install: make b\n",
    );
    assert_eq!(
        e.message,
        "stacks/layers.yaml:1:3: cycle in `after:`: a -> b -> a"
    );
    let e = overlay_err(
        "- id: k8s\n  title: K\n  after: [certs]\n  detect: [{namespace: x}]\n  install: make k\n",
    );
    assert_eq!(
        e.message,
        "stacks/layers.yaml:1:3: cycle in `after:`: k8s -> certs -> k8s"
    );
}

#[test]
fn duplicate_id_is_an_error_at_the_second_one() {
    let layer = "- id: extra\n  title: Extra\n  detect: [{namespace: x}]\n  install: make x\n";
    let e = overlay_err(&format!("{layer}{layer}"));
    assert_eq!(
        e.message,
        "stacks/layers.yaml:5:3: duplicate layer id `extra`"
    );
}

#[test]
fn a_mapping_is_not_a_catalog() {
    let e = overlay_err("layers:\n  - id: x\n");
    assert_eq!(
        e.message,
        "stacks/layers.yaml:1:1: invalid type: map, expected a sequence"
    );
    assert_eq!(e.hint, LAYER_FORMAT_HINT);
}

#[test]
fn field_paths_parse_and_print() {
    let p = FieldPath::parse(".status.ceph.health").unwrap();
    assert_eq!(p.to_string(), ".status.ceph.health");
    assert_eq!(p.segments(), ["status", "ceph", "health"]);
    assert!(FieldPath::parse(".a..b").is_err());
    let e = FieldPath::parse(".metadata.annotations.x").unwrap_err();
    assert!(e.contains("never `.metadata`"), "{e}");
}

#[test]
fn nearest_key() {
    let keys = ["detect", "healthy"];
    assert_eq!(crate::suggest::nearest("helthy", keys), Some("healthy"));
    assert_eq!(crate::suggest::nearest("zzzzzz", keys), None);
}

/// (The state rule of every kind is proven in `model::state`'s tests: with nothing read, no
/// built-in check ever says a definite no.)
#[test]
fn every_check_kind_has_a_read_and_a_description() {
    let c = Catalog::builtin().unwrap();
    let mut seen = BTreeSet::new();
    for layer in &c.layers {
        for check in layer.detect.iter().chain(&layer.healthy) {
            let name = check.kind.key();
            seen.insert(check.kind.check_key());
            // Its read: a catalog of this one check asks for something.
            let alone = Catalog {
                layers: vec![Layer {
                    detect: vec![check.clone()],
                    healthy: vec![],
                    after: vec![],
                    ..layer.clone()
                }],
                origins: BTreeMap::new(),
            };
            let reads = alone.required_reads(std::slice::from_ref(&layer.id));
            assert!(!reads.is_empty(), "{} {name}: no read", layer.id);
            // Its words.
            assert!(!check.kind.to_string().is_empty(), "{} {name}", layer.id);
        }
    }
    // The built-in catalog uses every kind of the one table (`check/key.rs`).
    let all: BTreeSet<CheckKey> = <CheckKey as strum::VariantArray>::VARIANTS
        .iter()
        .copied()
        .collect();
    assert_eq!(seen, all);
}

/// The one table of kind names is the raw check's keys: each key, written alone with a value
/// that is no check of any kind (a string no name and no mapping), reaches that kind's own decoding (its error names its key or
/// its fields), never "unknown key" or "a check needs one of".
#[test]
fn every_key_of_the_table_is_a_key_a_catalog_can_write() {
    for key in <CheckKey as strum::VariantArray>::VARIANTS {
        let key = key.as_str();
        let yaml = format!(
            "- id: x\n  title: X\n  detect:\n    - {key}: \"Not A Value!\"\n  healthy: []\n  install: make x\n"
        );
        let e = overlay_err(&yaml).message;
        assert!(!e.contains("unknown key"), "{key}: {e}");
        assert!(!e.contains("a check needs one of"), "{key}: {e}");
    }
    let listed = CheckKey::listed();
    assert!(listed.starts_with("`apiGroup`, `namespace`,"), "{listed}");
    assert!(listed.ends_with("`claims`, `distinctNodes`"), "{listed}");
}

#[test]
fn the_builtin_catalog_is_parsed_once_per_process() {
    let first = Catalog::shared().unwrap();
    let _ = Catalog::builtin().unwrap();
    let _ = catalog_for(None).unwrap();
    let _ = known_ids(None).unwrap();
    assert!(std::ptr::eq(first, Catalog::shared().unwrap()));
    assert_eq!(Catalog::builtin_parses(), 1);
}

#[test]
fn one_read_plan_holds_the_requests_the_scope_and_the_host_layers() {
    let c = Catalog::builtin().unwrap();
    // (not cni: it reads the nodes for Cilium's agent-not-ready taint; not ceph: how many
    // nodes its daemons' placement is judged against)
    let ids: Vec<String> = ["registry", "datalake", "etcd-backup"]
        .map(String::from)
        .to_vec();
    let scoped = c.read_plan(&ids, Workloads::InTheirNamespaces);
    assert_eq!(scoped.requests, c.required_reads(&ids));
    assert_eq!(
        scoped.scope.workload_namespaces,
        c.workload_namespaces(&ids)
    );
    assert_eq!(scoped.scope.keep, c.object_fields(&ids));
    assert!(scoped
        .scope
        .keep
        .contains_key("cephobjectstores.ceph.rook.io"));
    assert_eq!(scoped.host_layers, ["etcd-backup"]);
    assert!(!scoped.requests.contains(&ReadRequest::Nodes));
    // discover: every namespace, the same fields kept, its extra reads after the checks'.
    let everywhere = c
        .read_plan(&ids, Workloads::Everywhere)
        .also(&[ReadRequest::Nodes, ReadRequest::ApiGroups]);
    assert!(everywhere.scope.workload_namespaces.is_empty());
    assert_eq!(everywhere.scope.keep, scoped.scope.keep);
    assert_eq!(everywhere.requests.last(), Some(&ReadRequest::Nodes));
    assert_eq!(
        everywhere
            .requests
            .iter()
            .filter(|r| **r == ReadRequest::ApiGroups)
            .count(),
        1
    );
    // preview and wait: the nodes first.
    let first = scoped.first(ReadRequest::Nodes);
    assert_eq!(first.requests.first(), Some(&ReadRequest::Nodes));
}

/// docs/health.md's "Built-in check ids" table is the built-in catalog's ids, every layer
/// and every check, in order: an id an operator copies into `acknowledged:` from the docs
/// is one nestor really has.
#[test]
fn the_documented_check_ids_are_the_builtin_catalogs() {
    let doc = include_str!("../../../docs/health.md");
    let table = doc
        .split("### Built-in check ids")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap();
    let documented: Vec<(String, Vec<String>)> = table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let ids = cells[2]
                .split(", ")
                .map(|id| id.trim_matches('`').to_string())
                .collect();
            (cells[1].trim_matches('`').to_string(), ids)
        })
        .collect();
    let builtin: Vec<(String, Vec<String>)> = Catalog::builtin()
        .unwrap()
        .layers()
        .iter()
        .filter(|l| l.host.is_none())
        .map(|l| {
            let ids = l.named_checks().into_iter().map(|(id, _, _)| id).collect();
            (l.id.clone(), ids)
        })
        .collect();
    assert_eq!(documented, builtin);
}

/// The keys derived from `CheckKind`'s variants are the catalog's spelling (camelCase) in the
/// documentation's order: what "a check needs one of …" lists.
#[test]
fn the_derived_keys_are_camel_case_in_the_documented_order() {
    assert_eq!(
        CheckKey::listed(),
        "`apiGroup`, `namespace`, `storageClass`, `workload`, `resource`, `condition`, `all`, \
         `count`, `tolerate`, `podFlags`, `nodes`, `configMap`, `namespaceLabel`, \
         `configMapKey`, `absent`, `annotated`, `startedAfter`, `defaultDenyIngress`, `every`, \
         `parents`, `csiDriver`, `oneVersion`, `apiServices`, `webhooks`, `claims`, \
         `distinctNodes`"
    );
}
