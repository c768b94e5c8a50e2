//! Fuzz targets for every reader of outside input (issue 5): the topology reader, the Ansible
//! inventory reader, the kubeconfig parser, the catalog overlay, every kubectl JSON parser
//! of `nestor::model::observation`, the `limactl list --json` parser, the host-check outputs
//! (systemctl show, find -printf, sshd -T) and the allowlist's host-command grammar. Property: no panic, no runaway
//! memory, on arbitrary bytes and on structured mutations of the real fixtures (truncation,
//! deletion, replaced and inserted characters, deep nesting, huge numbers, repeated slices,
//! JSON values swapped for wrong types). When a parse succeeds, what nestor does next with
//! the result (layer states and plan, inventory lookups, catalog reads) must not panic either.
//!
//! proptest, run through `TestRunner` with a deterministic seed per target and round (no
//! regression files are written). Budget, from the environment:
//! - `PROPTEST_CASES`: cases per round (default 64: a few seconds for the whole suite);
//! - `NESTOR_FUZZ_SECONDS`: per-target wall-clock budget; rounds (new seeds) repeat until it
//!   is spent. Unset: one round. `.ci/run` runs the suite a second time with a budget.
//!
//! Each target prints `fuzz NAME: N executions in S s` (see `cargo test --test fuzz --
//! --nocapture`); inputs are capped (arbitrary input 4 KiB, mutations a few tens of KiB over
//! fixtures of at most 64 KiB) and the peak RSS is checked after each target.

use std::fmt::Debug;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::Value;

use nestor::model::catalog::Catalog;
use nestor::model::observation::{self, Observation, ReadRequest, WorkloadKind};
use nestor::stack::inventory::Inventory;

// ---- the harness -----------------------------------------------------------------------------

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(64)
}

fn budget() -> Option<Duration> {
    std::env::var("NESTOR_FUZZ_SECONDS")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| *s > 0.0 && *s <= 600.0)
        .map(Duration::from_secs_f64)
}

/// 32 seed bytes from the target name and the round: the same run every time.
fn seed(name: &str, round: u64) -> [u8; 32] {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let mut state = h ^ round.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut out = [0u8; 32];
    for chunk in out.chunks_mut(8) {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out
}

/// Peak resident set size of this process, in KiB (Linux).
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// Most memory the whole fuzz process may reach: far above what bounded inputs need, far
/// below what a runaway expansion would take.
const MAX_RSS_KIB: u64 = 2 * 1024 * 1024;

/// Run `check` on values of `strategy` until the budget is spent (one round without one).
fn fuzz<S>(name: &str, strategy: S, check: impl Fn(S::Value))
where
    S: Strategy,
    S::Value: Debug,
{
    let executions = AtomicU64::new(0);
    let started = Instant::now();
    let budget = budget();
    let mut round = 0u64;
    loop {
        let config = Config {
            cases: cases(),
            failure_persistence: None,
            ..Config::default()
        };
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed(name, round));
        let mut runner = TestRunner::new_with_rng(config, rng);
        let result = runner.run(&strategy, |value| {
            // Past the budget, the rest of the round is skipped (not counted).
            if budget.is_some_and(|b| started.elapsed() >= b) {
                return Ok(());
            }
            executions.fetch_add(1, Ordering::Relaxed);
            check(value);
            Ok::<(), TestCaseError>(())
        });
        if let Err(e) = result {
            panic!("fuzz {name}: round {round} (deterministic seed): {e}");
        }
        round += 1;
        match budget {
            Some(b) if started.elapsed() < b => continue,
            _ => break,
        }
    }
    let rss = peak_rss_kib();
    println!(
        "fuzz {name}: {} executions in {:.1} s ({round} round(s) of {} cases), peak RSS {} MiB",
        executions.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64(),
        cases(),
        rss / 1024
    );
    assert!(
        rss < MAX_RSS_KIB,
        "fuzz {name}: peak RSS {rss} KiB: memory is not bounded"
    );
}

// ---- input strategies ------------------------------------------------------------------------

