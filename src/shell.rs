//! POSIX shell quoting: for argv shown to humans (`-v`, error messages), for the `export`
//! line of `stack env`, and for the one string ssh hands the remote shell.

/// An argv rendered for humans, quoted the way a POSIX shell would read it back.
pub(crate) fn words(args: &[String]) -> String {
    args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
}

/// Single-quote `s` for a POSIX shell unless it is plainly safe.
pub fn quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%+".contains(&b));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips_shell_rules() {
        assert_eq!(quote("/a/b.config"), "/a/b.config");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote(""), "''");
    }

    #[test]
    fn words_quote_each_argument() {
        assert_eq!(words(&["get".into(), "a b".into()]), "get 'a b'");
    }
}
