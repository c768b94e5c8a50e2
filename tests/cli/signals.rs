//! Signal handling seen from outside: a SIGTERM while a private write is in progress
//! removes its temporary file (`nestor::signals`). The child is this test binary again, so
//! the test lives here: only the process layer spawns in `src/`.

use std::os::unix::process::ExitStatusExt;

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
    let exe = std::env::current_exe().expect("exe");
    let status = std::process::Command::new(exe)
        .args([
            "--exact",
            "signals::a_signal_removes_the_temp_file_of_a_write_in_progress",
            "--test-threads=1",
        ])
        .env("NESTOR_SIGNAL_CHILD", &temp)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
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
