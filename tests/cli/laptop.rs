//! Issue 32, SPEC §18: the operator's laptop. The proxy's unix socket path within the
//! platform's `sun_path` limit whatever TMPDIR is; stack names compared exactly (a file
//! system that ignores case opens `Dirqual.yaml` for `dirqual`); `stack env --shell fish`.

use crate::support::*;

const ENDPOINT: &str = "https://10.67.2.11:6443";

/// A directory whose path is exactly `len` bytes, under the bed's temp dir.
fn dir_of_len(bed: &Bed, len: usize) -> std::path::PathBuf {
    let base = bed.tmp.path().to_path_buf();
    let pad = len - base.as_os_str().len() - 1;
    let dir = base.join("d".repeat(pad));
    std::fs::create_dir_all(&dir).expect("mkdir");
    assert_eq!(dir.as_os_str().len(), len);
    dir
}

/// The `--unix-socket=` of each `kubectl proxy` nestor started.
fn sockets(bed: &Bed) -> Vec<String> {
    bed.calls("kubectl")
        .iter()
        .flatten()
        .filter_map(|a| a.strip_prefix("--unix-socket=").map(String::from))
        .collect()
}

/// Regression (issue 32): a 77-byte TMPDIR made a 110-byte socket path, over Linux's limit
/// (`bind: invalid argument`); 120 bytes is over every platform's. Both read through a
/// socket under /tmp; a TMPDIR that fits is used as it is.
#[test]
fn a_long_tmpdir_still_reads_through_a_socket_within_the_limit() {
    for (len, under_tmpdir) in [(77, false), (120, false), (40, true)] {
        let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
        let tmpdir = dir_of_len(&bed, len);
        let out = bed
            .cmd()
            .args(["preview", "--no-input", "-o", "json"])
            .env("TMPDIR", &tmpdir)
            .run();
        out.code(0);
        let socks = sockets(&bed);
        assert!(!socks.is_empty(), "TMPDIR of {len} bytes: no proxy started");
        for s in &socks {
            let limit = if cfg!(target_os = "linux") { 107 } else { 103 };
            assert!(s.len() <= limit, "{s}: {} bytes", s.len());
            let base = if under_tmpdir {
                tmpdir.display().to_string()
            } else {
                "/tmp".to_string()
            };
            assert!(
                s.starts_with(&format!("{base}/kubectl-nestor-")) && s.ends_with("/proxy.sock"),
                "TMPDIR of {len} bytes: socket {s}"
            );
        }
    }
}
