//! `kubeconfig fetch` end to end against a REAL OpenSSH server on 127.0.0.1, started per test:
//! a temporary host key, a temporary client key in authorized_keys, a fixture admin.conf.
//! nestor runs the real `/usr/bin/ssh` through `NESTOR_SSH`, a wrapper that logs its argv
//! and adds `-F` with a temporary client config: OpenSSH takes known_hosts and `~/.ssh` from
//! the passwd entry, not from $HOME, so the config names the test's known_hosts and key.
//! Nothing in it weakens host-key checking (StrictHostKeyChecking stays at its default).
//!
//! These tests need `/usr/sbin/sshd` (Debian `openssh-server`; `.ci/run` installs it). Without
//! it they FAIL, saying so: a skipped end-to-end test would prove nothing.

use std::fs;
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::*;

pub(crate) const SSHD: &str = "/usr/sbin/sshd";
pub(crate) const SSH: &str = "/usr/bin/ssh";
pub(crate) const SSH_KEYGEN: &str = "/usr/bin/ssh-keygen";

/// A running sshd, killed when dropped.
pub(crate) struct Sshd {
    child: Child,
    pub(crate) port: u16,
    dir: PathBuf,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Sshd {
    pub(crate) fn log(&self) -> String {
        fs::read_to_string(self.dir.join("sshd.log")).unwrap_or_default()
    }
}

pub(crate) fn require(path: &str, package: &str) {
    assert!(
        Path::new(path).exists(),
        "{path} not found: install {package} (`apt-get install {package}`; .ci/run installs it). \
         The loopback sshd tests of `kubeconfig fetch` need it and do not skip."
    );
}

/// An unused TCP port on 127.0.0.1 (free when asked; the caller binds it right away).
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

pub(crate) fn keygen(path: &Path) {
    let out = Command::new(SSH_KEYGEN)
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "nestor-test", "-f"])
        .arg(path)
        .output()
        .expect("ssh-keygen");
    assert!(
        out.status.success(),
        "ssh-keygen: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `ssh-ed25519 AAAA...` of a `.pub` file (without the comment).
pub(crate) fn public_key(pub_file: &Path) -> String {
    let text = fs::read_to_string(pub_file).expect("read pub");
    text.split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Start sshd in `dir` accepting `client_pub` for any user (the test runs as root).
fn start_sshd(dir: &Path, client_pub: &Path) -> Sshd {
    start_sshd_with(dir, client_pub, "")
}

/// [`start_sshd`] with `extra` lines appended to its sshd_config (e.g. `SetEnv PATH=...`).
pub(crate) fn start_sshd_with(dir: &Path, client_pub: &Path, extra: &str) -> Sshd {
    require(SSHD, "openssh-server");
    // Privilege separation directory of Debian's sshd.
    let _ = fs::create_dir_all("/run/sshd");
    let host_key = dir.join("ssh_host_ed25519_key");
    keygen(&host_key);
    fs::copy(client_pub, dir.join("authorized_keys")).expect("authorized_keys");
    let mut last_log = String::new();
    for _attempt in 0..5 {
        let port = free_port();
        let config = dir.join("sshd_config");
        fs::write(
            &config,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {hk}\nAuthorizedKeysFile {ak}\n\
                 PidFile {pid}\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n\
                 PermitRootLogin prohibit-password\nLogLevel VERBOSE\n{extra}",
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
        };
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = sshd.child.try_wait() {
                break;
            }
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
                // sshd greets first: a banner means it is really sshd listening.
                let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
                let mut banner = [0u8; 4];
                if s.read_exact(&mut banner).is_ok() && &banner == b"SSH-" {
                    return sshd;
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        last_log = sshd.log();
        drop(sshd);
    }
    panic!("sshd did not start on 127.0.0.1:\n{last_log}");
}

/// Everything one test needs: the bed, the server, the wrapper, the remote admin.conf.
/// The server's files live in their own temp dir, outside the bed, so that `Bed::tree`
/// snapshots (nothing written?) are not disturbed by sshd's log and pid file.
struct Loopback {
    bed: Bed,
    sshd: Sshd,
    work: tempfile::TempDir,
    /// The `NESTOR_SSH` wrapper.
    wrapper: PathBuf,
    /// The client's known_hosts (holds the server's real key unless a test changes it).
    known_hosts: PathBuf,
    /// The private key, inside the repo, named relatively by the inventory.
    key: PathBuf,
    remote: PathBuf,
    dest: PathBuf,
}

fn loopback() -> Loopback {
    require(SSH, "openssh-client");
    require(SSH_KEYGEN, "openssh-client");
    let bed = Bed::new();
    let work_dir = tempfile::tempdir().expect("tempdir");
    let work = work_dir.path().to_path_buf();
    fs::set_permissions(&work, fs::Permissions::from_mode(0o700)).expect("chmod");
    let keys = bed.repo.join("keys");
    fs::create_dir_all(&keys).expect("mkdir");
    let key = keys.join("id_ed25519");
    keygen(&key);
    let sshd = start_sshd(&work, &key.with_extension("pub"));

    let known_hosts = work.join("known_hosts");
    fs::write(
        &known_hosts,
        format!(
            "[127.0.0.1]:{} {}\n",
            sshd.port,
            public_key(&work.join("ssh_host_ed25519_key.pub"))
        ),
    )
    .expect("known_hosts");
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
            "#!/bin/sh\n{{ printf 'ssh'; for a in \"$@\"; do printf '\\037%s' \"$a\"; done; echo; }} >> '{log}'\nexec {SSH} -F '{config}' \"$@\"\n",
            log = bed.log.display(),
            config = config.display()
        ),
    )
    .expect("wrapper");
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).expect("chmod");

    let remote = work.join("etc-kubernetes/admin.conf");
    fs::create_dir_all(remote.parent().expect("parent")).expect("mkdir");
    fs::write(&remote, admin_conf("https://10.67.2.11:6443")).expect("admin.conf");

    bed.write_stack(
        "dirqual",
        &format!("{PROD_DECLARED}admin_conf: {}\n", remote.display()),
    );
    bed.select("dirqual");
    fs::create_dir_all(bed.repo.join("bootstrap")).expect("mkdir");
    fs::write(
        bed.repo.join("bootstrap/hosts.yaml"),
        format!(
            "all:\n  children:\n    control_plane:\n      hosts:\n        dirqual1:\n          ansible_host: 127.0.0.1\n          ansible_port: {}\n          ansible_user: root\n          ansible_ssh_private_key_file: keys/id_ed25519\n",
            sshd.port
        ),
    )
    .expect("inventory");
    bed.kubectl_serving_nodes(NODES_DIRQUAL);
    let dest = bed.home.join(".kube/dirqual.config");
    Loopback {
        bed,
        sshd,
        work: work_dir,
        wrapper,
        known_hosts,
        key,
        remote,
        dest,
    }
}

