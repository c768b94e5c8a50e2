//! `[y/N]` confirmations. The question goes to stderr (stdout stays the command's output),
//! the answer is one line read from stdin. Only `y` or `yes` (any case) is a yes; anything
//! else, an empty line, end of input or a read error is a no. Callers ask only when
//! [`crate::cmd::context::Invocation::interactive`] says a person is there to answer.

use std::io::{BufRead, Write};

/// Ask `question` (shown followed by ` [y/N] `) on stderr and read the answer from stdin.
pub fn confirm(question: &str) -> bool {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut stderr = std::io::stderr();
    ask(question, &mut input, &mut stderr)
}

/// [`confirm`] on any reader and writer.
pub fn ask(question: &str, input: &mut impl BufRead, output: &mut impl Write) -> bool {
    let _ = write!(output, "{question} [y/N] ");
    let _ = output.flush();
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) | Err(_) => {
            // No answer at all: end the prompt's line so what follows starts on its own.
            let _ = writeln!(output);
            false
        }
        Ok(_) => is_yes(&line),
    }
}

/// `y` or `yes`, case-insensitive, surrounding blanks ignored.
pub fn is_yes(answer: &str) -> bool {
    let a = answer.trim();
    a.eq_ignore_ascii_case("y") || a.eq_ignore_ascii_case("yes")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(input: &str) -> (bool, String) {
        let mut out = Vec::new();
        let yes = ask("Go?", &mut input.as_bytes(), &mut out);
        (yes, String::from_utf8_lossy(&out).into_owned())
    }

    #[test]
    fn only_y_and_yes_are_yes() {
        for yes in ["y\n", "Y\n", "yes\n", "YES\n", "Yes\r\n", "  y  \n", "y"] {
            assert!(answer(yes).0, "{yes:?}");
        }
        for no in [
            "\n", "n\n", "no\n", "yep\n", "ye\n", "sure\n", "y es\n", "oui\n",
        ] {
            assert!(!answer(no).0, "{no:?}");
        }
    }

    #[test]
    fn end_of_input_is_no_and_the_question_is_shown() {
        assert_eq!(answer(""), (false, "Go? [y/N] \n".to_string()));
        assert_eq!(answer("y\n"), (true, "Go? [y/N] ".to_string()));
    }

    #[test]
    fn only_one_line_is_read_per_question() {
        let mut input: &[u8] = b"n\ny\n";
        let mut out = Vec::new();
        assert!(!ask("a?", &mut input, &mut out));
        assert!(ask("b?", &mut input, &mut out));
        assert!(!ask("c?", &mut input, &mut out));
    }
}
