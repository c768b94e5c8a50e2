//! Bounded input files (SPEC §9): topology, catalog, inventory and kubeconfig files are
//! hostile input. A file over [`MAX_BYTES`] or nested deeper than [`MAX_DEPTH`] levels is
//! refused with a clear error BEFORE any YAML parser sees it (a parser fed 400 KB of `[`
//! spends minutes; a huge file spends memory).

use std::path::Path;

use crate::error::{Error, Result};

/// The largest input file accepted: 1 MiB.
pub const MAX_BYTES: u64 = 1024 * 1024;
/// The deepest nesting accepted (flow brackets and block indentation levels together).
pub const MAX_DEPTH: usize = 64;

/// Read `path` (a `what` file: "kubeconfig", "topology", ...) if it is at most [`MAX_BYTES`]
/// and nested at most [`MAX_DEPTH`] levels, reading at most one byte more than the limit
/// whatever the file's size claims. The outer error is the I/O error (for the caller's own
/// message), the inner one the refusal.
pub fn read(path: &Path, what: &str) -> std::io::Result<std::result::Result<Vec<u8>, Error>> {
    let bytes = read_prefix(path, MAX_BYTES + 1)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Ok(Err(too_big(path, what)));
    }
    Ok(check_depth(&bytes, path, what).map(|()| bytes))
}

/// Open `path` for reading only if it is a regular file: opened non-blocking (a FIFO with
/// no writer would block `open` forever), then refused unless `fstat` of that very
/// descriptor says regular (a FIFO, a device such as `/dev/zero`, a directory, a socket).
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    let what = if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    };
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("{what}, not a regular file: refused before reading"),
    ))
}

