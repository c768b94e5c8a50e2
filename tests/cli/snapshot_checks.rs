//! The snapshot expectations' own rules (`tests/common/run.rs`): what `stable` replaces and
//! what it keeps, a pty's echo left out, a table of cases as one text, and a snapshot that
//! differs failing with a diff. A normaliser that masked too much would make every snapshot
//! weaker; these pin it down.

use snapbox::str;

use crate::harness::{stable, text_snap, without_echo, Run, Table};

#[test]
fn stable_masks_what_no_run_fixes_and_keeps_the_rest() {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (now / 86_400) as i64;
    // Today's date in UTC, by the inverse of days_from_civil (Howard Hinnant's civil_from_days).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let secs = now % 86_400;
    let (h, mi, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let rfc = format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z");
    let compact = format!("{y:04}{m:02}{d:02}T{h:02}{mi:02}{s:02}Z");
    let text = format!(
        "kubectl-nestor: exec: exit 0 in 0.03s: kubectl\n\
         kubectl-nestor: step: reads (1 through the proxy) 117.8..147.9 ms\n\
         kubectl-nestor: proxy: serving after 0.026s (pid 19352)\n\
         kubectl-nestor: usage: own cpu 17.6 ms (user 17.6 + sys 0.0), own peak rss 18600 KiB\n\
         socket /tmp/kubectl-nestor-Vh93La/proxy.sock, temp /tmp/.tmpX5clm8/repo, .nestor-anYEPf\n\
         observed {rfc}, backup dirqual.config.bak-{compact}\n\
         kept: 2026-11-30T03:00:00Z, etcd-20261130T0300.db 3h old, 24.0 kB, 10.67.2.11:6443,\n\
         kept: v1.31.4, dirqual1..4, --request-timeout=10s, 1.5s-free words, larger than 1024 KiB\n"
    );
    text_snap(
        &stable(&text),
        str![[r#"
kubectl-nestor: exec: exit 0 in #.#s: kubectl
kubectl-nestor: step: reads (1 through the proxy) #.#..#.# ms
kubectl-nestor: proxy: serving after #.#s (pid #)
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB
socket /tmp/kubectl-nestor-XXXXXX/proxy.sock, temp /tmp/.tmpXXXXXX/repo, .nestor-XXXXXX
observed NOW, backup dirqual.config.bak-NOW
kept: 2026-11-30T03:00:00Z, etcd-20261130T0300.db 3h old, 24.0 kB, 10.67.2.11:6443,
kept: v1.31.4, dirqual1..4, --request-timeout=10s, #.#s-free words, larger than 1024 KiB

"#]],
    );
}

#[test]
fn a_ptys_echo_is_left_out_once_per_typed_line() {
    let typed = vec!["y".to_string(), "n".to_string()];
    assert_eq!(
        without_echo("notice\r\ny\r\nAdd it? [y/N] done\r\ny\r\nn\r\n", &typed),
        "notice\r\nAdd it? [y/N] done\r\ny\r\n"
    );
}

#[test]
fn a_table_of_cases_is_one_text_with_each_exit_code() {
    let table = Table::new();
    let ok = Run::new("/bin/sh")
        .args(["-c", "echo out; echo err >&2"])
        .redact("out", "OUT")
        .run();
    let failed = Run::new("/bin/sh").args(["-c", "exit 3"]).run();
    table.add("both streams", &ok);
    table.add("nothing printed", &failed);
    table.table_snap(str![[r#"
== both streams: exit 0
--- stdout
OUT
--- stderr
err
== nothing printed: exit 3

"#]]);
}

#[test]
fn a_snapshot_that_differs_fails_with_a_diff() {
    let out = Run::new("/bin/sh").args(["-c", "echo actual"]).run();
    let failed = std::panic::catch_unwind(|| {
        out.stdout_snap("expected\n");
    });
    let message = failed
        .err()
        .and_then(|e| e.downcast_ref::<String>().cloned())
        .expect("a mismatch panics with a message");
    let first = message.lines().next().unwrap_or_default();
    assert_eq!(first, "stdout differs from its snapshot", "{message}");
}
