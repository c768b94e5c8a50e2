//! Issue 32, SPEC §18: the operator's laptop. The proxy's unix socket path within the
//! platform's `sun_path` limit whatever TMPDIR is; stack names compared exactly (a file
//! system that ignores case opens `Dirqual.yaml` for `dirqual`); `stack env --shell fish`.

use crate::support::*;

const ENDPOINT: &str = "https://10.67.2.11:6443";

/// A directory whose path is exactly `len` bytes, under the bed's temp dir.
fn dir_of_len(bed: &Bed, len: usize) -> std::path::PathBuf {
    let base = bed.tmp.path().to_path_buf();
    let pad = len - base.as_os_str().len() - 1;
    let dir = base.join("d".repeat(pad));
    std::fs::create_dir_all(&dir).expect("mkdir");
    assert_eq!(dir.as_os_str().len(), len);
    dir
}

/// The `--unix-socket=` of each `kubectl proxy` nestor started.
fn sockets(bed: &Bed) -> Vec<String> {
    bed.calls("kubectl")
        .iter()
        .flatten()
        .filter_map(|a| a.strip_prefix("--unix-socket=").map(String::from))
        .collect()
}

/// Regression (issue 32): a 77-byte TMPDIR made a 110-byte socket path, over Linux's limit
/// (`bind: invalid argument`); 120 bytes is over every platform's. Both read through a
/// socket under /tmp; a TMPDIR that fits is used as it is.
#[test]
fn a_long_tmpdir_still_reads_through_a_socket_within_the_limit() {
    for (len, under_tmpdir) in [(77, false), (120, false), (40, true)] {
        let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
        let tmpdir = dir_of_len(&bed, len);
        let out = bed
            .cmd()
            .args(["preview", "--no-input", "-o", "json"])
            .env("TMPDIR", &tmpdir)
            .run();
        out.code(0);
        let socks = sockets(&bed);
        assert!(!socks.is_empty(), "TMPDIR of {len} bytes: no proxy started");
        for s in &socks {
            let limit = if cfg!(target_os = "linux") { 107 } else { 103 };
            assert!(s.len() <= limit, "{s}: {} bytes", s.len());
            let base = if under_tmpdir {
                tmpdir.display().to_string()
            } else {
                "/tmp".to_string()
            };
            assert!(
                s.starts_with(&format!("{base}/kubectl-nestor-")) && s.ends_with("/proxy.sock"),
                "TMPDIR of {len} bytes: socket {s}"
            );
        }
    }
}

/// A stack file whose name differs in case is refused by name, with a hint naming the exact
/// file: on a case-insensitive file system (APFS) `stacks/dirqual.yaml` opens
/// `Dirqual.YAML`, which `stack list` does not show. The check is by directory entry, so it
/// holds on Linux too.
#[test]
fn stack_names_are_compared_exactly() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    let dir = bed.stacks.display().to_string();
    std::fs::rename(
        bed.stacks.join("dirqual.yaml"),
        bed.stacks.join("Dirqual.YAML"),
    )
    .expect("rename");
    let before = bed.tree();
    let out = bed
        .cmd()
        .args(["--stack", "dirqual", "stack", "show"])
        .run();
    out.code(1);
    out.stdout_eq("");
    out.stderr_eq(&format!(
        "kubectl-nestor: error: no stack `dirqual`: the file here is {dir}/Dirqual.YAML, whose name differs in case (a case-insensitive file system would open it for dirqual.yaml)\nhint: stack names are compared exactly: rename it, `mv {dir}/Dirqual.YAML {dir}/dirqual.yaml`\n"
    ));
    let out = bed.cmd().args(["stack", "list"]).run();
    out.code(0);
    out.stderr_eq(&format!(
        "kubectl-nestor: no stacks in {dir}\nkubectl-nestor: warning: {dir}/Dirqual.YAML is not read: stack files are named NAME.yaml (rename it to dirqual.yaml)\n"
    ));
    assert_eq!(bed.tree(), before, "nothing written");

    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    let dir = bed.stacks.display().to_string();
    let out = bed
        .cmd()
        .args(["--stack", "DIRQUAL", "stack", "show"])
        .run();
    out.code(1);
    out.stderr_eq(&format!(
        "kubectl-nestor: error: `DIRQUAL` is not a stack name\nhint: stack names are lowercase DNS-1123 labels, compared exactly: the file here is {dir}/dirqual.yaml (`kubectl nestor stack list` shows the names)\n"
    ));
}

