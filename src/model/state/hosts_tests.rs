//! States of host-level layers from typed host results: the phantom backup is degraded, a
//! missing timer everywhere is absent, an unreachable host is unknown (never absent).

use super::*;
use crate::model::catalog::host::{executable_key, EXECUTABLE_DIRS};
use crate::model::catalog::Catalog;
use crate::model::observation::host::{FileSeen, NewestFile, SshdConfig, UnitState};
use crate::model::observation::{FailureKind, ReadFailure};

fn layer(id: &str) -> crate::model::catalog::Layer {
    Catalog::builtin().unwrap().get(id).unwrap().clone()
}

pub(crate) fn unit(active: &str, result: &str, status: Option<i64>) -> HostFact {
    HostFact::Unit(UnitState {
        load_state: "loaded".into(),
        active_state: active.into(),
        sub_state: String::new(),
        result: result.into(),
        exec_main_status: status,
    })
}

pub(crate) fn missing() -> HostFact {
    HostFact::Unit(UnitState {
        load_state: "not-found".into(),
        active_state: "inactive".into(),
        ..UnitState::default()
    })
}

pub(crate) fn file(age_secs: i64, size: u64) -> HostFact {
    HostFact::NewestFile(NewestFile {
        dir_exists: true,
        matching: 3,
        newest: Some(FileSeen {
            name: "etcd-x.db".into(),
            age_secs,
            size,
        }),
    })
}

pub(crate) fn reading(timer: HostFact, service: HostFact, files: HostFact) -> HostReading {
    let mut r = HostReading::default();
    r.checks
        .insert("unit etcd-snapshot.timer".into(), Ok(timer));
    r.checks
        .insert("unit etcd-snapshot.service".into(), Ok(service));
    r.checks.insert(
        "newestFile /var/lib/etcd-backups/etcd-*.db".into(),
        Ok(files),
    );
    tools(
        &mut r,
        &[("etcdutl", "/usr/local/bin"), ("crictl", "/usr/bin")],
    );
    r
}

/// The `executable:` reads of a host where each program is in the given directory only.
fn tools(r: &mut HostReading, found: &[(&str, &str)]) {
    for program in ["etcdutl", "crictl"] {
        for dir in EXECUTABLE_DIRS {
            let here = found.iter().any(|(p, d)| *p == program && *d == dir);
            let fact = NewestFile {
                dir_exists: true,
                matching: usize::from(here),
                newest: here.then(|| FileSeen {
                    name: program.into(),
                    age_secs: 86_400,
                    size: 40_000_000,
                }),
            };
            r.checks
                .insert(executable_key(dir, program), Ok(HostFact::NewestFile(fact)));
        }
    }
}

pub(crate) fn obs(
    hosts: Vec<(&str, std::result::Result<HostReading, ReadFailure>)>,
) -> HostObservation {
    let mut o = HostObservation::default();
    o.groups.insert(
        "control_plane".into(),
        Ok(hosts.iter().map(|(h, _)| h.to_string()).collect()),
    );
    for (h, r) in hosts {
        o.hosts.insert(h.into(), r);
    }
    o
}

pub(crate) fn eval(o: &HostObservation) -> HostLayer {
    let l = layer("etcd-backup");
    evaluate(l.host.as_ref().unwrap(), o)
}

pub(crate) fn healthy() -> HostReading {
    reading(
        unit("active", "success", None),
        unit("inactive", "success", Some(0)),
        file(3 * 3600, 24_600_000),
    )
}

#[test]
fn healthy_everywhere_is_present_with_per_host_evidence() {
    let r = eval(&obs(vec![
        ("dirqual1", Ok(healthy())),
        ("dirqual2", Ok(healthy())),
    ]));
    assert_eq!(r.state, State::Present, "{r:?}");
    assert_eq!(
        r.evidence[0],
        "dirqual1: etcd-snapshot.timer active, last run of etcd-snapshot.service succeeded, newest etcd-x.db 3h old, 24.6 MB, etcdutl in /usr/local/bin, crictl in /usr/bin"
    );
    assert_eq!(r.hosts.len(), 2);
    assert_eq!(r.hosts[1].verdict, Verdict::True);
}

