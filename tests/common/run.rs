//! The one way the integration tests (tests/cli, tests/e2e) run a program: a [`Run`] builder
//! (program, args, cwd, stdin, environment, optional pseudo-terminal) whose environment is
//! scrubbed in ONE place ([`scrub`]), returning an [`Outcome`] with exact expectations that
//! print a diff on failure, and [`golden`] for the byte-for-byte golden files (snapbox;
//! `SNAPSHOTS=overwrite` rewrites them). Included by both binaries with `#[path]`.

#![allow(dead_code)]

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

/// The prefixes and names of the variables a developer's shell (or CI) may hold that change
/// what nestor, kubectl, limactl or ssh do: removed from every child before the caller's own
/// variables are set. Everything else (LANG, TMPDIR, the Cloud SDK's own settings) is kept.
const SCRUBBED_PREFIXES: [&str; 4] = ["NESTOR_", "KUBE", "LIMA_", "SSH_"];
const SCRUBBED_NAMES: [&str; 5] = [
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "FORCE_COLOR",
    "COLUMNS",
];

/// Whether `name` is removed from a child's inherited environment.
pub fn scrubbed(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return true;
    };
    SCRUBBED_PREFIXES.iter().any(|p| name.starts_with(p)) || SCRUBBED_NAMES.contains(&name)
}

/// Remove from `c` every inherited variable that [`scrubbed`] names.
pub fn scrub(c: &mut Command) -> &mut Command {
    for (k, _) in std::env::vars_os() {
        if scrubbed(&k) {
            c.env_remove(k);
        }
    }
    c
}

/// The built plugin binary.
pub const NESTOR: &str = env!("CARGO_BIN_EXE_kubectl-nestor");

/// A program to run, built up by the test; [`Run::run`] runs it.
#[derive(Clone, Debug)]
pub struct Run {
    program: OsString,
    args: Vec<OsString>,
    envs: Vec<(OsString, Option<OsString>)>,
    clear_env: bool,
    cwd: Option<PathBuf>,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
    pty: bool,
    /// A whole `sh` command line run under the pty instead of `program args`.
    pty_line: Option<String>,
    arg0: Option<OsString>,
    default_signals: bool,
    /// What varies between runs (a temp dir, a port), replaced in the outputs that the
    /// snapshot expectations compare ([`Outcome::stdout_snap`]).
    redactions: Vec<(String, String)>,
}

impl Run {
    /// `program` with the scrubbed environment, stdin empty, a 120 s timeout.
    pub fn new(program: impl AsRef<OsStr>) -> Run {
        Run {
            program: program.as_ref().to_os_string(),
            args: vec![],
            envs: vec![],
            clear_env: false,
            cwd: None,
            stdin: None,
            timeout: Duration::from_secs(120),
            pty: false,
            pty_line: None,
            arg0: None,
            default_signals: false,
            redactions: vec![],
        }
    }

    /// Show `from` as `to` in what the snapshot expectations compare (the bed's temp dir as
    /// `/t`, a server's port as `PORT`); the raw `stdout`/`stderr` are kept as they were.
    pub fn redact(&mut self, from: impl Into<String>, to: impl Into<String>) -> &mut Run {
        let from = from.into();
        if !from.is_empty() {
            self.redactions.push((from, to.into()));
        }
        self
    }

    /// A whole `sh` command line run under a pseudo-terminal (see [`Run::pty`]).
    pub fn pty_shell(line: &str) -> Run {
        let mut r = Run::new("/bin/sh");
        r.pty = true;
        r.pty_line = Some(line.to_string());
        r
    }

    /// The built `kubectl-nestor`.
    pub fn nestor() -> Run {
        Run::new(NESTOR)
    }

