//! Shell quoting: POSIX for argv shown to humans (`-v`, error messages), for the `export`
//! line of `stack env`, and for the one string ssh hands the remote shell; fish for
//! `stack env --shell fish` (fish's single quotes escape `\\` and `\'`, POSIX's nothing).

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

/// The shells `stack env` writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    /// sh, bash, zsh, dash, ksh: `export NAME='value'`.
    Posix,
    /// fish: `set -gx NAME 'value'`.
    Fish,
}

/// The line that sets and exports `name` to `value` in `shell`, the value always quoted.
pub fn export_line(shell: Shell, name: &str, value: &str) -> String {
    match shell {
        Shell::Posix => format!("export {name}='{}'\n", value.replace('\'', "'\\''")),
        Shell::Fish => format!(
            "set -gx {name} '{}'\n",
            value.replace('\\', "\\\\").replace('\'', "\\'")
        ),
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

    #[test]
    fn export_lines_quote_for_their_shell() {
        let v = "/h/it's a \\dir/$x.config";
        assert_eq!(
            export_line(Shell::Posix, "KUBECONFIG", v),
            "export KUBECONFIG='/h/it'\\''s a \\dir/$x.config'\n"
        );
        assert_eq!(
            export_line(Shell::Fish, "KUBECONFIG", v),
            "set -gx KUBECONFIG '/h/it\\'s a \\\\dir/$x.config'\n"
        );
        assert_eq!(export_line(Shell::Posix, "K", "/a"), "export K='/a'\n");
    }
}
