//! From argv to exit code: parse the CLI, capture the environment, dispatch, and print any
//! error as two lines (`kubectl-nestor: error: ...` / `hint: ...`). Nothing here exits the
//! process; `main` does.

use crate::output::render::Printer;
use std::ffi::OsString;
use std::io::Write;

use clap::{CommandFactory, FromArgMatches};

use crate::cli::{Cli, Command};
use crate::cmd;
use crate::cmd::context::Invocation;
use crate::cmd::fetch::KubeconfigCommand;
use crate::env::Environment;
use crate::error::{Exit, Result};

/// kubectl's habit, `-v=6` (and `--v=N`, `--verbose=N`): nestor has one verbose level, so
/// any level above 0 is `-v` and 0 is nothing. Only these exact forms, before any `--`.
fn kubectl_verbosity(args: Vec<OsString>) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut rest = false;
    for a in args {
        let level = a.to_str().filter(|_| !rest).and_then(|s| {
            let n = ["-v=", "--v=", "--verbose="]
                .iter()
                .find_map(|p| s.strip_prefix(p))?;
            (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                .then(|| n.trim_start_matches('0').is_empty())
        });
        rest |= a == "--";
        match level {
            Some(true) => {}
            Some(false) => out.push(OsString::from("-v")),
            None => out.push(a),
        }
    }
    out
}

/// Run with the given argv and return the exit code of SPEC §8.
pub fn run<I, T>(args: I) -> Exit
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    crate::usage::mark_start();
    crate::pool::bound_the_allocator();
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // The run's one stdout: what it prints decides whether an error still gets a document.
    let printer = crate::output::render::Printer::plain();
    // `__complete WORDS...` (kubectl's plugin-completion protocol) is answered before clap
    // parses anything: the words are the user's half-typed command line, not ours to validate.
    if args.get(1).is_some_and(|a| a == "__complete") {
        let words: Vec<String> = (args.iter().skip(2))
            .map(|w| w.to_string_lossy().into_owned())
            .collect();
        return match cmd::complete::run(&printer, Cli::command(), &words) {
            Ok(code) => code,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "{e}");
                e.exit
            }
        };
    }
    let args = kubectl_verbosity(args);
    let name = crate::cli::display_name(
        args.first().map(OsString::as_os_str),
        crate::env::kubectl_path().as_deref(),
    );
    let mut command = Cli::command().bin_name(name);
    let parsed = command
        .try_get_matches_from_mut(&args)
        .and_then(|m| Cli::from_arg_matches(&m))
        .map_err(|e| e.format(&mut command));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if let ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand = e.kind()
            {
                let _ = e.print();
                return Exit::Ok;
            }
            // clap would exit 2, which means "plan not empty" here: usage errors are 1, in
            // the two-line form of every other error.
            let e = crate::cli::usage::error(
                &e.render().to_string(),
                &command_path(&command, name, &args),
            );
            // `-o json|yaml` somewhere in the words: the error is a document too (SPEC §16).
            if let Some(format) = crate::cli::usage::format_asked(&args) {
                crate::output::error_doc::print(&printer, format, &e);
            }
            print_error(&e);
            return e.exit;
        }
    };
    let verbose = cli.global.verbose > 0;
    let format = cli.global.output;
    let at_start = crate::usage::own_usage();
    let code = match dispatch(cli, &printer) {
        Ok(code) => code,
        Err(e) => {
            // A script reading `-o json` gets the error as a document too (SPEC §16).
            crate::output::error_doc::print(&printer, format, &e);
            print_error(&e);
            e.exit
        }
    };
    if verbose {
        report_usage(at_start);
    }
    code
}

/// The command the user was typing, as far as the words name subcommands (`kubectl nestor
/// stack select`): whose `--help` a usage error points at when clap printed no usage line.
fn command_path(root: &clap::Command, bin: &str, args: &[OsString]) -> String {
    let mut path = bin.to_string();
    let mut at = root;
    for word in args.iter().skip(1).filter_map(|a| a.to_str()) {
        if let Some(sub) = at.find_subcommand(word) {
            path.push(' ');
            path.push_str(sub.get_name());
            at = sub;
        }
    }
    path
}

/// An error on stderr, two lines. It may quote a file, a host, kubectl or the command line:
/// redacted and terminal-safe.
fn print_error(e: &crate::error::Error) {
    let text = crate::term::terminal_safe(&crate::redact::text(&e.to_string()));
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// `-v`: what nestor itself used since `run` began (its children apart, and the kubectl
/// that exec'd it as a plugin too), for scripts/bench.sh and for anyone wondering where the
/// time went.
fn report_usage(at_start: Option<crate::usage::Usage>) {
    use crate::usage::{children_usage, own_usage};
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    if let (Some(now), Some(start), Some(children)) = (own_usage(), at_start, children_usage()) {
        let own = now.since(start);
        let _ = writeln!(
            std::io::stderr(),
            "kubectl-nestor: usage: own cpu {:.1} ms (user {:.1} + sys {:.1}), own peak rss {} KiB; children cpu {:.1} ms, largest child rss {} KiB",
            ms(own.user + own.system),
            ms(own.user),
            ms(own.system),
            own.max_rss_kib,
            ms(children.user + children.system),
            children.max_rss_kib
        );
    }
    let _ = writeln!(
        std::io::stderr(),
        "kubectl-nestor: step: run 0.0..{:.1} ms",
        ms(crate::usage::since_start())
    );
}

fn dispatch(cli: Cli, printer: &Printer) -> Result<Exit> {
    let invocation = || -> Result<Invocation> {
        Ok(Invocation::new(
            cli.global.clone(),
            Environment::capture()?,
            printer,
        ))
    };
    match &cli.command {
        Command::Completion { shell } => cmd::completion::run(printer, *shell, Cli::command()),
        Command::Version => cmd::version::run(printer, cli.global.output),
        Command::Schema(args) => cmd::schema::run(printer, cli.global.output, args),
        Command::Gate(command) => cmd::gate::run(printer, cli.global.output, command, &invocation),
        Command::Preview(args) if args.all => {
            cmd::fleet::run(&invocation()?, args.detailed_exitcode, args.no_ssh)
        }
        Command::Preview(args) => cmd::preview::run(&invocation()?, args),
        Command::Wait(args) => cmd::wait::run(&invocation()?, args),
        Command::Diff(args) => cmd::diff::run(&invocation()?, args),
        Command::Discover(args) => cmd::discover::run(&invocation()?, args),
        Command::Target => cmd::target::run(&invocation()?),
        Command::Stack(command) => cmd::stack::run(&invocation()?, command),
        Command::Catalog(command) => cmd::catalog::run(&invocation()?, command),
        Command::Kubeconfig(KubeconfigCommand::Fetch) => cmd::fetch::run(&invocation()?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(args: &[&str]) -> Vec<String> {
        kubectl_verbosity(args.iter().map(OsString::from).collect())
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn kubectl_style_levels_are_one_verbose_flag() {
        assert_eq!(words(&["n", "-v=6", "preview"]), ["n", "-v", "preview"]);
        assert_eq!(words(&["n", "--v=9", "--verbose=2"]), ["n", "-v", "-v"]);
        assert_eq!(words(&["n", "-v=0", "preview"]), ["n", "preview"]);
        assert_eq!(words(&["n", "-v=00"]), ["n"]);
        // Not a level: left to clap, which says what is wrong.
        assert_eq!(words(&["n", "-v=x", "-v="]), ["n", "-v=x", "-v="]);
        assert_eq!(words(&["n", "--", "-v=6"]), ["n", "--", "-v=6"]);
    }
}
