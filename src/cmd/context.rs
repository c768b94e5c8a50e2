//! The validated configuration of one run: the CLI flags plus the captured environment,
//! resolving the stack and its target before any process is spawned.

use crate::output::render::Printer;
use std::io::IsTerminal;

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::env::Environment;
use crate::error::Result;
use crate::output::render::Format;
use crate::read::exec::Runner;
use crate::stack;

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

/// One run of nestor: its flags, the captured environment and the process runner. Named
/// apart from a kubeconfig's contexts, which the same functions handle.
pub struct Invocation {
    pub global: Global,
    pub env: Environment,
    pub runner: Runner,
    /// The run's stdout, colours decided here (`output::render::Printer`).
    pub printer: Printer,
    /// The stack flags and the environment they are read against: `stacks.topology(None)`
    /// is the command's stack (`stack::Choice`).
    pub stacks: stack::Choice,
    /// Prompts are allowed: neither `--no-input` nor `NESTOR_NO_INPUT`, and stdin AND
    /// stderr are terminals (SPEC §5, §16): the question goes to stderr, so with stderr
    /// piped or captured (`watch kubectl nestor preview`, `2>log`) nobody would see it, and
    /// a hidden `[y/N]` would wait forever. Decided once, when the run starts.
    pub interactive: bool,
    /// How the human text on stdout is laid out: stdout's width when the run starts (asked
    /// of the terminal itself; `COLUMNS` only when stdout is not one, bash does not export
    /// it; else 80), every evidence line with `-v` (`Layout::showing_all` adds `--explain`).
    pub layout: crate::output::layout::Layout,
}

impl Invocation {
    pub fn new(global: Global, env: Environment, printer: &Printer) -> Invocation {
        let runner = Runner::new(&env, global.request_timeout, global.verbose > 0);
        let stacks = stack::Choice {
            flag: global.stack.clone(),
            dir_flag: global.stacks_dir.clone(),
            explicit_kubeconfig: global.kubeconfig.is_some() || env.kubeconfig.is_some(),
            env: env.clone(),
        };
        let interactive = !global.no_input
            && !env.no_input
            && std::io::stdin().is_terminal()
            && std::io::stderr().is_terminal();
        let layout = crate::output::layout::Layout::new(
            width_of(terminal_size::terminal_size_of(std::io::stdout()), &env),
            global.verbose > 0,
        );
        let mut invocation = Invocation {
            global,
            env,
            runner,
            printer: printer.clone(),
            stacks,
            interactive,
            layout,
        };
        invocation.printer = printer.painted(invocation.color());
        invocation
    }

    /// Colour on stdout: never with `--no-color` or `NO_COLOR`; else as `anstream` decides
    /// for the stream (`CLICOLOR_FORCE`, `CLICOLOR=0`, a terminal whose `TERM` has colours).
    fn color(&self) -> bool {
        self.color_on(&std::io::stdout())
    }

    /// Colour on stderr (`wait`'s live lines), by the same rule as stdout's.
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

    /// The width of stderr's terminal (`wait`'s live lines), by the same rule.
    pub fn width_stderr(&self) -> usize {
        width_of(
            terminal_size::terminal_size_of(std::io::stderr()),
            &self.env,
        )
    }

    /// What every session is opened from: the runner, the environment, `--kubeconfig`,
    /// whether a prompt is possible. The target policy itself is `crate::session`'s.
    pub fn ground(&self) -> crate::session::Ground<'_> {
        crate::session::Ground {
            runner: &self.runner,
            env: &self.env,
            kubeconfig: self.global.kubeconfig.as_deref(),
            prompt: if self.interactive {
                crate::session::Prompt::Allowed
            } else {
                crate::session::Prompt::Never
            },
        }
    }
}

/// A terminal's width: the terminal's own, else `COLUMNS`, else 80.
fn width_of(
    size: Option<(terminal_size::Width, terminal_size::Height)>,
    env: &Environment,
) -> usize {
    size.map(|(w, _)| usize::from(w.0))
        .filter(|w| *w > 0)
        .or(env.columns)
        .unwrap_or(crate::output::layout::DEFAULT_WIDTH)
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
