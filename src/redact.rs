//! Secrets never reach the terminal: `-v` argv lines, notices, errors and any child output
//! quoted in one go through here first. It covers what kubectl really prints: YAML/JSON
//! credential keys, bearer tokens, PEM blocks, base64 blobs, Go `%v` dumps of kubeconfig
//! entries (kubectl's "duplicate name ... in list: [{...}]" error prints every user entry:
//! tokens in clear, client keys as decimal byte arrays) and decimal byte arrays anywhere.

const SECRET_FLAGS: &[&str] = &[
    "--token",
    "--password",
    "--username",
    "--client-key",
    "--client-certificate",
];
const SECRET_KEYS: &[&str] = &[
    "client-key-data",
    "client-certificate-data",
    "certificate-authority-data",
    "token",
    "password",
    "id-token",
    "refresh-token",
    "access-token",
];
pub const REDACTED: &str = "<redacted>";

/// The argv with secret flag values replaced.
pub fn argv(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut hide_next = false;
    for a in args {
        if hide_next {
            out.push(REDACTED.to_string());
            hide_next = false;
            continue;
        }
        let mut replaced = None;
        for f in SECRET_FLAGS {
            if a == f {
                hide_next = true;
            } else if a.starts_with(&format!("{f}=")) {
                replaced = Some(format!("{f}={REDACTED}"));
            }
        }
        out.push(replaced.unwrap_or_else(|| text(a)));
    }
    out
}

/// Free text (a child's stderr, a kubeconfig excerpt) with credential values replaced:
/// `key: value` / `"key": "value"` for known secret keys, bearer tokens, PEM blocks.
pub fn text(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut in_pem = false;
    for (i, line) in input.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if line.contains("-----BEGIN") {
            in_pem = !line.contains("-----END");
            out.push_str(REDACTED);
            continue;
        }
        if in_pem {
            in_pem = !line.contains("-----END");
            continue;
        }
        out.push_str(&redact_line(line));
    }
    out
}