/// Bits of JSON, YAML and kubectl/limactl output that steer a parser deeper than random
/// bytes would: structure, keys the parsers look for, extreme numbers, YAML anchors and
/// merge keys, odd Unicode.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "\"",
    "'",
    " ",
    "\n",
    "  ",
    "- ",
    "#",
    "\\",
    "\\u0000",
    "\\ud800",
    "null",
    "true",
    "false",
    "0",
    "-1",
    "1.5",
    "1e999",
    "-1e999",
    "1e-999",
    "18446744073709551616",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "NaN",
    ".inf",
    "~",
    "\"items\"",
    "\"metadata\"",
    "\"name\"",
    "\"namespace\"",
    "\"status\"",
    "\"spec\"",
    "\"replicas\"",
    "\"readyReplicas\"",
    "\"numberReady\"",
    "\"desiredNumberScheduled\"",
    "\"conditions\"",
    "\"type\"",
    "\"Ready\"",
    "\"True\"",
    "\"labels\"",
    "\"annotations\"",
    "\"provisioner\"",
    "\"addresses\"",
    "\"InternalIP\"",
    "\"phase\"",
    "\"memory\"",
    "\"sshLocalPort\"",
    "\"status\": \"Running\"",
    "items:",
    "name: ",
    "target_kind: ",
    "prod",
    "lima",
    "nodes:",
    "layers:",
    "role: ",
    "control-plane",
    "kubeconfig: ",
    "endpoint: ",
    "https://10.67.2.11:6443",
    "all:",
    "children:",
    "hosts:",
    "vars:",
    "ansible_host: ",
    "ansible_port: ",
    "node[1:3]",
    "node[01:99999999]",
    "[a:z]",
    "<<: ",
    "&a ",
    "*a",
    "!!str ",
    "!!binary ",
    "? ",
    "|",
    ">",
    "---",
    "...",
    "%YAML 1.2",
    "id: ",
    "after: ",
    "detect:",
    "healthy:",
    "apiGroup: ",
    "resource: ",
    "field: ",
    ".status.phase",
    "in: ",
    "equals: ",
    "workload: ",
    "kind: ",
    "current-context: ",
    "contexts:",
    "clusters:",
    "users:",
    "server: ",
    "cluster: ",
    "user: ",
    "apps/v1",
    "v1",
    "ceph.rook.io/v1",
    "--kubeconfig=/x",
    "$(reboot)",
    ";",
    "é",
    "\u{feff}",
    "\u{202e}",
    "\u{0}",
    "\t",
    "\r\n",
    "😀",
];

/// Arbitrary input, at most 4 KiB: raw bytes (read lossily) or a soup of tokens.
fn arbitrary_text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..4096)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        prop::collection::vec(prop::sample::select(TOKENS), 0..400).prop_map(|t| t.concat()),
    ]
}

/// One edit of a fixture's text. Positions are taken modulo the text length.
#[derive(Debug, Clone)]
enum Edit {
    Truncate(u32),
    Delete(u32, u16),
    Replace(u32, &'static str),
    Insert(u32, &'static str),
    /// `depth` openers then as many closers, at a position: deep but balanced nesting (far
    /// past the 128 levels serde_json and yaml_serde accept).
    Nest(u32, u32, u8),
    /// A slice of up to 1 KiB repeated up to 16 times.
    Repeat(u32, u16, u8),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<u32>().prop_map(Edit::Truncate),
        (any::<u32>(), 1u16..512).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<u32>(), prop::sample::select(TOKENS)).prop_map(|(a, t)| Edit::Replace(a, t)),
        (any::<u32>(), prop::sample::select(TOKENS)).prop_map(|(a, t)| Edit::Insert(a, t)),
        (any::<u32>(), 1u32..5_000, 0u8..4).prop_map(|(a, d, k)| Edit::Nest(a, d, k)),
        (any::<u32>(), 1u16..1024, 2u8..16).prop_map(|(a, n, t)| Edit::Repeat(a, n, t)),
    ]
}

