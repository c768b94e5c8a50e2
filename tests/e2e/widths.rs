//! Issue 31: text is laid out by terminal columns, not characters (SPEC §9, "Output formats
//! stay valid"): a condition message of 60 CJK characters (two columns each) at a terminal of
//! 60 columns was drawn 114 columns wide. Through the real kubectl, under a pseudo-terminal
//! whose own size is the width (`COLUMNS` set to a lie).

use crate::bed_or_skip;
use crate::support::*;

/// A bed whose ClusterIssuer's Ready condition says `message`.
fn issuer_says(message: &str) -> Option<E2e> {
    let mut fixture = nestor_replay::fixtures::by_name("issuer-acme-failed").expect("fixture");
    for o in fixture.objects.iter_mut() {
        if o["kind"] == "ClusterIssuer" && o["metadata"]["name"] == "letsencrypt-prod" {
            o["status"]["conditions"][0]["message"] = message.into();
        }
    }
    E2e::with_config(nestor_replay::Config::new(fixture))
}

/// What a terminal of `cols` columns shows for `preview`: the lines, CRLF undone.
fn screen(bed: &E2e, cols: usize) -> Vec<String> {
    let mut run = bed.command(&["preview", "--no-input", "--no-color"]);
    run.pty_cols(cols).env("COLUMNS", "200");
    let r = crate::support::run(&run);
    r.code(0);
    r.stdout
        .replace("\r\n", "\n")
        .lines()
        .map(String::from)
        .collect()
}

/// Columns a line takes, by the same tables a terminal uses (wide = 2, marks = 0).
fn columns(line: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(line)
}

#[test]
fn sixty_cjk_characters_fit_a_terminal_of_sixty_columns() {
    let bed = bed_or_skip!(issuer_says(&"漢".repeat(60)));
    let lines = screen(&bed, 60);
    for l in &lines {
        assert!(
            columns(l) <= 60,
            "{} columns: {l:?}\n{lines:#?}",
            columns(l)
        );
    }
    let at = lines
        .iter()
        .position(|l| l.starts_with("  certs "))
        .unwrap_or_else(|| panic!("no certs line in {lines:#?}"));
    let cjk = |n: usize| "漢".repeat(n);
    assert_eq!(
        lines[at + 1..],
        [
            "    ✗ ClusterIssuer letsencrypt-prod Ready=False".to_string(),
            "      (ErrVerifyACMEAccount:".to_string(),
            format!("      {}", cjk(27)),
            format!("      {}", cjk(27)),
            format!("      {})", cjk(6)),
        ],
        "{lines:#?}"
    );
}

/// Combining marks take no column: 30 `e` + U+0301 are 30 columns, on the line they fit.
#[test]
fn combining_marks_take_no_column() {
    let accented = "e\u{301}".repeat(30);
    let bed = bed_or_skip!(issuer_says(&accented));
    let lines = screen(&bed, 120);
    let at = lines
        .iter()
        .position(|l| l.starts_with("  certs "))
        .unwrap_or_else(|| panic!("no certs line in {lines:#?}"));
    // 104 columns (134 characters): one line at 120.
    assert_eq!(
        lines[at + 1..],
        [format!(
            "    ✗ ClusterIssuer letsencrypt-prod Ready=False (ErrVerifyACMEAccount: {accented})"
        )],
        "{lines:#?}"
    );
}
