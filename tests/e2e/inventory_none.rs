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
