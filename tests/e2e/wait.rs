//! `wait` (SPEC §14) through the real kubectl against a replay server whose cluster changes
//! over time (`nestor_replay::timeline::rgw_rollout`: the RGW of the datalake becomes
//! available after a few polls, Ceph stays HEALTH_WARN for good), piped and under a
//! pseudo-terminal.

use std::io::Write;
use std::process::Stdio;

use nestor_replay::{timeline, Config};

use crate::bed_or_skip;
use snapbox::str;

use crate::harness::text_snap;
use crate::support::*;

/// A bed whose cluster's RGW comes up after `after` node reads (polls).
fn rollout(after: u64) -> Option<E2e> {
    let (before, later) = timeline::rgw_rollout();
    E2e::with_config(Config::new(before).then_after(after, later))
}

/// The `-v` trace lines saying a proxy began serving.
fn proxies_started(stderr: &str) -> usize {
    stderr
        .lines()
        .filter(|l| l.contains("proxy: serving after"))
        .count()
}

#[test]
fn wait_piped_prints_one_line_per_change_and_reaches_healthy() {
    let bed = bed_or_skip!(rollout(3));
    let out = bed.run(&[
        "-v",
        "wait",
        "--for=healthy",
        "datalake",
        "--interval",
        "200ms",
        "--timeout",
        "60s",
    ]);
    out.code(0);
    let changes: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with('[') && l.contains("s] datalake "))
        .collect();
    assert_eq!(changes.len(), 2, "one line per state change: {changes:?}");
    // Both change lines whole (their times as `#.#`): degraded while the RGW is
    // Progressing, then `datalake present (reached)`.
    text_snap(
        &changes.join("\n"),
        str![[r#"
[    #.#s] datalake degraded: CephObjectStore rook-ceph/s3 .status.phase = Progressing (want Ready); Deployment rook-ceph/rook-ceph-rgw-s3-a: rollout in progress: 0/2 updated available
[    #.#s] datalake present (reached): detected and healthy
"#]],
    );
    assert!(
        out.stdout
            .starts_with("reached: every layer healthy after "),
        "{}",
        out.stdout
    );
    out.stdout_has("datalake  present  reached");
    // One proxy for the whole wait; the target is confirmed (by endpoint) once, before any
    // read; every poll read the nodes once.
    assert_eq!(proxies_started(&out.stderr), 1, "{}", out.stderr);
    let polls = bed.requests_to("/api/v1/nodes").len();
    // The stage moves once 3 node reads were answered: the other reads of the 3rd poll run
    // beside its node read and may already see the RGW up.
    assert!(polls >= 3, "the RGW came up after 3 node reads: {polls}");
    // How many polls it took depends on when the 3rd poll's other reads ran: `[..]` in the
    // snapshot, and the count the audit gives checked on its own.
    assert!(
        out.stdout.contains(&format!("({polls} polls)")),
        "{}",
        out.stdout
    );
    out.stdout_snap(str![[r#"
reached: every layer healthy after #.#s ([..] polls)
  datalake  present  reached  CephObjectStore rook-ceph/s3 exists; StorageClass ceph-bucket (rook-ceph.ceph.rook.io/bucket); CephObjectStore rook-ceph/s3 .status.phase = Ready; Deployment rook-ceph/rook-ceph-rgw-s3-a rolled out (2/2 available); 1/1 ObjectBucketClaim .status.phase = Bound

"#]]);
}

#[test]
fn wait_times_out_with_exit_5_and_the_evidence_of_what_is_not_there() {
    // The text and the document each on a bed of their own, at once: each waits out its
    // timeout.
    let (bed, for_json) = at_once(|| rollout(2), || rollout(2));
    let (bed, for_json) = (bed_or_skip!(bed), bed_or_skip!(for_json));
    let (out, json) = at_once(
        || {
            bed.run(&[
                "wait",
                "--for=healthy",
                "datalake",
                "ceph",
                "--interval",
                "300ms",
                "--timeout",
                "3s",
            ])
        },
        || {
            for_json.run(&[
                "wait",
                "--for=healthy",
                "ceph",
                "--interval",
                "300ms",
                "--timeout",
                "1s",
                "-o",
                "json",
            ])
        },
    );
    out.code(5);
    assert!(
        out.took.as_secs_f64() >= 3.0,
        "waited the whole timeout: {out:?}"
    );
    let error = out
        .stderr
        .lines()
        .find(|l| l.starts_with("kubectl-nestor: error: "))
        .unwrap_or_else(|| panic!("{}", out.stderr));
    // The whole error line: ceph degraded (its HEALTH_WARN), the datalake not named (it
    // came up). (The stderr before it holds the polls' times: a line, not the whole.)
    text_snap(error, str!["kubectl-nestor: error: timed out after 3s waiting for datalake, ceph to be healthy: ceph degraded (CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: MON_DISK_LOW (mon a is low on available space) not on the benign list (RECENT_MGR_MODULE_CRASH))"]);
    assert!(out
        .stderr
        .lines()
        .last()
        .is_some_and(|l| l.starts_with("hint: ")));
    // The result on stdout: which layer reached, which did not, with its evidence.
    assert!(out.stdout.starts_with("timed out after "), "{}", out.stdout);
    out.stdout_has("datalake  present   reached");
    out.stdout_has("ceph      degraded  NOT reached");

    // The same as a document.
    json.code(5);
    let v = json.json();
    assert_eq!(v["kind"], "Wait");
    assert_eq!(v["reached"], false);
    assert_eq!(v["layers"][0]["id"], "ceph");
    assert_eq!(v["layers"][0]["state"], "degraded");
    assert_eq!(v["layers"][0]["reached"], false);
    // The whole reason: ceph's HEALTH_WARN.
    text_snap(v["layers"][0]["reason"].as_str().unwrap_or_default(), str!["CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: MON_DISK_LOW (mon a is low on available space) not on the benign list (RECENT_MGR_MODULE_CRASH)"]);
}

#[test]
fn present_counts_degraded_and_unknown_never_counts() {
    let bed = bed_or_skip!(E2e::new("degraded", &["GET /apis/postgresql.cnpg.io=403"]));
    // Degraded ceph is present (detected).
    let out = bed.run(&["wait", "--for=present", "ceph", "--timeout", "5s"]);
    out.code(0);
    assert_eq!(
        bed.requests_to("/api/v1/nodes").len(),
        1,
        "reached at the first poll"
    );
    // A layer whose read is refused is unknown: never reached, even --for=present.
    let out = bed.run(&[
        "wait",
        "--for=present",
        "dataops",
        "--interval",
        "200ms",
        "--timeout",
        "1s",
    ]);
    out.code(5);
    out.stderr_snap(str![[r#"
[    #.#s] dataops unknown: read of clusters.postgresql.cnpg.io failed: Forbidden
kubectl-nestor: error: timed out after 1s waiting for dataops to be present: dataops unknown (read of clusters.postgresql.cnpg.io failed: Forbidden)
hint: the evidence above says what is not there yet; wait longer with --timeout, or repair it

"#]]);
}

#[test]
fn wait_refused_unreachable_and_unknown_layer_exit_codes() {
    let bed = bed_or_skip!(E2e::dirqual());
    let out = bed.run(&["wait", "--for=healthy", "ceph", "--timeout", "2s"]);
    out.code(0);
    // An unknown layer id: exit 1 with a suggestion, nothing read.
    bed.server.clear_audit();
    let out = bed.run(&["wait", "--for=healthy", "cephh"]);
    out.error(1, "unknown layer `cephh`");
    out.stderr_has("ceph");
    assert!(bed.server.audit().is_empty());
    // A host-level layer is not polled: exit 1, nothing read.
    let out = bed.run(&["wait", "--for=healthy", "etcd-backup"]);
    out.error(1, "layer `etcd-backup` is read on the hosts over ssh");
    assert!(bed.server.audit().is_empty());
    // Endpoint mismatch: exit 3 before any read.
    bed.write_stack("dirqual", &dirqual_topology("https://10.67.2.11:6443"));
    let out = bed.run(&["wait", "--for=healthy", "ceph", "--timeout", "2s"]);
    out.error(3, "target mismatch for stack dirqual");
    assert!(bed.server.audit().is_empty());
    // Unreachable at the first poll: exit 4, not a wait until the timeout.
    let closed = format!("http://127.0.0.1:{}", closed_port());
    bed.kubeconfig_for(&bed.kubeconfig, &closed);
    bed.write_stack("dirqual", &dirqual_topology(&closed));
    let out = bed.run(&["wait", "--for=healthy", "ceph", "--timeout", "30s"]);
    out.error(4, "unreachable");
    assert!(out.took.as_secs() < 20, "{out:?}");
}

/// `kubectl nestor ARGS` under a pseudo-terminal (util-linux `script`), `input` typed in.
fn pty(bed: &E2e, args: &[&str], input: &str) -> (Option<i32>, String) {
    pty_sized(bed, args, input, None)
}

/// [`pty`] on a terminal of `cols` columns, `COLUMNS` set to a lie: only the terminal's own
/// size can explain the width of what is drawn.
fn pty_sized(bed: &E2e, args: &[&str], input: &str, cols: Option<usize>) -> (Option<i32>, String) {
    // Spawned, not `Run::run`: stdin is kept open a moment after the input (below).
    let mut run = bed.command(args);
    match cols {
        Some(c) => run.pty_cols(c).env("COLUMNS", "200"),
        None => run.pty().env("COLUMNS", "100"),
    };
    let mut child = run
        .command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script runs");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
        // Kept open a moment: script ends the session at EOF of its input.
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    let out = child.wait_with_output().expect("script ends");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn wait_on_a_terminal_redraws_one_live_line_per_layer_and_confirms_once() {
    let bed = bed_or_skip!(rollout(3));
    let (code, screen) = pty(
        &bed,
        &[
            "--no-color",
            "wait",
            "--for=healthy",
            "datalake",
            "ceph",
            "--interval",
            "200ms",
            "--timeout",
            "3s",
        ],
        "y\n",
    );
    assert_eq!(code, Some(5), "{screen}");
    assert_eq!(
        screen.matches("Is this the stack dirqual?").count(),
        1,
        "one confirmation for the whole wait: {screen}"
    );
    // Two live lines redrawn in place: the cursor goes up two lines before each redraw.
    let redraws = screen.matches("\u{1b}[2A").count();
    assert!(redraws >= 3, "{redraws} redraws in {screen:?}");
    let lines: Vec<&str> = screen.split("\u{1b}[2K").skip(1).collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("datalake") && l.contains("degraded")),
        "{screen:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("✓ datalake") && l.contains("present")),
        "{screen:?}"
    );
    assert!(
        lines
            .iter()
            .all(|l| l.lines().next().unwrap_or_default().chars().count() < 100),
        "lines cut to the terminal width: {screen:?}"
    );
    assert!(
        screen.contains("timed out after 3s waiting for datalake, ceph"),
        "{screen}"
    );
    // Piped, the same wait prints no cursor movement at all.
    let out = bed.run(&[
        "wait",
        "--for=healthy",
        "ceph",
        "--interval",
        "200ms",
        "--timeout",
        "1s",
    ]);
    out.code(5);
    out.stderr_snap(str![[r#"
[    #.#s] ceph degraded: CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: MON_DISK_LOW (mon a is low on available space) not on the benign list (RECENT_MGR_MODULE_CRASH)
kubectl-nestor: error: timed out after 1s waiting for ceph to be healthy: ceph degraded (CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: MON_DISK_LOW (mon a is low on available space) not on the benign list (RECENT_MGR_MODULE_CRASH))
hint: the evidence above says what is not there yet; wait longer with --timeout, or repair it

"#]]);
}

/// The live lines fit the terminal's real width (bash does not export `COLUMNS`; here it
/// even lies): at 60 columns no drawn line reaches the last column, so a redraw never
/// leaves a stale wrapped line behind.
#[test]
fn wait_live_lines_fit_the_terminal_s_own_width() {
    let bed = bed_or_skip!(rollout(3));
    let (code, screen) = pty_sized(
        &bed,
        &[
            "--no-color",
            "wait",
            "--for=healthy",
            "datalake",
            "ceph",
            "--interval",
            "200ms",
            "--timeout",
            "2s",
        ],
        "y\n",
        Some(60),
    );
    assert_eq!(code, Some(5), "{screen}");
    let lines: Vec<&str> = screen
        .split("\u{1b}[2K")
        .skip(1)
        .map(|l| l.lines().next().unwrap_or_default())
        .collect();
    assert!(lines.len() >= 2, "{screen:?}");
    for l in &lines {
        assert!(l.chars().count() < 60, "wider than the terminal: {l:?}");
    }
    assert!(
        lines.iter().any(|l| l.ends_with('…')),
        "a long reason is cut at 60 columns: {lines:?}"
    );
}

/// Issue 21: a signal left `TMPDIR/kubectl-nestor-*` with its socket and stderr file. Under
/// SIGINT (Ctrl-C), SIGTERM and SIGHUP while `wait` keeps its proxy, nestor dies of the
/// signal, the proxy process is gone and so is its directory (the shared cache directory
/// `kubectl-nestor-<uid>` aside).
#[test]
fn a_signal_during_wait_leaves_no_socket_directory() {
    use std::time::{Duration, Instant};
    for signal in ["INT", "TERM", "HUP"] {
        let bed = bed_or_skip!(rollout(1_000));
        let tmpdir = bed.tmp.path().join(format!("tmp-{signal}"));
        std::fs::create_dir_all(&tmpdir).expect("mkdir");
        let mut c = bed.command(&[
            "wait",
            "--for=healthy",
            "datalake",
            "--interval",
            "300ms",
            "--timeout",
            "60s",
        ]);
        c.env("TMPDIR", &tmpdir).default_signals();
        let mut nestor = c
            .command()
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let sockets = |dir: &std::path::Path| -> Vec<std::path::PathBuf> {
            std::fs::read_dir(dir)
                .map(|d| {
                    d.flatten()
                        .map(|e| e.path())
                        .filter(|p| {
                            p.file_name()
                                .and_then(|n| n.to_str())
                                .is_some_and(|n| n.starts_with("kubectl-nestor-"))
                                && p.join("proxy.stderr").exists()
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        let dirs = loop {
            let found = sockets(&tmpdir);
            if found.iter().any(|d| d.join("proxy.sock").exists()) {
                break found;
            }
            if let Ok(Some(status)) = nestor.try_wait() {
                panic!("{signal}: nestor ended ({status:?}) before its proxy served");
            }
            assert!(
                Instant::now() < deadline,
                "{signal}: no proxy socket appeared"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        // The proxy (its socket path names this TMPDIR) is running: the check below is real.
        let marker = tmpdir.display().to_string();
        let proxy: Vec<_> = crate::readpath::processes()
            .into_iter()
            .filter(|p| p.cmdline.contains(&marker) && p.pid != nestor.id())
            .collect();
        assert!(
            !proxy.is_empty(),
            "{signal}: no proxy process names {marker}"
        );
        crate::common_signals::signal_and_reap(&mut nestor, signal);
        for d in &dirs {
            assert!(!d.exists(), "{signal}: {} was left behind", d.display());
        }
        // The proxy went with nestor.
        let alive = crate::readpath::wait_until_gone(|p| p.cmdline.contains(&marker));
        assert!(alive.is_empty(), "{signal}: still running: {alive:?}");
        let left: Vec<_> = std::fs::read_dir(&tmpdir)
            .map(|d| d.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
        let uid_dir = format!("kubectl-nestor-{}", rustix::process::getuid().as_raw());
        assert!(
            left.iter().all(|n| n.to_str() == Some(uid_dir.as_str())),
            "{signal}: left in TMPDIR: {left:?}"
        );
    }
}
