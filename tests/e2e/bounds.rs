//! Bounded per run (SPEC §9, issue 31) through the REAL kubectl against the replay server and
//! a REAL OpenSSH server on 127.0.0.1: whatever the cluster or the inventory holds, one run
//! keeps at most 64 API reads and 8 ssh in flight, a fixed number of threads, and a bounded
//! address space (what `ulimit -v` limits). Measured from outside (`tests/common/sampled.rs`):
//! requests in flight from the server's audit (every answer delayed, so that concurrent ones
//! overlap), ssh in flight from the remote program's own start and end times, threads and
//! address space by sampling `/proc/PID/status`. nestor is started as `kubectl-nestor`
//! itself (kubectl's plugin dispatch would exec it in the same process, and the sampler would
//! count kubectl's own address space before the exec); it still reads through the real
//! kubectl's proxy and the real ssh.
//!
//! The sshd test needs `/usr/sbin/sshd` (Debian `openssh-server`; `.ci/run` installs it):
//! without it the test FAILS, saying so.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nestor_replay::Config;

use crate::bed_or_skip;
use crate::common_sampled::{osds_mid_rollout, peak_overlap, peak_running, run_sampled, Sampled};
use crate::common_sshd::{self, keygen, public_key, require, ssh_client, SSH, SSH_KEYGEN};
use crate::support::*;

/// Most address space a run may take: measured 160 MiB with glibc held to two malloc arenas
/// (`pool::MALLOC_ARENAS`); glibc's default reserved 1 GiB for the same run.
const MAX_ADDRESS_SPACE_KIB: u64 = 256 << 10;

/// `kubectl-nestor ARGS` with the bed's environment (the real kubectl first on PATH).
fn nestor(bed: &E2e, args: &[&str]) -> Command {
    bed.command(args).command()
}

#[test]
#[ignore = "tier 2, at scale: bash scripts/test.sh runs it (-- --include-ignored)"]
fn thousands_of_workloads_through_the_real_kubectl_keep_reads_in_flight_bounded() {
    let config = Config::new(osds_mid_rollout(2500))
        .fault("GET /=delay:150")
        .expect("fault");
    let bed = bed_or_skip!(E2e::with_config(config));
    let Sampled {
        code,
        stdout,
        stderr,
        threads,
        peak_rss_kib,
        peak_vm_kib,
    } = run_sampled(nestor(
        &bed,
        &[
            "--no-input",
            "--no-color",
            "preview",
            "--request-timeout=60s",
        ],
    ));
    assert_eq!(code, Some(0), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let audit = bed.server.audit();
    let peak = peak_overlap(audit.iter().map(|e| (e.unix_ms, e.duration_ms)));
    eprintln!(
        "measured: {peak} requests in flight at most, {threads} threads, peak RSS {peak_rss_kib} KiB, address space {peak_vm_kib} KiB"
    );
    assert!(
        peak <= 64,
        "{peak} requests in flight at once (pool::API_READS_IN_FLIGHT)"
    );
    assert!(
        peak >= 8,
        "the reads did not overlap ({peak}): the test measures nothing"
    );
    assert!(threads < 64, "{threads} threads");
    assert!(
        peak_vm_kib < MAX_ADDRESS_SPACE_KIB,
        "{peak_vm_kib} KiB of address space"
    );
    assert_read_only(&bed.server);
    // The two placement reads by label, then the five not-rolled-out OSDs' own pods: never
    // one pod list per workload.
    let mut pods: Vec<String> = audit
        .iter()
        .filter(|e| e.path == "/api/v1/namespaces/rook-ceph/pods")
        .map(|e| e.query.clone())
        .collect();
    pods.sort();
    let mut want: Vec<String> = (0..5)
        .map(|i| format!("labelSelector=app%3Drook-ceph-osd%2Cceph-osd-id%3D{i}"))
        .chain([
            "labelSelector=app%3Drook-ceph-mon&limit=5000".to_string(),
            "labelSelector=app%3Drook-ceph-osd&limit=5000".to_string(),
        ])
        .collect();
    want.sort();
    assert_eq!(pods, want);
    let evidence = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        // The evidence of 2500 workloads: only its count of the uninspected ones is fixed.
        evidence.contains("; and 2495 more not inspected"),
        "stdout:\n{stdout}"
    );
}

