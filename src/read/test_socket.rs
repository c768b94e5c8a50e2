//! Test-only: a one-shot HTTP server on a unix socket, the peer of the `http` and `stream`
//! readers' unit tests (what `kubectl proxy` is in a run).

use std::io::{Read, Write};
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::time::Duration;

/// Accept one connection, read the request head up to its blank line and hand it to
/// `check`, answer `answer` in writes of `chunk` bytes `pause` apart (so the reader must
/// loop), then keep the connection open for `linger`. The socket lives in the returned dir.
pub fn serve(
    answer: Vec<u8>,
    chunk: usize,
    pause: Duration,
    linger: Duration,
    check: fn(&str),
) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s");
    let listener = UnixListener::bind(&socket).unwrap();
    std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut request = Vec::new();
        let mut byte = [0u8; 1];
        while !request.ends_with(b"\r\n\r\n") {
            if conn.read(&mut byte).unwrap_or(0) == 0 {
                return;
            }
            request.push(byte[0]);
        }
        check(&String::from_utf8_lossy(&request));
        for piece in answer.chunks(chunk.max(1)) {
            if conn.write_all(piece).is_err() {
                return;
            }
            std::thread::sleep(pause);
        }
        std::thread::sleep(linger);
    });
    (dir, socket)
}