impl Loopback {
    fn fetch(&self, extra: &[&str]) -> std::process::Output {
        self.bed
            .cmd()
            .args(extra)
            .args(["kubeconfig", "fetch"])
            .env("NESTOR_SSH", &self.wrapper)
            .output()
            .expect("run")
    }

    fn expected_argv(&self, port: u16) -> Vec<String> {
        [
            "-p".to_string(),
            port.to_string(),
            "-i".into(),
            self.key.display().to_string(),
            "-o".into(),
            "ConnectTimeout=10".into(),
            "-o".into(),
            "BatchMode=yes".into(),
            "root@127.0.0.1".into(),
            "cat".into(),
            self.remote.display().to_string(),
        ]
        .to_vec()
    }

    fn context(&self, out: &std::process::Output) -> String {
        format!(
            "stdout:\n{}\nstderr:\n{}\nsshd:\n{}",
            stdout_of(out),
            stderr_of(out),
            self.sshd.log()
        )
    }
}

#[test]
fn sshd_fetch_writes_0600_with_the_fixture_bytes_and_verifies() {
    let l = loopback();
    let out = l.fetch(&["--no-input", "--no-color", "-v"]);
    assert_eq!(out.status.code(), Some(0), "{}", l.context(&out));
    assert_eq!(
        fs::read(&l.dest).expect("read"),
        fs::read(&l.remote).expect("read"),
        "byte-equal to the remote admin.conf"
    );
    assert_eq!(mode(&l.dest), 0o600);
    assert_eq!(mode(&l.bed.home.join(".kube")), 0o700);
    // nestor's exact argv, inventory port and (repo-relative) key included
    assert_eq!(l.bed.calls("ssh"), vec![l.expected_argv(l.sshd.port)]);
    // the verification ran through the new file
    let kubectl = l.bed.reads();
    assert_eq!(kubectl.len(), 1, "{kubectl:?}");
    assert!(kubectl[0].contains(&format!("--kubeconfig={}", l.dest.display())));
    let text = stdout_of(&out);
    assert!(
        text.contains("verified    kubectl get nodes: dirqual1..4, 4/4 Ready"),
        "{text}"
    );
    for (what, s) in [("stdout", stdout_of(&out)), ("stderr", stderr_of(&out))] {
        assert!(!s.contains(SECRET_MARKER), "secret on {what}: {s}");
    }
    // a second run finds the same bytes
    let out = l.fetch(&["--no-input"]);
    assert_eq!(out.status.code(), Some(0), "{}", l.context(&out));
    assert!(stdout_of(&out).contains("(unchanged: same content as the fetched one)"));
}