/// The char boundary at or before `at % (len + 1)`.
fn boundary(s: &str, at: u32) -> usize {
    let mut i = at as usize % (s.len() + 1);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut s = text.to_string();
    for e in edits {
        match e {
            Edit::Truncate(at) => s.truncate(boundary(&s, *at)),
            Edit::Delete(at, n) => {
                let a = boundary(&s, *at);
                let b = boundary(&s, (a + *n as usize).min(s.len()) as u32);
                if b > a {
                    s.replace_range(a..b, "");
                }
            }
            Edit::Replace(at, t) => {
                let a = boundary(&s, *at);
                let b = s[a..].chars().next().map_or(a, |c| a + c.len_utf8());
                s.replace_range(a..b, t);
            }
            Edit::Insert(at, t) => {
                let a = boundary(&s, *at);
                s.insert_str(a, t);
            }
            Edit::Nest(at, depth, kind) => {
                let (open, close) = match kind {
                    0 => ("[", "]"),
                    1 => ("{\"a\":", "}"),
                    2 => ("{\"items\":[", "]}"),
                    _ => ("- ", ""),
                };
                let a = boundary(&s, *at);
                let d = *depth as usize;
                s.insert_str(a, &(open.repeat(d) + "1" + &close.repeat(d)));
            }
            Edit::Repeat(at, n, times) => {
                let a = boundary(&s, *at);
                let b = boundary(&s, (a + *n as usize).min(s.len()) as u32);
                let slice = s[a..b].repeat(*times as usize);
                s.insert_str(b, &slice);
            }
        }
    }
    s
}

/// What replaces one JSON value of a fixture.
#[derive(Debug, Clone)]
enum Swap {
    Remove,
    Null,
    Bool(bool),
    U64Max,
    I64Min,
    F64(f64),
    Text(String),
    EmptyArray,
    EmptyObject,
    /// Arrays nested this deep (at most 1000: the value is serialized recursively).
    Deep(u16),
}

fn swap() -> impl Strategy<Value = Swap> {
    prop_oneof![
        Just(Swap::Remove),
        Just(Swap::Null),
        any::<bool>().prop_map(Swap::Bool),
        Just(Swap::U64Max),
        Just(Swap::I64Min),
        prop::sample::select(vec![f64::MAX, f64::MIN, -0.0, 1e-308, 0.5, -1.0]).prop_map(Swap::F64),
        "[a-zA-Z0-9./:=-]{0,40}".prop_map(Swap::Text),
        Just(Swap::EmptyArray),
        Just(Swap::EmptyObject),
        (1u16..1000).prop_map(Swap::Deep),
    ]
}

fn replacement(s: &Swap) -> Value {
    match s {
        Swap::Remove | Swap::Null => Value::Null,
        Swap::Bool(b) => Value::Bool(*b),
        Swap::U64Max => Value::from(u64::MAX),
        Swap::I64Min => Value::from(i64::MIN),
        Swap::F64(f) => Value::from(*f),
        Swap::Text(t) => Value::from(t.as_str()),
        Swap::EmptyArray => Value::Array(vec![]),
        Swap::EmptyObject => Value::Object(Default::default()),
        Swap::Deep(d) => {
            let mut v = Value::from(1);
            for _ in 0..*d {
                v = Value::Array(vec![v]);
            }
            v
        }
    }
}

/// Swap the `index`-th value (pre-order, modulo the count) of `v`; `Remove` deletes it
/// from its parent object or array (the root is never removed).
fn swap_value(v: &mut Value, index: u32, with: &Swap) {
    /// The path (child positions) of every value, in pre-order.
    // a serde Value: every shape but the expected ones is the same error.
    #[allow(clippy::wildcard_enum_match_arm)]
    fn paths(v: &Value, here: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        out.push(here.clone());
        let children: Vec<&Value> = match v {
            Value::Array(a) => a.iter().collect(),
            Value::Object(o) => o.values().collect(),
            _ => vec![],
        };
        for (i, c) in children.into_iter().enumerate() {
            here.push(i);
            paths(c, here, out);
            here.pop();
        }
    }
    // a serde Value: every shape but the expected ones is the same error.
    #[allow(clippy::wildcard_enum_match_arm)]
    fn child(v: &mut Value, i: usize) -> Option<&mut Value> {
        match v {
            Value::Array(a) => a.get_mut(i),
            Value::Object(o) => o.values_mut().nth(i),
            _ => None,
        }
    }
    let mut all = vec![];
    paths(v, &mut vec![], &mut all);
    let path = &all[index as usize % all.len()];
    let Some((last, parent_path)) = path.split_last() else {
        if !matches!(with, Swap::Remove) {
            *v = replacement(with);
        }
        return;
    };
    let mut parent = v;
    for &i in parent_path {
        match child(parent, i) {
            Some(c) => parent = c,
            None => return,
        }
    }
    match (parent, with) {
        (Value::Array(a), Swap::Remove) => {
            a.remove(*last);
        }
        (Value::Object(o), Swap::Remove) => {
            if let Some(k) = o.keys().nth(*last).cloned() {
                o.remove(&k);
            }
        }
        (p, _) => {
            if let Some(slot) = child(p, *last) {
                *slot = replacement(with);
            }
        }
    }
}

