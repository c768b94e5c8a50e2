//! Man pages, generated from the clap definition so they never drift from `--help`:
//!
//! - `cargo run --example manpage > kubectl-nestor.1`: the main page on stdout;
//! - `cargo run --example manpage -- DIR`: one page per command in DIR
//!   (`kubectl-nestor.1`, `kubectl-nestor-stack.1`, `kubectl-nestor-stack-list.1`, ...).
//!
//! `scripts/manpage.sh` wraps the second form. An example rather than a `build.rs` or an
//! xtask: `clap_mangen` stays a dev-dependency and the plugin binary does not carry it.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap::CommandFactory;

/// The main page (`kubectl-nestor.1`) as roff.
pub fn render(out: &mut dyn Write) -> std::io::Result<()> {
    clap_mangen::Man::new(nestor::cli::Cli::command()).render(out)
}

/// One page per command and subcommand, written into `dir`.
pub fn generate_all(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    clap_mangen::generate_to(nestor::cli::Cli::command(), dir)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [] => {
            let mut stdout = std::io::stdout().lock();
            render(&mut stdout).and_then(|()| stdout.flush())
        }
        [dir] if !dir.starts_with('-') => generate_all(Path::new(dir)),
        _ => {
            eprintln!("usage: manpage [DIR]   (no DIR: the main page on stdout)");
            return ExitCode::from(1);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("manpage: error: {e}");
            ExitCode::from(1)
        }
    }
}
