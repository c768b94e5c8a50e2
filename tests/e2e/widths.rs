//! Issue 31, text bounds (SPEC §9, "Output formats stay valid"), through the real kubectl:
//! text is laid out by terminal columns, not characters (a condition message of 60 CJK
//! characters at a terminal of 60 columns was drawn 114 columns wide; tested under a
//! pseudo-terminal whose own size is the width, `COLUMNS` set to a lie); caps on quoted
//! messages count the escaped text (300 ESC bytes were an 841-character quote); object names
//! from a cluster are capped in text like messages, `diff` included (a 100 KB name was
//! printed whole).

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

/// `preview` piped at `COLUMNS=200`, as a script or a CI log reads it.
fn piped(bed: &E2e, args: &[&str]) -> Outcome {
    let mut run = bed.command(args);
    run.env("COLUMNS", "200");
    crate::support::run(&run)
}

/// The certs layer's evidence lines in a preview's text.
fn certs_block(stdout: &str) -> Vec<String> {
    let lines: Vec<&str> = stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("  certs "))
        .unwrap_or_else(|| panic!("no certs line in {stdout}"));
    lines[at + 1..]
        .iter()
        .take_while(|l| l.starts_with("    "))
        .map(|l| l.to_string())
        .collect()
}

#[test]
fn the_cap_on_a_message_counts_its_escapes() {
    let bed = bed_or_skip!(issuer_says(&"\u{1b}".repeat(300)));
    let out = piped(&bed, &["preview", "--no-input", "--no-color"]);
    out.code(0);
    // 200 characters of escaped text: 50 `\x1b`, then the ellipsis.
    let quote = format!("{}…", "\\x1b".repeat(50));
    // One word longer than a line: broken where the 200 columns end (194 after the indent).
    let (head, tail) = quote.split_at(194);
    assert_eq!(
        certs_block(&out.stdout),
        [
            "    ✗ ClusterIssuer letsencrypt-prod Ready=False (ErrVerifyACMEAccount:".to_string(),
            format!("      {head}"),
            format!("      {tail})"),
        ],
        "{}",
        out.stdout
    );
    let v = piped(&bed, &["preview", "--no-input", "-o", "json"]).json();
    assert_eq!(
        layer(&v, "certs")["reason"],
        format!("ClusterIssuer letsencrypt-prod Ready=False (ErrVerifyACMEAccount: {quote})")
            .as_str()
    );
}

#[test]
fn an_object_name_no_kubernetes_admits_is_capped_in_text() {
    let huge = "g".repeat(100 * 1024);
    let mut fixture = nestor_replay::fixtures::by_name("issuer-ns-unready").expect("fixture");
    for o in fixture.objects.iter_mut() {
        if o["kind"] == "Issuer" && o["metadata"]["name"] == "gitea-ca" {
            o["metadata"]["name"] = huge.as_str().into();
        }
    }
    let bed = bed_or_skip!(E2e::with_config(nestor_replay::Config::new(fixture)));
    let out = piped(&bed, &["preview", "--no-input", "--no-color"]);
    out.code(0);
    assert!(
        out.stdout.len() < 8 * 1024,
        "{} bytes of text",
        out.stdout.len()
    );
    // `gitea/` and 314 characters of the name make the 320 of a word, then the ellipsis; a
    // word longer than a line is broken where the 200 columns end (194 after the indent).
    let word = format!("gitea/{}…", "g".repeat(314));
    let (head, tail) = word.split_at(194);
    assert_eq!(
        certs_block(&out.stdout),
        [
            "    ✗ 0/1 Issuer Ready; not: Issuer".to_string(),
            format!("      {head}"),
            format!(
                "      {tail} Ready=False (ErrGetKeyPair: Error getting keypair for CA issuer:"
            ),
            "      secrets \"gitea-ca-key-pair\" not found)".to_string(),
        ],
        "{}",
        out.stdout
    );
}

/// `diff` prints node names too: a 100 KB one (a snapshot's, here) is capped like any word.
#[test]
fn diff_caps_an_object_name_no_kubernetes_admits() {
    let bed = bed_or_skip!(E2e::dirqual());
    let a = bed.tmp.path().join("a.json");
    bed.run(&["discover", "--save", &a.display().to_string()])
        .code(0);
    let mut snap: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&a).expect("snapshot")).expect("json");
    let huge = "d".repeat(100 * 1024);
    let text = snap.to_string();
    let nodes = snap
        .pointer_mut("/observation/nodes/ok")
        .and_then(|n| n.as_array_mut())
        .unwrap_or_else(|| panic!("no nodes in {}", &text[..200]));
    nodes[3]["name"] = huge.as_str().into();
    std::fs::write(&a, snap.to_string()).expect("write");
    let out = piped(&bed, &["diff", &a.display().to_string(), "-", "--no-color"]);
    out.code(0);
    assert!(
        out.stdout.len() < 4 * 1024,
        "{} bytes of text",
        out.stdout.len()
    );
    let nodes: Vec<&str> = out
        .stdout
        .lines()
        .skip_while(|l| *l != "NODES")
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(
        nodes,
        [
            "NODES".to_string(),
            "  + dirqual4  added".to_string(),
            format!("  - {}…  removed", "d".repeat(320)),
        ],
        "{}",
        out.stdout
    );
}