/// `stacks/*.yml` is not read (one spelling, `.yaml`), never silently: `stack list` warns,
/// `--stack NAME` names the file and the `mv` that makes it a stack.
#[test]
fn a_yml_stack_file_is_named_not_ignored() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    std::fs::write(bed.stacks.join("lab.yml"), "name: lab\ntarget_kind: prod\n").expect("write");
    let dir = bed.stacks.display().to_string();
    let out = bed.cmd().args(["stack", "list"]).run();
    out.code(0);
    out.stdout_eq("   NAME     KIND  KUBECONFIG\n   dirqual  prod  ~/.kube/dirqual.config\n");
    out.stderr_eq(&format!(
        "kubectl-nestor: warning: {dir}/lab.yml is not read: stack files are named NAME.yaml (rename it to lab.yaml)\n"
    ));
    let out = bed.cmd().args(["--stack", "lab", "stack", "show"]).run();
    out.code(1);
    out.stderr_eq(&format!(
        "kubectl-nestor: error: no stack `lab` in {dir}: {dir}/lab.yml is not read (stack files end in .yaml)\nhint: rename it, `mv {dir}/lab.yml {dir}/lab.yaml`\n"
    ));
}

/// The project's scripts run with BSD tools too (macOS): no bare `nproc` (it falls back to
/// `sysctl -n hw.ncpu`), no `sed -i` (GNU and BSD spell it differently), no `\s` in sed.
#[test]
fn the_scripts_use_no_gnu_only_tool() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts");
    let mut found = vec![];
    for entry in std::fs::read_dir(dir).expect("scripts/").flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "sh") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read");
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with('#') {
                continue;
            }
            let bare_nproc = code.contains("nproc") && !code.contains("sysctl -n hw.ncpu");
            let sed_in_place = code.contains("sed -i");
            let sed_s = code.contains("sed ") && code.contains("\\s");
            if bare_nproc || sed_in_place || sed_s {
                found.push(format!("{}:{}: {code}", path.display(), n + 1));
            }
        }
    }
    assert_eq!(found, Vec::<String>::new());
}

/// `stack env --shell fish` read back by the real fish, on a path that POSIX and fish quote
/// differently (a quote, a backslash, a `$`, a space); the POSIX form by sh, the default.
#[test]
fn stack_env_for_fish_is_read_back_by_fish() {
    let bed = Bed::new();
    bed.write_stack(
        "dirqual",
        &PROD_DECLARED.replace(
            "~/.kube/dirqual.config",
            "\"~/it's a \\\\dir/$HOME (x).config\"",
        ),
    );
    let expected = bed.home.join("it's a \\dir/$HOME (x).config");
    let out = bed
        .cmd()
        .args(["stack", "env", "--shell", "fish", "dirqual"])
        .run();
    out.code(0);
    out.stdout_eq(&format!(
        "set -gx KUBECONFIG '{}/it\\'s a \\\\dir/$HOME (x).config'\n",
        bed.home.display()
    ));
    let line = stdout_of(&out);
    let read = match bed
        .cmd_program("fish")
        .arg("-c")
        .arg(format!("{line}\nprintf %s \"$KUBECONFIG\""))
        .try_run()
    {
        Ok(r) => r,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "fish: {e} (scripts/test.sh installs fish)"
            );
            eprintln!("SKIP stack_env_for_fish: fish not installed ({e})");
            return;
        }
    };
    read.code(0);
    assert_eq!(read.stdout, expected.to_string_lossy());
    let posix = bed.cmd().args(["stack", "env", "dirqual"]).run();
    posix.code(0);
    let read = Run::new("sh")
        .arg("-c")
        .arg(format!("{}\nprintf %s \"$KUBECONFIG\"", stdout_of(&posix)))
        .run();
    assert_eq!(read.stdout, expected.to_string_lossy());
    let bad = bed
        .cmd()
        .args(["stack", "env", "--shell", "tcsh", "dirqual"])
        .run();
    bad.code(1);
    assert_eq!(
        bad.stderr.lines().next(),
        Some("kubectl-nestor: error: invalid value 'tcsh' for '--shell <SHELL>' [possible values: posix, fish]")
    );
}

/// kubectl's `-v=6` is accepted as `-v` (nestor has one verbose level); a malformed level is
/// still clap's usage error.
#[test]
fn kubectl_style_verbosity_is_accepted() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    let plain = bed.cmd().args(["-v", "stack", "list"]).run();
    plain.code(0);
    let leveled = bed.cmd().args(["-v=6", "stack", "list"]).run();
    leveled.code(0);
    assert_eq!(leveled.stdout, plain.stdout);
    // The verbose usage lines (their numbers vary from run to run) are there in both.
    let kinds = |e: &str| -> Vec<String> {
        e.lines()
            .map(|l| l.split(':').take(2).collect::<Vec<_>>().join(":"))
            .collect()
    };
    assert_eq!(kinds(&leveled.stderr), kinds(&plain.stderr));
    assert_eq!(
        kinds(&plain.stderr),
        ["kubectl-nestor: usage", "kubectl-nestor: step"]
    );
    let bad = bed.cmd().args(["-v=x", "stack", "list"]).run();
    bad.code(1);
}
