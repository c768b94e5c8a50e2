//! The validated configuration of one run: the CLI flags plus the captured environment,
//! resolving the stack and its target before any process is spawned.

use crate::output::render::Printer;
use std::io::IsTerminal;
use std::path::Path;

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::env::Environment;
use crate::error::Result;
use crate::output::render::Format;
use crate::read::exec::Runner;
use crate::stack::{self, StacksDir, Topology};

/// The global flags, valid before or after the subcommand.
#[derive(Debug, Clone, Args)]
pub struct Global {
    /// Stack for this command: a name in the stacks directory or a path to a topology file (default: $NESTOR_STACK, else the active stack, stacks/current.yaml).
    #[arg(long, global = true, value_name = "NAME|PATH")]
    pub stack: Option<String>,

    /// Stacks directory (default: $NESTOR_STACKS_DIR, else the first stacks/ walking up from here).
    #[arg(long, global = true, value_name = "DIR")]
    pub stacks_dir: Option<PathBuf>,

    /// Kubeconfig file of the target: overrides KUBECONFIG and the topology's kubeconfig.
    #[arg(long, global = true, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// Output format: human text, the versioned nestor/v1 document as JSON or YAML (an error too: kind Error), or for `preview` a JUnit XML report.
    #[arg(short = 'o', long, global = true, value_enum, default_value_t = Format::Text)]
    pub output: Format,

    /// Never prompt (also NESTOR_NO_INPUT=1); a prod target is then confirmed by comparing its endpoint with the topology's.
    #[arg(long, global = true)]
    pub no_input: bool,

    /// No colour, even on a terminal (NO_COLOR is honoured too).
    #[arg(long, global = true)]
    pub no_color: bool,

    /// Bound for each request and each subprocess, e.g. 10s, 500ms, 1m.
    #[arg(long, global = true, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub request_timeout: Duration,

    /// Print each subprocess command line on stderr, secrets redacted. kubectl's -v=N is
    /// accepted: any N above 0 is -v, -v=0 is quiet.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

/// `10s`, `500ms`, `1m30s`, or a bare number of seconds; at most 1h.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    crate::duration::parse_flag(s, Duration::from_secs(3600))
}

/// `wait --timeout`: like [`parse_duration`], at most 24h.
pub fn parse_wait_timeout(s: &str) -> Result<Duration, String> {
    crate::duration::parse_flag(s, Duration::from_secs(86_400))
}

/// Where the stack of a command came from (`stack current` says it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackSource {
    /// `--stack NAME|PATH`.
    Flag,
    /// `NESTOR_STACK` in the environment.
    Env,
    /// `stacks/current.yaml`, the repository's active stack.
    Active,
}

impl StackSource {
    /// The name in documents: `flag`, `env`, `active`.
    pub fn name(self) -> &'static str {
        match self {
            StackSource::Flag => "flag",
            StackSource::Env => "env",
            StackSource::Active => "active",
        }
    }

    /// How a stacks directory found from a stack path was found.
    fn dir_found_by(self) -> &'static str {
        match self {
            StackSource::Flag => "the directory of --stack",
            StackSource::Env => "the directory of NESTOR_STACK",
            StackSource::Active => "the directory of the active stack",
        }
    }
}

/// One run of nestor: its flags, the captured environment and the process runner. Named
/// apart from a kubeconfig's contexts, which the same functions handle.
pub struct Invocation {
    pub global: Global,
    pub env: Environment,
    pub runner: Runner,
    /// The run's stdout, colours decided here (`output::render::Printer`).
    pub printer: Printer,
}

impl Invocation {
    pub fn new(global: Global, env: Environment, printer: &Printer) -> Invocation {
        let runner = Runner::new(&env, global.request_timeout, global.verbose > 0);
        let mut invocation = Invocation {
            global,
            env,
            runner,
            printer: printer.clone(),
        };
        invocation.printer = printer.painted(invocation.color());
        invocation
    }

    pub fn format(&self) -> Format {
        self.global.output
    }

    /// Prompts are allowed: neither `--no-input` nor `NESTOR_NO_INPUT`, and stdin AND stderr
    /// are terminals (SPEC §5, §16): the question goes to stderr, so with stderr piped or
    /// captured (`watch kubectl nestor preview`, `2>log`) nobody would see it, and a hidden
    /// `[y/N]` would wait forever.
    pub fn interactive(&self) -> bool {
        !self.global.no_input
            && !self.env.no_input
            && std::io::stdin().is_terminal()
            && std::io::stderr().is_terminal()
    }

    /// Colour on stdout: never with `--no-color` or `NO_COLOR`; else as `anstream` decides
    /// for the stream (`CLICOLOR_FORCE`, `CLICOLOR=0`, a terminal whose `TERM` has colours).
    fn color(&self) -> bool {
        self.color_on(&std::io::stdout())
    }

    /// Colour on stderr (`wait`'s live lines), by the same rule as [`Context::color`].
    pub fn color_stderr(&self) -> bool {
        self.color_on(&std::io::stderr())
    }

    fn color_on<S: anstream::stream::RawStream>(&self, stream: &S) -> bool {
        use anstream::ColorChoice;
        if self.global.no_color || self.env.no_color {
            return false;
        }
        match anstream::AutoStream::choice(stream) {
            ColorChoice::Always | ColorChoice::AlwaysAnsi => true,
            ColorChoice::Never | ColorChoice::Auto => false,
        }
    }