/// What the remote `sshd -T` of every host does ([`slow_sshd_t`]).
#[derive(Clone, Copy)]
enum Remote {
    /// Takes this many seconds, then prints a hardened configuration.
    Slow(u32),
    /// Prints this many bytes (a runaway remote command).
    Floods(u64),
}

/// The remote `sshd -T`: its start and end (nanoseconds) appended to `log`, and between them
/// what `remote` says.
fn slow_sshd_t(log: &Path, remote: Remote) -> String {
    let work = match remote {
        Remote::Slow(secs) => format!(
            "sleep {secs}\nprintf 'passwordauthentication no\\npermitrootlogin prohibit-password\\n'"
        ),
        Remote::Floods(bytes) => format!("head -c {bytes} /dev/zero | tr '\\0' a"),
    };
    format!(
        "#!/bin/sh\nif [ \"$*\" != -T ]; then echo \"stub sshd: unexpected $*\" >&2; exit 2; fi\n\
         echo \"$(date +%s%N) 1\" >> '{log}'\n{work}\necho \"$(date +%s%N) -1\" >> '{log}'\n",
        log = log.display()
    )
}

/// dirqual with `sshd-hardening`, and an inventory of `hosts` names all answered by ONE real
/// sshd on 127.0.0.1 whose `sshd -T` does what `remote` says ([`slow_sshd_t`]): what is bounded is
/// nestor's side, the connections it opens at once.
struct Inventory {
    bed: E2e,
    sshd: common_sshd::Sshd,
    work: tempfile::TempDir,
    /// The `NESTOR_SSH` wrapper (`-F` with the test's known_hosts and key).
    wrapper: PathBuf,
    /// Each remote `sshd -T`'s start and end.
    times: PathBuf,
}

fn inventory(hosts: usize, remote: Remote) -> Option<Inventory> {
    let bed = E2e::dirqual()?;
    require(SSH, "openssh-client");
    require(SSH_KEYGEN, "openssh-client");
    let work = tempfile::tempdir().expect("tempdir");
    let w = work.path();
    fs::set_permissions(w, fs::Permissions::from_mode(0o700)).expect("chmod");
    let (host, bin, key) = (w.join("host"), w.join("host/bin"), w.join("id_ed25519"));
    fs::create_dir_all(&bin).expect("mkdir");
    keygen(&key);
    keygen(&host.join("ssh_host_ed25519_key"));
    fs::copy(key.with_extension("pub"), host.join("authorized_keys")).expect("authorized_keys");
    let times = w.join("ssh-times.log");
    fs::write(bin.join("sshd"), slow_sshd_t(&times, remote)).expect("stub");
    fs::set_permissions(bin.join("sshd"), fs::Permissions::from_mode(0o755)).expect("chmod");
    let sshd = common_sshd::start(
        &host,
        &format!(
            "SetEnv PATH={}:/usr/bin:/bin\nMaxStartups 100\n",
            bin.display()
        ),
    );
    let known = w.join("known_hosts");
    let host_key = public_key(&host.join("ssh_host_ed25519_key.pub"));
    fs::write(&known, format!("[127.0.0.1]:{} {host_key}\n", sshd.port)).expect("known_hosts");
    let wrapper = ssh_client(w, &known, &key, &w.join("ssh-argv.log"));
    let mut text = String::from("all:\n  hosts:\n");
    for i in 0..hosts {
        text.push_str(&format!(
            "    h{i:02}:\n      ansible_host: 127.0.0.1\n      ansible_port: {}\n      ansible_user: root\n      ansible_ssh_private_key_file: {}\n",
            sshd.port,
            key.display()
        ));
    }
    fs::create_dir_all(bed.repo.join("bootstrap")).expect("mkdir");
    fs::write(bed.repo.join("bootstrap/hosts.yaml"), text).expect("inventory");
    bed.write_stack(
        "dirqual",
        &dirqual_topology(&bed.server.url()).replace("certs]", "certs, sshd-hardening]"),
    );
    Some(Inventory {
        bed,
        sshd,
        work,
        wrapper,
        times,
    })
}

