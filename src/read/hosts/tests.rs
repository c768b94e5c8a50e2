//! The remote commands nestor builds pass the allowlist, byte for byte; hostile inventory
//! values are refused before any ssh.

use super::schedule::host_down;
use super::*;
use crate::model::observation::host::{HostFact, NewestFile, MAX_HOST_OUTPUT};
use crate::read::exec::{allowlist, ExecError, Failure, Tool};
use crate::stack::inventory::Inventory;

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

/// The hosts plan of the etcd-backup and sshd-hardening layers over inventory `text`.
fn plan_of(text: &str, timeout_secs: u64, batch: bool) -> Result<HostPlan> {
    plan(
        &catalog(),
        &ids(),
        &inventory(text),
        None,
        Reach {
            repo_root: Path::new("/repo"),
            home: None,
            timeout: Duration::from_secs(timeout_secs),
            batch,
        },
    )
}

#[test]
fn plan_resolves_groups_and_merges_checks_per_host() {
    let p = plan_of(INV, 10, true).unwrap();
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
    assert_eq!(
        p.jobs[0].checks.len(),
        10,
        "3 etcd checks + 2 restore tools in 3 directories + sshd"
    );
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
    let p = plan_of(INV, 3, false).unwrap();
    for job in &p.jobs {
        for check in &job.checks {
            let argv = check_argv(job, check).unwrap();
            allowlist::check(Tool::Ssh, &argv).unwrap();
            if job.user.as_deref() == Some("root") {
                assert!(!argv.join(" ").contains("sudo"), "{argv:?}");
            }
        }
    }
    let cp1 = &p.jobs[0];
    let each: Vec<String> = cp1
        .checks
        .iter()
        .map(|c| remote_words(c, cp1.user.as_deref()).unwrap().join(" "))
        .collect();
    assert_eq!(
        each,
        [
            "'systemctl' 'show' 'etcd-snapshot.timer' '--property=LoadState,ActiveState,SubState,Result,ExecMainStatus'",
            "'systemctl' 'show' 'etcd-snapshot.service' '--property=LoadState,ActiveState,SubState,Result,ExecMainStatus'",
            "'sudo' '-n' 'find' '/var/lib/etcd-backups' '-maxdepth' '1' '-type' 'f' '-name' 'etcd-*.db' '-printf' '%T@ %s %p\\n'",
            "'find' '/usr/bin' '-maxdepth' '1' '-type' 'f' '-name' 'etcdutl' '-printf' '%T@ %s %p\\n'",
            "'find' '/usr/local/bin' '-maxdepth' '1' '-type' 'f' '-name' 'etcdutl' '-printf' '%T@ %s %p\\n'",
            "'find' '/usr/sbin' '-maxdepth' '1' '-type' 'f' '-name' 'etcdutl' '-printf' '%T@ %s %p\\n'",
            "'find' '/usr/bin' '-maxdepth' '1' '-type' 'f' '-name' 'crictl' '-printf' '%T@ %s %p\\n'",
            "'find' '/usr/local/bin' '-maxdepth' '1' '-type' 'f' '-name' 'crictl' '-printf' '%T@ %s %p\\n'",
            "'find' '/usr/sbin' '-maxdepth' '1' '-type' 'f' '-name' 'crictl' '-printf' '%T@ %s %p\\n'",
            "'sudo' '-n' 'sshd' '-T'",
        ]
    );
    assert_eq!(
        check_argv(cp1, &cp1.checks[9]).unwrap(),
        [
            "-p",
            "2222",
            "-i",
            "/repo/keys/id",
            "-o",
            "ConnectTimeout=3",
            "ops@10.0.0.1",
            "'sudo'",
            "'-n'",
            "'sshd'",
            "'-T'"
        ]
    );
}

fn run(status: i32, stdout: &str, stderr: &str) -> RemoteRun {
    RemoteRun {
        status,
        stdout: stdout.as_bytes().to_vec(),
        stderr: stderr.into(),
    }
}

fn probe(c: &Catalog, key: &str) -> HostProbe {
    let layer = c.get("etcd-backup").unwrap().host.as_ref().unwrap();
    let sshd = c.get("sshd-hardening").unwrap().host.as_ref().unwrap();
    layer
        .checks
        .iter()
        .chain(&sshd.checks)
        .find(|x| x.key() == key)
        .map(|x| x.probe.clone())
        .unwrap()
}