    /// The width of stdout's terminal, asked of the terminal itself; `COLUMNS` only when
    /// stdout is not one (bash does not export it); else 80.
    pub fn width(&self) -> usize {
        self.width_of(terminal_size::terminal_size_of(std::io::stdout()))
    }

    /// The width of stderr's terminal (`wait`'s live lines), by the same rule.
    pub fn width_stderr(&self) -> usize {
        self.width_of(terminal_size::terminal_size_of(std::io::stderr()))
    }

    fn width_of(&self, size: Option<(terminal_size::Width, terminal_size::Height)>) -> usize {
        size.map(|(w, _)| usize::from(w.0))
            .filter(|w| *w > 0)
            .or(self.env.columns)
            .unwrap_or(crate::output::layout::DEFAULT_WIDTH)
    }

    /// How the human text is laid out: stdout's width; every evidence line with `-v`.
    pub fn layout(&self, explain: bool) -> crate::output::layout::Layout {
        crate::output::layout::Layout::new(self.width(), explain || self.global.verbose > 0)
    }

    /// The stack this command names, and how: `--stack`, else `NESTOR_STACK` (its default in
    /// this shell); `None`: the active stack (`stacks/current.yaml`) applies.
    pub fn stack_choice(&self) -> Option<(&str, StackSource)> {
        match (&self.global.stack, &self.env.stack) {
            (Some(flag), _) => Some((flag, StackSource::Flag)),
            (None, Some(env)) => Some((env, StackSource::Env)),
            (None, None) => None,
        }
    }

    /// The stacks directory. A `--stack PATH` (or `NESTOR_STACK=PATH`) without
    /// `--stacks-dir`/`NESTOR_STACKS_DIR` uses the file's own directory, so its relative
    /// paths resolve next to it.
    pub fn stacks_dir(&self) -> Result<StacksDir> {
        if self.global.stacks_dir.is_none() && self.env.stacks_dir.is_none() {
            if let Some((arg, source)) = self
                .stack_choice()
                .filter(|(s, _)| stack::looks_like_path(s))
            {
                let file = self.env.absolute(Path::new(arg));
                if let Some(parent) = file.parent().filter(|p| p.is_dir()) {
                    return Ok(StacksDir {
                        path: parent.to_path_buf(),
                        found_by: source.dir_found_by(),
                    });
                }
            }
        }
        StacksDir::locate(self.global.stacks_dir.as_deref(), &self.env)
    }

    /// The stack named on the command line (`name`), else `--stack`, else `NESTOR_STACK`,
    /// else the active one.
    pub fn topology(&self, name: Option<&str>) -> Result<Topology> {
        let dir = self.stacks_dir()?;
        let file = match name {
            Some(n) => stack::select_file(Some(n), &dir, &self.env)?,
            None => self.select_file(self.stack_choice().map(|(s, _)| s), &dir)?,
        };
        Topology::load(&file, &dir.path)
    }

    /// [`stack::select_file`] for the stack this command names (`chosen`, from
    /// [`Invocation::stack_choice`]): a name that came from `NESTOR_STACK` says so, since the
    /// operator did not type it here.
    pub fn select_file(&self, chosen: Option<&str>, dir: &StacksDir) -> Result<PathBuf> {
        let from_env = self.global.stack.is_none() && chosen.is_some();
        stack::select_file(chosen, dir, &self.env).map_err(|e| {
            if from_env {
                let message = format!(
                    "{} (NESTOR_STACK={})",
                    e.message,
                    chosen.unwrap_or_default()
                );
                let hint = format!(
                    "{}; or `unset NESTOR_STACK` to use the active stack",
                    e.hint
                );
                crate::error::Error::new(e.exit, message, hint)
            } else {
                e
            }
        })
    }

    /// Like [`Invocation::topology`], but `None` when no stack is named and none can be found
    /// while an explicit kubeconfig is given: commands that work on a bare kubeconfig.
    pub fn optional_topology(&self) -> Result<Option<Topology>> {
        let explicit_stack = self.stack_choice().is_some()
            || self.global.stacks_dir.is_some()
            || self.env.stacks_dir.is_some();
        let explicit_kubeconfig = self.global.kubeconfig.is_some() || self.env.kubeconfig.is_some();
        match self.topology(None) {
            Ok(t) => Ok(Some(t)),
            Err(_) if !explicit_stack && explicit_kubeconfig && self.no_active_stack() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// What every session is opened from: the runner, the environment, `--kubeconfig`,
    /// whether a prompt is possible. The target policy itself is `crate::session`'s.
    pub fn ground(&self) -> crate::session::Ground<'_> {
        crate::session::Ground {
            runner: &self.runner,
            env: &self.env,
            kubeconfig: self.global.kubeconfig.as_deref(),
            prompt: if self.interactive() {
                crate::session::Prompt::Allowed
            } else {
                crate::session::Prompt::Never
            },
        }
    }

    fn no_active_stack(&self) -> bool {
        match self.stacks_dir() {
            Err(_) => true,
            Ok(dir) => std::fs::symlink_metadata(dir.path.join(stack::CURRENT)).is_err(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("5h").is_err());
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_wait_timeout("2h45m"), Ok(Duration::from_secs(9900)));
        assert_eq!(parse_wait_timeout("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_wait_timeout("10m"), Ok(Duration::from_secs(600)));
        assert!(parse_wait_timeout("25h").is_err());
    }
}
