//! Bounded per run (SPEC §9, issue 31): whatever the cluster or the inventory holds, one run
//! keeps at most 16 API reads in flight, a fixed number of threads, and succeeds under a tight
//! `ulimit -v`; the second read round inspects at most 5 workloads of a check. Measured from
//! outside: requests in flight from the replay server's audit (each request's arrival and
//! answer time, every answer delayed so that concurrent ones overlap), threads by sampling
//! `/proc/PID/status` while nestor runs.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::*;

/// The most requests the audit shows in flight at one instant.
pub fn peak_in_flight(audit: &Path) -> usize {
    let text = std::fs::read_to_string(audit).unwrap_or_default();
    let mut edges: Vec<(u64, i64)> = Vec::new();
    for line in text.lines() {
        let e: serde_json::Value = serde_json::from_str(line).expect("an audit line");
        let start = e["unix_ms"].as_u64().expect("unix_ms");
        let took = e["duration_ms"].as_u64().expect("duration_ms");
        // Half-open intervals: an answer at t and an arrival at t do not overlap.
        edges.push((start, 1));
        edges.push((start + took.max(1), -1));
    }
    edges.sort_by_key(|(t, d)| (*t, *d));
    let (mut now, mut peak) = (0i64, 0i64);
    for (_, d) in edges {
        now += d;
        peak = peak.max(now);
    }
    usize::try_from(peak).unwrap_or(0)
}

/// What [`run_sampled`] saw.
pub struct Sampled {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// The most threads seen at once.
    pub threads: usize,
    /// The last peak RSS (`VmHWM`) seen before the end, in KiB.
    pub peak_rss_kib: u64,
    /// The last peak address space (`VmPeak`) seen before the end, in KiB: what
    /// `ulimit -v` bounds.
    pub peak_vm_kib: u64,
}

/// `cmd` run to its end while its `Threads:` and `VmHWM:` are sampled every few ms.
pub fn run_sampled(mut cmd: Command) -> Sampled {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut child = cmd
        .stdout(std::fs::File::create(&out).expect("out"))
        .stderr(std::fs::File::create(&err).expect("err"))
        .stdin(Stdio::null())
        .spawn()
        .expect("spawn");
    let status_file = format!("/proc/{}/status", child.id());
    let (mut threads, mut peak_rss_kib, mut peak_vm_kib) = (0, 0, 0);
    let deadline = Instant::now() + Duration::from_secs(240);
    let status = loop {
        let status = std::fs::read_to_string(&status_file).unwrap_or_default();
        let field = |name: &str| -> Option<u64> {
            status.lines().find_map(|l| {
                l.strip_prefix(name)
                    .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
            })
        };
        if let Some(n) = field("Threads:") {
            threads = threads.max(usize::try_from(n).unwrap_or(usize::MAX));
        }
        if let Some(n) = field("VmHWM:") {
            peak_rss_kib = peak_rss_kib.max(n);
        }
        if let Some(n) = field("VmPeak:") {
            peak_vm_kib = peak_vm_kib.max(n);
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the run did not end within 240 s");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    Sampled {
        code: status.code(),
        stdout: read(&out),
        stderr: read(&err),
        threads,
        peak_rss_kib,
        peak_vm_kib,
    }
}

/// `cmd` again, through `sh -c 'ulimit -v KIB; exec ...'` (its environment kept).
pub fn under_ulimit_v(cmd: &Command, kib: u64) -> Command {
    let mut sh = Command::new("/bin/sh");
    sh.arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => sh.env(k, v),
            None => sh.env_remove(k),
        };
    }
    if let Some(d) = cmd.get_current_dir() {
        sh.current_dir(d);
    }
    sh
}

