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