/// At most `limit` bytes of the regular file `path` (see [`open_regular`]), whatever its
/// size claims.
pub fn read_prefix(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn too_big(path: &Path, what: &str) -> Error {
    Error::input(
        format!(
            "{what} {} is larger than {} KiB: refused before parsing",
            path.display(),
            MAX_BYTES / 1024
        ),
        format!("a {what} is a small hand-written file: check that the path names the right file"),
    )
}

/// Refuse `bytes` (already size-checked) when nested deeper than [`MAX_DEPTH`]: flow
/// collections (`[`, `{`) outside quotes and comments, plus block indentation levels. A
/// linear scan, so a pathological file is refused in microseconds.
pub fn check_depth(bytes: &[u8], path: &Path, what: &str) -> Result<()> {
    if bytes.len() as u64 > MAX_BYTES {
        return Err(too_big(path, what));
    }
    let depth = nesting(bytes);
    if depth > MAX_DEPTH {
        return Err(Error::input(
            format!(
                "{what} {} is nested deeper than {MAX_DEPTH} levels: refused before parsing",
                path.display()
            ),
            format!(
                "a {what} is a small hand-written file: check that the path names the right file"
            ),
        ));
    }
    Ok(())
}

/// The deepest nesting of `bytes`: flow depth plus the number of open block indentation
/// levels, approximated line by line (an over-estimate only for exotic files).
pub fn nesting(bytes: &[u8]) -> usize {
    let mut deepest = 0;
    let mut flow: usize = 0;
    // Indentation widths of the open block levels.
    let mut indents: Vec<usize> = Vec::new();
    for line in bytes.split(|b| *b == b'\n') {
        let indent = line.iter().take_while(|b| **b == b' ').count();
        let content = &line[indent..];
        let blank = content.is_empty() || content[0] == b'#' || content == b"\r";
        if flow == 0 && !blank {
            while indents.last().is_some_and(|w| *w >= indent) {
                indents.pop();
            }
            indents.push(indent);
            // A `- ` sequence item opens one more level for what follows on its line.
            let dashes = content
                .chunks(2)
                .take_while(|c| c == b"- " || c == b"-")
                .count();
            deepest = deepest.max(indents.len() + dashes);
        }
        // A quote opens a quoted scalar only where a scalar starts (line start, after
        // `[ { , : - ?`): inside a plain scalar (`[a ', [[[`) it is an ordinary character,
        // so the brackets after it count. A quote never spans lines here (an over-estimate
        // only: a multi-line quoted scalar's brackets are counted).
        let mut quote: Option<u8> = None;
        let mut prev = b' ';
        let mut last_sig: Option<u8> = None;
        let mut i = 0;
        while i < content.len() {
            let b = content[i];
            match quote {
                Some(b'\'') if b == b'\'' && content.get(i + 1) == Some(&b'\'') => i += 1,
                Some(b'"') if b == b'\\' => i += 1,
                Some(q) if b == q => quote = None,
                Some(_) => {}
                None => match b {
                    b'"' | b'\''
                        if last_sig.is_none_or(|c| b"[{,:-?".contains(&c))
                            && matches!(prev, b' ' | b'\t' | b'[' | b'{' | b',' | b':') =>
                    {
                        quote = Some(b)
                    }
                    b'#' if matches!(prev, b' ' | b'\t') => break,
                    b'[' | b'{' => {
                        flow += 1;
                        deepest = deepest.max(indents.len() + flow);
                    }
                    b']' | b'}' => flow = flow.saturating_sub(1),
                    _ => {}
                },
            }
            if !matches!(b, b' ' | b'\t') {
                last_sig = Some(b);
            }
            prev = b;
            i += 1;
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_files_are_shallow() {
        let k = b"apiVersion: v1\nclusters:\n- cluster:\n    server: https://x:6443\n  name: a\nusers:\n- name: a\n  user: {token: \"[[[[\"}\n";
        assert!(nesting(k) < 8, "{}", nesting(k));
        assert!(nesting(b"a: [1, [2, [3]]]\n") <= 4);
    }

    #[test]
    fn deep_files_are_refused_fast() {
        let deep = vec![b'['; 400 * 1024];
        let started = std::time::Instant::now();
        let e = check_depth(&deep, Path::new("/k"), "kubeconfig").expect_err("refused");
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        assert_eq!(
            e.message,
            "kubeconfig /k is nested deeper than 64 levels: refused before parsing"
        );
        let mut block = String::new();
        for i in 0..70 {
            block.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
        }
        assert!(check_depth(block.as_bytes(), Path::new("/t"), "topology").is_err());
        let big = vec![b'a'; 2 * 1024 * 1024];
        let e = check_depth(&big, Path::new("/t"), "topology").expect_err("refused");
        assert!(e.message.contains("larger than 1024 KiB"), "{}", e.message);
    }

    /// A quote inside a plain scalar does not open a quoted scalar: the brackets after it
    /// are real flow collections (issue 21: 300 levels passed, 300 000 spent minutes).
    #[test]
    fn a_quote_in_a_plain_scalar_does_not_hide_brackets() {
        let deep = format!("extension: [a ', {}{}]\n", "[".repeat(300), "]".repeat(300));
        assert!(
            nesting(deep.as_bytes()) > MAX_DEPTH,
            "{}",
            nesting(deep.as_bytes())
        );
        let deep = format!("x: [\"a\\\\\", {}]\n", "[".repeat(100));
        assert!(nesting(deep.as_bytes()) > MAX_DEPTH);
        let deep = format!("x: ['it''s', {}]\n", "[".repeat(100));
        assert!(nesting(deep.as_bytes()) > MAX_DEPTH);
        let huge = format!("extension: [a ', {}]\n", "[".repeat(300_000));
        let started = std::time::Instant::now();
        assert!(check_depth(huge.as_bytes(), Path::new("/k"), "kubeconfig").is_err());
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        // Quoted brackets are still not counted.
        assert!(
            nesting(b"a: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['\n")
                < 4
        );
        assert!(
            nesting(b"a: [\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"]\n")
                < 4
        );
        assert!(
            nesting(b"- 'x [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['\n")
                < 4
        );
    }

    /// Devices and directories are refused without reading (FIFOs: tests/cli/bounded.rs).
    #[test]
    fn devices_are_refused_in_bounded_time() {
        let d = tempfile::tempdir().expect("tempdir");
        let started = std::time::Instant::now();
        for p in [Path::new("/dev/zero"), Path::new("/dev/null"), d.path()] {
            let e = read(p, "kubeconfig").expect_err("refused");
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn big_files_are_not_read_whole() {
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("big");
        std::fs::write(&p, vec![b'a'; 3 * 1024 * 1024]).expect("write");
        let r = read(&p, "inventory").expect("io");
        assert!(r.is_err());
        std::fs::write(&p, b"all: {}\n").expect("write");
        assert_eq!(
            read(&p, "inventory").expect("io").ok(),
            Some(b"all: {}\n".to_vec())
        );
    }
}