/// dirqual, and `n` Deployments `rook-ceph-osd-NNNN` in rook-ceph, each mid-rollout (an
/// upgrade in progress: 1 of 3 replicas updated), with their own selector.
fn osds_mid_rollout(n: usize) -> Cluster {
    let mut fixture = nestor_replay::fixtures::dirqual();
    for i in 0..n {
        let name = format!("rook-ceph-osd-{i:04}");
        fixture.objects.push(serde_json::json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": "rook-ceph", "generation": 2,
                         "labels": {"app": "rook-ceph-osd", "ceph-osd-id": i.to_string()}},
            "spec": {"replicas": 3,
                     "selector": {"matchLabels": {"app": "rook-ceph-osd", "ceph-osd-id": i.to_string()}},
                     "template": {"metadata": {"labels": {"app": "rook-ceph-osd", "ceph-osd-id": i.to_string()}},
                                  "spec": {"containers": [{"name": "osd", "image": "quay.io/ceph/ceph:v18.2.4"}]}}},
            "status": {"observedGeneration": 2, "replicas": 4, "updatedReplicas": 1,
                       "readyReplicas": 3, "availableReplicas": 3,
                       "conditions": [{"type": "Progressing", "status": "True",
                                       "reason": "ReplicaSetUpdated"}]}
        }));
    }
    let mut cluster = Cluster::replay(&fixture);
    // Every answer 150 ms late: requests sent together overlap in the audit.
    cluster.faults.push("GET /=delay:150".to_string());
    cluster
}

/// The run every measurement here samples: `preview` without a terminal or colour, with
/// room for a loaded machine (60 s per request).
fn preview_run(bed: &Bed) -> Run {
    let mut run = bed.cmd();
    run.args([
        "--no-input",
        "--no-color",
        "preview",
        "--request-timeout=60s",
    ]);
    run
}

#[test]
fn thousands_of_workloads_mid_rollout_keep_16_reads_in_flight_and_few_threads() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &osds_mid_rollout(2500));
    let run = preview_run(&bed);
    let Sampled {
        code,
        stdout,
        stderr,
        threads,
        peak_vm_kib,
        ..
    } = run_sampled(run.command());
    assert_eq!(code, Some(0), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let peak = peak_in_flight(&bed.audit_file());
    eprintln!(
        "measured: {peak} requests in flight at most, {threads} threads at most, peak address space {peak_vm_kib} KiB"
    );
    assert!(peak <= 16, "{peak} requests in flight at once");
    assert!(
        peak >= 8,
        "the reads did not overlap ({peak}): the test measures nothing"
    );
    assert!(threads < 64, "{threads} threads");
    let pods: Vec<String> = bed
        .requests()
        .into_iter()
        .filter(|r| r.contains("/pods?"))
        .collect();
    // The first round's two placement reads (ceph's mons and OSDs by their label, with
    // `limit`), then the second round's five not-rolled-out OSDs' own pods.
    let placement = pods.iter().filter(|r| r.contains("&limit=5000")).count();
    assert_eq!((placement, pods.len()), (2, 7), "{pods:#?}");
    let evidence = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        evidence.contains("; and 2495 more not inspected"),
        "stdout:\n{stdout}"
    );
    // nestor's own address space, which `ulimit -v` bounds: glibc's allocator used to give
    // each worker thread an arena of 64 MiB reserved (1 GiB for 17 threads, 14 MiB used),
    // and a run under 384 MiB aborted now and then ("memory allocation of 6 bytes failed").
    // Two arenas (pool::MALLOC_ARENAS) measured 160 MiB.
    assert!(
        peak_vm_kib < 256 << 10,
        "{peak_vm_kib} KiB of address space for a run"
    );
    // The same run under a tight address-space limit (2400 threads' stacks alone were more
    // than 1 GiB). Measured with two arenas (2 CPUs, debug build, 3 runs per limit): from
    // 256 MiB the run is whole every time; at 224 MiB and 192 MiB nestor still exits 0 but
    // its proxy (kubectl, a child under the same limit) dies: every layer undecided. Tested
    // at 384 MiB, 1.5x that.
    std::fs::remove_file(bed.audit_file()).expect("audit");
    let limit_mib = 384;
    let out = run_sampled(under_ulimit_v(&run.command(), limit_mib << 10));
    let said = format!(
        "under ulimit -v {limit_mib} MiB: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.code, out.stdout, out.stderr
    );
    assert_eq!(out.code, Some(0), "{said}");
    assert!(!out.stderr.contains("panicked"), "{said}");
    let evidence = out.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        evidence.contains("; and 2495 more not inspected") && !evidence.contains("undecided"),
        "{said}"
    );
    let peak = peak_in_flight(&bed.audit_file());
    eprintln!(
        "measured under ulimit -v {limit_mib} MiB: {peak} requests in flight at most, {} threads at most, peak RSS {} KiB, peak address space {} KiB",
        out.threads, out.peak_rss_kib, out.peak_vm_kib
    );
    assert!(peak <= 16, "{peak} requests in flight at once");
    assert!(out.threads < 64, "{} threads", out.threads);
}