/// A mutated fixture: text edits, or (for JSON) value swaps then text edits.
#[derive(Debug, Clone)]
struct Mutation {
    swaps: Vec<(u32, Swap)>,
    edits: Vec<Edit>,
}

fn mutation(json: bool) -> impl Strategy<Value = Mutation> {
    let swaps = if json {
        prop::collection::vec((any::<u32>(), swap()), 0..4).boxed()
    } else {
        Just(vec![]).boxed()
    };
    (swaps, prop::collection::vec(edit(), 0..4))
        .prop_map(|(swaps, edits)| Mutation { swaps, edits })
}

fn mutate(fixture: &str, m: &Mutation) -> String {
    let base = if m.swaps.is_empty() {
        fixture.to_string()
    } else {
        match serde_json::from_str::<Value>(fixture) {
            Ok(mut v) => {
                for (at, with) in &m.swaps {
                    swap_value(&mut v, *at, with);
                }
                serde_json::to_string_pretty(&v).unwrap_or_default()
            }
            Err(_) => fixture.to_string(),
        }
    };
    apply(&base, &m.edits)
}

/// `fixture`'s mutations, and arbitrary input, fed to `check`.
fn fuzz_reader(name: &str, fixtures: &[&str], json: bool, check: impl Fn(&str)) {
    let fixtures: Vec<String> = fixtures.iter().map(|s| s.to_string()).collect();
    for f in &fixtures {
        assert!(f.len() <= 64 * 1024, "{name}: fixture over 64 KiB");
        check(f);
    }
    fuzz(
        &format!("{name}/mutations"),
        (0..fixtures.len(), mutation(json)),
        |(i, m)| check(&mutate(&fixtures[i], &m)),
    );
    fuzz(&format!("{name}/arbitrary"), arbitrary_text(), |s| {
        check(&s)
    });
}

// ---- what happens after a successful parse --------------------------------------------------

fn builtin() -> Catalog {
    static BUILTIN: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
    BUILTIN
        .get_or_init(|| Catalog::builtin().expect("the built-in catalog loads"))
        .clone()
}

/// The observation a read would give, then layer states and the plan over every layer.
fn evaluate(request: &ReadRequest, text: &str) {
    static CATALOG: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
    let catalog = CATALOG.get_or_init(builtin);
    let mut obs = Observation::skipped("fuzz");
    let ids: Vec<String> = catalog.ids().into_iter().map(String::from).collect();
    obs.keep = catalog.object_fields(&ids);
    obs.record(request, Ok(text));
    let declared: Vec<nestor::model::state::DeclaredNode> = (1..=4)
        .map(|i| {
            nestor::model::state::DeclaredNode::lima(format!("dirqual{i}"), &format!("dirqual{i}"))
        })
        .collect();
    let reports = nestor::model::state::evaluate(catalog, &ids, &declared, &obs);
    let _ = nestor::model::plan::Plan::build(catalog, &reports, Default::default());
    let _ = serde_json::to_string(&obs);
}

// ---- fixtures --------------------------------------------------------------------------------

const NODES: &str = include_str!("../fixtures/kubectl/nodes-dirqual.json");
const NODES_NOTREADY: &str = include_str!("../fixtures/kubectl/nodes-dirqual3-notready.json");
const NAMESPACES: &str = include_str!("../fixtures/kubectl/namespaces.json");
const STORAGE_CLASSES: &str = include_str!("../fixtures/kubectl/storageclasses.json");
const STORAGE_CLASSES_BETA: &str =
    include_str!("../fixtures/kubectl/storageclasses-beta-default.json");
