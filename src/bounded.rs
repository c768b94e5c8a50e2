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
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Ok(Err(too_big(path, what)));
    }
    Ok(check_depth(&bytes, path, what).map(|()| bytes))
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
        let mut quote: Option<u8> = None;
        let mut prev = b' ';
        for &b in content {
            match quote {
                Some(q) if b == q => quote = None,
                Some(_) => {}
                None => match b {
                    b'"' | b'\'' if matches!(prev, b' ' | b'[' | b'{' | b',' | b':') => {
                        quote = Some(b)
                    }
                    b'#' if prev == b' ' => break,
                    b'[' | b'{' => {
                        flow += 1;
                        deepest = deepest.max(indents.len() + flow);
                    }
                    b']' | b'}' => flow = flow.saturating_sub(1),
                    _ => {}
                },
            }
            prev = b;
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