/// `n` hosts `h000`... in the inventory's `all`, read by sshd-hardening, through a stub ssh
/// that logs when each call starts and ends (nanoseconds), waits 50 ms, then prints what
/// `sshd -T` would, or `bytes` bytes when `bytes` is set (a runaway remote command).
fn inventory_bed(n: usize, bytes: Option<u64>) -> (Bed, std::path::PathBuf) {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual_full());
    bed.write_stack(
        "dirqual",
        &PROD_DECLARED.replace("certs]", "certs, sshd-hardening]"),
    );
    let mut inventory = "all:\n  hosts:\n".to_string();
    for i in 0..n {
        inventory.push_str(&format!(
            "    h{i:03}:\n      ansible_host: 10.67.3.{}\n",
            i % 250 + 1
        ));
    }
    std::fs::create_dir_all(bed.repo.join("bootstrap")).expect("mkdir");
    std::fs::write(bed.repo.join("bootstrap/hosts.yaml"), inventory).expect("inventory");
    let log = bed.tmp.path().join("ssh-times.log");
    let print = match bytes {
        Some(b) => format!("head -c {b} /dev/zero | tr '\\0' a"),
        None => {
            "printf 'passwordauthentication no\\npermitrootlogin prohibit-password\\n'".to_string()
        }
    };
    bed.stub(
        "ssh",
        &format!(
            "echo \"$(date +%s%N) 1\" >> '{log}'\nsleep 0.05\n{print}\necho \"$(date +%s%N) -1\" >> '{log}'",
            log = log.display()
        ),
    );
    (bed, log)
}

/// The most calls the stub's log shows running at once.
fn peak_running(log: &Path) -> usize {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let mut edges: Vec<(u128, i64)> = text
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter_map(|(t, d)| Some((t.parse().ok()?, d.parse().ok()?)))
        .collect();
    edges.sort_by_key(|(t, d)| (*t, *d));
    let (mut now, mut peak) = (0i64, 0i64);
    for (_, d) in edges {
        now += d;
        peak = peak.max(now);
    }
    usize::try_from(peak).unwrap_or(0)
}

#[test]
fn hundreds_of_hosts_keep_8_ssh_in_flight_and_few_threads() {
    let (bed, log) = inventory_bed(300, None);
    let run = preview_run(&bed);
    let out = run_sampled(run.command());
    let peak = peak_running(&log);
    eprintln!(
        "measured: 300 hosts, {peak} ssh at once at most, {} threads, peak RSS {} KiB",
        out.threads, out.peak_rss_kib
    );
    assert_eq!(
        out.code,
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        out.stdout,
        out.stderr
    );
    let calls = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .count()
        / 2;
    assert_eq!(calls, 300, "one sshd -T per host");
    assert!(peak <= 8, "{peak} ssh at once");
    assert!(
        peak >= 4,
        "the ssh did not overlap ({peak}): the test measures nothing"
    );
    assert!(out.threads < 64, "{} threads", out.threads);
    assert!(
        out.stdout.contains("sshd-hardening"),
        "stdout:\n{}",
        out.stdout
    );
}

