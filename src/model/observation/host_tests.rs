//! Parsers of the host commands, fed the outputs the real commands print.

use super::*;

#[test]
fn host_text_is_quoted_on_one_bounded_line() {
    assert_eq!(
        summary("sudo: a password is required\n\n  second\r\n"),
        "sudo: a password is required | second"
    );
    let long = "x".repeat(5000);
    let s = summary(&long);
    assert_eq!(s.chars().count(), crate::error::QUOTE_MAX + 2, "{s}");
    assert!(s.ends_with(" …"));
    let missing =
        classify_command_failure(127, &format!("bash: {long}: command not found")).unwrap();
    assert!(missing.message.len() < 400, "{}", missing.message);
}

#[test]
fn systemctl_show_in_systemd_order_and_a_missing_unit() {
    // systemd prints the Service interface's properties before the Unit interface's.
    let service = "Result=exit-code\nExecMainStatus=127\nLoadState=loaded\nActiveState=failed\nSubState=failed\n";
    let u = parse_unit(service).unwrap();
    assert_eq!(u.result, "exit-code");
    assert_eq!(u.exec_main_status, Some(127));
    assert_eq!(u.active_state, "failed");
    assert!(u.exists());
    // `systemctl show nope.timer --property=...` exits 0 and says not-found.
    let missing = parse_unit("LoadState=not-found\nActiveState=inactive\nSubState=dead\n").unwrap();
    assert!(!missing.exists());
    assert!(
        parse_unit("Failed to connect to bus: No such file or directory\n")
            .unwrap_err()
            .contains("no LoadState/ActiveState")
    );
}

#[test]
fn find_printf_newest_file_age_and_size() {
    let text = "1764400000.1234567890 24576000 /var/lib/etcd-backups/etcd-20251129.db\n\
                1764486400.0000000000 0 /var/lib/etcd-backups/etcd-20251130.db\n\
                garbage line\n\
                1764300000.5 10 /var/lib/etcd-backups/etcd-new\nline.db\n";
    let n = parse_find(text, 1_764_490_000.0);
    assert!(n.dir_exists);
    assert_eq!(n.matching, 3);
    assert_eq!(
        n.newest,
        Some(FileSeen {
            name: "etcd-20251130.db".into(),
            age_secs: 3600,
            size: 0
        })
    );
    let empty = parse_find("", 1.0);
    assert_eq!(empty.matching, 0);
    assert_eq!(empty.newest, None);
}

#[test]
fn sshd_t_keeps_only_the_asked_keywords() {
    let text = "port 22\naddressfamily any\nlistenaddress [::]:22\nlistenaddress 0.0.0.0:22\npermitrootlogin without-password\npasswordauthentication no\nhostkey /etc/ssh/ssh_host_ed25519_key\n";
    let keys: BTreeSet<String> = ["permitrootlogin", "passwordauthentication", "listenaddress"]
        .map(String::from)
        .into();
    let c = parse_sshd(text, &keys).unwrap();
    assert_eq!(c.values["permitrootlogin"], ["without-password"]);
    assert_eq!(c.values["listenaddress"].len(), 2);
    assert!(!c.values.contains_key("port"));
    assert!(parse_sshd("", &keys).is_err());
}

#[test]
fn command_failures_are_classified() {
    let sudo = classify_command_failure(1, "sudo: a password is required\n").unwrap();
    assert_eq!(sudo.kind, FailureKind::Forbidden);
    assert!(sudo.message.contains("sudo asks for a password"));
    let denied =
        classify_command_failure(1, "find: '/var/lib/etcd-backups': Permission denied\n").unwrap();
    assert!(denied.message.contains("permission denied"), "{denied}");
    let missing = classify_command_failure(127, "bash: line 1: sshd: command not found\n").unwrap();
    assert_eq!(missing.kind, FailureKind::NotFound);
    assert!(classify_command_failure(1, "find: '/x': No such file or directory").is_none());
}

#[test]
fn host_observation_round_trips() {
    let mut h = HostObservation::default();
    assert!(h.is_empty());
    h.groups
        .insert("control_plane".into(), Ok(vec!["dirqual1".into()]));
    let mut r = HostReading::default();
    r.checks.insert(
        "unit etcd-snapshot.timer".into(),
        Ok(HostFact::Unit(UnitState {
            load_state: "loaded".into(),
            active_state: "active".into(),
            ..UnitState::default()
        })),
    );
    h.hosts.insert("dirqual1".into(), Ok(r));
    h.hosts.insert(
        "dirqual2".into(),
        Err(ReadFailure::new(
            FailureKind::Unreachable,
            "Connection refused",
        )),
    );
    let json = serde_json::to_value(&h).unwrap();
    assert_eq!(json["hosts"]["dirqual2"]["failed"]["kind"], "Unreachable");
    let back: HostObservation = serde_json::from_value(json).unwrap();
    assert_eq!(back, h);
}
