//! Bounded per run (SPEC §9, issue 31) through the REAL kubectl against the replay server and
//! a REAL OpenSSH server on 127.0.0.1: whatever the cluster or the inventory holds, one run
//! keeps at most 16 API reads and 8 ssh in flight, a fixed number of threads, and a bounded
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

use nestor_replay::Config;

use crate::bed_or_skip;
use crate::common_sampled::{osds_mid_rollout, peak_overlap, peak_running, run_sampled, Sampled};
use crate::common_sshd::{self, keygen, public_key, require, ssh_client, SSH, SSH_KEYGEN};
use crate::support::*;

/// Most address space a run may take: measured 160 MiB with glibc held to two malloc arenas
/// (`pool::MALLOC_ARENAS`); glibc's default reserved 1 GiB for the same run.
const MAX_ADDRESS_SPACE_KIB: u64 = 256 << 10;

/// `kubectl-nestor ARGS` with the bed's environment (the real kubectl first on PATH).
fn nestor(bed: &E2e, args: &[&str]) -> std::process::Command {
    let mut run = bed.program(bed.bin.join("kubectl-nestor"));
    run.args(args);
    run.command()
}

#[test]
fn thousands_of_workloads_through_the_real_kubectl_keep_16_reads_in_flight() {
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
    assert!(peak <= 16, "{peak} requests in flight at once");
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

/// The remote `sshd -T` every host runs: its start and end (nanoseconds) appended to `log`,
/// a second of work between, then a hardened configuration as `sshd -T` prints it.
fn slow_sshd_t(log: &std::path::Path) -> String {
    format!(
        "#!/bin/sh\nif [ \"$*\" != -T ]; then echo \"stub sshd: unexpected $*\" >&2; exit 2; fi\n\
         echo \"$(date +%s%N) 1\" >> '{log}'\nsleep 1\n\
         printf 'passwordauthentication no\\npermitrootlogin prohibit-password\\n'\n\
         echo \"$(date +%s%N) -1\" >> '{log}'\n",
        log = log.display()
    )
}

#[test]
fn forty_hosts_through_the_real_sshd_keep_8_ssh_in_flight() {
    let Some(bed) = E2e::dirqual() else {
        eprintln!("SKIP: no kubectl on PATH");
        return;
    };
    require(SSH, "openssh-client");
    require(SSH_KEYGEN, "openssh-client");
    let work_dir = tempfile::tempdir().expect("tempdir");
    let work = work_dir.path();
    fs::set_permissions(work, fs::Permissions::from_mode(0o700)).expect("chmod");
    let (host, bin, key) = (
        work.join("host"),
        work.join("host/bin"),
        work.join("id_ed25519"),
    );
    fs::create_dir_all(&bin).expect("mkdir");
    keygen(&key);
    keygen(&host.join("ssh_host_ed25519_key"));
    fs::copy(key.with_extension("pub"), host.join("authorized_keys")).expect("authorized_keys");
    let times = work.join("ssh-times.log");
    fs::write(bin.join("sshd"), slow_sshd_t(&times)).expect("stub");
    fs::set_permissions(bin.join("sshd"), fs::Permissions::from_mode(0o755)).expect("chmod");
    // One real sshd answers every host of the inventory (40 names, one address): what is
    // bounded is nestor's side, the connections it opens at once.
    let sshd = common_sshd::start(
        &host,
        &format!(
            "SetEnv PATH={}:/usr/bin:/bin\nMaxStartups 100\n",
            bin.display()
        ),
    );
    let known = work.join("known_hosts");
    fs::write(
        &known,
        format!(
            "[127.0.0.1]:{} {}\n",
            sshd.port,
            public_key(&host.join("ssh_host_ed25519_key.pub"))
        ),
    )
    .expect("known_hosts");
    let wrapper = ssh_client(work, &known, &key, &work.join("ssh-argv.log"));
    let mut inventory = String::from("all:\n  hosts:\n");
    for i in 0..40 {
        inventory.push_str(&format!(
            "    h{i:02}:\n      ansible_host: 127.0.0.1\n      ansible_port: {}\n      ansible_user: root\n      ansible_ssh_private_key_file: {}\n",
            sshd.port,
            key.display()
        ));
    }
    fs::create_dir_all(bed.repo.join("bootstrap")).expect("mkdir");
    fs::write(bed.repo.join("bootstrap/hosts.yaml"), inventory).expect("inventory");
    bed.write_stack(
        "dirqual",
        &dirqual_topology(&bed.server.url()).replace("certs]", "certs, sshd-hardening]"),
    );
    let mut cmd = nestor(&bed, &["--no-input", "--no-color", "preview", "-o", "json"]);
    cmd.env("NESTOR_SSH", &wrapper);
    let out = run_sampled(cmd);
    assert_eq!(
        out.code,
        Some(0),
        "stdout:\n{}\nstderr:\n{}\nsshd:\n{}",
        out.stdout,
        out.stderr,
        sshd.log()
    );
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("a JSON document");
    assert_eq!(
        state_of(&v, "sshd-hardening"),
        "present",
        "{:#}",
        layer(&v, "sshd-hardening")
    );
    let peak = peak_running(&times);
    let calls = fs::read_to_string(&times)
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
