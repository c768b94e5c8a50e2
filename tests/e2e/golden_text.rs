//! The exact text of each command a person reads, and of each error nestor words itself,
//! compared byte for byte with `tests/e2e/golden/` (the real kubectl, the replay server).
//! A change shows as a diff; `SNAPSHOTS=overwrite cargo test --test e2e golden_text`
//! rewrites the files after a deliberate one. Errors that quote kubectl's own words vary
//! with the kubectl version and stay in `failures.rs` with the part nestor owns asserted.

use crate::bed_or_skip;
use crate::support::*;

/// `$ ARGS`, the exit code, stdout and stderr of one run: what the golden file holds.
fn transcript(bed: &E2e, args: &[&str]) -> String {
    // Piped, the width is `COLUMNS` when set: a developer's exported one must not change it.
    let mut c = bed.command(args);
    c.env_remove("COLUMNS");
    let r = run(&c);
    bed.stable(&format!(
        "$ kubectl nestor {}\nexit {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        r.code.map_or("signal".to_string(), |c| c.to_string()),
        r.stdout,
        r.stderr
    ))
}

#[test]
fn golden_preview_discover_target_and_stack_list_on_the_healthy_cluster() {
    let bed = bed_or_skip!(E2e::dirqual());
    let runs = [
        &["preview", "--no-input", "--no-color"][..],
        &["discover", "--no-color"],
        &["target", "--no-input", "--no-color"],
        &["stack", "list", "--no-color"],
    ];
    let text: String = runs.iter().map(|a| transcript(&bed, a) + "\n").collect();
    golden("text-dirqual.txt", &text);
}

#[test]
fn golden_preview_on_the_degraded_cluster() {
    let bed = bed_or_skip!(E2e::new("degraded", &[]));
    golden(
        "text-degraded.txt",
        &transcript(&bed, &["preview", "--no-input", "--no-color"]),
    );
}

#[test]
fn golden_errors_nestor_words_itself() {
    let bed = bed_or_skip!(E2e::dirqual());
    let mut text = String::new();
    // The target refused: endpoint mismatch, no declared kubeconfig, a KUBECONFIG list.
    bed.write_stack(
        "moved",
        &dirqual_topology("https://10.67.2.11:6443").replace("name: dirqual", "name: moved"),
    );
    text += &transcript(&bed, &["--stack", "moved", "preview", "--no-input"]);
    text += &transcript(&bed, &["--stack", "moved", "target", "--no-input"]);
    bed.write_stack(
        "undeclared",
        "name: undeclared\ntarget_kind: prod\nnodes:\n  - { name: n1, role: control-plane }\nlayers: [k8s]\n",
    );
    text += &transcript(&bed, &["--stack", "undeclared", "preview", "--no-input"]);
    // Bad input: an unknown stack, a topology with a misspelt key, a bad flag value.
    text += &transcript(&bed, &["--stack", "nope", "preview", "--no-input"]);
    bed.write_stack(
        "typo",
        "name: typo\ntarget_kind: prod\nkubeconfg: ~/.kube/typo.config\nlayers: [k8s]\n",
    );
    text += &transcript(&bed, &["--stack", "typo", "preview", "--no-input"]);
    text += &transcript(&bed, &["preview", "--request-timeout", "ten"]);
    golden("errors.txt", &text);
}

/// `kubectl nestor ARGS` under a pseudo-terminal of `cols` columns (`script`, util-linux;
/// `stty` sets the size the terminal reports), `COLUMNS` set to a lie so that only the
/// terminal's own width can explain the result. stdout as the terminal showed it (line
/// ends without `\r`).
fn on_terminal(bed: &E2e, cols: usize, args: &[&str]) -> String {
    let mut line = format!("stty cols {cols} rows 60 && exec ");
    line.push_str(&nestor::shell::quote(&bed.kubectl.to_string_lossy()));
    line.push_str(" nestor");
    for a in args {
        line.push(' ');
        line.push_str(&nestor::shell::quote(a));
    }
    // stderr (empty, or `-v`'s command lines and timings) is not what is compared.
    line.push_str(" 2>/dev/null");
    let mut c = Run::pty_shell(&line);
    c.current_dir(&bed.repo)
        .env("HOME", &bed.home)
        .env("PATH", bed.path())
        .env("KUBERNETES_MASTER", decoy().url())
        .env("COLUMNS", "33")
        .env("TERM", "xterm");
    let r = run(&c);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    bed.stable(&format!(
        "$ kubectl nestor {} (a terminal of {cols} columns, stdout)\n{}",
        args.join(" "),
        r.stdout.replace("\r\n", "\n")
    ))
}

/// What a person reads (SPEC §16): no line wider than the terminal, the outcome before the
/// first layer, and no evidence line printed twice (a command of `--explain` may repeat: two
/// checks can read the same list).
fn assert_readable(text: &str, cols: usize) {
    let lines: Vec<&str> = text.lines().skip(1).collect();
    for l in &lines {
        // `--explain`'s commands are never cut nor wrapped: they run as printed.
        if l.starts_with("      $ kubectl ") {
            continue;
        }
        assert!(
            l.chars().count() <= cols,
            "wider than {cols}: {l:?}\n{text}"
        );
    }
    let plan = lines.iter().position(|l| l.starts_with("PLAN: "));
    let first_layer = lines.iter().position(|l| l.starts_with("  k8s "));
    assert!(
        plan.is_some() && first_layer.is_some() && plan < first_layer,
        "the outcome must come before the layers:\n{text}"
    );
    let evidence: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("    ") && !l.starts_with("      $ "))
        .map(|l| l.trim())
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    for e in &evidence {
        assert!(seen.insert(*e), "printed twice: {e:?}\n{text}");
    }
}

#[test]
fn golden_preview_at_80_and_200_columns_of_a_real_terminal() {
    let bed = bed_or_skip!(E2e::new("degraded", &[]));
    let mut text = String::new();
    for cols in [80, 200] {
        let t = on_terminal(&bed, cols, &["preview", "--no-input", "--no-color"]);
        assert_readable(&t, cols);
        // The evidence once under REAL; the PLAN's repair line cuts its reason to one line.
        let real = t.split("\nREAL ").nth(1).unwrap_or_default();
        assert_eq!(real.matches("HEALTH_WARN").count(), 1, "{t}");
        // (`  cni         present   5 checks hold` is in the golden file, with all of t)
        text += &t;
        text.push('\n');
    }
    let all = on_terminal(&bed, 80, &["preview", "--no-input", "--no-color", "-v"]);
    assert_readable(&all, 80);
    // (-v's `✓ API group cilium.io served` is in the golden file, with all of it)
    text += &all;
    text.push('\n');
    let explain = on_terminal(
        &bed,
        80,
        &["preview", "--no-input", "--no-color", "--explain"],
    );
    assert_readable(&explain, 80);
    // (each evidence line's `      $ kubectl --kubeconfig ... --context replay ...` is in
    // the golden file, with all of the explain text)
    text += &explain;
    golden("text-degraded-terminal.txt", &text);
}