#[test]
fn the_phantom_backup_is_degraded_with_the_age_and_the_failed_run() {
    let phantom = reading(
        unit("active", "success", None),
        unit("failed", "exit-code", Some(127)),
        file(9 * 86_400, 24_600_000),
    );
    let r = eval(&obs(vec![
        ("dirqual1", Ok(phantom)),
        ("dirqual2", Ok(healthy())),
    ]));
    assert_eq!(r.state, State::Degraded);
    assert_eq!(
        r.reason,
        "dirqual1: etcd-snapshot.timer active, last run of etcd-snapshot.service failed (exit-code, status 127), newest etcd-x.db is 9d old (maxAge 26h), etcdutl in /usr/local/bin, crictl in /usr/bin"
    );
}

/// Issue 31 item 8: an etcd snapshot dated 400 days ahead, or an mtime of 1e300, is named
/// as from the future and never counts as fresh; a few seconds of clock skew still do.
#[test]
fn a_snapshot_from_the_future_is_named_and_never_fresh() {
    let ahead = |age_secs| {
        reading(
            unit("active", "success", None),
            unit("inactive", "success", None),
            file(age_secs, 24_600_000),
        )
    };
    let r = eval(&obs(vec![("dirqual1", Ok(ahead(-400 * 86_400)))]));
    assert_eq!(r.state, State::Degraded, "{r:?}");
    assert_eq!(
        r.reason,
        "dirqual1: etcd-snapshot.timer active, last run of etcd-snapshot.service succeeded, newest etcd-x.db is from the future: dated 400d ahead of the reading, etcdutl in /usr/local/bin, crictl in /usr/bin"
    );
    // `find -printf '%T@'` printing 1e300: the age saturates, still from the future.
    let far = crate::model::observation::host::parse_find(
        "1e300 24600000 /var/lib/etcd-backups/etcd-x.db\n",
        1_764_000_000.0,
    );
    let r = eval(&obs(vec![(
        "dirqual1",
        Ok(reading(
            unit("active", "success", None),
            unit("inactive", "success", None),
            HostFact::NewestFile(far),
        )),
    )]));
    assert_eq!(r.state, State::Degraded, "{r:?}");
    assert!(
        r.reason
            .contains("newest etcd-x.db is from the future: dated "),
        "{}",
        r.reason
    );
    let skewed = eval(&obs(vec![("dirqual1", Ok(ahead(-5)))]));
    assert_eq!(skewed.state, State::Present, "{skewed:?}");
}

#[test]
fn no_snapshot_at_all_and_an_empty_snapshot_are_degraded() {
    let none = reading(
        unit("active", "success", None),
        unit("inactive", "success", None),
        HostFact::NewestFile(NewestFile {
            dir_exists: true,
            matching: 0,
            newest: None,
        }),
    );
    let r = eval(&obs(vec![("dirqual1", Ok(none))]));
    assert_eq!(r.state, State::Degraded);
    assert!(
        r.reason.contains("no etcd-*.db in /var/lib/etcd-backups"),
        "{}",
        r.reason
    );
    let empty = reading(
        unit("active", "success", None),
        unit("inactive", "success", None),
        file(60, 0),
    );
    let r = eval(&obs(vec![("dirqual1", Ok(empty))]));
    assert_eq!(r.state, State::Degraded);
    assert!(r.reason.contains("is 0 B (minSize 1 B)"), "{}", r.reason);
}

#[test]
fn the_timer_missing_on_every_host_is_absent_even_with_old_files_left() {
    let gone = || reading(missing(), missing(), file(30 * 86_400, 10));
    let r = eval(&obs(vec![
        ("dirqual1", Ok(gone())),
        ("dirqual2", Ok(gone())),
    ]));
    assert_eq!(r.state, State::Absent, "{r:?}");
    assert!(
        r.evidence[0].starts_with(
            "dirqual1: etcd-snapshot.timer not installed, etcd-snapshot.service not installed"
        ),
        "{:?}",
        r.evidence
    );
    // on one host only: the layer is there, that host must be repaired
    let r = eval(&obs(vec![
        ("dirqual1", Ok(gone())),
        ("dirqual2", Ok(healthy())),
    ]));
    assert_eq!(r.state, State::Degraded);
}

#[test]
fn an_unreachable_host_is_unknown_never_absent() {
    let down = Err(ReadFailure::new(
        FailureKind::Unreachable,
        "unreachable over ssh (ssh: connect to host 10.0.0.2 port 22: Connection refused); hint: check",
    ));
    let gone = reading(missing(), missing(), file(1, 1));
    let r = eval(&obs(vec![
        ("dirqual1", Ok(gone)),
        ("dirqual2", down.clone()),
    ]));
    assert_eq!(r.state, State::Unknown, "{r:?}");
    assert!(
        r.reason.starts_with("dirqual2: unreachable over ssh"),
        "{}",
        r.reason
    );
    let r = eval(&obs(vec![("dirqual1", Ok(healthy())), ("dirqual2", down)]));
    assert_eq!(r.state, State::Unknown);
    assert_eq!(r.hosts[1].verdict, Verdict::Unknown);
}