#[test]
fn huge_remote_outputs_are_cut_at_1_mib_while_read() {
    // Four hosts whose remote command prints 40 MB each: 700-850 MiB when each was buffered
    // to the process layer's 48 MiB cap before the 1 MiB check.
    let (bed, _) = inventory_bed(4, Some(40_000_000));
    let mut run = bed.cmd();
    run.args([
        "--no-input",
        "--no-color",
        "preview",
        "-o",
        "json",
        "--request-timeout=60s",
    ]);
    let out = run_sampled(run.command());
    eprintln!(
        "measured: 4 hosts printing 40 MB, peak RSS {} KiB",
        out.peak_rss_kib
    );
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "json: {e}\nstdout:\n{}\nstderr:\n{}",
            out.stdout, out.stderr
        )
    });
    let layer = doc["real"]["layers"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["id"] == "sshd-hardening"))
        .cloned()
        .unwrap_or_else(|| panic!("no sshd-hardening in {doc}"));
    assert_eq!(layer["state"], "unknown", "{layer}");
    let text = layer.to_string();
    assert!(
        text.contains(
            "the command printed more than the 1 MiB nestor reads: cut there while it was read"
        ),
        "{layer}"
    );
    assert!(
        out.peak_rss_kib < 64 * 1024,
        "peak RSS {} KiB",
        out.peak_rss_kib
    );
}

/// A tight address-space limit: a thread or process the OS refuses is a failure with a
/// `hint:` (exit 1), never a panic (`failed to spawn thread`, exit 101, as on main). Just
/// above the smallest limit the binary starts under, the reader thread of kubectl's `config
/// view` is refused (the `hint:` names the limits); from about 32 MiB the run usually
/// succeeds. Below that smallest limit nestor never reaches its own code (the loader fails
/// with exit 127, or the runtime's start-up faults before `main`), and where it lies moves with
/// the debug binary's size (it grows with every crate): the sweep starts at the smallest limit
/// under which `kubectl-nestor version` runs, measured first.
#[test]
fn a_tight_ulimit_is_never_a_panic() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &osds_mid_rollout(200));
    let mut version = bed.cmd();
    version.arg("version");
    let floor = (16u64..=64)
        .step_by(2)
        .find(|mib| {
            let out = run_sampled(under_ulimit_v(&version.command(), mib << 10));
            out.code == Some(0)
        })
        .expect("kubectl-nestor version runs under a 64 MiB address-space limit");
    let run = preview_run(&bed);
    let mut limits: Vec<u64> = vec![floor, floor + 2, floor + 4, floor + 8, 48, 64];
    limits.retain(|m| *m >= floor);
    limits.dedup();
    for mib in limits {
        let out = run_sampled(under_ulimit_v(&run.command(), mib << 10));
        let said = format!("ulimit -v {mib} MiB: exit {:?}\n{}", out.code, out.stderr);
        assert!(!out.stderr.contains("panicked"), "{said}");
        match out.code {
            Some(0) => {}
            Some(1) => assert!(
                out.stderr
                    .contains("\nhint: the system refused a thread or process"),
                "{said}"
            ),
            // The allocator itself out of address space (glibc's per-thread arenas reserve
            // 64 MiB each, so where this happens depends on thread timing): Rust aborts with
            // this line, which no program can turn into a hint. Never a panic, never exit 101
            // (main's `failed to spawn thread`): those still fail here.
            None if out.stderr.starts_with("memory allocation of ") => {}
            // The dynamic loader could not even map libc under this limit (the debug binary
            // grows with its crates): nestor never ran, so there is nothing of its to judge.
            Some(127) if out.stderr.contains("error while loading shared libraries") => {}
            _ => panic!("{said}"),
        }
    }
}
