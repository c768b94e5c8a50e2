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

/// `cmd` run to its end while its `Threads:` are sampled every few ms: (exit code, stdout,
/// stderr, the most threads seen).
pub fn run_sampled(mut cmd: Command) -> (Option<i32>, String, String, usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut child = cmd
        .stdout(std::fs::File::create(&out).expect("out"))
        .stderr(std::fs::File::create(&err).expect("err"))
        .stdin(Stdio::null())
        .spawn()
        .expect("spawn");
    let status_file = format!("/proc/{}/status", child.id());
    let mut threads = 0;
    let deadline = Instant::now() + Duration::from_secs(240);
    let status = loop {
        if let Some(n) = std::fs::read_to_string(&status_file).ok().and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("Threads:")
                    .and_then(|v| v.trim().parse().ok())
            })
        }) {
            threads = threads.max(n);
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
    (status.code(), read(&out), read(&err), threads)
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

#[test]
fn thousands_of_workloads_mid_rollout_keep_16_reads_in_flight_and_few_threads() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &osds_mid_rollout(2500));
    let mut run = bed.cmd();
    run.args([
        "--no-input",
        "--no-color",
        "preview",
        "--request-timeout=60s",
    ]);
    let (code, stdout, stderr, threads) = run_sampled(run.command());
    assert_eq!(code, Some(0), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let peak = peak_in_flight(&bed.audit_file());
    eprintln!("measured: {peak} requests in flight at most, {threads} threads at most");
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
    assert_eq!(pods.len(), 5, "{pods:#?}");
    let evidence = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        evidence.contains("; and 2495 more not inspected"),
        "stdout:\n{stdout}"
    );
    // The same run under a 1 GiB address-space limit (2400 threads' stacks alone were more).
    std::fs::remove_file(bed.audit_file()).expect("audit");
    let (code, stdout, stderr, _) = run_sampled(under_ulimit_v(&run.command(), 1 << 20));
    assert_eq!(
        code,
        Some(0),
        "under ulimit -v 1 GiB:\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
}
