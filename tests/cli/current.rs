//! Per-shell stacks (SPEC §16): `NESTOR_STACK` is the default of `--stack`, so two shells
//! can work on two stacks of one repository whose `stacks/current.yaml` is shared; `stack
//! current` says which stack a command would use here, and why.

use snapbox::str;

use crate::support::*;

/// A repo with dirqual (prod, active) and bench (lima).
fn two_stacks() -> Bed {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.write_stack("bench", LIMA_BENCH);
    bed.select("dirqual");
    bed
}

fn json(out: &Outcome) -> serde_json::Value {
    out.code(0);
    let v = serde_json::from_str(&out.stdout).expect("json");
    crate::doc_schema::check(&v);
    v
}

#[test]
fn nestor_stack_is_the_default_of_stack_and_the_flag_wins() {
    let bed = two_stacks();
    let name = |env: Option<&str>, args: &[&str]| {
        let mut c = bed.cmd();
        if let Some(v) = env {
            c.env("NESTOR_STACK", v);
        }
        json(&c.args(args).args(["stack", "show", "-o", "json"]).run())["name"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(name(None, &[]), "dirqual", "the active stack");
    assert_eq!(name(Some("bench"), &[]), "bench", "this shell's stack");
    assert_eq!(
        name(Some("bench"), &["--stack", "dirqual"]),
        "dirqual",
        "the flag wins"
    );
    // Empty means unset, as for KUBECONFIG.
    assert_eq!(name(Some(""), &[]), "dirqual");
    // A path works as with --stack.
    let path = bed.stacks.join("bench.yaml");
    assert_eq!(name(Some(path.to_str().unwrap_or_default()), &[]), "bench");
    // And `stack env` follows it too.
    let out = bed
        .cmd()
        .env("NESTOR_STACK", "bench")
        .args(["stack", "env"])
        .run();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    out.stdout_snap(str![[r#"
export KUBECONFIG='/t/repo/bench/lima/.work/kubeconfig'

"#]]);
}

#[test]
fn stack_current_says_which_stack_and_why() {
    let bed = two_stacks();
    let dir = bed.stacks.display().to_string();
    let out = bed.cmd().args(["stack", "current"]).run();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(
        stdout_of(&out),
        format!(
            "stack      dirqual (prod)\nfile       {dir}/dirqual.yaml\nchosen by  stacks/current.yaml, the active stack of {dir} (--stack or NESTOR_STACK would override it)\n"
        )
    );
    let out = bed
        .cmd()
        .env("NESTOR_STACK", "bench")
        .args(["stack", "current"])
        .run();
    assert_eq!(
        stdout_of(&out),
        format!(
            "stack      bench (lima)\nfile       {dir}/bench.yaml\nchosen by  NESTOR_STACK=bench in this shell; the active stack (stacks/current.yaml) is dirqual\n"
        )
    );
    let out = bed
        .cmd()
        .env("NESTOR_STACK", "bench")
        .args(["--stack", "dirqual", "stack", "current"])
        .run();
    out.stdout_snap(str![[r#"
stack      dirqual (prod)
file       /t/repo/stacks/dirqual.yaml
chosen by  --stack dirqual; the active stack (stacks/current.yaml) is dirqual

"#]]);
    // As a document, for a prompt or a script.
    for (env, args, name, source) in [
        (None, &[][..], "dirqual", "active"),
        (Some("bench"), &[][..], "bench", "env"),
        (
            Some("bench"),
            &["--stack", "dirqual"][..],
            "dirqual",
            "flag",
        ),
    ] {
        let mut c = bed.cmd();
        if let Some(v) = env {
            c.env("NESTOR_STACK", v);
        }
        let v = json(&c.args(args).args(["stack", "current", "-o", "json"]).run());
        assert_eq!(v["apiVersion"], "nestor/v1");
        assert_eq!(v["kind"], "StackCurrent");
        assert_eq!(v["name"], name, "{v}");
        assert_eq!(v["source"], source, "{v}");
        assert_eq!(v["active"], "dirqual", "{v}");
        assert_eq!(v["file"], format!("{dir}/{name}.yaml"), "{v}");
    }
    // No stack at all: the error says the three ways to name one.
    std::fs::remove_file(bed.stacks.join("current.yaml")).expect("rm");
    let out = bed.cmd().args(["stack", "current"]).run();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr_of(&out),
        format!("kubectl-nestor: error: no active stack: {dir}/current.yaml does not exist\nhint: run `kubectl nestor stack select NAME`, pass --stack NAME, or `export NESTOR_STACK=NAME` for this shell\n")
    );
    assert!(bed.calls("kubectl").is_empty());
}

#[test]
fn a_wrong_nestor_stack_says_it_came_from_the_environment() {
    let bed = two_stacks();
    let out = bed
        .cmd()
        .env("NESTOR_STACK", "dirqal")
        .args(["stack", "current"])
        .run();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(
        err.starts_with(&format!(
            "kubectl-nestor: error: no stack `dirqal` in {}",
            bed.stacks.display()
        )),
        "{err}"
    );
    out.stderr_snap(str![[r#"
kubectl-nestor: error: no stack `dirqal` in /t/repo/stacks (did you mean `dirqual`?) (NESTOR_STACK=dirqal)
hint: stacks here: bench, dirqual; or `unset NESTOR_STACK` to use the active stack

"#]]);
}

/// `preview --all` takes no --stack; this shell's NESTOR_STACK is no reason to refuse it:
/// ignored, with a notice.
#[test]
fn preview_all_ignores_nestor_stack_with_a_notice() {
    let bed = two_stacks();
    let out = bed
        .cmd()
        .env("NESTOR_STACK", "bench")
        .args(["preview", "--all"])
        .run();
    out.stderr_snap(str![[r#"
kubectl-nestor: NESTOR_STACK=bench is ignored by --all: every stack of the stacks directory is previewed

"#]]);
    out.stdout_snap(str![[r#"
STACK    OUTCOME  KIND  NODES  LAYERS P/D/A/U  PLAN  TARGET
bench    work     lima  ?/3    0/0/2/0         5     -
dirqual  error    prod  -      -               -     https://10.67.2.11:6443
total: 2 stacks: 0 ok, 1 work, 0 undecided, 0 refused, 0 unreachable, 1 error
dirqual (error): kubeconfig /t/home/.kube/dirqual.config does not
                 exist
  hint: fetch it with `kubectl nestor kubeconfig fetch`, or fix the path

"#]]);
}
