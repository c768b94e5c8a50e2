//! clap's usage errors in nestor's own two-line form (`kubectl-nestor: error: ...` /
//! `hint: ...`, exit 1; SPEC §8 and §16): clap's rendering is several lines (the error,
//! indented details, `tip:` lines, the usage line, "For more information"), which breaks
//! the one contract scripts and people read errors by. Pure: text in, `Error` out.

use crate::error::Error;

/// The usage error clap rendered (`rendered`, without styles) as one `Error`: clap's error
/// line and its details as the message; its tips, the usage line and the `--help` to run as
/// the hint. `typed` is the command as the user ran it, as far as its words name
/// subcommands (`kubectl nestor preview`), for the `--help` to suggest when clap printed no
/// usage line.
pub fn error(rendered: &str, typed: &str) -> Error {
    let mut message: Option<&str> = None;
    let (mut details, mut tips, mut usage) = (vec![], vec![], None);
    for line in rendered.lines().map(str::trim) {
        if line.is_empty() || line.starts_with("For more information") {
            continue;
        }
        if message.is_none() {
            message = Some(line.strip_prefix("error: ").unwrap_or(line));
        } else if let Some(tip) = line.strip_prefix("tip: ") {
            tips.push(tip);
        } else if let Some(u) = line.strip_prefix("Usage: ") {
            usage = Some(u);
        } else {
            details.push(line);
        }
    }
    let mut message = message.unwrap_or("invalid command line").to_string();
    if !details.is_empty() {
        let sep = if message.ends_with(':') { ", " } else { " " };
        message = format!("{message} {}", details.join(sep));
    }
    // The command whose --help to read: the usage line up to its first placeholder.
    let command = usage
        .map(|u| {
            u.split_whitespace()
                .take_while(|w| !w.starts_with(['[', '<']))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| typed.to_string());
    let mut hint: Vec<String> = tips.iter().map(|t| t.to_string()).collect();
    if let Some(u) = usage {
        hint.push(format!("usage: {u}"));
    }
    hint.push(format!(
        "`{command} --help` shows every flag, with examples"
    ));
    Error::input(message, hint.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    // clap 4.6's renderings, as `kubectl-nestor` prints them (styles stripped).
    #[test]
    fn an_unknown_flag_keeps_its_usage_line_in_the_hint() {
        let e = error(
            "error: unexpected argument '--bogus' found\n\n  tip: to pass '--bogus' as a value, use '-- --bogus'\n\nUsage: kubectl-nestor preview [OPTIONS]\n\nFor more information, try '--help'.\n",
            "kubectl-nestor",
        );
        assert_eq!(e.exit, crate::error::Exit::Error);
        assert_eq!(
            e.to_string(),
            "kubectl-nestor: error: unexpected argument '--bogus' found\nhint: to pass '--bogus' as a value, use '-- --bogus'; usage: kubectl-nestor preview [OPTIONS]; `kubectl-nestor preview --help` shows every flag, with examples"
        );
    }

    #[test]
    fn missing_arguments_are_listed_on_the_error_line() {
        let e = error(
            "error: the following required arguments were not provided:\n  <A>\n  <B>\n\nUsage: kubectl nestor diff <A> <B>\n\nFor more information, try '--help'.\n",
            "kubectl nestor",
        );
        assert_eq!(
            e.message,
            "the following required arguments were not provided: <A>, <B>"
        );
        assert_eq!(
            e.hint,
            "usage: kubectl nestor diff <A> <B>; `kubectl nestor diff --help` shows every flag, with examples"
        );
    }

    #[test]
    fn a_bad_value_without_a_usage_line_points_at_the_typed_commands_help() {
        let e = error(
            "error: invalid value 'xml' for '--output <OUTPUT>'\n  [possible values: text, json, yaml]\n\n  tip: a similar value exists: 'yaml'\n\nFor more information, try '--help'.\n",
            "kubectl-nestor version",
        );
        assert_eq!(
            e.message,
            "invalid value 'xml' for '--output <OUTPUT>' [possible values: text, json, yaml]"
        );
        assert_eq!(
            e.hint,
            "a similar value exists: 'yaml'; `kubectl-nestor version --help` shows every flag, with examples"
        );
    }

    #[test]
    fn an_empty_rendering_is_still_two_lines() {
        let e = error("", "kubectl-nestor");
        assert_eq!(
            e.to_string(),
            "kubectl-nestor: error: invalid command line\nhint: `kubectl-nestor --help` shows every flag, with examples"
        );
    }
}
