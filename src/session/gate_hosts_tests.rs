//! The gates' host answers interpreted: what each remote command's status, stdout and stderr
//! mean for its rule (a missing certificate file is "not there", a bus or permission error a
//! failed read, never "synchronised" or "v2").

use super::*;

fn run(status: i32, stdout: &[u8], stderr: &str) -> RemoteRun {
    RemoteRun {
        status,
        stdout: stdout.to_vec(),
        stderr: stderr.to_string(),
    }
}

fn path(p: &str) -> PkiPath {
    PkiPath::parse(p).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn timedatectl_runs() {
    let ok = time_sync(run(0, b"NTP=yes\nNTPSynchronized=yes\n", ""));
    assert_eq!(ok.map(|t| t.synchronized), Ok(true));
    // What timedatectl prints on a host without systemd as PID 1 (exit 1).
    let e = time_sync(run(
        1,
        b"",
        "System has not been booted with systemd as init system (PID 1). Can't operate.\nFailed to connect to bus: Host is down\n",
    ))
    .err()
    .map(|f| f.to_string())
    .unwrap_or_default();
    assert_eq!(
        e,
        "ApiError: exit status 1: System has not been booted with systemd as init system (PID 1). Can't operate. | Failed to connect to bus: Host is down"
    );
    let e = time_sync(run(127, b"", "sh: 1: timedatectl: not found\n"))
        .err()
        .map(|f| f.kind);
    assert!(e.is_some());
    let e = time_sync(run(0, b"hello\n", "")).err().map(|f| f.kind);
    assert_eq!(e, Some(FailureKind::BadOutput));
}

#[test]
fn cgroup_runs() {
    assert_eq!(
        cgroup_of(run(
            0,
            b"1764633600.0 0 /sys/fs/cgroup/cgroup.controllers\n",
            ""
        )),
        Ok(true)
    );
    assert_eq!(cgroup_of(run(0, b"", "")), Ok(false));
    // /sys/fs/cgroup itself missing: not "cgroup v1", a failed read.
    let e = cgroup_of(run(
        1,
        b"",
        "find: '/sys/fs/cgroup': No such file or directory\n",
    ));
    assert_eq!(e.err().map(|f| f.kind), Some(FailureKind::ApiError));
}

#[test]
fn certificate_runs() {
    let p = path("/etc/kubernetes/pki/etcd/server.crt");
    let pem = include_bytes!("../../tests/fixtures/gate/pki/apiserver-valid.crt");
    let c = cert(&run(0, pem, ""), &p);
    assert_eq!(
        c.map(|c| c.map(|c| crate::clock::rfc3339(c.not_after))),
        Ok(Some("2036-11-30T09:00:00Z".into()))
    );
    // An external etcd: the file is not there.
    let none = cert(
        &run(
            1,
            b"",
            "cat: /etc/kubernetes/pki/etcd/server.crt: No such file or directory\n",
        ),
        &p,
    );
    assert_eq!(none, Ok(None));
    // Another file's absence, or a refusal, is a failed read.
    let other = cert(
        &run(
            1,
            b"",
            "cat: /etc/kubernetes/pki/ca.crt: No such file or directory\n",
        ),
        &p,
    );
    assert_eq!(other.err().map(|f| f.kind), Some(FailureKind::ApiError));
    let denied = cert(
        &run(
            1,
            b"",
            "cat: /etc/kubernetes/pki/etcd/server.crt: Permission denied\n",
        ),
        &p,
    );
    assert_eq!(denied.err().map(|f| f.kind), Some(FailureKind::Forbidden));
    // A key behind a .crt name: refused, none of its bytes in the reason.
    let key = b"-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIHNlY3JldA==\n-----END PRIVATE KEY-----\n";
    let e = cert(&run(0, key, ""), &p).err().map(|f| f.to_string());
    assert_eq!(
        e.as_deref(),
        Some("BadOutput: a PEM block that is not a CERTIFICATE: nothing of it was kept")
    );
}