const DAEMONSETS: &str = include_str!("../fixtures/kubectl/daemonsets.json");
const DEPLOYMENTS: &str = include_str!("../fixtures/kubectl/deployments.json");
const DEPLOYMENTS_CM: &str = include_str!("../fixtures/kubectl/deployments-cert-manager.json");
const STATEFULSETS: &str = include_str!("../fixtures/kubectl/statefulsets.json");
const CEPHCLUSTERS: &str = include_str!("../fixtures/kubectl/cephclusters.json");
const CEPHOBJECTSTORES: &str = include_str!("../fixtures/kubectl/cephobjectstores.json");
const CNPG: &str = include_str!("../fixtures/kubectl/cnpg-clusters.json");
const API_VERSIONS: &str = include_str!("../fixtures/kubectl/api-versions.txt");
const LIMACTL: &str = include_str!("../fixtures/limactl/list-bench.ndjson");
const TOPOLOGY_PROD: &str = include_str!("../../examples/stacks/dirqual.yaml");
const TOPOLOGY_LIMA: &str = include_str!("../../examples/stacks/bench.yaml");
const CATALOG: &str = include_str!("../../src/model/catalog/builtin.yaml");

const CATALOG_OVERLAY: &str = "# a stack's catalog: file
- id: vault
  title: HashiCorp Vault
  after: [storage, certs]
  detect:
    - namespace: vault
    - workload: {kind: StatefulSet, namespace: vault, name: vault}
  healthy:
    - workload: {kind: StatefulSet, namespace: vault, name: vault}
    - resource: vaultclusters.vault.example.com
      namespace: vault
      field: .status.phase
      in: [Ready, Sealed]
  install: ansible-playbook platform/vault.yaml
- id: certs
  title: cert-manager (pinned)
  after: [k8s]
  detect:
    - apiGroup: cert-manager.io
  healthy:
    - workload: {kind: Deployment, namespace: cert-manager, name: cert-manager}
  install: ansible-playbook platform/cert-manager.yaml
";

const INVENTORY: &str = "# bootstrap/hosts.yaml
all:
  vars:
    ansible_user: ops
    ansible_ssh_private_key_file: ~/.ssh/dirqual
  children:
    control_plane:
      hosts:
        dirqual1:
          ansible_host: 10.67.2.11
    workers:
      hosts:
        dirqual[2:4]:
        dirqual5:2222:
      vars:
        ansible_group_priority: 5
        ansible_port: 22
    kube:
      children:
        control_plane:
        workers:
      vars: &common
        ansible_become: true
    edge:
      vars:
        <<: *common
        ansible_user: '{{ lookup(\"env\", \"USER\") }}'
      hosts:
        rack-[a:c]:
";

const KUBECONFIG: &str = "apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
    server: https://10.67.2.11:6443
  name: dirqual
- cluster:
    server: https://10.99.0.1:6443
  name: other
contexts:
- context:
    cluster: dirqual
    user: kubernetes-admin
    namespace: default
  name: kubernetes-admin@dirqual
- context:
    cluster: other
    user: kubernetes-admin
  name: other
current-context: kubernetes-admin@dirqual
preferences: {}
users:
- name: kubernetes-admin
  user:
    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
    client-key-data: U0VDUkVULUtFWS1EQVRB
";

// ---- the targets -----------------------------------------------------------------------------

#[test]
fn topology_reader() {
    let known = nestor::model::catalog::known_ids(None).expect("catalog ids");
    let file = Path::new("/repo/stacks/dirqual.yaml");
    fuzz_reader("topology", &[TOPOLOGY_PROD, TOPOLOGY_LIMA], false, |text| {
        let _ = nestor::stack::schema::parse(text, file, "dirqual", Some(&known));
        let _ = nestor::stack::schema::parse(text, file, "bench", None);
    });
}

