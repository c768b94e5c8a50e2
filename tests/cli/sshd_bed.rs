//! The shared bed's sshd start (`tests/common/sshd.rs`) owns its port: a port another server
//! holds is never taken for ours (the banner is checked, not just "some SSH answered"), a lost
//! bind race moves on to the next port, and two servers started at once each get their own.

use std::io::Write;
use std::net::TcpListener;
use std::process::Command;

use crate::common_sshd::{self, banner_at, wait_for_own_banner, Waited};
use crate::sshd::{keygen, SSHD};

/// A server on 127.0.0.1 that greets every connection with another sshd's banner.
fn impostor() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let l = listener.try_clone().expect("clone");
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            let _ = s.write_all(b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n");
        }
    });
    (listener, port)
}

fn server_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    keygen(&dir.path().join("ssh_host_ed25519_key"));
    keygen(&dir.path().join("client"));
    std::fs::copy(
        dir.path().join("client.pub"),
        dir.path().join("authorized_keys"),
    )
    .expect("authorized_keys");
    dir
}

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn a_port_greeting_with_another_banner_is_not_ours() {
    let (_held, port) = impostor();
    // A running child of ours that serves nothing: only the impostor answers on the port.
    let mut child = Command::new("sleep").arg("30").spawn().expect("sleep");
    let waited = wait_for_own_banner(&mut child, port, "nestor-test-1-2-3");
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        waited,
        Waited::Other("SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3".into())
    );
}

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn a_lost_bind_race_moves_to_the_next_port_and_the_banner_is_ours() {
    crate::sshd::require(SSHD, "openssh-server");
    let dir = server_dir();
    let (_held, taken) = impostor();
    let mut ports = vec![common_sshd::free_port(), taken];
    let mut asked = 0;
    let sshd = common_sshd::start_on(dir.path(), "", &mut || {
        asked += 1;
        ports.pop().expect("a port")
    });
    assert_eq!(asked, 2, "the taken port was refused, the next one used");
    assert_ne!(sshd.port, taken);
    // `SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3 nestor-test-PID-N-NANOS`: this start's own word.
    let word = sshd.banner.rsplit(' ').next().unwrap_or_default();
    assert!(
        sshd.banner.starts_with("SSH-2.0-OpenSSH_")
            && word.starts_with(&format!("nestor-test-{}-", std::process::id())),
        "{}",
        sshd.banner
    );
    assert_eq!(banner_at(sshd.port).as_deref(), Some(sshd.banner.as_str()));
    assert_eq!(
        banner_at(taken).as_deref(),
        Some("SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3")
    );
}

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn two_servers_started_at_once_each_own_their_port_and_banner() {
    crate::sshd::require(SSHD, "openssh-server");
    let dirs = [server_dir(), server_dir()];
    let [a, b] = std::thread::scope(|s| {
        let handles = dirs
            .iter()
            .map(|d| s.spawn(|| common_sshd::start(d.path(), "")))
            .collect::<Vec<_>>();
        let mut it = handles.into_iter().map(|h| h.join().expect("start"));
        [it.next().expect("a"), it.next().expect("b")]
    });
    assert_ne!(a.port, b.port);
    assert_ne!(a.banner, b.banner);
    for s in [&a, &b] {
        assert_eq!(banner_at(s.port).as_deref(), Some(s.banner.as_str()));
    }
}