    pub fn arg(&mut self, a: impl AsRef<OsStr>) -> &mut Run {
        self.args.push(a.as_ref().to_os_string());
        self
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    pub fn env(&mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) -> &mut Run {
        self.envs
            .push((k.as_ref().to_os_string(), Some(v.as_ref().to_os_string())));
        self
    }

    pub fn env_remove(&mut self, k: impl AsRef<OsStr>) -> &mut Run {
        self.envs.push((k.as_ref().to_os_string(), None));
        self
    }

    /// Start from an empty environment (only the variables set with [`Run::env`]).
    pub fn env_clear(&mut self) -> &mut Run {
        self.clear_env = true;
        self.envs.clear();
        self
    }

    pub fn current_dir(&mut self, d: impl AsRef<Path>) -> &mut Run {
        self.cwd = Some(d.as_ref().to_path_buf());
        self
    }

    /// What the program reads on stdin (default: nothing, end of file at once).
    pub fn stdin(&mut self, input: impl Into<Vec<u8>>) -> &mut Run {
        self.stdin = Some(input.into());
        self
    }

    /// Alias of [`Run::stdin`], the name assert_cmd uses.
    pub fn write_stdin(&mut self, input: impl Into<Vec<u8>>) -> &mut Run {
        self.stdin(input)
    }

    pub fn timeout(&mut self, t: Duration) -> &mut Run {
        self.timeout = t;
        self
    }

    /// Run under a pseudo-terminal (`script -qec`, util-linux): stdin IS a terminal, so
    /// nestor may prompt; the stdin given is typed into it (give every answer: end of input
    /// answers no). The output mixes stdout, stderr and the echo, with CRLF line ends.
    pub fn pty(&mut self) -> &mut Run {
        self.pty = true;
        self
    }

    /// Under a pseudo-terminal of `cols` columns (`stty` sets the size the terminal reports;
    /// `script` alone gives none), so that only the terminal's own width explains a layout.
    pub fn pty_cols(&mut self, cols: usize) -> &mut Run {
        let mut line = format!("stty cols {cols} rows 60 && exec ");
        line.push_str(&shell_quote(&self.program.to_string_lossy()));
        for a in &self.args {
            line.push(' ');
            line.push_str(&shell_quote(&a.to_string_lossy()));
        }
        self.pty = true;
        self.pty_line = Some(line);
        self
    }

    /// Start the child with SIGINT, SIGTERM and SIGHUP at their default action
    /// (`common_signals::with_default_signals`).
    pub fn default_signals(&mut self) -> &mut Run {
        self.default_signals = true;
        self
    }

    /// The program's `argv[0]` (default: the program's path).
    pub fn arg0(&mut self, a: impl AsRef<OsStr>) -> &mut Run {
        self.arg0 = Some(a.as_ref().to_os_string());
        self
    }

    /// The command line, for messages.
    pub fn argv(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The `std::process::Command` this run stands for (stdin not attached): for a test
    /// that must spawn and signal the child itself.
    pub fn command(&self) -> Command {
        let mut c = if self.pty {
            let script = Path::new("/usr/bin/script");
            assert!(
                script.exists(),
                "/usr/bin/script not found: install bsdutils (util-linux), the pty tests need it"
            );
            let line = self.pty_line.clone().unwrap_or_else(|| {
                let mut line = shell_quote(&self.program.to_string_lossy());
                for a in &self.args {
                    line.push(' ');
                    line.push_str(&shell_quote(&a.to_string_lossy()));
                }
                line
            });
            let mut c = Command::new(script);
            c.args([
                OsStr::new("-qec"),
                OsStr::new(&line),
                OsStr::new("/dev/null"),
            ]);
            c.env("SHELL", "/bin/sh");
            c
        } else {
            let mut c = Command::new(&self.program);
            c.args(&self.args);
            if let Some(a) = &self.arg0 {
                std::os::unix::process::CommandExt::arg0(&mut c, a);
            }
            c
        };
        if self.clear_env {
            c.env_clear();
        } else {
            scrub(&mut c);
        }
        for (k, v) in &self.envs {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        if let Some(d) = &self.cwd {
            c.current_dir(d);
        }
        if self.default_signals {
            crate::common_signals::with_default_signals(&mut c);
        }
        c
    }

    /// Run to the end (killed at the timeout) and return what it did.
    #[track_caller]
    pub fn run(&self) -> Outcome {
        self.try_run()
            .unwrap_or_else(|e| panic!("cannot run `{}`: {e}", self.argv()))
    }

    /// [`Run::run`], an error when the program cannot be started (not installed).
    pub fn try_run(&self) -> std::io::Result<Outcome> {
        let started = Instant::now();
        let from = unix_ms();
        let argv = self.argv();
        let mut cmd = assert_cmd::Command::from_std(self.command());
        cmd.timeout(self.timeout);
        // No input: a pipe closed at once (end of file), never the test runner's stdin.
        cmd.write_stdin(self.stdin.clone().unwrap_or_default());
        let out = cmd.output()?;
        Ok(Outcome {
            code: out.status.code(),
            status: out.status,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            stdout_bytes: out.stdout,
            stderr_bytes: out.stderr,
            took: started.elapsed(),
            started_ms: from,
            ended_ms: unix_ms(),
            argv,
            redactions: self.redactions.clone(),
            // Under a pty the terminal echoes what was typed, at a moment the child's output
            // does not fix: the snapshots leave those lines out.
            typed: match (&self.stdin, self.pty) {
                (Some(input), true) => String::from_utf8_lossy(input)
                    .lines()
                    .map(str::to_string)
                    .filter(|l| !l.is_empty())
                    .collect(),
                _ => vec![],
            },
        })
    }
}

/// `s` quoted for `sh` (single quotes).
fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%+".contains(&b))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

pub fn unix_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

/// What one run did. Every expectation returns `&Self` to chain, and panics with the whole
/// run (and a diff where one applies) when it does not hold.
pub struct Outcome {
    pub code: Option<i32>,
    pub status: ExitStatus,
    /// stdout, lossily decoded; the bytes are in `stdout_bytes`.
    pub stdout: String,
    pub stderr: String,
    pub stdout_bytes: Vec<u8>,
    pub stderr_bytes: Vec<u8>,
    pub took: Duration,
    pub started_ms: u128,
    pub ended_ms: u128,
    pub argv: String,
    /// [`Run::redact`]'s pairs, applied by the snapshot expectations.
    pub redactions: Vec<(String, String)>,
    /// The lines typed into a pty (its echo is left out of the snapshots).
    pub typed: Vec<String>,
}

impl std::fmt::Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` exited {:?} after {:?}\n--- stdout\n{}\n--- stderr\n{}\n---",
            self.argv, self.code, self.took, self.stdout, self.stderr
        )
    }
}

impl Outcome {
    /// This outcome with `from` replaced by `to` in stdout and stderr (a temp dir by `/t`, a
    /// port by `PORT`), so that an exact expectation can be written down.
    pub fn redacted(mut self, from: &str, to: &str) -> Outcome {
        if !from.is_empty() {
            self.stdout = self.stdout.replace(from, to);
            self.stderr = self.stderr.replace(from, to);
        }
        self
    }

    #[track_caller]
    pub fn code(&self, want: i32) -> &Self {
        assert_eq!(self.code, Some(want), "exit code\n{self:?}");
        self
    }

    #[track_caller]
    pub fn success(&self) -> &Self {
        self.code(0)
    }

    #[track_caller]
    pub fn failure(&self) -> &Self {
        assert!(
            !self.status.success(),
            "expected a failure, it succeeded\n{self:?}"
        );
        self
    }

    #[track_caller]
    pub fn stdout_eq(&self, want: &str) -> &Self {
        eq_with_diff("stdout", &self.stdout, want, self);
        self
    }

    #[track_caller]
    pub fn stderr_eq(&self, want: &str) -> &Self {
        eq_with_diff("stderr", &self.stderr, want, self);
        self
    }

    /// `text` with this run's redactions applied (the longest `from` first, so that a temp
    /// dir inside another redacted path is replaced whole).
    pub fn redact_text(&self, text: &str) -> String {
        let mut pairs: Vec<&(String, String)> = self.redactions.iter().collect();
        pairs.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        let text = pairs.iter().fold(text.to_string(), |t, (from, to)| {
            t.replace(from.as_str(), to)
        });
        stable(&without_echo(&text, &self.typed))
    }

    /// The whole stdout, redacted ([`Run::redact`]), equal to `want`: an inline snapshot
    /// (`snapbox::str![..]`) or a file (`snapbox::file![..]`). `[..]` in `want` matches the
    /// rest of a line's variable part and `...` whole lines; use them only for what a run
    /// cannot fix (timings). `SNAPSHOTS=overwrite` rewrites `want` in place.
    #[track_caller]
    pub fn stdout_snap(&self, want: impl snapbox::IntoData) -> &Self {
        snap("stdout", &self.redact_text(&self.stdout), want, self);
        self
    }

    /// [`Outcome::stdout_snap`] for stderr.
    #[track_caller]
    pub fn stderr_snap(&self, want: impl snapbox::IntoData) -> &Self {
        snap("stderr", &self.redact_text(&self.stderr), want, self);
        self
    }

    #[track_caller]
    pub fn stdout_has(&self, part: &str) -> &Self {
        assert!(
            self.stdout.contains(part),
            "stdout lacks `{part}`\n{self:?}"
        );
        self
    }

    #[track_caller]
    pub fn stderr_has(&self, part: &str) -> &Self {
        assert!(
            self.stderr.contains(part),
            "stderr lacks `{part}`\n{self:?}"
        );
        self
    }

    #[track_caller]
    pub fn stdout_lacks(&self, part: &str) -> &Self {
        assert!(
            !self.stdout.contains(part),
            "stdout holds `{part}`\n{self:?}"
        );
        self
    }

    #[track_caller]
    pub fn stderr_lacks(&self, part: &str) -> &Self {
        assert!(
            !self.stderr.contains(part),
            "stderr holds `{part}`\n{self:?}"
        );
        self
    }

    #[track_caller]
    pub fn no_stdout(&self) -> &Self {
        assert!(self.stdout_bytes.is_empty(), "stdout not empty\n{self:?}");
        self
    }

    #[track_caller]
    pub fn no_stderr(&self) -> &Self {
        assert!(self.stderr_bytes.is_empty(), "stderr not empty\n{self:?}");
        self
    }

    /// The error form of SPEC §8: the last two lines of stderr are
    /// `kubectl-nestor: error: ...` and `hint: ...`, and nothing follows the hint.
    #[track_caller]
    pub fn stderr_has_hint(&self) -> &Self {
        let lines: Vec<&str> = self.stderr.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.starts_with("kubectl-nestor: error: "))
            .unwrap_or_else(|| panic!("no `kubectl-nestor: error:` line\n{self:?}"));
        assert!(
            lines.get(at + 1).is_some_and(|h| h.starts_with("hint: ")),
            "no `hint:` line right after the error\n{self:?}"
        );
        assert_eq!(lines.len(), at + 2, "nothing after the hint\n{self:?}");
        self
    }

    /// An error prints no result: nothing on stdout, or (`-o json|yaml`) only the `Error`
    /// document of its exit code (SPEC §16).
    #[track_caller]
    pub fn no_result(&self) -> &Self {
        if self.stdout_bytes.is_empty() {
            return self;
        }
        let code = self.code.unwrap_or(-1);
        match serde_json::from_str::<serde_json::Value>(&self.stdout) {
            Ok(doc) => {
                assert_eq!(doc["kind"], "Error", "an error prints no result\n{self:?}");
                assert_eq!(doc["exitCode"].as_i64(), Some(i64::from(code)), "{self:?}");
            }
            // `-o yaml`: the same document, as YAML.
            Err(_) => assert!(
                self.stdout.contains("kind: Error\n")
                    && self.stdout.contains(&format!("exitCode: {code}\n")),
                "an error prints no result\n{self:?}"
            ),
        }
        self
    }

    /// An error of SPEC §8 with exit `code` whose error line holds `message`, no result on
    /// stdout (at most its `Error` document).
    #[track_caller]
    pub fn error(&self, code: i32, message: &str) -> &Self {
        self.code(code).stderr_has_hint().no_result();
        let line = self.first_error_line();
        assert!(
            line.contains(message),
            "want `{message}` in the error line\n{self:?}"
        );
        self
    }

    /// The `kubectl-nestor: error: ...` line (or the first line of stderr without one).
    pub fn first_error_line(&self) -> &str {
        self.stderr
            .lines()
            .find(|l| l.starts_with("kubectl-nestor: error: "))
            .or_else(|| self.stderr.lines().next())
            .unwrap_or_default()
    }

    /// stdout as JSON; a nestor/v1 document is validated against its kind's schema.
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        let v = serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e})\n{self:?}"));
        crate::doc_schema::check(&v);
        v
    }
}

#[track_caller]
fn eq_with_diff(what: &str, actual: &str, want: &str, run: &Outcome) {
    if actual == want {
        return;
    }
    panic!(
        "{what} differs from the expected text (- expected, + actual):\n{}\n{run:?}",
        diff(want, actual)
    );
}

/// `text` without the first whole line equal to each of `typed`, in order: a pty's echo of
/// what was typed, which lands before or after the child's first output as the scheduler
/// has it.
pub fn without_echo(text: &str, typed: &[String]) -> String {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    for t in typed {
        if let Some(at) = lines
            .iter()
            .position(|l| l.trim_end_matches(['\n', '\r']) == t)
        {
            lines.remove(at);
        }
    }
    lines.concat()
}

/// `text` with what no run can fix shown as a placeholder, so that a snapshot holds plain
/// text: a duration (`0.03s`, `21.4..91.0 ms`) as `#.#`, the figures of `-v`'s `usage:` line
/// (CPU, peak RSS), a pid as `#`, the random suffix of a temporary name
/// (`kubectl-nestor-Ab3dEf`, `.nestor-Ab3dEf`, `.tmpAb3dEf`) as `XXXXXX`, the system's temp
/// dir as `/tmp` (macOS's is elsewhere), and a UTC time
/// within ten minutes of now (`2026-12-02T00:53:37Z`, a backup's `20261202T005347Z`) as
/// `NOW`: the fixtures' own dates (hours or days ago) are kept.
pub fn stable(text: &str) -> String {
    let text = text
        .lines()
        .map(|l| {
            if l.starts_with("kubectl-nestor: usage: ") {
                usage_figures(l)
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if text.ends_with('\n') { "\n" } else { "" };
    let text = durations(&text);
    let text = after_each(&text, "(pid ", digits, "#");
    let text = system_temp_as_tmp(&text);
    let mut text = text;
    for prefix in [
        "kubectl-nestor-fetch-",
        "kubectl-nestor-",
        ".nestor-",
        ".tmp",
    ] {
        text = after_each(&text, prefix, random_suffix, "XXXXXX");
    }
    recent_times(&text)
}

/// `text` with the system's temp dir (`$TMPDIR`: `/var/folders/.../T` on macOS, and its
/// canonical `/private/...` form) shown as `/tmp`, where it is on Linux: the snapshots hold
/// one path on every platform.
fn system_temp_as_tmp(text: &str) -> String {
    let temp = std::env::temp_dir();
    let mut forms = vec![temp.display().to_string()];
    if let Ok(real) = temp.canonicalize() {
        forms.push(real.display().to_string());
    }
    forms.into_iter().fold(text.to_string(), |t, form| {
        let form = form.trim_end_matches('/');
        if form.is_empty() || form == "/tmp" {
            t
        } else {
            t.replace(form, "/tmp")
        }
    })
}

/// The length of the ASCII digits at the start of `s`.
fn digits(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

/// 6 letters and digits (a `mkdtemp`/tempfile suffix) at the start of `s`, not followed by
/// another one: its length, else 0.
fn random_suffix(s: &str) -> usize {
    let b = s.as_bytes();
    let n = b.iter().take_while(|c| c.is_ascii_alphanumeric()).count();
    if n == 6 {
        6
    } else {
        0
    }
}

/// `text` with the `len(rest)` bytes after each `prefix` replaced by `to` (when non-zero).
fn after_each(text: &str, prefix: &str, len: impl Fn(&str) -> usize, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let (head, tail) = rest.split_at(at + prefix.len());
        out.push_str(head);
        let n = len(tail);
        if n > 0 {
            out.push_str(to);
        }
        rest = &tail[n..];
    }
    out.push_str(rest);
    out
}

/// A decimal number (`12.5`) followed by `s` (not a letter after it) or ` ms`, or by `..`
/// and such a number: `#.#`.
fn durations(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let boundary = start == 0
            || !(b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'.')
            || out.ends_with("#.#..");
        if boundary && b[i].is_ascii_digit() {
            let mut j = i + digits(&text[i..]);
            if j + 1 < b.len() && b[j] == b'.' && b[j + 1].is_ascii_digit() {
                j += 1 + digits(&text[j + 1..]);
                let tail = &text[j..];
                let unit = (tail.starts_with('s')
                    && !tail[1..].starts_with(|c: char| c.is_ascii_alphanumeric()))
                    || tail.starts_with(" ms")
                    || tail.starts_with("..");
                if unit {
                    out.push_str("#.#");
                    i = j;
                    continue;
                }
            }
            out.push_str(&text[start..j]);
            i = j;
            continue;
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// `-v`'s usage line with every figure as `#`.
fn usage_figures(line: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for c in line.chars() {
        if c.is_ascii_digit() || (in_number && c == '.') {
            if !in_number {
                out.push('#');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Each UTC time within ten minutes of now, in RFC 3339 (`YYYY-MM-DDTHH:MM:SSZ`) or compact
/// (`YYYYMMDDTHHMMSSZ`) form, as `NOW`.
fn recent_times(text: &str) -> String {
    let now = (unix_ms() / 1000) as i64;
    let num = |s: &str| s.parse::<i64>().ok();
    let parse = |s: &str| -> Option<(usize, i64)> {
        let at = |a: usize, b: usize| s.get(a..b).unwrap_or_default();
        let (len, parts) =
            if at(4, 5) == "-" && at(7, 8) == "-" && at(10, 11) == "T" && at(19, 20) == "Z" {
                (
                    20,
                    [
                        at(0, 4),
                        at(5, 7),
                        at(8, 10),
                        at(11, 13),
                        at(14, 16),
                        at(17, 19),
                    ],
                )
            } else if at(8, 9) == "T" && at(15, 16) == "Z" {
                (
                    16,
                    [
                        at(0, 4),
                        at(4, 6),
                        at(6, 8),
                        at(9, 11),
                        at(11, 13),
                        at(13, 15),
                    ],
                )
            } else {
                return None;
            };
        let [y, mo, d, h, mi, se] = parts.map(num);
        let at = days_from_civil(y?, mo?, d?) * 86_400 + h? * 3600 + mi? * 60 + se?;
        Some((len, at))
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if rest.starts_with(|c: char| c.is_ascii_digit()) {
            if let Some((len, at)) = parse(rest) {
                if (at - now).abs() <= 600 {
                    out.push_str("NOW");
                    i += len;
                    continue;
                }
            }
        }
        let ch = rest.chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// The outcomes of a table of cases, collected into one text (each case's name, exit code,
/// stdout and stderr, redacted) and compared once with [`Table::table_snap`]: one snapshot
/// for a loop, where an inline snapshot inside the loop would be one place for many texts.
#[derive(Default)]
pub struct Table(std::cell::RefCell<String>);

impl Table {
    pub fn new() -> Table {
        Table::default()
    }

    /// Record `out` as the case `name` (its stdout and stderr left out when empty).
    pub fn add(&self, name: &str, out: &Outcome) {
        let mut t = self.0.borrow_mut();
        let code = out
            .code
            .map_or("killed by a signal".into(), |c| format!("exit {c}"));
        t.push_str(&format!("== {}: {code}\n", out.redact_text(name)));
        for (what, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            if !text.is_empty() {
                t.push_str(&format!("--- {what}\n{}", out.redact_text(text)));
                if !text.ends_with('\n') {
                    t.push('\n');
                }
            }
        }
    }

    /// Every case recorded, equal to the snapshot `want`.
    #[track_caller]
    pub fn table_snap(&self, want: impl snapbox::IntoData) {
        text_snap(&self.0.borrow(), want);
    }
}

/// A text the test composed itself (the outcomes of a table of cases, one after the other)
/// against the snapshot `want`, like [`Outcome::stdout_snap`].
#[track_caller]
pub fn text_snap(actual: &str, want: impl snapbox::IntoData) {
    let actual = stable(actual);
    let assert = snapbox::Assert::new()
        .action_env(snapbox::assert::DEFAULT_ACTION_ENV)
        .normalize_paths(false);
    if let Err(e) = assert.try_eq(
        Some(&"text"),
        snapbox::Data::text(actual.to_string()),
        want.into_data(),
    ) {
        panic!(
            "the text differs from its snapshot\n{e}\n(after a deliberate change: {UPDATE_GOLDEN})"
        );
    }
}

/// `actual` (already redacted) against the snapshot `want` (snapbox: a diff on failure,
/// `SNAPSHOTS=overwrite` rewrites it; no path normalisation, so a backslash stays one).
#[track_caller]
pub fn snap(what: &str, actual: &str, want: impl snapbox::IntoData, run: &Outcome) {
    let assert = snapbox::Assert::new()
        .action_env(snapbox::assert::DEFAULT_ACTION_ENV)
        .normalize_paths(false);
    if let Err(e) = assert.try_eq(
        Some(&what),
        snapbox::Data::text(actual.to_string()),
        want.into_data(),
    ) {
        panic!("{what} differs from its snapshot\n{e}\n(after a deliberate change: {UPDATE_GOLDEN})\n{run:?}");
    }
}

/// A line diff of `expected` and `actual` (similar's unified diff).
pub fn diff(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header("expected", "actual")
        .to_string()
}

/// The one command that rewrites every golden file after a deliberate change (then review
/// `git diff tests/*/golden`).
pub const UPDATE_GOLDEN: &str = "SNAPSHOTS=overwrite cargo test --test cli --test e2e";

/// `actual` compared byte for byte with the golden file `path` (snapbox: a mismatch is a
/// line diff; with `SNAPSHOTS=overwrite` in the environment `actual` is written into the
/// file instead). The caller replaces the run's variable parts first (the port as `PORT`,
/// times as `TIME`, the temp dir as `/t`), so the file holds plain text, no wildcard.
pub fn golden_check(path: &Path, actual: &str) -> Result<(), String> {
    snapbox::Assert::new()
        .action_env(snapbox::assert::DEFAULT_ACTION_ENV)
        .try_eq(
            Some(&"actual"),
            snapbox::Data::text(actual.to_string()),
            snapbox::Data::read_from(path, Some(snapbox::data::DataFormat::Text)).raw(),
        )
        .map_err(|e| format!("{e}\n(after a deliberate change: {UPDATE_GOLDEN})"))
}

/// [`golden_check`], panicking with the diff.
#[track_caller]
pub fn golden(path: &Path, actual: &str) {
    if let Err(e) = golden_check(path, actual) {
        panic!("{}: golden file differs\n{e}", path.display());
    }
}

/// `a` and `b` at once, `b` on a thread named like the caller's (so that a message naming
/// the running test still names it): for two cases of one test that each mostly wait (a
/// hang, a timeout), which would otherwise hold one of the machine's test threads idle twice
/// as long. A panic in either is the test's, with its own message.
pub fn at_once<A, B>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B)
where
    A: Send,
    B: Send,
{
    let name = std::thread::current().name().unwrap_or("?").to_string();
    std::thread::scope(|s| {
        let other = std::thread::Builder::new()
            .name(name)
            .spawn_scoped(s, b)
            .expect("spawn a thread");
        let first = a();
        let second = other
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (first, second)
    })
}
