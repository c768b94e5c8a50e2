//! The remote commands nestor builds pass the allowlist, byte for byte; hostile inventory
//! values are refused before any ssh.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::read::exec::allowlist;

fn catalog() -> Catalog {
    Catalog::builtin().unwrap()
}

fn inventory(text: &str) -> Inventory {
    Inventory::parse(text, Path::new("/repo/bootstrap/hosts.yaml")).unwrap()
}

const INV: &str = "all:\n  children:\n    control_plane:\n      hosts:\n        cp1:\n          ansible_host: 10.0.0.1\n          ansible_user: ops\n          ansible_port: 2222\n          ansible_ssh_private_key_file: keys/id\n        cp2:\n          ansible_host: 10.0.0.2\n          ansible_user: root\n    workers:\n      hosts:\n        w1:\n";

fn ids() -> Vec<String> {
    vec!["etcd-backup".into(), "sshd-hardening".into()]
}

#[test]
fn plan_resolves_groups_and_merges_checks_per_host() {
    let p = plan(
        &catalog(),
        &ids(),
        &inventory(INV),
        None,
        Path::new("/repo"),
        None,
        Duration::from_secs(10),
        true,
    )
    .unwrap();
    assert_eq!(
        p.groups["control_plane"],
        Ok(vec!["cp1".into(), "cp2".into()])
    );
    assert_eq!(
        p.groups["all"],
        Ok(vec!["cp1".into(), "cp2".into(), "w1".into()])
    );
    let names: Vec<&str> = p.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["cp1", "cp2", "w1"]);
    assert_eq!(p.jobs[0].checks.len(), 4, "3 etcd checks + sshd");
    assert_eq!(p.jobs[2].checks.len(), 1, "sshd only");
    assert_eq!(
        p.jobs[0].ssh_options,
        [
            "-p",
            "2222",
            "-i",
            "/repo/keys/id",
            "-o",
            "ConnectTimeout=10",
            "-o",
            "BatchMode=yes",
            "ops@10.0.0.1"
        ]
    );
    assert_eq!(
        p.jobs[2].ssh_options,
        ["-o", "ConnectTimeout=10", "-o", "BatchMode=yes", "w1"]
    );
}

#[test]
fn every_built_command_passes_the_allowlist_and_sudo_is_not_for_root() {
    let p = plan(
        &catalog(),
        &ids(),
        &inventory(INV),
        None,
        Path::new("/repo"),
        None,
        Duration::from_secs(3),
        false,
    )
    .unwrap();
    for job in &p.jobs {
        let mut argv = job.ssh_options.clone();
        argv.extend(remote_words(
            &job.checks,
            job.user.as_deref(),
            "0123456789abcdef",
        ));
        allowlist::check(Tool::Ssh, &argv).unwrap();
        let joined = argv.join(" ");
        if job.user.as_deref() == Some("root") {
            assert!(!joined.contains("sudo"), "{joined}");
        }
    }
    let cp1 = &p.jobs[0];
    let words = remote_words(&cp1.checks, cp1.user.as_deref(), "0123456789abcdef").join(" ");
    assert_eq!(
        words,
        "'systemctl' 'show' 'etcd-snapshot.timer' '--property=LoadState,ActiveState,SubState,Result,ExecMainStatus' 2>&1; echo nestor-exit-0123456789abcdef:$?; \
         'systemctl' 'show' 'etcd-snapshot.service' '--property=LoadState,ActiveState,SubState,Result,ExecMainStatus' 2>&1; echo nestor-exit-0123456789abcdef:$?; \
         'sudo' '-n' 'find' '/var/lib/etcd-backups' '-maxdepth' '1' '-type' 'f' '-name' 'etcd-*.db' '-printf' '%T@ %s %p\\n' 2>&1; echo nestor-exit-0123456789abcdef:$?; \
         'sudo' '-n' 'sshd' '-T' 2>&1; echo nestor-exit-0123456789abcdef:$?;"
    );
}

#[test]
fn hostile_inventory_values_are_refused_before_any_ssh() {
    for (var, value, needle) in [
        (
            "ansible_host",
            "-oProxyCommand=touch /tmp/pwned",
            "is not a plain host name",
        ),
        ("ansible_host", "h;reboot", "is not a plain host name"),
        ("ansible_host", "$(reboot)", "is not a plain host name"),
        ("ansible_user", "-lroot", "is not a plain login name"),
        ("ansible_user", "ops`id`", "is not a plain login name"),
    ] {
        let text = format!("all:\n  children:\n    control_plane:\n      hosts:\n        cp1:\n          {var}: '{value}'\n");
        let e = plan(
            &catalog(),
            &ids(),
            &inventory(&text),
            None,
            Path::new("/repo"),
            None,
            Duration::from_secs(3),
            true,
        )
        .unwrap_err();
        assert!(e.message.contains(needle), "{value}: {}", e.message);
        assert!(e.message.contains("no host was contacted"), "{}", e.message);
    }
}

#[test]
fn a_missing_group_is_an_unknown_read_not_an_error() {
    let text = "all:\n  hosts:\n    h1:\n";
    let p = plan(
        &catalog(),
        &ids(),
        &inventory(text),
        None,
        Path::new("/repo"),
        None,
        Duration::from_secs(3),
        true,
    )
    .unwrap();
    let f = p.groups["control_plane"].as_ref().unwrap_err();
    assert!(
        f.message
            .contains("none of the default control-plane groups"),
        "{f}"
    );
    assert_eq!(p.groups["all"], Ok(vec!["h1".into()]));
}

#[test]
fn quoting_is_word_by_word() {
    assert_eq!(sh_quote("etcd-*.db"), "'etcd-*.db'");
    assert_eq!(sh_quote("a'b"), r"'a'\''b'");
    let n = nonce();
    assert_eq!(n.len(), 16);
    assert!(n.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_ne!(n, nonce());
}