#[test]
fn inventory_reader() {
    let file = Path::new("bootstrap/hosts.yaml");
    fuzz_reader("inventory", &[INVENTORY], false, |text| {
        if let Ok(inv) = Inventory::parse(text, file) {
            let _ = inv.control_plane_host(None, Some(std::path::Path::new("/home/op")));
            let _ = inv.control_plane_host(Some("workers"), None);
            for g in inv.groups() {
                if let Ok(hosts) = inv.hosts_of(g) {
                    for h in hosts.iter().take(50) {
                        let _ = inv.host_vars(h);
                        let _ = inv.ssh_target(h, Some(std::path::Path::new("/home/op")));
                    }
                }
            }
        }
    });
}

#[test]
fn kubeconfig_parser() {
    let file = Path::new("/home/op/.kube/dirqual.config");
    fuzz_reader("kubeconfig", &[KUBECONFIG], false, |text| {
        let _ = nestor::target::kubeconfig::parse(text.as_bytes(), file);
    });
    // Raw bytes too: the parser takes the file's bytes, not text.
    fuzz(
        "kubeconfig/bytes",
        prop::collection::vec(any::<u8>(), 0..4096),
        |b| {
            let _ = nestor::target::kubeconfig::parse(&b, file);
        },
    );
}

#[test]
fn catalog_overlay() {
    let base = builtin();
    fuzz_reader("catalog", &[CATALOG_OVERLAY, CATALOG], false, |text| {
        let mut c = base.clone();
        if c.overlay_str(text, "stacks/layers.yaml").is_ok() {
            let ids: Vec<String> = c.ids().into_iter().map(String::from).collect();
            let _ = c.required_reads(&ids);
            for id in &ids {
                let _ = c.ancestors(id);
            }
        }
    });
}

#[test]
fn kubectl_get_nodes() {
    fuzz_reader("parse_nodes", &[NODES, NODES_NOTREADY], true, |t| {
        if observation::parse_nodes(t).is_ok() {
            evaluate(&ReadRequest::Nodes, t);
        }
    });
}

#[test]
fn kubectl_get_namespaces() {
    fuzz_reader("parse_namespaces", &[NAMESPACES], true, |t| {
        let psa = ["pod-security.kubernetes.io/enforce".to_string()].into();
        if observation::parse_namespaces(t, &psa).is_ok() {
            evaluate(&ReadRequest::Namespaces, t);
        }
    });
}

#[test]
fn kubectl_get_storageclasses() {
    fuzz_reader(
        "parse_storage_classes",
        &[STORAGE_CLASSES, STORAGE_CLASSES_BETA],
        true,
        |t| {
            if observation::parse_storage_classes(t).is_ok() {
                evaluate(&ReadRequest::StorageClasses, t);
            }
        },
    );
}

#[test]
fn kubectl_get_daemonsets() {
    fuzz_reader("parse_daemonsets", &[DAEMONSETS], true, |t| {
        if observation::parse_daemonsets(t).is_ok() {
            evaluate(&ReadRequest::Workloads(WorkloadKind::DaemonSet), t);
        }
    });
}

#[test]
fn kubectl_get_deployments() {
    fuzz_reader(
        "parse_deployments",
        &[DEPLOYMENTS, DEPLOYMENTS_CM],
        true,
        |t| {
            if observation::parse_deployments(t).is_ok() {
                evaluate(&ReadRequest::Workloads(WorkloadKind::Deployment), t);
            }
        },
    );
}

#[test]
fn kubectl_get_statefulsets() {
    fuzz_reader("parse_statefulsets", &[STATEFULSETS], true, |t| {
        if observation::parse_statefulsets(t).is_ok() {
            evaluate(&ReadRequest::Workloads(WorkloadKind::StatefulSet), t);
        }
    });
}

#[test]
fn kubectl_get_custom_objects() {
    fuzz_reader(
        "parse_custom_objects",
        &[CEPHCLUSTERS, CEPHOBJECTSTORES, CNPG],
        true,
        |t| {
            let keep =
                builtin().object_fields(&["ceph".into(), "datalake".into(), "dataops".into()]);
            let uses = keep.values().flatten().cloned().collect();
            if observation::parse_custom_objects(t, &uses).is_ok() {
                for r in [
                    "cephclusters.ceph.rook.io",
                    "cephobjectstores.ceph.rook.io",
                    "clusters.postgresql.cnpg.io",
                ] {
                    evaluate(&ReadRequest::Resource(r.to_string()), t);
                }
            }
        },
    );
}

