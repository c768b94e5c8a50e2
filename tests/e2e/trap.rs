//! The localhost:8080 trap: kubectl's own fallback server for a cluster without `server:`
//! (and a version dispatcher's fallback for its `/version` probe). A listener on
//! 127.0.0.1:8080 that records every connection made by a process of THIS test run — the
//! connecting process is found through /proc (its socket's inode) and kept only when this
//! test binary is among its ancestors, so that another program of the machine falling back
//! to localhost:8080 (another test suite, a developer's kubectl) is not blamed on nestor.
//! Every connection is answered 404 and closed.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex, OnceLock};

/// What reached the trap: one line per connection of ours.
pub struct Trap {
    pub hits: Mutex<Vec<String>>,
}

/// The trap on 127.0.0.1:8080, or `None` (with a message) when 8080 is taken by someone else.
pub fn trap() -> Option<&'static Trap> {
    static TRAP: OnceLock<Option<Arc<Trap>>> = OnceLock::new();
    TRAP.get_or_init(|| match TcpListener::bind("127.0.0.1:8080") {
        Ok(l) => Some(watch(l)),
        Err(e) => {
            eprintln!("NOTE: 127.0.0.1:8080 is taken ({e}): the localhost:8080 trap is off for this run (the KUBERNETES_MASTER decoy still runs)");
            None
        }
    })
    .as_deref()
}

/// Record the connections of this run's processes to `listener`, in a background thread.
pub fn watch(listener: TcpListener) -> Arc<Trap> {
    let trap = Arc::new(Trap {
        hits: Mutex::new(Vec::new()),
    });
    let recorder = Arc::clone(&trap);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let who = owner(&stream);
            let line = first_line(&stream);
            if let Some(who) = who {
                recorder
                    .hits
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(format!("{line} from {who}"));
            }
        }
    });
    trap
}

/// The trap is not blind: a child of this run that dials it is recorded, named.
#[test]
fn the_trap_names_a_process_of_this_run() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let trap = watch(listener);
    // The child keeps the connection open while the trap looks it up (a loaded machine may
    // take seconds to walk /proc), and is killed once it is named.
    let mut child = std::process::Command::new("/bin/bash")
        .args(["-c", &format!("exec 3<>/dev/tcp/127.0.0.1/{port}; printf 'GET /version HTTP/1.1\\r\\n\\r\\n' >&3; sleep 30")])
        .spawn()
        .expect("bash runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(25);
    let seen = loop {
        let hits = trap.hits.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(h) = hits.first() {
            break Some(h.clone());
        }
        if std::time::Instant::now() > deadline {
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let _ = child.kill();
    let _ = child.wait();
    let seen = seen.expect("the trap saw nothing");
    assert!(
        seen.starts_with("GET /version HTTP/1.1 from pid "),
        "{seen}"
    );
}

fn first_line(stream: &TcpStream) -> String {
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(2)));
    let mut line = String::new();
    let _ = BufReader::new(stream).read_line(&mut line);
    let mut w = stream;
    let _ =
        w.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    line.trim().to_string()
}

/// `pid cmdline` of the process that opened the connection, if it descends from this test
/// binary; `None` for anyone else's.
fn owner(stream: &TcpStream) -> Option<String> {
    let port = stream.peer_addr().ok()?.port();
    let ours = stream.local_addr().ok()?.port();
    // The kernel's table may lag the accept on a loaded machine: look a few times.
    let inode = (0..20).find_map(|_| {
        socket_inode(port, ours).or_else(|| {
            std::thread::sleep(std::time::Duration::from_millis(25));
            None
        })
    })?;
    let needle = format!("socket:[{inode}]");
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        let holds = fds
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l.to_string_lossy() == needle));
        if holds && descends_from_us(pid) {
            let cmdline = std::fs::read(entry.path().join("cmdline"))
                .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
                .unwrap_or_default();
            return Some(format!("pid {pid}: {}", cmdline.trim()));
        }
    }
    None
}

/// The inode of the client socket 127.0.0.1:`port` -> 127.0.0.1:`server` (/proc/net/tcp).
/// Both ends are matched and a socket without an inode (TIME_WAIT) is skipped: a busy machine
/// reuses ports quickly.
fn socket_inode(port: u16, server: u16) -> Option<String> {
    let table = std::fs::read_to_string("/proc/net/tcp").ok()?;
    let local = format!("0100007F:{port:04X}");
    let remote = format!("0100007F:{server:04X}");
    table.lines().skip(1).find_map(|l| {
        let cols: Vec<&str> = l.split_whitespace().collect();
        let inode = cols.get(9).copied().unwrap_or("0");
        (cols.get(1) == Some(&local.as_str())
            && cols.get(2) == Some(&remote.as_str())
            && inode != "0")
            .then(|| inode.to_string())
    })
}

fn descends_from_us(mut pid: u32) -> bool {
    let me = std::process::id();
    for _ in 0..64 {
        if pid == me {
            return true;
        }
        if pid <= 1 {
            return false;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        // `pid (comm) state ppid ...`: comm may hold spaces, so split after the last ')'.
        let Some(ppid) = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse().ok())
        else {
            return false;
        };
        pid = ppid;
    }
    false
}
