//! `kubectl_complete-nestor`: kubectl (1.26 and later) runs it from PATH for `kubectl nestor
//! <TAB>` with the words after `nestor`, the last one being the word under the cursor. It is
//! `kubectl-nestor __complete WORDS...`: the same engine, in a second executable because
//! kubectl looks for this name.

fn main() -> std::process::ExitCode {
    let args = ["kubectl-nestor".into(), "__complete".into()]
        .into_iter()
        .chain(std::env::args_os().skip(1));
    std::process::ExitCode::from(nestor::cli::run::run(args).code())
}