#[test]
fn sudo_asking_for_a_password_is_unknown() {
    let mut r = healthy();
    r.checks.insert(
        "newestFile /var/lib/etcd-backups/etcd-*.db".into(),
        Err(crate::model::observation::host::classify_command_failure(
            1,
            "sudo: a password is required",
        )
        .unwrap()),
    );
    let rep = eval(&obs(vec![("dirqual1", Ok(r))]));
    assert_eq!(rep.state, State::Unknown);
    assert!(
        rep.reason.contains("sudo asks for a password"),
        "{}",
        rep.reason
    );
}

#[test]
fn skipped_or_unresolved_hosts_are_unknown() {
    let r = eval(&HostObservation::skipped("not read: --no-ssh"));
    assert_eq!(
        (r.state, r.reason.as_str()),
        (State::Unknown, "not read: --no-ssh")
    );
    let r = eval(&HostObservation::default());
    assert_eq!(r.state, State::Unknown);
    assert_eq!(r.reason, "hosts of group `control_plane` not read");
    let r = eval(&obs(vec![]));
    assert_eq!(
        r.reason,
        "group `control_plane` has no hosts in the inventory"
    );
}

#[test]
fn sshd_hardening_from_sshd_t() {
    let l = layer("sshd-hardening");
    let spec = l.host.as_ref().unwrap();
    let with = |pra: &str, pa: &str| {
        let mut values = std::collections::BTreeMap::new();
        values.insert("permitrootlogin".to_string(), vec![pra.to_string()]);
        values.insert("passwordauthentication".to_string(), vec![pa.to_string()]);
        let mut r = HostReading::default();
        r.checks
            .insert("sshd".into(), Ok(HostFact::Sshd(SshdConfig { values })));
        let mut o = HostObservation::default();
        o.groups.insert("all".into(), Ok(vec!["h1".into()]));
        o.hosts.insert("h1".into(), Ok(r));
        evaluate(spec, &o)
    };
    assert_eq!(with("prohibit-password", "no").state, State::Present);
    // what `sshd -T` really prints for `PermitRootLogin prohibit-password`
    assert_eq!(with("without-password", "no").state, State::Present);
    let bad = with("yes", "no");
    assert_eq!(bad.state, State::Degraded);
    assert_eq!(
        bad.reason,
        "h1: sshd: permitrootlogin yes (expected no or prohibit-password)"
    );
}

#[test]
fn ages_and_sizes_read_like_ls() {
    assert_eq!(crate::duration::rough(45), "45s");
    assert_eq!(crate::duration::rough(3 * 3600 + 5), "3h");
    assert_eq!(crate::duration::rough(9 * 86_400), "9d");
    assert_eq!(size(0), "0 B");
    assert_eq!(size(24_600_000), "24.6 MB");
}

#[test]
fn host_strings_never_drive_the_terminal() {
    let mut r = healthy();
    r.checks.insert(
        "newestFile /var/lib/etcd-backups/etcd-*.db".into(),
        Ok(HostFact::NewestFile(NewestFile {
            dir_exists: true,
            matching: 1,
            newest: Some(FileSeen {
                name: "etcd-\u{1b}[31mx.db".into(),
                age_secs: 60,
                size: 0,
            }),
        })),
    );
    let rep = eval(&obs(vec![("dirqual1", Ok(r))]));
    assert!(!rep.reason.contains('\u{1b}'), "{}", rep.reason);
    assert!(rep.reason.contains("etcd-\\x1b[31mx.db"), "{}", rep.reason);
}

#[test]
fn restore_tools_missing_on_one_host_is_degraded_and_named() {
    let mut bare = healthy();
    tools(&mut bare, &[("etcdutl", "/usr/bin")]);
    let l = eval(&obs(vec![("cp1", Ok(healthy())), ("cp2", Ok(bare))]));
    assert_eq!(l.state, State::Degraded, "{:?}", l.evidence);
    assert!(
        l.reason.starts_with("cp2: ")
            && l.reason.contains(
                "etcdutl in /usr/bin, crictl missing (not in /usr/bin, /usr/local/bin, /usr/sbin)"
            ),
        "{}",
        l.reason
    );
    assert!(
        l.evidence[0].contains("etcdutl in /usr/local/bin, crictl in /usr/bin"),
        "{:?}",
        l.evidence
    );
}

