//! `[y/N]` questions on the terminal. Only `y` or `yes` (any case) is yes; anything else,
//! including end of input, is no. Callers ask only when `Context::interactive()` is true.

use std::io::{BufRead, Write};

use crate::error::{Error, Result};

/// Ask `question [y/N]` on stderr and read one line from stdin.
pub fn confirm(question: &str) -> Result<bool> {
    let mut stderr = std::io::stderr().lock();
    write!(stderr, "{question} [y/N] ")
        .and_then(|_| stderr.flush())
        .map_err(|e| Error::input(format!("cannot write the prompt: {e}"), "use --no-input"))?;
    drop(stderr);
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| Error::input(format!("cannot read the answer: {e}"), "use --no-input"))?;
    Ok(is_yes(&answer))
}

pub fn is_yes(answer: &str) -> bool {
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_y_or_yes() {
        for yes in ["y", "Y\n", " yes ", "YES"] {
            assert!(super::is_yes(yes), "{yes}");
        }
        for no in ["", "n", "no", "yep", "y es", "oui"] {
            assert!(!super::is_yes(no), "{no}");
        }
    }
}
