//! Host checks: the kinds parse, hostile or vague fields are refused.

use super::*;

fn check(yaml: &str) -> std::result::Result<HostCheck, String> {
    yaml_serde::from_str::<HostCheck>(yaml).map_err(|e| e.to_string())
}

#[test]
fn the_three_kinds_parse() {
    assert_eq!(
        check("{unit: etcd-snapshot.timer, active: true}").unwrap(),
        HostCheck {
            probe: HostProbe::Unit {
                unit: "etcd-snapshot.timer".into(),
                active: Some(true),
                result: None
            },
            sudo: false,
            why: None,
            name: None,
        }
    );
    assert_eq!(
        check("{newestFile: /var/lib/etcd-backups/etcd-*.db, maxAge: 26h, minSize: 1, sudo: true}")
            .unwrap(),
        HostCheck {
            probe: HostProbe::NewestFile {
                dir: "/var/lib/etcd-backups".into(),
                pattern: "etcd-*.db".into(),
                max_age_secs: 26 * 3600,
                min_size: 1
            },
            sudo: true,
            why: None,
            name: None,
        }
    );
    let c = check(
        "{sshd: {passwordauthentication: \"no\", permitrootlogin: [no, prohibit-password], x11forwarding: false}, sudo: true}",
    )
    .unwrap();
    let HostProbe::Sshd { expect } = c.probe else {
        panic!("sshd")
    };
    assert_eq!(expect["permitrootlogin"], ["no", "prohibit-password"]);
    assert_eq!(expect["passwordauthentication"], ["no"]);
    assert_eq!(expect["x11forwarding"], ["no"]);
}

#[test]
fn hostile_or_vague_fields_are_refused() {
    for (yaml, needle) in [
        ("{unit: '-H evil', active: true}", "not a systemd unit name"),
        (
            "{unit: 'a.timer;reboot', active: true}",
            "not a systemd unit name",
        ),
        ("{unit: 'a.timer', }", "needs `active: true|false`"),
        ("{unit: a.timer, result: 'x y'}", "not a systemd result"),
        (
            "{newestFile: 'relative/x.db', maxAge: 1h}",
            "absolute directory",
        ),
        (
            "{newestFile: '/a/../etc/x.db', maxAge: 1h}",
            "absolute directory",
        ),
        (
            "{newestFile: '/a/b*/x.db', maxAge: 1h}",
            "absolute directory",
        ),
        (
            "{newestFile: '/a/$(reboot)', maxAge: 1h}",
            "absolute directory",
        ),
        ("{newestFile: \"/a/x'y\", maxAge: 1h}", "absolute directory"),
        (
            "{newestFile: '/a/-delete', maxAge: 1h}",
            "absolute directory",
        ),
        ("{newestFile: '/a/x.db'}", "needs `maxAge:`"),
        ("{newestFile: '/a/x.db', maxAge: soon}", "not a duration"),
        (
            "{newestFile: '/a/x.db', maxAge: 1h, minSize: -3}",
            "not a size",
        ),
        ("{sshd: {'-o': 'x'}}", "not an sshd keyword"),
        ("{sshd: {}}", "needs at least one keyword"),
        (
            "{unit: a.timer, active: true, newestFile: /a/b}",
            "one host check per list item",
        ),
        (
            "{unit: a.timer, active: true, maxAge: 1h}",
            "only go with a `newestFile:`",
        ),
        (
            "{newestFile: /a/b, maxAge: 1h, active: true}",
            "only go with a `unit:`",
        ),
        ("{sudo: true}", "needs one of"),
        (
            "{unit: a.timer, active: true, command: ls}",
            "unknown field",
        ),
    ] {
        let e = check(yaml).unwrap_err();
        assert!(e.contains(needle), "{yaml}: {e}");
    }
}

#[test]
fn executable_and_file_checks_parse_into_find_reads() {
    let c = check("{executable: [etcdutl, crictl], why: restore}").unwrap();
    assert_eq!(
        c.probe,
        HostProbe::Executable {
            programs: vec!["etcdutl".into(), "crictl".into()]
        }
    );
    assert_eq!(c.why.as_deref(), Some("restore"));
    let reads: Vec<String> = c.reads().iter().map(HostCheck::key).collect();
    assert_eq!(
        reads,
        [
            "newestFile /usr/bin/etcdutl",
            "newestFile /usr/local/bin/etcdutl",
            "newestFile /usr/sbin/etcdutl",
            "newestFile /usr/bin/crictl",
            "newestFile /usr/local/bin/crictl",
            "newestFile /usr/sbin/crictl",
        ]
    );
    assert_eq!(reads[0], executable_key("/usr/bin", "etcdutl"));
    let f = check("{file: /etc/ssh/sshd_config.d/00-hardening.conf}").unwrap();
    assert_eq!(
        f.probe,
        HostProbe::NewestFile {
            dir: "/etc/ssh/sshd_config.d".into(),
            pattern: "00-hardening.conf".into(),
            max_age_secs: ANY_AGE,
            min_size: 0
        }
    );
    assert_eq!(f.reads(), std::slice::from_ref(&f));
    for (yaml, needle) in [
        ("{executable: []}", "at least one program"),
        ("{executable: ['etcd*']}", "not a program name"),
        ("{executable: ['-delete']}", "not a program name"),
        ("{executable: ['a b']}", "not a program name"),
        ("{executable: [a, a]}", "twice"),
        (
            "{executable: [a], maxAge: 1h}",
            "only go with a `newestFile:`",
        ),
        ("{executable: [a], active: true}", "only go with a `unit:`"),
        (
            "{executable: [a], unit: a.service, active: true}",
            "one host check per list item",
        ),
        (
            "{file: '/etc/ssh/*.conf'}",
            "absolute path without wildcards",
        ),
        ("{file: 'x.conf'}", "absolute path without wildcards"),
        (
            "{file: '/etc/x.conf', minSize: 1}",
            "only go with a `newestFile:`",
        ),
    ] {
        let e = check(yaml).unwrap_err();
        assert!(e.contains(needle), "{yaml}: {e}");
    }
}

#[test]
fn a_detecting_unit_must_be_checked_and_reads_never_collide() {
    let spec = |yaml: &str| yaml_serde::from_str::<HostSpec>(yaml).unwrap();
    let ok = spec(
        "{group: all, detect: auditd.service, checks: [{unit: auditd.service, active: true}]}",
    );
    assert_eq!(validate(&ok), Ok(()));
    let e = validate(&spec(
        "{group: all, detect: auditd.service, checks: [{unit: postfix.service, active: true}]}",
    ))
    .unwrap_err();
    assert!(
        e.contains("must be one of the layer's `unit:` checks"),
        "{e}"
    );
    let e = validate(&spec(
        "{group: all, checks: [{executable: [crictl]}, {file: /usr/bin/crictl}]}",
    ))
    .unwrap_err();
    assert!(e.contains("twice"), "{e}");
}

#[test]
fn durations_and_sizes() {
    assert_eq!(parse_duration("26h"), Some(93_600));
    assert_eq!(parse_duration("7d"), Some(604_800));
    assert_eq!(parse_duration("0h"), None);
    assert_eq!(parse_duration("h"), None);
    assert_eq!(parse_duration("3y"), None);
    assert_eq!(parse_size("1"), Some(1));
    assert_eq!(parse_size("10K"), Some(10_240));
    assert_eq!(parse_size("5M"), Some(5 << 20));
    assert_eq!(parse_size("M"), None);
    assert_eq!(parse_size("1.5M"), None);
}