#[test]
fn each_command_is_read_from_its_status_stdout_and_stderr() {
    let c = catalog();
    let unit = probe(&c, "unit etcd-snapshot.timer");
    let find = probe(&c, "newestFile /var/lib/etcd-backups/etcd-*.db");
    let sshd = probe(&c, "sshd");
    // stderr noise (a login script) beside a good stdout changes nothing
    let f = interpret(
        &unit,
        &run(
            0,
            "LoadState=not-found\nActiveState=inactive\n",
            "bash: warning\n",
        ),
        0.0,
    )
    .unwrap();
    assert!(matches!(f, HostFact::Unit(u) if !u.exists()));
    // find on a missing directory: "no directory", a fact, not a failed read
    let gone = run(
        1,
        "",
        "find: '/var/lib/etcd-backups': No such file or directory",
    );
    assert_eq!(
        interpret(&find, &gone, 0.0).unwrap(),
        HostFact::NewestFile(NewestFile::default())
    );
    let gone_utf8 = run(
        1,
        "",
        "find: ‘/var/lib/etcd-backups’: No such file or directory",
    );
    assert!(interpret(&find, &gone_utf8, 0.0).is_ok());
    // a file vanishing inside it is not a missing directory
    let vanished = run(
        1,
        "",
        "find: '/var/lib/etcd-backups/etcd-1.db': No such file or directory",
    );
    assert_eq!(
        interpret(&find, &vanished, 0.0).unwrap_err().kind,
        FailureKind::ApiError
    );
    let denied = interpret(
        &find,
        &run(1, "", "find: '/var/lib/etcd-backups': Permission denied"),
        0.0,
    )
    .unwrap_err();
    assert_eq!(denied.kind, FailureKind::Forbidden);
    // sudo asking for a password, on stderr with status 1
    let sudo = interpret(&sshd, &run(1, "", "sudo: a password is required"), 0.0).unwrap_err();
    assert!(sudo.message.contains("sudo asks for a password"), "{sudo}");
    let missing = interpret(
        &sshd,
        &run(127, "", "bash: line 1: sshd: command not found"),
        0.0,
    )
    .unwrap_err();
    assert_eq!(missing.kind, FailureKind::NotFound);
    assert!(
        missing.message.contains("program missing on the host"),
        "{missing}"
    );
    let other = interpret(&sshd, &run(3, "", "strange\nthings"), 0.0).unwrap_err();
    assert_eq!(other.message, "exit status 3: strange | things");
    // stdout and stderr are bounded
    let big = "x".repeat(MAX_HOST_OUTPUT + 1);
    for r in [run(0, &big, ""), run(1, "", &big)] {
        let e = interpret(&sshd, &r, 0.0).unwrap_err();
        assert_eq!(e.kind, FailureKind::BadOutput);
        assert!(e.message.contains("over the 1 MiB"), "{e}");
    }
    let f = interpret(
        &find,
        &run(0, "100.5 24000 /var/lib/etcd-backups/etcd-1.db\n", ""),
        200.0,
    )
    .unwrap();
    assert!(matches!(f, HostFact::NewestFile(n) if n.matching == 1));
}

#[test]
fn an_ssh_failure_is_never_a_command_result() {
    let exit = |code: i32, stderr: &str| ExecError {
        tool: Tool::Ssh,
        argv: "ssh h".into(),
        failure: Failure::Exit {
            code,
            stderr: stderr.into(),
        },
    };
    let f = ssh_failure(
        exit(
            255,
            "ssh: connect to host 10.0.0.1 port 22: Connection refused",
        ),
        "ops@10.0.0.1",
    );
    assert_eq!(f.kind, FailureKind::Unreachable);
    assert!(host_down(&f));
    let f = ssh_failure(exit(255, "Host key verification failed."), "ops@10.0.0.1");
    assert_eq!(f.kind, FailureKind::Unauthorized);
    assert!(f.message.contains("never weakens host-key checking"), "{f}");
    let f = ssh_failure(exit(255, "kex_exchange_identification: odd"), "ops@h");
    assert_eq!(
        f.message,
        "ssh to ops@h failed with exit code 255: kex_exchange_identification: odd"
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
        let e = plan_of(&text, 3, true).unwrap_err();
        assert!(e.message.contains(needle), "{value}: {}", e.message);
        assert!(e.message.contains("no host was contacted"), "{}", e.message);
    }
}

#[test]
fn a_missing_group_is_an_unknown_read_not_an_error() {
    let text = "all:\n  hosts:\n    h1:\n";
    let p = plan_of(text, 3, true).unwrap();
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
}
