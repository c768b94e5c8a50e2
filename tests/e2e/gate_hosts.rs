//! The gates' host rules (SPEC §17) end to end: the REAL kubectl against the replay server
//! (`dirqual-gates`) AND a REAL OpenSSH server on 127.0.0.1 per node (its own host key, a
//! known_hosts entry, a client key in authorized_keys), nestor running the real
//! `/usr/bin/ssh` through `NESTOR_SSH` (a wrapper adding `-F` with the test's known_hosts and
//! key: OpenSSH takes `~/.ssh` from passwd, not $HOME; nothing weakens host-key checking).
//! The remote shell is real; only the host's programs are stand-ins first on the session's
//! PATH (`SetEnv PATH=`): `timedatectl` prints the node's `timedatectl.out` (systemd's `show`
//! format) for `show` and refuses anything else; `find` is the real `/usr/bin/find` over the
//! node's own `root/` (its printed paths given back without that prefix); `cat` is the real
//! `cat` of `root/PATH` for a path under `/etc/kubernetes/` (what the shell's own start-up
//! asks of `cat` passes through). Each sshd's `ForceCommand` records the command line it received
//! before running it: the tests check each line is exactly one allowlisted form.
//!
//! These tests need `/usr/sbin/sshd` (Debian `openssh-server`; `.ci/run` installs it): without
//! it they FAIL, saying so.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::bed_or_skip;
use crate::gate::stable;
use crate::harness::Table;
use crate::support::*;
use snapbox::str;

use crate::common_sshd::{
    self, free_port, keygen, public_key, require, ssh_client, Sshd, SSH, SSH_KEYGEN,
};