#[test]
fn sshd_changed_host_key_is_a_clear_error_and_writes_nothing() {
    let l = loopback();
    let other = l.work.path().join("other_host_key");
    keygen(&other);
    fs::write(
        &l.known_hosts,
        format!(
            "[127.0.0.1]:{} {}\n",
            l.sshd.port,
            public_key(&other.with_extension("pub"))
        ),
    )
    .expect("known_hosts");
    let before = l.bed.tree();
    let out = l.fetch(&["--no-input"]);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{}", l.context(&out));
    assert!(
        err.contains("ssh to root@127.0.0.1: the host key does NOT match the one in known_hosts (REMOTE HOST IDENTIFICATION HAS CHANGED); nestor never disables or weakens ssh host-key checking, nothing was fetched"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "hint: verify the host's new key out of band (console, provisioning records); only then `ssh-keygen -R '[127.0.0.1]:{}'`",
            l.sshd.port
        )),
        "{err}"
    );
    assert_eq!(err.lines().count(), 3, "notice + two error lines: {err}");
    assert_eq!(l.bed.tree(), before, "something was written");
    assert!(l.bed.calls("kubectl").is_empty());
}

#[test]
fn sshd_unknown_host_is_refused_not_accepted() {
    let l = loopback();
    fs::write(&l.known_hosts, "").expect("known_hosts");
    let before = l.bed.tree();
    let out = l.fetch(&["--no-input"]);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{}", l.context(&out));
    assert!(err.contains("host key verification failed"), "{err}");
    assert!(err.contains("never disables or weakens"), "{err}");
    assert_eq!(l.bed.tree(), before);
}

#[test]
fn sshd_closed_port_is_exit_4_and_writes_nothing() {
    let l = loopback();
    let closed = free_port();
    let inventory = l.bed.repo.join("bootstrap/hosts.yaml");
    let text = fs::read_to_string(&inventory)
        .expect("read")
        .replace(&l.sshd.port.to_string(), &closed.to_string());
    fs::write(&inventory, text).expect("write");
    let before = l.bed.tree();
    let out = l.fetch(&["--no-input"]);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{}", l.context(&out));
    assert!(
        err.contains(&format!(
            "cannot reach root@127.0.0.1 over ssh: ssh: ssh: connect to host 127.0.0.1 port {closed}: Connection refused"
        )),
        "{err}"
    );
    assert_eq!(l.bed.calls("ssh"), vec![l.expected_argv(closed)]);
    assert_eq!(l.bed.tree(), before);
}

#[test]
fn sshd_a_different_existing_file_with_no_input_is_left_alone() {
    let l = loopback();
    l.bed.kubeconfig(&l.dest, "https://10.1.1.1:6443");
    let before = l.bed.tree();
    let out = l.fetch(&["--no-input"]);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{}", l.context(&out));
    assert!(
        err.contains("already exists with different content; it is replaced only after an interactive yes, nothing was written"),
        "{err}"
    );
    assert_eq!(l.bed.tree(), before);
    assert!(!err.contains(SECRET_MARKER));
}