#[test]
fn kubectl_api_versions() {
    fuzz_reader("parse_api_versions", &[API_VERSIONS], false, |t| {
        if observation::parse_api_versions(t).is_ok() {
            evaluate(&ReadRequest::ApiGroups, t);
        }
    });
}

#[test]
fn limactl_list() {
    fuzz_reader("parse_limactl_list", &[LIMACTL], true, |t| {
        if let Ok(found) = observation::parse_limactl_list(t) {
            let wanted: Vec<String> = ["node1", "node2", "node3"].map(String::from).to_vec();
            let _ = nestor::model::plan::vm_plan(&wanted, &found);
            let _ = nestor::output::report::vm_rows(&wanted, &found);
        }
    });
}

#[test]
fn kubectl_stderr_classification() {
    fuzz_reader(
        "kubectl_stderr",
        &["E1130 09:20:08.104960   30023 memcache.go:265] \"Unhandled Error\" err=\"couldn't get current server API group list: Get \\\"http://127.0.0.1:1/api?timeout=10s\\\": dial tcp 127.0.0.1:1: connect: connection refused\"\nThe connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n"],
        false,
        |t| {
            let _ = observation::classify_kubectl_stderr(t);
            let _ = observation::kubectl_message(t);
        },
    );
}

/// The harness itself: a deliberately panicking check is reported, not swallowed.
#[test]
fn the_harness_reports_a_panic() {
    // Keep the log readable: this test's own (expected) panics, one per shrink step, are
    // not printed; every other thread keeps the default hook.
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() != Some("the_harness_reports_a_panic") {
            default(info);
        }
    }));
    let caught = std::panic::catch_unwind(|| {
        fuzz("harness-self-test", arbitrary_text(), |s| {
            assert!(!s.contains('{'), "found a brace");
        })
    });
    // The swap and edit machinery really changes fixtures.
    let m = Mutation {
        swaps: vec![(3, Swap::U64Max)],
        edits: vec![Edit::Insert(0, "[")],
    };
    let out = mutate(NAMESPACES, &m);
    assert!(
        out.starts_with("[{") && out.contains("18446744073709551615"),
        "{out}"
    );
    let mut v: Value = serde_json::from_str(r#"{"a":[1,2],"b":3}"#).expect("json");
    swap_value(&mut v, 2, &Swap::Remove);
    assert_eq!(v.to_string(), r#"{"a":[2],"b":3}"#);
    let message = caught
        .err()
        .and_then(|p| p.downcast::<String>().ok())
        .map(|s| *s)
        .unwrap_or_default();
    assert!(message.contains("found a brace"), "{message:?}");
}

// ---- host checks (ssh) ----------------------------------------------------------------------

/// What the host's commands print, one ssh each: systemctl show (timer, service), find
/// -printf, sshd -T; and a failed command's stderr.
const HOST_OUTPUTS: [&str; 5] = [
    "Unit=etcd-snapshot.service\nResult=success\nId=etcd-snapshot.timer\nLoadState=loaded\nActiveState=active\nSubState=waiting\n",
    "Result=exit-code\nExecMainStatus=127\nLoadState=loaded\nActiveState=failed\nSubState=failed\n",
    "1764400000.1234567890 24576000 /var/lib/etcd-backups/etcd-20251129.db\n1764486400.0000000000 0 /var/lib/etcd-backups/etcd-20251130.db\n",
    "port 22\npermitrootlogin without-password\npasswordauthentication no\nlistenaddress 0.0.0.0:22\n",
    "find: '/var/lib/etcd-backups': No such file or directory\nsudo: a password is required\n",
];

#[test]
fn host_command_outputs() {
    use nestor::model::observation::host::{HostObservation, HostReading};
    use nestor::read::hosts::{interpret, RemoteRun};
    let catalog = builtin();
    let ids = ["etcd-backup".to_string(), "sshd-hardening".to_string()];
    let checks: Vec<_> = ids
        .iter()
        .filter_map(|id| catalog.get(id).and_then(|l| l.host.clone()))
        .flat_map(|h| h.checks)
        // What runs: an `executable:` check is one `find` (newestFile) per program and dir.
        .flat_map(|c| c.reads())
        .collect();
    // etcd-backup: 2 units, the snapshots, etcdutl and crictl in 3 dirs; sshd-hardening: 1.
    assert_eq!(checks.len(), 10, "the built-in host checks, as run");
    for check in &checks {
        use nestor::model::catalog::host::HostProbe;
        let text = match &check.probe {
            HostProbe::Unit { unit, .. } if unit.ends_with(".timer") => HOST_OUTPUTS[0],
            HostProbe::Unit { .. } => HOST_OUTPUTS[1],
            HostProbe::NewestFile { .. } => HOST_OUTPUTS[2],
            HostProbe::Sshd { .. } => HOST_OUTPUTS[3],
            HostProbe::Executable { .. } => panic!("an executable check is read as finds"),
        };
        let run = RemoteRun {
            status: 0,
            stdout: text.as_bytes().to_vec(),
            stderr: String::new(),
        };
        assert!(
            interpret(&check.probe, &run, 1_764_490_000.0).is_ok(),
            "the seed is what {} prints",
            check.key()
        );
    }
    fuzz_reader("host_output", &HOST_OUTPUTS, false, |t| {
        // the text as each command's stdout (status 0), then as a failed command's stderr
        let status = i32::try_from(t.len() % 256).unwrap_or(1);
        for (status, stdout, stderr) in [(0, t, ""), (status, "", t)] {
            let run = RemoteRun {
                status,
                stdout: stdout.as_bytes().to_vec(),
                stderr: stderr.to_string(),
            };
            let mut r = HostReading::default();
            for check in &checks {
                r.checks
                    .insert(check.key(), interpret(&check.probe, &run, 1_764_490_000.0));
            }
            let mut hosts = HostObservation::default();
            for g in ["control_plane", "all"] {
                hosts
                    .groups
                    .insert(g.to_string(), Ok(vec!["h1".to_string()]));
            }
            hosts.hosts.insert("h1".to_string(), Ok(r));
            let mut obs = Observation::skipped("fuzz");
            obs.hosts = hosts;
            let reports = nestor::model::state::evaluate(&catalog, &ids, &[], &obs);
            let _ = nestor::model::plan::Plan::build(&catalog, &reports, Default::default());
        }
    });
}

/// The allowlist's grammar of host-check commands never panics, whatever the words.
#[test]
fn host_command_allowlist() {
    // The words of an admitted command, separated by \u{1f} (a word may hold spaces).
    const COMMAND: &str = "'sudo'\u{1f}'-n'\u{1f}'find'\u{1f}'/var/lib/etcd-backups'\u{1f}'-maxdepth'\u{1f}'1'\u{1f}'-type'\u{1f}'f'\u{1f}'-name'\u{1f}'etcd-*.db'\u{1f}'-printf'\u{1f}'%T@ %s %p\\n'";
    // a second admitted command, to mutate toward (and refuse) two forms in one ssh
    const UNIT: &str = "'systemctl'\u{1f}'show'\u{1f}'etcd-snapshot.timer'\u{1f}'--property=LoadState,ActiveState'";
    for command in [COMMAND, UNIT] {
        let seed: Vec<&str> = command.split('\u{1f}').collect();
        assert_eq!(
            nestor::read::exec::allowlist::hostcmd::admits("ops@h", &seed),
            Ok(()),
            "the seed is an admitted command"
        );
    }
    let two = format!("{COMMAND}\u{1f}{UNIT}");
    let words: Vec<&str> = two.split('\u{1f}').collect();
    assert!(nestor::read::exec::allowlist::hostcmd::admits("ops@h", &words).is_err());
    fuzz_reader("hostcmd_admits", &[COMMAND, UNIT, &two], false, |t| {
        let words: Vec<&str> = t.split('\u{1f}').collect();
        let _ = nestor::read::exec::allowlist::hostcmd::admits("ops@h", &words);
        let _ = nestor::read::exec::allowlist::hostcmd::admits("root@h", &words);
    });
}