#[test]
fn a_restore_tool_not_found_where_a_directory_was_unreadable_is_unknown_not_missing() {
    let mut r = healthy();
    tools(&mut r, &[("crictl", "/usr/bin")]);
    r.checks.insert(
        executable_key("/usr/sbin", "etcdutl"),
        Err(ReadFailure::new(
            FailureKind::Forbidden,
            "permission denied",
        )),
    );
    let l = eval(&obs(vec![("cp1", Ok(r))]));
    assert_eq!(l.state, State::Unknown, "{:?}", l.evidence);
    assert!(
        l.reason
            .contains("etcdutl not read (/usr/sbin: permission denied)"),
        "{}",
        l.reason
    );
    // Found in one directory, the others' failures do not matter.
    let mut r = healthy();
    r.checks.insert(
        executable_key("/usr/sbin", "crictl"),
        Err(ReadFailure::new(
            FailureKind::Forbidden,
            "permission denied",
        )),
    );
    assert_eq!(eval(&obs(vec![("cp1", Ok(r))])).state, State::Present);
}

fn hardening(units: [bool; 3], drop_in: bool) -> HostReading {
    let mut r = HostReading::default();
    for (name, on) in ["auditd", "fail2ban", "postfix"].iter().zip(units) {
        let fact = if on {
            unit("active", "success", Some(0))
        } else {
            missing()
        };
        r.checks.insert(format!("unit {name}.service"), Ok(fact));
    }
    let fact = NewestFile {
        dir_exists: true,
        matching: usize::from(drop_in),
        newest: drop_in.then(|| FileSeen {
            name: "00-hardening.conf".into(),
            age_secs: 3600,
            size: 412,
        }),
    };
    r.checks.insert(
        "newestFile /etc/ssh/sshd_config.d/00-hardening.conf".into(),
        Ok(HostFact::NewestFile(fact)),
    );
    r
}

fn eval_os(hosts: Vec<(&str, HostReading)>) -> HostLayer {
    let mut o = HostObservation::default();
    o.groups.insert(
        "all".into(),
        Ok(hosts.iter().map(|(h, _)| h.to_string()).collect()),
    );
    for (h, r) in hosts {
        o.hosts.insert(h.into(), Ok(r));
    }
    let l = layer("os-hardening");
    evaluate(l.host.as_ref().unwrap(), &o)
}

#[test]
fn os_hardening_names_the_host_never_hardened() {
    let good = || hardening([true, true, true], true);
    let l = eval_os(vec![("dirqual1", good()), ("dirqual2", good())]);
    assert_eq!(l.state, State::Present, "{:?}", l.evidence);
    assert!(
        l.evidence[0].contains("/etc/ssh/sshd_config.d/00-hardening.conf present"),
        "{:?}",
        l.evidence
    );
    let l = eval_os(vec![
        ("dirqual1", good()),
        ("dirqual3", hardening([false, false, true], false)),
    ]);
    assert_eq!(l.state, State::Degraded, "{:?}", l.evidence);
    assert_eq!(
        l.reason,
        "dirqual3: auditd.service not installed, fail2ban.service not installed, postfix.service active, no 00-hardening.conf in /etc/ssh/sshd_config.d"
    );
}

#[test]
fn os_hardening_is_detected_by_auditd_only() {
    // postfix and a drop-in alone (a mail relay, a hand-written sshd file) are not the
    // hardening playbook: absent, install it.
    let l = eval_os(vec![
        ("dirqual1", hardening([false, false, true], true)),
        ("dirqual2", hardening([false, false, false], false)),
    ]);
    assert_eq!(l.state, State::Absent, "{:?}", l.evidence);
    // auditd on one host: the layer exists, the other host is to repair.
    let l = eval_os(vec![
        ("dirqual1", hardening([true, false, true], true)),
        ("dirqual2", hardening([false, false, false], false)),
    ]);
    assert_eq!(l.state, State::Degraded);
}

/// Issue 30: host output with bidirectional overrides is escaped (the private copy let them
/// through; `term::escape` does not).
#[test]
fn host_output_with_bidi_overrides_is_written_visibly() {
    assert_eq!(
        clean("active\u{202d}\u{2069}\r"),
        "active\\u{202d}\\u{2069}\\r"
    );
}
