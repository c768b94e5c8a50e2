//! Signal handling seen from outside: a SIGTERM while a private write is in progress
//! removes its temporary file (`nestor::signals`). The child is this test binary again, so
//! the test lives here: only the process layer spawns in `src/`.

use std::os::unix::process::ExitStatusExt;

use crate::common_signals::rerun_this_test;

/// In a child process (this test binary again): a tracked temp file, then SIGTERM. The
/// child dies of the signal and the file is gone; an untracked one stays.
#[test]
fn a_signal_removes_the_temp_file_of_a_write_in_progress() {
    if let Some(path) = std::env::var_os("NESTOR_SIGNAL_CHILD") {
        let path = std::path::PathBuf::from(path);
        std::fs::write(&path, b"partial").expect("write");
        std::fs::write(path.with_extension("kept"), b"x").expect("write");
        let _slot = nestor::signals::track_temp(&path);
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &std::process::id().to_string()])
            .status();
        std::thread::sleep(std::time::Duration::from_secs(5));
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let temp = dir.path().join(".tmpSNAPSHOT");
    let status = rerun_this_test(
        "signals::a_signal_removes_the_temp_file_of_a_write_in_progress",
        "NESTOR_SIGNAL_CHILD",
        &temp,
    )
    .status()
    .expect("child runs");
    assert_eq!(status.signal(), Some(15), "{status:?}");
    assert!(!temp.exists(), "the temp file was left behind");
    assert!(
        temp.with_extension("kept").exists(),
        "the child did not run"
    );
}

/// The ssh of `kubeconfig fetch` (a one-shot child left in nestor's own process group, so
/// that it can still ask the terminal for a passphrase) goes with nestor when a signal ends
/// it: here a stub that would sleep 30 s, started with no signal blocked (it gets SIGTERM,
/// so that a real ssh restores the terminal). nestor dies of the signal itself.
#[test]
fn a_signal_takes_a_running_ssh_along() {
    use crate::support::*;
    use std::fs;
    use std::time::{Duration, Instant};
    for signal in ["TERM", "INT", "HUP"] {
        let bed = Bed::new();
        bed.write_stack("dirqual", PROD_DECLARED);
        bed.select("dirqual");
        fs::create_dir_all(bed.repo.join("bootstrap")).expect("mkdir");
        fs::write(
            bed.repo.join("bootstrap/hosts.yaml"),
            "all:\n  children:\n    control_plane:\n      hosts:\n        dirqual1:\n          ansible_host: 10.67.2.11\n",
        )
        .expect("inventory");
        // A copy of sleep under the bed's path: the running stub is recognisable by that path.
        let nap = bed.bin.join("nap");
        fs::copy("/bin/sleep", &nap).expect("copy sleep");
        let ready = bed.tmp.path().join("ssh.pid");
        bed.stub(
            "ssh",
            &format!(
                "echo $$ > '{}'; exec '{}' 30",
                ready.display(),
                nap.display()
            ),
        );
        // `Bed::cmd` as a std Command, to be spawned and signalled.
        let mut nestor = bed
            .cmd()
            .args(["kubeconfig", "fetch", "--no-input"])
            .default_signals()
            .command()
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        // Synchronised on the stub's start, not on a guess of how long that takes.
        let pid: u32 = loop {
            if let Some(pid) = fs::read_to_string(&ready)
                .ok()
                .and_then(|s| s.trim().parse().ok())
            {
                break pid;
            }
            if let Ok(Some(status)) = nestor.try_wait() {
                panic!("{signal}: nestor ended ({status:?}) before ssh started");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // The child starts with none of the three signals blocked (a mask held in nestor's
        // spawning thread would be inherited: Ctrl-C and `kill` would not reach it).
        let blocked = fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("SigBlk:").map(|v| v.trim().to_string()))
            })
            .and_then(|hex| u64::from_str_radix(&hex, 16).ok())
            .expect("SigBlk of the ssh child");
        let three = (1 << (1 - 1)) | (1 << (2 - 1)) | (1 << (15 - 1));
        assert_eq!(
            blocked & three,
            0,
            "{signal}: ssh started with SigBlk {blocked:#x}"
        );
        crate::common_signals::signal_and_reap(&mut nestor, signal);
        // Gone well before the 30 s it would sleep (a zombie is dead: only not yet reaped).
        let alive = |pid: u32| {
            fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| s.rsplit_once(')').map(|(_, rest)| rest.trim().to_string()))
                .is_some_and(|rest| !rest.starts_with('Z'))
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while alive(pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!alive(pid), "{signal}: the ssh child {pid} outlived nestor");
    }
}