impl Inventory {
    fn preview(&self) -> std::process::Command {
        let mut cmd = nestor(
            &self.bed,
            &["--no-input", "--no-color", "preview", "-o", "json"],
        );
        cmd.env("NESTOR_SSH", &self.wrapper);
        cmd
    }

    /// The running processes whose command line names this test's ssh client config: the
    /// real ssh clients nestor started (and the wrapper, until it execs).
    fn ssh_clients(&self) -> Vec<u32> {
        let mark = self.work.path().join("ssh_config");
        let mark = mark.to_string_lossy().into_owned();
        let Ok(dir) = fs::read_dir("/proc") else {
            return Vec::new();
        };
        dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                let zombie = fs::read_to_string(format!("/proc/{pid}/stat"))
                    .ok()
                    .and_then(|s| s.rsplit_once(')').map(|(_, r)| r.trim().starts_with('Z')))
                    .unwrap_or(true);
                !zombie && String::from_utf8_lossy(&cmdline).contains(&mark)
            })
            .collect()
    }
}

#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn forty_hosts_through_the_real_sshd_keep_8_ssh_in_flight() {
    let Some(inv) = inventory(40, Remote::Slow(1)) else {
        eprintln!("SKIP: no kubectl on PATH");
        return;
    };
    let out = run_sampled(inv.preview());
    assert_eq!(
        out.code,
        Some(0),
        "stdout:\n{}\nstderr:\n{}\nsshd:\n{}",
        out.stdout,
        out.stderr,
        inv.sshd.log()
    );
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("a JSON document");
    assert_eq!(
        state_of(&v, "sshd-hardening"),
        "present",
        "{:#}",
        layer(&v, "sshd-hardening")
    );
    let peak = peak_running(&inv.times);
    let calls = fs::read_to_string(&inv.times)
        .unwrap_or_default()
        .lines()
        .count()
        / 2;
    eprintln!(
        "measured: 40 hosts through the real sshd, {peak} ssh at once at most, {} threads, peak RSS {} KiB, address space {} KiB",
        out.threads, out.peak_rss_kib, out.peak_vm_kib
    );
    assert_eq!(calls, 40, "one `sshd -T` per host");
    assert!(peak <= 8, "{peak} ssh at once");
    assert!(
        peak >= 4,
        "the ssh calls did not overlap ({peak}): the test measures nothing"
    );
    assert!(out.threads < 64, "{} threads", out.threads);
    assert!(
        out.peak_vm_kib < MAX_ADDRESS_SPACE_KIB,
        "{} KiB of address space",
        out.peak_vm_kib
    );
}

