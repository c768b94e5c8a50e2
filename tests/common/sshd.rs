//! The shared bed's real OpenSSH server on 127.0.0.1 (Debian `openssh-server`, macOS's own
//! `/usr/sbin/sshd`), started on a port it owns: a port is asked of the kernel (`bind(0)`,
//! released for sshd to bind), so another test's sshd, or any process, may take it first.
//! Each start therefore (1) gives its sshd a banner of its own (`VersionAddendum` with a
//! nonce no other start uses) and accepts the port only when the server that answers there
//! greets with THAT banner, while its own child is still running, and (2) on a bind race
//! (the child exits, its log saying why) tries again on a new port. Included by the test
//! binaries with `#[path]`.

#![allow(dead_code)]

use std::fs;
use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub const SSHD: &str = "/usr/sbin/sshd";
pub const SSH: &str = "/usr/bin/ssh";
pub const SSH_KEYGEN: &str = "/usr/bin/ssh-keygen";

/// How many ports one start tries before it gives up (each a bind race lost).
pub const ATTEMPTS: usize = 8;

/// A running sshd, killed when dropped.
pub struct Sshd {
    child: Child,
    pub port: u16,
    pub dir: PathBuf,
    /// The banner this sshd greets with (`SSH-2.0-OpenSSH_... nestor-test-...`).
    pub banner: String,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Sshd {
    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.join("sshd.log")).unwrap_or_default()
    }
}

/// `path` exists, else a failure naming the package that installs it.
pub fn require(path: &str, package: &str) {
    assert!(
        Path::new(path).exists(),
        "{path} not found: install {package} (`apt-get install {package}`; .ci/run installs it). \
         The loopback sshd tests of `kubeconfig fetch` need it and do not skip."
    );
}

/// A TCP port on 127.0.0.1 that was free when asked. Free only then: a caller that must own
/// it checks that what answers there is its own server ([`start`] does).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// A word no other start of this process, nor of a concurrent test process, uses.
fn nonce() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "nestor-test-{}-{}-{nanos}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// The first line a server at 127.0.0.1:`port` sends (its SSH banner), if any within 5 s.
pub fn banner_at(port: u16) -> Option<String> {
    let s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut line = String::new();
    BufReader::new(s).read_line(&mut line).ok()?;
    Some(line.trim_end().to_string())
}

/// What waiting for one start came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Waited {
    /// The port greets with our banner: ours.
    Ours,
    /// Our child exited (a bind race lost, or a config it refused): try another port.
    Exited,
    /// Something else answers there (another test's sshd won the port): try another.
    Other(String),
    /// Nothing answered within the deadline.
    Silent,
}

/// Wait until 127.0.0.1:`port` greets with a banner ending in `addendum` while `child` still
/// runs, or until that cannot happen.
pub fn wait_for_own_banner(child: &mut Child, port: u16, addendum: &str) -> Waited {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        if let Ok(Some(_)) = child.try_wait() {
            return Waited::Exited;
        }
        if let Some(banner) = banner_at(port) {
            // Checked again after the greeting: a child that exited meanwhile did not send it.
            if banner.starts_with("SSH-") && banner.ends_with(addendum) {
                return match child.try_wait() {
                    Ok(None) => Waited::Ours,
                    _ => Waited::Exited,
                };
            }
            if !banner.is_empty() {
                return Waited::Other(banner);
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Waited::Silent
}

/// Start sshd in `dir` (its host key `ssh_host_ed25519_key` already there, `authorized_keys`
/// the client's) with `extra` lines appended to its sshd_config, on a port it owns.
pub fn start(dir: &Path, extra: &str) -> Sshd {
    start_on(dir, extra, &mut free_port)
}

/// [`start`] on the ports `next_port` gives, one per attempt (a test hands it a port that is
/// taken, to see the race lost and the next port used).
pub fn start_on(dir: &Path, extra: &str, next_port: &mut dyn FnMut() -> u16) -> Sshd {
    require(SSHD, "openssh-server");
    // Privilege separation directory of Debian's sshd.
    let _ = fs::create_dir_all("/run/sshd");
    let host_key = dir.join("ssh_host_ed25519_key");
    let mut tried = Vec::new();
    for _attempt in 0..ATTEMPTS {
        let port = next_port();
        let addendum = nonce();
        let config = dir.join("sshd_config");
        fs::write(
            &config,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {hk}\nAuthorizedKeysFile {ak}\n\
                 PidFile {pid}\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n\
                 PermitRootLogin prohibit-password\nLogLevel VERBOSE\n\
                 VersionAddendum {addendum}\n{extra}",
                hk = host_key.display(),
                ak = dir.join("authorized_keys").display(),
                pid = dir.join("sshd.pid").display(),
            ),
        )
        .expect("sshd_config");
        let log = fs::File::create(dir.join("sshd.log")).expect("log");
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start sshd");
        let mut sshd = Sshd {
            child,
            port,
            dir: dir.to_path_buf(),
            banner: String::new(),
        };
        match wait_for_own_banner(&mut sshd.child, port, &addendum) {
            Waited::Ours => {
                sshd.banner = banner_at(port).unwrap_or_default();
                return sshd;
            }
            other @ (Waited::Exited | Waited::Other(_) | Waited::Silent) => {
                tried.push(format!("port {port}: {other:?}\n{}", sshd.log()))
            }
        }
    }
    panic!(
        "sshd did not start on a port of its own in {ATTEMPTS} tries:\n{}",
        tried.join("\n")
    );
}

/// A fresh ed25519 key pair at `path` (and `path.pub`), without a passphrase.
pub fn keygen(path: &Path) {
    let out = Command::new(SSH_KEYGEN)
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "nestor-test", "-f"])
        .arg(path)
        .stdin(Stdio::null())
        .output()
        .expect("run ssh-keygen");
    assert!(
        out.status.success(),
        "ssh-keygen: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `ssh-ed25519 AAAA...` of a `.pub` file (without the comment).
pub fn public_key(pub_file: &Path) -> String {
    let text = fs::read_to_string(pub_file).expect("read pub");
    text.split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The ssh client the tests hand nestor as `NESTOR_SSH`: an `ssh_config` naming the test's
/// known_hosts and key (OpenSSH reads ~/.ssh from passwd, not $HOME), and a wrapper that logs
/// its argv (words joined by \037) to `log` in ONE write, since ssh runs in parallel, then
/// execs ssh with that config. Returns the wrapper.
pub fn ssh_client(work: &Path, known_hosts: &Path, key: &Path, log: &Path) -> PathBuf {
    let config = work.join("ssh_config");
    fs::write(
        &config,
        format!(
            "Host *\n  UserKnownHostsFile {}\n  IdentityFile {}\n  IdentitiesOnly yes\n",
            known_hosts.display(),
            key.display()
        ),
    )
    .expect("ssh_config");
    let wrapper = work.join("ssh-wrapper");
    fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nsep=$(printf '\\037')\nline=ssh\nfor a in \"$@\"; do line=\"$line$sep$a\"; done\nprintf '%s\\n' \"$line\" >> '{log}'\nexec {SSH} -F '{config}' \"$@\"\n",
            log = log.display(),
            config = config.display()
        ),
    )
    .expect("wrapper");
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).expect("chmod");
    wrapper
}
