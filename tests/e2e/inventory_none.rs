//! `inventory: none` (SPEC §6 v0.5, issue 51 item 2): a stack that says it has no hosts to
//! read over ssh. Its host rules and host checks are skipped and named so, without a flag:
//! a gate answers GO or NO-GO on what it reads (no CANNOT TELL for hosts it was told not to
//! read), preview says why a host layer was not read, `kubeconfig fetch` refuses with the fix.
//! The control: the same stack without the key, and no inventory file, cannot tell.

use crate::bed_or_skip;
use crate::support::*;

fn bed(inventory_none: bool, layers: &str) -> Option<E2e> {
    let bed = E2e::new("dirqual-gates", &[])?;
    let mut yaml = dirqual_topology(&bed.server.url()).replace(LAYERS, layers);
    if inventory_none {
        yaml.push_str("inventory: none\n");
    }
    bed.write_stack("dirqual", &yaml);
    Some(bed)
}

/// `gate upgrade kubernetes 1.32 --no-input -o json`, no `--no-ssh`.
fn upgrade(b: &E2e) -> Outcome {
    b.run(&[
        "gate",
        "upgrade",
        "kubernetes",
        "1.32",
        "--no-input",
        "-o",
        "json",
    ])
}

#[test]
fn a_gate_skips_the_host_rules_of_a_stack_without_hosts() {
    let b = bed_or_skip!(bed(true, LAYERS));
    let r = upgrade(&b);
    r.code(0);
    let v = r.json();
    // (At 1.32 the cgroup rule holds without reading a host: the table needs no cgroup v2.)
    for id in ["k8s-certs-expired", "k8s-certs-expiring"] {
        let o = rule_of(&v, id);
        assert_eq!(o["status"], "skipped", "{id}: {o}");
        assert!(
            o["note"]
                .as_str()
                .is_some_and(|n| n.contains("`inventory: none` in the stack")),
            "{id}: {o}"
        );
    }
    assert!(!r.stderr.contains("no Ansible inventory"), "{}", r.stderr);
    // The control: no key, no inventory file: the host rules cannot tell (exit 5).
    let b = bed_or_skip!(bed(false, LAYERS));
    let r = upgrade(&b);
    r.code(5);
}

#[test]
fn preview_names_a_host_layer_not_read_and_fetch_refuses() {
    let b = bed_or_skip!(bed(true, "[k8s, etcd-backup]"));
    let r = b.run(&["preview", "--no-input", "-o", "json"]);
    r.code(0);
    let v = r.json();
    assert_eq!(state_of(&v, "etcd-backup"), "unknown");
    let said = evidence(&v, "etcd-backup").join("\n");
    assert!(said.contains("says `inventory: none`"), "{said}");
    let f = b.run(&["kubeconfig", "fetch", "--no-input"]);
    f.code(1);
    assert!(
        f.stderr.contains(
            "stack dirqual says `inventory: none`: no host to read the admin kubeconfig from"
        ),
        "{}",
        f.stderr
    );
}

/// `discover --write` on a cluster whose repo holds no Ansible inventory writes `inventory:
/// none`, saying where it looked and how to add one. The stack as written (a host layer then
/// declared by the operator: discover could not judge it and left it a comment) previews that
/// layer as not read because of the key — never a failed read nor "no Ansible inventory" —
/// and its gate answers without `--no-ssh`.
#[test]
fn discover_writes_inventory_none_and_the_written_stack_reads_no_host() {
    let b = bed_or_skip!(E2e::new("dirqual-gates", &[]));
    b.server
        .write_kubeconfig(&b.home.join(".kube/lab.config"))
        .expect("kubeconfig");
    let looked = b.repo.join("bootstrap/hosts.yaml");
    assert!(!looked.exists());
    let r = b.sh("kubectl nestor discover --kubeconfig ~/.kube/lab.config --write");
    r.code(0);
    let file = b.stacks.join("lab.yaml");
    let text = std::fs::read_to_string(&file).expect("stacks/lab.yaml");
    let want = format!(
        "context: replay\n\
         # no Ansible inventory found at {}: nestor reads no host over ssh (host layers and host gate rules are skipped).\n\
         # To read them, set `inventory: PATH` to your Ansible YAML inventory (relative to the repo root).\n\
         inventory: none\n\
         nodes:\n",
        looked.display()
    );
    assert!(text.contains(&want), "{text}");
    let declared: String = text
        .lines()
        .map(|l| match l.trim_start().starts_with("# - etcd-backup ") {
            true => "  - etcd-backup\n".to_string(),
            false => format!("{l}\n"),
        })
        .collect();
    assert_ne!(declared, text, "discover left etcd-backup a comment");
    std::fs::write(&file, declared).expect("declare etcd-backup");

    let why = format!(
        "not read: {} says `inventory: none` (no hosts to read over ssh)",
        file.display()
    );
    let r = b.run(&["--stack", "lab", "preview", "--no-input", "-o", "json"]);
    r.code(0);
    let v = r.json();
    assert_eq!(state_of(&v, "etcd-backup"), "unknown");
    assert_eq!(evidence(&v, "etcd-backup"), std::slice::from_ref(&why));
    // Undecided, since nothing was read, but nothing failed: no "fix the failed read".
    assert_eq!(
        v["plan"]["undecided"][0]["hint"],
        "not planned: not read, nothing failed (why: under the layer)"
    );
    let r = b.run(&["--stack", "lab", "preview", "--no-input"]);
    r.code(0);
    let words = r.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains(&format!("? {why}")), "{}", r.stdout);
    assert!(!words.contains("no Ansible inventory"), "{}", r.stdout);
    assert!(
        !words.contains("failed read") && !words.contains("read failed"),
        "{}",
        r.stdout
    );

    // The gate of the README's example, as written by discover: NO-GO, its host rule skipped
    // and named so, no flag needed.
    let r = b.run(&["--stack", "lab", "gate", "drain", "dirqual3", "--no-input"]);
    r.code(2);
    r.stdout_has("NO-GO: 1 blocker");
    r.stdout_has("drain-time-sync");
    assert!(!r.stderr.contains("no Ansible inventory"), "{}", r.stderr);
}
