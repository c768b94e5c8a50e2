//! The `kubectl-nestor` binary: everything lives in the library; this turns its result into
//! the process exit code.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(nestor::cli::run::run(std::env::args_os()).code())
}
