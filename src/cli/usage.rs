//! clap's usage errors in nestor's own two-line form (`kubectl-nestor: error: ...` /
//! `hint: ...`, exit 1; SPEC §8 and §16): clap's rendering is several lines (the error,
//! indented details, `tip:` lines, the usage line, "For more information"), which breaks
//! the one contract scripts and people read errors by. Pure: text in, `Error` out; and the
//! output format a command line asked for, read from its words when clap could not parse
//! them ([`format_asked`]), so that `-o json` gets its `Error` document for a usage error too.

use std::ffi::OsString;

use crate::error::Error;
use crate::output::render::Format;

/// The document format the words ask for, when clap refused them: the last `-o`/`--output`
/// before `--` whose value is `json` or `yaml` (`-o json`, `-ojson`, `-o=json`, `--output
/// json`, `--output=json`). Any other value (`-o xml`, `-o text`, `-o junit`, none) asks for
/// no document: the usage error is then the two stderr lines alone. The last occurrence
/// decides, so `-o json … -o xml` is no document (its last word asked for something else).
pub fn format_asked(args: &[OsString]) -> Option<Format> {
    let mut asked = None;
    let mut words = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(w) = words.next() {
        let value = match w.as_ref() {
            "--" => break,
            "-o" | "--output" => words.next().map(|v| v.into_owned()),
            w => w
                .strip_prefix("--output=")
                .or_else(|| w.strip_prefix("-o="))
                .or_else(|| w.strip_prefix("-o"))
                .map(String::from),
        };
        if let Some(v) = value {
            asked = match v.as_str() {
                "json" => Some(Format::Json),
                "yaml" => Some(Format::Yaml),
                _ => None,
            };
        }
    }
    asked
}

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
    // The command whose --help to read: the usage line up to its first placeholder or flag
    // (`wait --for <CONDITION>` is `wait`'s usage, not a command `wait --for`).
    let command = usage
        .map(|u| {
            u.split_whitespace()
                .take_while(|w| !w.starts_with(['[', '<', '-']))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| typed.to_string());
    // A gate given `--snapshot` (issue 51): clap's tip (`use '-- --snapshot'`) would pass it
    // as a NODE or VERSION. A gate judges the cluster as it is now, never a saved state.
    let gate_snapshot =
        command.starts_with("kubectl nestor gate") || command.starts_with("kubectl-nestor gate");
    if gate_snapshot && message.contains("'--snapshot'") {
        return Error::input(
            "a gate reads the cluster live: `--snapshot` replays a saved state for `preview` only, and a gate never answers from one",
            format!(
                "drop --snapshot and run the gate against the cluster; to try it without one, serve the gate fixture with the bundled replay server (`cargo run -p nestor-replay -- --generate dirqual-gates --port-file PORT`) and point a kubeconfig at it; `{command} --help` shows every flag"
            ),
        );
    }
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

    #[test]
    fn the_format_asked_is_the_last_valid_output_flag() {
        let asked = |words: &[&str]| {
            let mut args = vec![OsString::from("kubectl-nestor")];
            args.extend(words.iter().map(OsString::from));
            format_asked(&args)
        };
        assert_eq!(
            asked(&["preview", "-o", "json", "--bogus"]),
            Some(Format::Json)
        );
        assert_eq!(asked(&["--bogus", "--output=yaml"]), Some(Format::Yaml));
        assert_eq!(asked(&["wait", "-ojson"]), Some(Format::Json));
        assert_eq!(asked(&["wait", "-o=yaml"]), Some(Format::Yaml));
        assert_eq!(asked(&["--output", "json", "wait"]), Some(Format::Json));
        assert_eq!(asked(&["preview", "-o", "xml"]), None);
        assert_eq!(asked(&["preview", "-o", "json", "-o", "xml"]), None);
        assert_eq!(
            asked(&["preview", "-o", "text", "-o", "json"]),
            Some(Format::Json)
        );
        assert_eq!(asked(&["preview", "-o"]), None);
        assert_eq!(asked(&["preview", "--", "-o", "json"]), None);
        assert_eq!(asked(&["preview", "--bogus"]), None);
        assert_eq!(asked(&["-o", "junit", "--bogus"]), None);
    }

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
