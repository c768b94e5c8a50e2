//! Secrets never reach the terminal: `-v` argv lines and any child output quoted in an error
//! go through here first.

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

fn redact_line(line: &str) -> String {
    let mut line = line.to_string();
    let lower = line.to_ascii_lowercase();
    if let Some(i) = lower.find("bearer ") {
        let end = line[i + 7..]
            .find(|c: char| c.is_whitespace() || c == '"' || c == '\'')
            .map(|e| i + 7 + e)
            .unwrap_or(line.len());
        line.replace_range(i + 7..end, REDACTED);
    }
    for key in SECRET_KEYS {
        for pattern in [format!("{key}:"), format!("\"{key}\":")] {
            let Some(pos) = line.find(&pattern) else {
                continue;
            };
            // Only a whole key: the character before must not be part of a word.
            let before = line[..pos].chars().last();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                continue;
            }
            let start = pos + pattern.len();
            let value = line[start..].trim();
            if !value.is_empty() && value != REDACTED {
                line.replace_range(start.., &format!(" {REDACTED}"));
            }
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