/// `scheme://user:pass@host` → `scheme://<redacted>@host`, for every URL in `text`: a
/// server's or a proxy's userinfo is a live credential (kubectl sends it).
pub fn url_userinfo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| c.is_whitespace() || "/?#\"'<>`,;)]}".contains(c))
            .unwrap_or(tail.len());
        match tail[..end].rfind('@') {
            Some(at) => {
                out.push_str(REDACTED);
                out.push_str(&tail[at..end]);
            }
            None => out.push_str(&tail[..end]),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// One URL with its userinfo redacted (see [`url_userinfo`]).
pub fn redact_url(url: &str) -> String {
    url_userinfo(url)
}

fn redact_line(line: &str) -> String {
    let mut line = go_dump(&url_userinfo(line));
    let lower = line.to_ascii_lowercase();
    if let Some(i) = lower.find("bearer ") {
        let end = line[i + 7..]
            .find(|c: char| c.is_whitespace() || c == '"' || c == '\'')
            .map(|e| i + 7 + e)
            .unwrap_or(line.len());
        line.replace_range(i + 7..end, REDACTED);
    }
    for key in SECRET_KEYS {
        for pattern in [format!("{key}:"), format!("\"{key}\":"), format!("{key}=")] {
            let Some(pos) = line.find(&pattern) else {
                continue;
            };
            // Only a key: at the start of the line or of a flow entry, never a word of a
            // sentence ("asks for a password: ...").
            let before = line[..pos].trim_end();
            let key_position = before.is_empty()
                || before.ends_with(['{', ',', '-', '[', '"'])
                || (pattern.ends_with('=') && before.ends_with("--"));
            if !key_position {
                continue;
            }
            let start = pos + pattern.len();
            let value = line[start..].trim();
            if !value.is_empty() && value != REDACTED {
                line.replace_range(start.., &format!(" {REDACTED}"));
            }
        }
    }
    blobs(&line)
}

/// A Go `%v` dump of kubeconfig entries (`in list: [{name {...}}]`, or any `{...}` holding
/// `map[` or `<nil>`) is cut from its first brace: its fields carry no names to redact by.
fn go_dump(line: &str) -> String {
    if let Some(i) = line.find(" in list: ") {
        return format!("{} in list: {REDACTED}", &line[..i]);
    }
    if line.contains("map[") || line.contains("<nil>") {
        if let Some(i) = line.find('{') {
            return format!("{}{REDACTED}", &line[..i]);
        }
    }
    line.to_string()
}

/// Replace decimal byte arrays (`[77 65 82 ...]`, 8 numbers or more) and base64-like blobs
/// (40 characters or more of the base64 alphabet but `/`, with digits and both cases) by
/// [`REDACTED`].
fn blobs(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let close = after.find(']');
        let is_bytes = close.is_some_and(|c| {
            let inner = &after[..c];
            let words: Vec<&str> = inner.split(' ').collect();
            words.len() >= 8 && words.iter().all(|w| w.parse::<u8>().is_ok())
        });
        match close {
            Some(c) if is_bytes => {
                out.push_str(&rest[..open]);
                out.push('[');
                out.push_str(REDACTED);
                out.push(']');
                rest = &after[c + 1..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    // No `/` in the alphabet: paths split into short words and stay readable.
    let is_b64 = |c: char| c.is_ascii_alphanumeric() || "+=_-".contains(c);
    let mut result = String::with_capacity(out.len());
    let mut word = String::new();
    let flush = |word: &mut String, result: &mut String| {
        let long = word.len() >= 40
            && word.chars().any(|c| c.is_ascii_digit())
            && word.chars().any(|c| c.is_ascii_uppercase())
            && word.chars().any(|c| c.is_ascii_lowercase());
        if long {
            result.push_str(REDACTED);
        } else {
            result.push_str(word);
        }
        word.clear();
    };
    for c in out.chars() {
        if is_b64(c) {
            word.push(c);
        } else {
            flush(&mut word, &mut result);
            result.push(c);
        }
    }
    flush(&mut word, &mut result);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_userinfo_is_redacted() {
        assert_eq!(
            url_userinfo("--server=http://admin:PASS@127.0.0.1:6443/x and https://u@h"),
            "--server=http://<redacted>@127.0.0.1:6443/x and https://<redacted>@h"
        );
        assert_eq!(url_userinfo("see https://h:1/a@b"), "see https://h:1/a@b");
        assert!(!text("proxy-url: \"http://u:SECRETP@proxy:3128\"").contains("SECRETP"));
        assert!(!argv(&["--server=http://a:SECRETA@h".into()])[0].contains("SECRETA"));
    }

    #[test]
    fn flags_and_text_are_redacted() {
        let a: Vec<String> = [
            "--kubeconfig",
            "/k",
            "--token=abc",
            "--password",
            "pw",
            "get",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            argv(&a),
            [
                "--kubeconfig",
                "/k",
                "--token=<redacted>",
                "--password",
                "<redacted>",
                "get"
            ]
        );
        let t = "users:\n- name: a\n  user:\n    client-key-data: QUJD\n    token: s3cr3t\nAuthorization: Bearer eyJhbGc.x.y\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nserver: https://x";
        let r = text(t);
        for secret in ["QUJD", "s3cr3t", "eyJhbGc", "MIIE"] {
            assert!(!r.contains(secret), "{secret} leaked in {r}");
        }
        assert!(r.contains("server: https://x"));
        assert!(r.contains("name: a"));
    }

    #[test]
    fn what_kubectl_really_prints_is_redacted() {
        // kubectl 1.33 on a kubeconfig with two users named `u` (the real message).
        let dump = r#"Error: error loading config file "dup.kc": error converting *[]NamedAuthInfo into *map[string]*api.AuthInfo: duplicate name "u" in list: [{u { []  [77 65 82 75 69 82 45 75 69 89] MARKER-TOKEN-1    [] map[] bob MARKER-PW <nil> <nil> []}} {u { []  [] MARKER-TOKEN-2    [] map[]   <nil> 0xc000698180 []}}]"#;
        let r = text(dump);
        for secret in ["MARKER", "77 65 82"] {
            assert!(!r.contains(secret), "{secret} leaked in {r}");
        }
        assert!(r.contains("duplicate name \"u\""), "{r}");
        let r = text("got {LocationOfOrigin:/k Token:abc map[] <nil>}");
        assert!(!r.contains("abc"), "{r}");
        let r = text("key bytes [45 45 45 45 45 66 69 71 73 78] and blob LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo= end");
        assert!(!r.contains("45 45") && !r.contains("LS0tLS1"), "{r}");
        assert!(
            r.starts_with("key bytes [<redacted>] and blob <redacted> end"),
            "{r}"
        );
        let r = text("--token=abc --password=pw");
        assert!(!r.contains("abc") && !r.contains("pw"), "{r}");
        // Sentences keep their words; short lists and paths stay.
        let sentence = "sudo on ops@h asks for a password: sudo: a terminal is required";
        assert_eq!(text(sentence), sentence);
        for keep in [
            "nodes [1 2 3] at /var/lib/kubelet/pki/kubelet-client-current.pem",
            "--cache-dir=/tmp/.tmpaXCpgd/sys-tmp/kubectl-nestor-1000/cache/discovery/127.0.0.1_46471",
            "deployment kube-prometheus-stack-operator-admission-webhook-1234567 ready",
        ] {
            assert_eq!(text(keep), keep);
        }
    }
}
