//! Output: human text (aligned, colour only on a terminal) and the versioned `nestor/v1`
//! documents as JSON or YAML. Every document is a serde struct so field names are code.

use std::io::Write;

use serde::Serialize;

use crate::error::{Error, Result};

/// The `apiVersion` of every document nestor prints or saves.
pub use crate::model::API_VERSION;

/// Output format: human text, the versioned document as JSON or YAML, or (`preview` only) a
/// JUnit XML report for CI systems.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Yaml,
    Junit,
}

/// The version of the nestor that printed a document: `nestorVersion` (SPEC §16).
pub const NESTOR_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A document as printed: its own fields, then `nestorVersion` and, for a document of an
/// observation, `observedAt` (RFC 3339) — at its top level, whatever its kind.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Stamped<'a, T: Serialize> {
    #[serde(flatten)]
    doc: &'a T,
    nestor_version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    observed_at: Option<&'a str>,
}

/// Everything a run writes on stdout goes through its one `Printer`, made once per run
/// (`cli::run`) and lent to the commands: whether nestor's own colours may reach the terminal,
/// and whether a document is already on stdout (a command that prints its document and then
/// fails, `stack list` over an invalid file, gets no second `Error` document after it). No
/// global flag: two printers in one process (a test, the fleet's stacks) never disagree.
#[derive(Debug, Clone)]
pub struct Printer {
    color: bool,
    printed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Printer {
    /// A run's printer before its context is known: no colour.
    pub fn plain() -> Printer {
        Printer {
            color: false,
            printed: Default::default(),
        }
    }

    /// The same run's printer, colours on or off (decided from the context's flags and
    /// stdout); what it prints still counts for the run.
    pub fn painted(&self, color: bool) -> Printer {
        Printer {
            color,
            printed: self.printed.clone(),
        }
    }

    /// Whether nestor's own SGR colours may reach stdout.
    pub fn color(&self) -> bool {
        self.color
    }

    /// A document is already on stdout.
    pub fn document_printed(&self) -> bool {
        self.printed.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Print a document as JSON or YAML on stdout, with `nestorVersion`.
    pub fn document<T: Serialize>(&self, format: Format, doc: &T) -> Result<()> {
        self.stamped(format, doc, None)
    }

    /// Print the document of an observation (read at `observed_at`, RFC 3339), with
    /// `nestorVersion` and `observedAt`.
    pub fn observed<T: Serialize>(&self, format: Format, doc: &T, observed_at: &str) -> Result<()> {
        self.stamped(format, doc, Some(observed_at))
    }

    /// Print a JUnit XML report on stdout (built by `output::junit`, which escapes every
    /// string).
    pub fn junit(&self, xml: &str) -> Result<()> {
        write_stdout(xml)
    }

    /// Text on stdout, made terminal-safe: only this printer's own colours pass.
    pub fn out(&self, text: &str) -> Result<()> {
        write_stdout(&crate::term::terminal_safe_painted(text, self.color))
    }

    fn stamped<T: Serialize>(
        &self,
        format: Format,
        doc: &T,
        observed_at: Option<&str>,
    ) -> Result<()> {
        self.printed
            .store(true, std::sync::atomic::Ordering::Relaxed);
        stamped(format, doc, observed_at)
    }
}

fn stamped<T: Serialize>(format: Format, doc: &T, observed_at: Option<&str>) -> Result<()> {
    let doc = &Stamped {
        doc,
        nestor_version: NESTOR_VERSION,
        observed_at,
    };
    let text = match format {
        Format::Json => serde_json::to_string_pretty(doc)
            .map(|s| {
                let mut s = crate::term::json_safe(&s);
                s.push('\n');
                s
            })
            .map_err(|e| Error::internal(format!("cannot encode JSON: {e}")))?,
        Format::Yaml => yaml_safe(doc)?,
        Format::Text => return Err(Error::internal("document() called for text output")),
        Format::Junit => {
            return Err(Error::input(
                "-o junit is a report of layers or gate rules: only `preview`, `preview --all` and the gates (`gate drain`, `gate upgrade`) print it",
                "use -o json or -o yaml for this command",
            ))
        }
    };
    write_stdout(&text)
}

/// `doc` as YAML. The YAML writer escapes control characters but leaves a bidi override raw
/// in a plain scalar (issue 49: a Broken VM's name reached the terminal as is); a document
/// that holds one is written in YAML's JSON form instead (JSON is YAML 1.2, and YAML 1.1
/// readers take pretty JSON too), every such character a `\uXXXX` escape: the same value for
/// every reader, nothing raw on a terminal.
fn yaml_safe<T: Serialize>(doc: &T) -> Result<String> {
    let yaml = yaml_serde::to_string(doc)
        .map_err(|e| Error::internal(format!("cannot encode YAML: {e}")))?;
    if !crate::term::has_unsafe(&yaml) {
        return Ok(yaml);
    }
    serde_json::to_string_pretty(doc)
        .map(|s| format!("{}\n", crate::term::json_safe(&s)))
        .map_err(|e| Error::internal(format!("cannot encode YAML: {e}")))
}

#[cfg(test)]
mod yaml_tests {
    #[test]
    fn yaml_keeps_every_value_and_no_raw_bidi() {
        let doc =
            serde_json::json!({"vms": [{"name": "bench\u{202e}1", "status": "Broken"}], "ok": "é"});
        let out = super::yaml_safe(&doc).unwrap_or_default();
        assert!(!crate::term::has_unsafe(&out), "{out}");
        let back: serde_json::Value = yaml_serde::from_str(&out).unwrap_or_default();
        assert_eq!(back, doc);
        // The control: a document without one is plain YAML, as before.
        let plain = serde_json::json!({"name": "bench1"});
        assert_eq!(
            super::yaml_safe(&plain).unwrap_or_default(),
            "name: bench1\n"
        );
    }
}

/// Terminal safety lives in the base layer (`crate::term`), used by `target` and `read`
/// too; output writes through it.
pub use crate::term::terminal_safe;

/// The longest word of cluster text printed whole: 320 characters, room for the longest
/// `namespace/name` Kubernetes admits (63 + 1 + 253, a DNS label and a DNS subdomain) and
/// a short suffix, so no real name is ever cut.
pub const MAX_WORD: usize = 320;

/// A cluster string as the text output prints it: [`crate::term::escape`]d, and each word
/// (run of non-spaces) capped at [`MAX_WORD`] characters of the escaped text, then `…`. An
/// object name no Kubernetes admits (a 100 KB one from a hostile server) is cut like a
/// message, not printed whole; condition messages are capped already, when they are read
/// (`model::observation::meta::words`).
pub fn escape(s: &str) -> String {
    s.split(' ')
        .map(|w| crate::term::escape_capped(w, MAX_WORD))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Write a document (JSON/YAML, whose encoders escape control characters) to stdout.
fn write_stdout(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::input(
            format!("cannot write output: {e}"),
            "check where stdout goes",
        )),
    }
}

/// A diagnostic line on stderr.
pub fn notice(text: &str) {
    let _ = writeln!(
        std::io::stderr(),
        "kubectl-nestor: {}",
        terminal_safe(&crate::redact::text(text))
    );
}

/// The `hint:` line under a warning on stderr, in the one form an error's takes (SPEC §8:
/// `hint:` at the start of its line).
pub fn hint(text: &str) {
    let _ = writeln!(
        std::io::stderr(),
        "hint: {}",
        terminal_safe(&crate::redact::text(text))
    );
}

/// A block of text on stderr, as is but terminal-safe (prompts and their context).
pub fn notice_raw(text: &str) {
    let _ = write!(std::io::stderr(), "{}", terminal_safe(text));
}

/// Rows of cells printed as aligned columns (two spaces apart, last column not padded).
pub fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| visible_len(s))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut text = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if c + 1 < row.len() {
                let pad = widths[c].saturating_sub(visible_len(cell)) + 2;
                line.push_str(&" ".repeat(pad));
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

/// Width of a cell in terminal columns, without ANSI colour sequences (the one width rule).
use crate::output::layout::visible_width as visible_len;

/// The nodes as an indented table: name, Ready, roles, InternalIP, kubelet version.
/// Empty when there are no nodes.
pub fn node_table(nodes: &[crate::model::observation::Node], paint: Paint) -> String {
    if nodes.is_empty() {
        return String::new();
    }
    let mut rows = vec![["  NAME", "READY", "ROLES", "INTERNAL-IP", "VERSION"]
        .map(String::from)
        .to_vec()];
    for n in nodes {
        rows.push(vec![
            format!("  {}", escape(&n.name)),
            if n.ready {
                paint.green("Ready")
            } else {
                paint.red("NotReady")
            },
            if n.roles.is_empty() {
                "<none>".to_string()
            } else {
                escape(&n.roles.join(","))
            },
            n.internal_ip.as_deref().map_or_else(|| "-".into(), escape),
            escape(&n.kubelet_version),
        ]);
    }
    table(&rows)
}

/// `dirqual1..4, 4/4 Ready` — the nodes seen, compactly (SPEC §5).
pub fn nodes_line(nodes: &[crate::model::observation::Node]) -> String {
    let ready = nodes.iter().filter(|n| n.ready).count();
    let names: Vec<String> = nodes.iter().map(|n| escape(&n.name)).collect();
    if names.is_empty() {
        return "no nodes registered".to_string();
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    format!("{}, {ready}/{} Ready", compact_names(&names), names.len())
}

/// `dirqual1, dirqual2, dirqual3` → `dirqual1..3` when the names are one prefix with
/// consecutive numbers; otherwise the names joined by commas.
pub fn compact_names(names: &[&str]) -> String {
    let split = |n: &str| {
        let digits = n.len() - n.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, number) = n.split_at(n.len() - digits);
        number
            .parse::<u64>()
            .ok()
            .map(|num| (prefix.to_string(), num))
    };
    let parsed: Option<Vec<(String, u64)>> = names.iter().map(|n| split(n)).collect();
    if let Some(parsed) = parsed.filter(|p| p.len() > 2) {
        let prefix = &parsed[0].0;
        let consecutive = parsed
            .windows(2)
            .all(|w| w[1].0 == *prefix && w[1].1 == w[0].1 + 1);
        if consecutive {
            return format!("{}..{}", names[0], parsed[parsed.len() - 1].1);
        }
    }
    names.join(", ")
}

/// ANSI styling, a no-op when colour is off.
#[derive(Debug, Clone, Copy)]
pub struct Paint {
    pub on: bool,
}

impl Paint {
    fn wrap(self, code: &str, s: &str) -> String {
        if self.on {
            format!("\u{1b}[{code}m{s}\u{1b}[0m")
        } else {
            s.to_string()
        }
    }
    pub fn bold(self, s: &str) -> String {
        self.wrap("1", s)
    }
    pub fn green(self, s: &str) -> String {
        self.wrap("32", s)
    }
    pub fn yellow(self, s: &str) -> String {
        self.wrap("33", s)
    }
    pub fn red(self, s: &str) -> String {
        self.wrap("31", s)
    }

    /// A layer state in the one palette of every command: present green, degraded and
    /// unknown yellow, absent red.
    pub fn state(self, state: crate::model::state::State) -> String {
        use crate::model::state::State;
        match state {
            State::Present => self.green("present"),
            State::Degraded => self.yellow("degraded"),
            State::Absent => self.red("absent"),
            State::Unknown => self.yellow("unknown"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_ignoring_colour() {
        let p = Paint { on: true };
        let rows = vec![
            vec!["a".to_string(), p.green("ok"), "x".into()],
            vec!["longer".to_string(), "no".into(), "y".into()],
        ];
        let t = table(&rows);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[1], "longer  no  y");
        assert!(lines[0].starts_with("a       "));
    }

    /// Issue 31: a 100 KB object name was printed whole. Words are capped at the longest
    /// name Kubernetes admits, counted after escaping, never inside an escape.
    #[test]
    fn a_word_longer_than_any_kubernetes_name_is_capped() {
        let real = format!("{}/{}", "n".repeat(63), "a".repeat(253));
        assert_eq!(
            escape(&format!("Pod {real} not Ready")),
            format!("Pod {real} not Ready")
        );
        let huge = "n".repeat(100 * 1024);
        assert_eq!(
            escape(&format!("Pod ns/{huge} not Ready")),
            format!("Pod ns/{}… not Ready", "n".repeat(MAX_WORD - 3))
        );
        let escapes = "\u{1b}".repeat(300);
        assert_eq!(
            escape(&escapes),
            format!("{}…", "\\x1b".repeat(MAX_WORD / 4))
        );
        assert_eq!(escape("a\u{1b}b"), "a\\x1bb");
    }

    #[test]
    fn node_names_are_compacted_only_when_consecutive() {
        assert_eq!(
            compact_names(&["dirqual1", "dirqual2", "dirqual3", "dirqual4"]),
            "dirqual1..4"
        );
        assert_eq!(compact_names(&["n1", "n3", "n4"]), "n1, n3, n4");
        assert_eq!(compact_names(&["a", "b", "c"]), "a, b, c");
        assert_eq!(compact_names(&["n1", "n2"]), "n1, n2");
    }
}