/// SIGTERM while 8 real ssh connections are open (each remote `sshd -T` takes a minute):
/// nestor dies of it within a second, and within five seconds no ssh client of the run is
/// left (each is killed with its process group; the registry has no fixed size).
#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn a_signal_during_forty_real_ssh_ends_nestor_within_a_second_and_takes_every_ssh_along() {
    use std::os::unix::process::ExitStatusExt;
    let Some(inv) = inventory(40, Remote::Slow(60)) else {
        eprintln!("SKIP: no kubectl on PATH");
        return;
    };
    let mut cmd = inv.preview();
    crate::common_signals::with_default_signals(&mut cmd);
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .stdin(Stdio::null())
        .spawn()
        .expect("nestor starts");
    let started = |times: &Path| {
        fs::read_to_string(times)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.ends_with(" 1"))
            .count()
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    while started(&inv.times) < 8 {
        assert!(
            Instant::now() < deadline,
            "8 remote commands never ran at once:\n{}",
            inv.sshd.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let running = inv.ssh_clients();
    assert!(running.len() >= 8, "ssh clients running: {running:?}");
    let sent = Instant::now();
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("nestor did not end within 30 s of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = sent.elapsed();
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status:?}");
    assert!(
        took < Duration::from_secs(1),
        "acted on SIGTERM after {took:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while !inv.ssh_clients().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = inv.ssh_clients();
    for pid in &left {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    eprintln!(
        "measured: SIGTERM with {} ssh running, nestor ended after {took:?}, {} ssh left",
        running.len(),
        left.len()
    );
    assert!(left.is_empty(), "{} ssh outlived nestor", left.len());
}

/// Four hosts whose remote command prints 40 MB each, through the real ssh: each output is cut
/// at the 1 MiB nestor reads while it arrives (700-850 MiB when each was buffered to the
/// process layer's 48 MiB cap first), the layer unknown naming the bound.
#[test]
#[ignore = "tier 2, a real sshd: bash scripts/test.sh runs it (-- --include-ignored)"]
fn huge_remote_outputs_through_the_real_sshd_are_cut_at_1_mib_while_read() {
    let Some(inv) = inventory(4, Remote::Floods(40_000_000)) else {
        eprintln!("SKIP: no kubectl on PATH");
        return;
    };
    let out = run_sampled(inv.preview());
    eprintln!(
        "measured: 4 hosts printing 40 MB through the real sshd, peak RSS {} KiB",
        out.peak_rss_kib
    );
    assert_eq!(out.code, Some(0), "stderr:\n{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("a JSON document");
    let each =
        "the command printed more than the 1 MiB nestor reads: cut there while it was read, nothing of it used";
    assert_eq!(
        layer(&v, "sshd-hardening")["checks"],
        serde_json::json!([{
            "id": "sshd-hardening/sshd",
            "verdict": "unknown",
            "evidence": (0..4).map(|i| format!("h{i:02}: {each}")).collect::<Vec<_>>().join("; "),
        }]),
    );
    assert!(
        out.peak_rss_kib < 64 * 1024,
        "peak RSS {} KiB",
        out.peak_rss_kib
    );
}

/// A 40 MiB value in `rook-ceph-mon-endpoints` beside the small key ceph checks, through the
/// real kubectl: every key but the checked one is skipped unread as it arrives (it used to
/// cost 128 MiB), and ceph is judged as on a small ConfigMap.
#[test]
#[ignore = "tier 2, at scale: bash scripts/test.sh runs it (-- --include-ignored)"]
fn a_huge_config_map_through_the_real_kubectl_is_decoded_into_its_checked_key_only() {
    let mut fixture = nestor_replay::fixtures::dirqual();
    let cm = fixture
        .objects
        .iter_mut()
        .find(|o| o["kind"] == "ConfigMap" && o["metadata"]["name"] == "rook-ceph-mon-endpoints")
        .expect("dirqual has rook-ceph-mon-endpoints");
    cm["data"]["csi-cluster-config-json"] = serde_json::json!("y".repeat(40 << 20));
    let bed = bed_or_skip!(E2e::with_config(Config::new(fixture)));
    // Room for a loaded machine: 40 MiB through two proxies (60 s per request).
    let out = run_sampled(nestor(
        &bed,
        &[
            "--no-input",
            "preview",
            "-o",
            "json",
            "--request-timeout=60s",
        ],
    ));
    eprintln!(
        "measured: a 40 MiB ConfigMap through the real kubectl, peak RSS {} KiB",
        out.peak_rss_kib
    );
    assert_eq!(out.code, Some(0), "stderr:\n{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("a JSON document");
    let small = bed_or_skip!(E2e::dirqual());
    let (want, _) = preview(&small);
    assert_eq!(layer(&v, "ceph"), layer(&want, "ceph"));
    assert_eq!(state_of(&v, "ceph"), "present");
    assert!(
        out.peak_rss_kib < 64 * 1024,
        "peak RSS {} KiB",
        out.peak_rss_kib
    );
}