/// The sshd's `ForceCommand`: record the command line (one write), then run it as sshd would.
const RECORD: &str = r#"#!/bin/sh
H=$(cd "$(dirname "$0")/.." && pwd)
printf '%s\n' "$SSH_ORIGINAL_COMMAND" >> "$H/commands.log"
exec "${SHELL:-/bin/sh}" -c "$SSH_ORIGINAL_COMMAND"
"#;
const TIMEDATECTL: &str = r#"#!/bin/sh
H=$(cd "$(dirname "$0")/.." && pwd)
if [ "$*" != show ]; then echo "stub timedatectl: unexpected $*" >&2; exit 2; fi
exec /bin/cat "$H/timedatectl.out"
"#;
const FIND: &str = r#"#!/bin/sh
H=$(cd "$(dirname "$0")/.." && pwd)
if [ "$#" != 9 ]; then echo "stub find: unexpected $*" >&2; exit 2; fi
dir=$1; shift
out=$(/usr/bin/find "$H/root$dir" "$@"); rc=$?
[ -n "$out" ] && printf '%s\n' "$out" | sed "s|^\([0-9.]* [0-9]* \)$H/root|\1|"
exit $rc
"#;
const CAT: &str = r#"#!/bin/sh
H=$(cd "$(dirname "$0")/.." && pwd)
case "$#:$1" in
  1:/etc/kubernetes/*) PATH=/usr/bin:/bin exec cat "$H/root$1";;
  *) PATH=/usr/bin:/bin exec cat "$@";;
esac
"#;

/// systemd's `timedatectl show` (its vtable's order), synchronised or not.
fn timedatectl(synced: bool) -> String {
    let s = if synced { "yes" } else { "no" };
    format!("Timezone=Etc/UTC\nLocalRTC=no\nCanNTP=yes\nNTP=yes\nNTPSynchronized={s}\nTimeUSec=Wed 2026-12-02 01:30:00 UTC\nRTCTimeUSec=Wed 2026-12-02 01:30:00 UTC\n")
}

const PKI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/gate/pki");

/// A node: its sshd (killed when dropped; `None`: the node is down) and its filesystem.
struct Node {
    name: String,
    dir: PathBuf,
    /// Kept for its drop, which kills it.
    _sshd: Option<Sshd>,
    port: u16,
}

impl Node {
    fn commands(&self) -> Vec<String> {
        fs::read_to_string(self.dir.join("commands.log"))
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }

    fn synced(&self, yes: bool) {
        fs::write(self.dir.join("timedatectl.out"), timedatectl(yes)).expect("timedatectl");
    }

    /// `/sys/fs/cgroup` as the node mounts it: v2 has `cgroup.controllers` at its root.
    fn cgroup_v2(&self, yes: bool) {
        let dir = self.dir.join("root/sys/fs/cgroup");
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("unified")).expect("mkdir");
        let at = if yes {
            dir.clone()
        } else {
            dir.join("unified")
        };
        fs::write(at.join("cgroup.controllers"), "cpuset cpu io memory pids\n").expect("cg");
    }

    /// kubeadm's API server certificate and cluster CA (the other files are not there).
    fn pki(&self, apiserver: &str) {
        let dir = self.dir.join("root/etc/kubernetes/pki");
        fs::create_dir_all(&dir).expect("mkdir");
        fs::copy(Path::new(PKI).join(apiserver), dir.join("apiserver.crt")).expect("crt");
        fs::copy(Path::new(PKI).join("ca.crt"), dir.join("ca.crt")).expect("ca");
        // A key beside them, as kubeadm writes it: nestor must never ask for it.
        fs::write(
            dir.join("apiserver.key"),
            "-----BEGIN PRIVATE KEY-----\nNESTOR-TEST-KEY-MARKER\n-----END PRIVATE KEY-----\n",
        )
        .expect("key");
    }
}

/// The shared bed's sshd (`tests/common/sshd.rs`: a port of its own, its own banner) with a
/// fresh host key, `client_pub` authorized, the node's programs first on the session's PATH
/// and every command line recorded.
fn start_sshd(dir: &Path, client_pub: &Path) -> Sshd {
    keygen(&dir.join("ssh_host_ed25519_key"));
    fs::copy(client_pub, dir.join("authorized_keys")).expect("authorized_keys");
    let bin = dir.join("bin");
    common_sshd::start(
        dir,
        &format!(
            "SetEnv PATH={bin}:/usr/bin:/bin\nForceCommand {bin}/.record\n",
            bin = bin.display()
        ),
    )
}

/// The bed, one loopback sshd per node of `dirqual-gates` (dirqual1 is the control plane),
/// each healthy (synchronised, cgroup v2, valid certificates on dirqual1) except those in
/// `down`; the inventory at the stack's default path names them as the cluster does.
struct HostBed {
    bed: E2e,
    _work: tempfile::TempDir,
    wrapper: PathBuf,
    nodes: Vec<Node>,
}

fn host_bed(down: &[&str]) -> Option<HostBed> {
    let bed = E2e::new("dirqual-gates", &[])?;
    require(SSH, "openssh-client");
    require(SSH_KEYGEN, "openssh-client");
    let work_dir = tempfile::tempdir().expect("tempdir");
    let work = work_dir.path().to_path_buf();
    fs::set_permissions(&work, fs::Permissions::from_mode(0o700)).expect("chmod");
    let key = work.join("id_ed25519");
    keygen(&key);
    let mut known = String::new();
    let mut nodes = Vec::new();
    let mut inventory = String::from("all:\n  children:\n    k8s:\n      hosts:\n");
    for name in ["dirqual1", "dirqual2", "dirqual3", "dirqual4"] {
        let dir = work.join(name);
        fs::create_dir_all(dir.join("bin")).expect("mkdir");
        for (prog, body) in [
            (".record", RECORD),
            ("timedatectl", TIMEDATECTL),
            ("find", FIND),
            ("cat", CAT),
        ] {
            let p = dir.join("bin").join(prog);
            fs::write(&p, body).expect("stub");
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let (sshd, port) = if down.contains(&name) {
            (None, free_port())
        } else {
            let sshd = start_sshd(&dir, &key.with_extension("pub"));
            let port = sshd.port;
            known.push_str(&format!(
                "[127.0.0.1]:{port} {}\n",
                public_key(&dir.join("ssh_host_ed25519_key.pub"))
            ));
            (Some(sshd), port)
        };
        let node = Node {
            name: name.to_string(),
            dir,
            _sshd: sshd,
            port,
        };
        node.synced(true);
        node.cgroup_v2(true);
        if name == "dirqual1" {
            node.pki("apiserver-valid.crt");
        }
        inventory.push_str(&format!(
            "        {name}:\n          ansible_host: 127.0.0.1\n          ansible_port: {}\n          ansible_ssh_private_key_file: {}\n",
            node.port,
            key.display()
        ));
        nodes.push(node);
    }
    let known_hosts = work.join("known_hosts");
    fs::write(&known_hosts, known).expect("known_hosts");
    let wrapper = ssh_client(&work, &known_hosts, &key, &work.join("ssh-argv.log"));
    fs::create_dir_all(bed.repo.join("bootstrap")).expect("mkdir");
    fs::write(bed.repo.join("bootstrap/hosts.yaml"), inventory).expect("inventory");
    Some(HostBed {
        bed,
        _work: work_dir,
        wrapper,
        nodes,
    })
}

impl HostBed {
    fn run(&self, args: &[&str]) -> Outcome {
        let mut c = self.bed.command(args);
        c.env("NESTOR_SSH", &self.wrapper);
        run(&c)
    }

    fn node(&self, name: &str) -> &Node {
        self.nodes.iter().find(|n| n.name == name).expect("node")
    }

    /// Each node's received command lines, sorted.
    fn commands(&self) -> Vec<(String, Vec<String>)> {
        self.nodes
            .iter()
            .map(|n| {
                let mut c = n.commands();
                c.sort();
                (n.name.clone(), c)
            })
            .collect()
    }
}

/// A rule's status, note and findings' evidence in a `Gate` document.
fn rule(v: &serde_json::Value, id: &str) -> (String, String, Vec<String>) {
    let Some(r) = v["rules"]
        .as_array()
        .and_then(|rules| rules.iter().find(|r| r["rule"] == id))
    else {
        panic!("no rule {id} in {v}");
    };
    let evidence = r["findings"]
        .as_array()
        .map(|f| {
            f.iter()
                .map(|x| {
                    format!(
                        "{}: {}",
                        x["subject"].as_str().unwrap_or(""),
                        x["evidence"].as_str().unwrap_or("")
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    (
        r["status"].as_str().unwrap_or("").to_string(),
        r["note"].as_str().unwrap_or("").to_string(),
        evidence,
    )
}

const TIMEDATECTL_FORM: &str = "'timedatectl' 'show'";

pub const GO_DIRQUAL4_OVER_SSH: &str = r#"gate drain dirqual4 on SERVER (context replay, rule: topology)
GO
holds:
  drain-pdb-blocks  4 budgets: the eviction API lets every pod of dirqual4 go
  drain-ceph-health  CephCluster rook-ceph/rook-ceph: HEALTH_OK, checked Ns ago
  drain-mon-majority  without dirqual4: 3 of 3 mons Ready on 3 distinct nodes (…
  drain-osd-hosts  without dirqual4's 1 OSD(s): 3 hosts left, CephBlockPool roo…
  drain-control-plane  dirqual4 is not a control-plane node
  drain-single-control-plane  dirqual4 is not a control-plane node
  drain-etcd-majority  no etcd member runs on dirqual4 (1 mirror pods)
  drain-node-bound-volumes  no pod on dirqual4 has a node-bound volume
  drain-unmanaged-pods  every pod's controller exists
  drain-emptydir  no evicted pod keeps data in an emptyDir
  drain-capacity  needs 1 CPU, 2.0 GiB; 2 nodes have 61 CPU, 245.3 GiB free
  drain-time-sync  NTPSynchronized=yes on the 3 nodes that stay
"#;

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn gate_drain_go_over_ssh_when_every_node_that_stays_is_synchronised() {
    let hb = bed_or_skip!(host_bed(&[]));
    let r = hb.run(&["gate", "drain", "dirqual4", "--no-input"]);
    assert_eq!(stable(&r), GO_DIRQUAL4_OVER_SSH, "{r:?}");
    r.code(0);
    // One `timedatectl show` per node that stays, nothing to the drained node, nothing else.
    let one = vec![TIMEDATECTL_FORM.to_string()];
    assert_eq!(
        hb.commands(),
        [
            ("dirqual1".to_string(), one.clone()),
            ("dirqual2".to_string(), one.clone()),
            ("dirqual3".to_string(), one),
            ("dirqual4".to_string(), vec![]),
        ]
    );
    assert_read_only(&hb.bed.server);
}

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn gate_drain_no_go_when_a_node_that_stays_is_not_synchronised() {
    let hb = bed_or_skip!(host_bed(&[]));
    hb.node("dirqual3").synced(false);
    let r = hb.run(&["gate", "drain", "dirqual4", "--no-input", "-o", "json"]);
    r.code(2);
    let v = r.json();
    assert_eq!(v["verdict"]["line"], "NO-GO: 1 blocker", "{v}");
    assert_eq!(
        rule(&v, "drain-time-sync"),
        (
            "fails".to_string(),
            String::new(),
            vec!["node dirqual3: timedatectl show: NTPSynchronized=no; NTP=yes: a time service is on but has not synchronised the clock; its clock said Wed 2026-12-02 01:30:00 UTC".to_string()]
        )
    );
    assert_read_only(&hb.bed.server);
}

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn gate_drain_with_a_node_that_stays_unreachable_cannot_tell_never_go() {
    let hb = bed_or_skip!(host_bed(&["dirqual2"]));
    let r = hb.run(&["gate", "drain", "dirqual4", "--no-input", "-o", "json"]);
    r.code(5);
    let v = r.json();
    assert_eq!(
        v["verdict"]["undecided"],
        serde_json::json!(["drain-time-sync"]),
        "{v}"
    );
    let (status, note, _) = rule(&v, "drain-time-sync");
    assert_eq!(status, "unknown");
    assert!(
        note.starts_with("not read on dirqual2 (Unreachable: unreachable over ssh (ssh: connect to host 127.0.0.1 port "),
        "{note}"
    );
    // The other nodes were read: their lines are the one form.
    assert_eq!(hb.node("dirqual1").commands(), [TIMEDATECTL_FORM]);
}

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn gate_drain_no_ssh_names_what_it_skipped_and_runs_no_ssh() {
    let hb = bed_or_skip!(host_bed(&[]));
    let r = hb.run(&[
        "gate",
        "drain",
        "dirqual4",
        "--no-input",
        "--no-ssh",
        "-o",
        "json",
    ]);
    r.code(0);
    let v = r.json();
    assert_eq!(
        rule(&v, "drain-time-sync"),
        (
            "skipped".to_string(),
            "not read: --no-ssh".to_string(),
            vec![]
        )
    );
    assert!(
        hb.commands().iter().all(|(_, c)| c.is_empty()),
        "{:?}",
        hb.commands()
    );
}

/// The ten certificate files of the table, as dirqual1's sshd receives them: `cat` only.
fn cert_forms() -> Vec<String> {
    let mut v: Vec<String> = [
        "apiserver.crt",
        "apiserver-kubelet-client.crt",
        "apiserver-etcd-client.crt",
        "front-proxy-client.crt",
        "etcd/server.crt",
        "etcd/peer.crt",
        "etcd/healthcheck-client.crt",
        "ca.crt",
        "front-proxy-ca.crt",
        "etcd/ca.crt",
    ]
    .iter()
    .map(|f| format!("'cat' '/etc/kubernetes/pki/{f}'"))
    .collect();
    v.sort();
    v
}

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn gate_upgrade_reads_the_control_plane_certificates_and_only_them() {
    let hb = bed_or_skip!(host_bed(&[]));
    let r = hb.run(&[
        "gate",
        "upgrade",
        "kubernetes",
        "1.32",
        "--no-input",
        "-o",
        "json",
    ]);
    let v = r.json();
    assert_eq!(
        rule(&v, "k8s-certs-expired"),
        (
            "holds".to_string(),
            "2 certificates, none expired; the first to expire: /etc/kubernetes/pki/ca.crt on 2036-11-30T08:45:00Z".to_string(),
            vec![]
        )
    );
    assert_eq!(rule(&v, "k8s-certs-expiring").0, "holds");
    // 1.32 needs no cgroup v2: the rule holds from the table and no node is asked.
    assert_eq!(
        rule(&v, "k8s-node-cgroup-v2"),
        (
            "holds".to_string(),
            "the table needs no cgroup v2 up to 1.32".to_string(),
            vec![]
        )
    );
    // Every host rule read and holding, the platform versions read and in range: GO over ssh.
    r.code(0);
    assert_eq!(v["verdict"]["result"], "GO");
    assert_eq!(
        hb.commands(),
        [
            ("dirqual1".to_string(), cert_forms()),
            ("dirqual2".to_string(), vec![]),
            ("dirqual3".to_string(), vec![]),
            ("dirqual4".to_string(), vec![]),
        ]
    );
    assert_read_only(&hb.bed.server);
}

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn gate_upgrade_an_expired_certificate_is_no_go_with_its_path_and_not_after() {
    let hb = bed_or_skip!(host_bed(&[]));
    hb.node("dirqual1").pki("apiserver-expired.crt");
    let r = hb.run(&[
        "gate",
        "upgrade",
        "kubernetes",
        "1.32",
        "--no-input",
        "-o",
        "json",
    ]);
    r.code(2);
    let v = r.json();
    let (status, _, evidence) = rule(&v, "k8s-certs-expired");
    assert_eq!(status, "fails");
    assert_eq!(evidence.len(), 1, "{evidence:?}");
    assert!(
        evidence[0].starts_with("node dirqual1 /etc/kubernetes/pki/apiserver.crt: notAfter 2025-06-01T00:00:00Z: expired "),
        "{evidence:?}"
    );
    let text = hb.run(&["gate", "upgrade", "kubernetes", "1.32", "--no-input"]);
    text.code(2);
    for out in [&r, &text] {
        let all = format!("{}{}", out.stdout, out.stderr);
        for never in [
            "BEGIN CERTIFICATE",
            "MII",
            "NESTOR-TEST-KEY-MARKER",
            "PRIVATE KEY",
        ] {
            assert!(!all.contains(never), "printed {never}:\n{all}");
        }
    }
}

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn gate_upgrade_to_135_asks_every_node_for_cgroup_v2() {
    let hb = bed_or_skip!(host_bed(&[]));
    hb.node("dirqual4").cgroup_v2(false);
    // 1.31 -> 1.35 skips minors (NO-GO anyway): the cgroup rule is still read and judged.
    let r = hb.run(&[
        "gate",
        "upgrade",
        "kubernetes",
        "1.35",
        "--no-input",
        "-o",
        "json",
    ]);
    r.code(2);
    let v = r.json();
    let (status, _, evidence) = rule(&v, "k8s-node-cgroup-v2");
    assert_eq!(status, "fails");
    assert_eq!(evidence.len(), 1, "{evidence:?}");
    assert!(
        evidence[0].starts_with("node dirqual4: no /sys/fs/cgroup/cgroup.controllers: cgroup v1; from 1.35 the kubelet refuses it"),
        "{evidence:?}"
    );
    let find = r"'find' '/sys/fs/cgroup' '-maxdepth' '1' '-type' 'f' '-name' 'cgroup.controllers' '-printf' '%T@ %s %p\n'";
    for (name, lines) in hb.commands() {
        assert!(lines.contains(&find.to_string()), "{name}: {lines:?}");
        for l in &lines {
            assert!(
                l == find || cert_forms().contains(l),
                "{name}: `{l}` is not a gate form"
            );
        }
    }
    // Every node healthy: holds.
    hb.node("dirqual4").cgroup_v2(true);
    let v = hb
        .run(&[
            "gate",
            "upgrade",
            "kubernetes",
            "1.35",
            "--no-input",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(
        rule(&v, "k8s-node-cgroup-v2"),
        (
            "holds".to_string(),
            "4 nodes on cgroup v2 (1.35 needs it)".to_string(),
            vec![]
        )
    );
}

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn gate_upgrade_no_ssh_names_the_host_rules_it_skipped() {
    let hb = bed_or_skip!(host_bed(&[]));
    let r = hb.run(&[
        "gate",
        "upgrade",
        "kubernetes",
        "1.35",
        "--no-input",
        "--no-ssh",
        "-o",
        "json",
    ]);
    let v = r.json();
    for id in [
        "k8s-node-cgroup-v2",
        "k8s-certs-expired",
        "k8s-certs-expiring",
    ] {
        assert_eq!(
            rule(&v, id),
            (
                "skipped".to_string(),
                "not read: --no-ssh".to_string(),
                vec![]
            ),
            "{id}"
        );
    }
    assert!(
        hb.commands().iter().all(|(_, c)| c.is_empty()),
        "{:?}",
        hb.commands()
    );
}

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn gate_drain_a_node_without_an_inventory_host_cannot_tell() {
    let hb = bed_or_skip!(host_bed(&[]));
    let path = hb.bed.repo.join("bootstrap/hosts.yaml");
    let inventory = fs::read_to_string(&path).expect("inventory");
    // dirqual3 renamed in the inventory: nestor never guesses which host is the node.
    fs::write(&path, inventory.replace("dirqual3:", "storage3:")).expect("inventory");
    let r = hb.run(&["gate", "drain", "dirqual4", "--no-input", "-o", "json"]);
    r.code(5);
    let v = r.json();
    let (status, note, _) = rule(&v, "drain-time-sync");
    assert_eq!(status, "unknown");
    assert_eq!(
        note,
        format!(
            "not read on dirqual3 (Skipped: no host `dirqual3` in the inventory {}; hint: name the inventory's hosts as the cluster names its nodes)",
            path.display()
        )
    );
    assert!(hb.node("dirqual3").commands().is_empty());
}

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn gate_drain_a_hostile_inventory_is_refused_before_any_ssh() {
    let hb = bed_or_skip!(host_bed(&[]));
    let path = hb.bed.repo.join("bootstrap/hosts.yaml");
    let inventory = fs::read_to_string(&path).expect("inventory");
    let hostile = inventory.replacen(
        "ansible_host: 127.0.0.1",
        "ansible_host: -oProxyCommand=touch${IFS}/tmp/nestor-pwned",
        1,
    );
    fs::write(&path, hostile).expect("inventory");
    // Both formats' whole output: host `dirqual1` of the inventory, its ansible_host
    // address `-oProxyCommand=...` "is not a plain host name or IP address; no host was
    // contacted".
    let table = Table::new();
    for format in [&[][..], &["-o", "json"][..]] {
        let mut args = vec!["gate", "drain", "dirqual4", "--no-input"];
        args.extend(format);
        let r = hb.run(&args);
        r.code(1);
        table.add(&args.join(" "), &r);
        if !format.is_empty() {
            assert_eq!(r.json()["kind"], "Error", "{r:?}");
        }
    }
    table.table_snap(str![[r#"
== gate drain dirqual4 --no-input: exit 1
--- stderr
kubectl-nestor: error: host `dirqual1` in inventory /t/repo/bootstrap/hosts.yaml: address `-oProxyCommand=touch${IFS}/tmp/nestor-pwned` is not a plain host name or IP address; no host was contacted
hint: fix the host's connection variables in /t/repo/bootstrap/hosts.yaml (ansible_host, ansible_user, ansible_ssh_private_key_file)
== gate drain dirqual4 --no-input -o json: exit 1
--- stdout
{
  "apiVersion": "nestor/v1",
  "kind": "Error",
  "message": "host `dirqual1` in inventory /t/repo/bootstrap/hosts.yaml: address `-oProxyCommand=touch${IFS}/tmp/nestor-pwned` is not a plain host name or IP address; no host was contacted",
  "hint": "fix the host's connection variables in /t/repo/bootstrap/hosts.yaml (ansible_host, ansible_user, ansible_ssh_private_key_file)",
  "exitCode": 1,
  "nestorVersion": "0.1.0"
}
--- stderr
kubectl-nestor: error: host `dirqual1` in inventory /t/repo/bootstrap/hosts.yaml: address `-oProxyCommand=touch${IFS}/tmp/nestor-pwned` is not a plain host name or IP address; no host was contacted
hint: fix the host's connection variables in /t/repo/bootstrap/hosts.yaml (ansible_host, ansible_user, ansible_ssh_private_key_file)

"#]]);
    assert!(
        hb.commands().iter().all(|(_, c)| c.is_empty()),
        "{:?}",
        hb.commands()
    );
    assert!(!Path::new("/tmp/nestor-pwned").exists());
}

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn gate_drain_an_answer_that_is_not_timedatectls_cannot_tell() {
    let hb = bed_or_skip!(host_bed(&[]));
    // `timedatectl status`'s human form where `show`'s Key=value lines belong.
    fs::write(
        hb.node("dirqual1").dir.join("timedatectl.out"),
        "               Local time: Wed 2026-12-02 01:30:00 UTC\nSystem clock synchronized: yes\n",
    )
    .expect("timedatectl");
    let r = hb.run(&["gate", "drain", "dirqual4", "--no-input", "-o", "json"]);
    r.code(5);
    let v = r.json();
    assert_eq!(
        v["verdict"]["undecided"],
        serde_json::json!(["drain-time-sync"]),
        "{v}"
    );
    assert_eq!(
        rule(&v, "drain-time-sync").1,
        "not read on dirqual1 (BadOutput: timedatectl show: `               Local time: Wed 2026-12-02 01:30:00 UTC` is not a Key=value line)"
    );
}