/// Issue 31: the registry held 128 children and silently dropped the others (after SIGTERM
/// with 594 ssh running, 632 outlived nestor), and a steady stream of spawns kept a signal
/// waiting 18 s. In a child process (this test binary again): 600 tracked children, each a
/// process group of its own, and two threads that keep spawning and tracking more, as the
/// process layer does; then SIGTERM. The child dies of it within a second, and not one of
/// its children outlives it.
#[test]
fn a_signal_takes_hundreds_of_children_along_within_a_second() {
    use std::os::unix::process::CommandExt;
    use std::time::{Duration, Instant};
    const CHILDREN: usize = 600;
    let spawn = |pids: &std::sync::Mutex<Vec<u32>>| {
        let _held = nestor::signals::Held::new();
        let child = std::process::Command::new("sleep")
            .arg("60")
            .process_group(0)
            .stdin(std::process::Stdio::null())
            .spawn()
            .expect("sleep");
        pids.lock().expect("lock").push(child.id());
        let tracked = nestor::signals::Tracked::group(child.id());
        (child, tracked)
    };
    if let Some(file) = std::env::var_os("NESTOR_SIGNAL_CHILDREN") {
        let pids = std::sync::Mutex::new(Vec::new());
        let mut kept: Vec<_> = (0..CHILDREN).map(|_| spawn(&pids)).collect();
        let written = pids.lock().expect("lock").clone();
        let text: Vec<String> = written.iter().map(u32::to_string).collect();
        std::fs::write(std::path::Path::new(&file), text.join("\n")).expect("pids");
        // Keep spawning (and ending) children on two threads until the signal.
        let storm = std::sync::Arc::new(pids);
        for _ in 0..2 {
            let storm = storm.clone();
            std::thread::spawn(move || loop {
                let (mut c, t) = spawn(&storm);
                std::thread::sleep(Duration::from_millis(1));
                let _ = c.kill();
                let _ = c.wait();
                drop(t);
            });
        }
        kept.push(spawn(&storm));
        std::thread::sleep(Duration::from_secs(30));
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("pids");
    let mut child = rerun_this_test(
        "signals::a_signal_takes_hundreds_of_children_along_within_a_second",
        "NESTOR_SIGNAL_CHILDREN",
        &file,
    )
    .spawn()
    .expect("child runs");
    let deadline = Instant::now() + Duration::from_secs(60);
    let pids: Vec<u32> = loop {
        if let Some(p) = std::fs::read_to_string(&file)
            .ok()
            .filter(|s| !s.is_empty())
        {
            break p.lines().filter_map(|l| l.parse().ok()).collect();
        }
        assert!(Instant::now() < deadline, "the child never wrote its pids");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(pids.len(), CHILDREN);
    std::thread::sleep(Duration::from_millis(200));
    let sent = Instant::now();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("the child did not end within 30 s of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = sent.elapsed();
    assert_eq!(status.signal(), Some(15), "{status:?}");
    assert!(
        took < Duration::from_secs(1),
        "acted on SIGTERM after {took:?}"
    );
    // Gone (a zombie is dead: only not yet reaped by init).
    let alive = |pid: &u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rsplit_once(')').map(|(_, rest)| rest.trim().to_string()))
            .is_some_and(|rest| !rest.starts_with('Z'))
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while pids.iter().any(alive) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<&u32> = pids.iter().filter(|p| alive(p)).collect();
    for p in &left {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &p.to_string()])
            .status();
    }
    assert!(
        left.is_empty(),
        "{} of {CHILDREN} children outlived the signal",
        left.len()
    );
}

/// Issue 32: a SIGKILLed nestor (no handler runs) must leave no `kubectl proxy` behind, with
/// the operator's credentials, on any platform. Linux's parent-death signal is turned off for
/// the second run (`NESTOR_TEST_NO_PARENT_DEATH_SIGNAL`, as on macOS, which has none): the
/// watchdog alone takes the proxy along. The proxy here is the stub kubectl's
/// `nestor-replay --unix-socket`, found by its fixture path while `wait` polls.
#[test]
fn a_sigkill_during_wait_leaves_no_proxy_even_without_the_parent_death_signal() {
    use crate::support::*;
    use std::time::{Duration, Instant};
    for no_pdeathsig in [false, true] {
        let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
        let fixture = bed.tmp.path().join("cluster").join("fixture.json");
        let proxies = || -> Vec<u32> {
            let needle = fixture.display().to_string();
            std::fs::read_dir("/proc")
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
                .filter(|pid| {
                    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                    let stat =
                        std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                    let zombie = stat
                        .rsplit_once(')')
                        .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
                    !zombie && String::from_utf8_lossy(&cmdline).contains(&needle)
                })
                .collect()
        };
        let mut run = bed.cmd();
        run.args([
            "--no-input",
            "wait",
            "--for",
            "healthy",
            "datalake",
            "--timeout",
            "60s",
            "--interval",
            "1s",
        ]);
        if no_pdeathsig {
            run.env("NESTOR_TEST_NO_PARENT_DEATH_SIGNAL", "1");
        }
        let mut nestor = run
            .command()
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        // Synchronised on the proxy answering a poll, not on a guess.
        let deadline = Instant::now() + Duration::from_secs(30);
        while (proxies().is_empty() || bed.requests().is_empty()) && Instant::now() < deadline {
            if let Ok(Some(status)) = nestor.try_wait() {
                panic!("wait ended ({status:?}) before its proxy served");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let running = proxies();
        assert!(!running.is_empty(), "no proxy ever served the wait");
        nestor.kill().expect("SIGKILL");
        let _ = nestor.wait();
        let deadline = Instant::now() + Duration::from_secs(5);
        while !proxies().is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let left = proxies();
        for p in &left {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &p.to_string()])
                .status();
        }
        assert!(
            left.is_empty(),
            "parent-death signal off: {no_pdeathsig}: the proxy {left:?} outlived a SIGKILLed nestor"
        );
    }
}
