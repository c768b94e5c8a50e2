//! Measuring a run from outside (SPEC §9 "Bounded per run", issue 31), shared by tests/cli
//! and tests/e2e: requests in flight from the replay server's audit (arrival and answer
//! times), threads, peak RSS and peak address space by sampling `/proc/PID/status` while the
//! run goes on, and a run under `ulimit -v`. Included by the test binaries with `#[path]`.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The most intervals `(start, length)` open at one instant (half-open: one ending at t and
/// one starting at t do not overlap; a zero length counts as 1).
pub fn peak_overlap(intervals: impl IntoIterator<Item = (u64, u64)>) -> usize {
    let mut edges: Vec<(u64, i64)> = Vec::new();
    for (start, took) in intervals {
        edges.push((start, 1));
        edges.push((start + took.max(1), -1));
    }
    peak_of(edges)
}

/// The highest running sum of `edges` (`+1` a start, `-1` an end) in time order, an end
/// before a start at the same instant.
fn peak_of<T: Ord + Copy>(mut edges: Vec<(T, i64)>) -> usize {
    edges.sort_by_key(|(t, d)| (*t, *d));
    let (mut now, mut peak) = (0i64, 0i64);
    for (_, d) in edges {
        now += d;
        peak = peak.max(now);
    }
    usize::try_from(peak).unwrap_or(0)
}

/// The most requests an audit file (one JSON line per request, `unix_ms` and `duration_ms`)
/// shows in flight at one instant.
pub fn peak_in_flight(audit: &Path) -> usize {
    let text = std::fs::read_to_string(audit).unwrap_or_default();
    peak_overlap(text.lines().map(|line| {
        let e: serde_json::Value = serde_json::from_str(line).expect("an audit line");
        let start = e["unix_ms"].as_u64().expect("unix_ms");
        let took = e["duration_ms"].as_u64().expect("duration_ms");
        (start, took)
    }))
}

/// The most calls a log shows running at once: one line `NANOS 1` when a call starts and
/// `NANOS -1` when it ends (a stub's `date +%s%N`).
pub fn peak_running(log: &Path) -> usize {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let edges: Vec<(u128, i64)> = text
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter_map(|(t, d)| Some((t.parse().ok()?, d.parse().ok()?)))
        .collect();
    peak_of(edges)
}

/// dirqual, and `n` Deployments `rook-ceph-osd-NNNN` in rook-ceph, each mid-rollout (an
/// upgrade in progress: 1 of 3 replicas updated), with their own selector.
pub fn osds_mid_rollout(n: usize) -> nestor_replay::Fixture {
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
    fixture
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
