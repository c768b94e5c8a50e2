//! Completion where users press TAB: bash's completion function of `completion bash` driven
//! through COMP_WORDS/COMP_CWORD as bash sets them, and `kubectl nestor <TAB>` through the
//! REAL kubectl's plugin completion (`kubectl __complete nestor ...` runs
//! `kubectl_complete-nestor` from PATH). Both end in the same engine (`cmd::complete`).

use std::fs;
use std::path::{Path, PathBuf};

use nestor::shell::quote as shell_quote;

use crate::support::{Bed, Run};

const PROD: &str = "name: dirqual\ntarget_kind: prod\nkubeconfig: ~/.kube/dirqual.config\nnodes:\n  - { name: dirqual1, role: control-plane }\nlayers: [k8s, cni]\n";
/// lab's own catalog adds the layer `vault`.
const LAB: &str = "name: lab\ntarget_kind: prod\nkubeconfig: ~/.kube/lab.config\ncatalog: layers.yaml\nnodes:\n  - { name: lab1, role: control-plane }\nlayers: [k8s, vault]\n";
const LAB_CATALOG: &str = "- id: vault\n  title: HashiCorp Vault\n  after: [k8s]\n  detect:\n    - namespace: vault\n  healthy:\n    - namespace: vault\n  install: ansible-playbook platform/vault.yaml\n";

/// A bed with two stacks and a bin/ holding both executables under their installed names.
fn bed() -> Bed {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD);
    bed.write_stack("lab", LAB);
    fs::write(bed.stacks.join("layers.yaml"), LAB_CATALOG).expect("write catalog");
    bed.select("dirqual");
    for (name, exe) in [
        ("kubectl-nestor", env!("CARGO_BIN_EXE_kubectl-nestor")),
        (
            "kubectl_complete-nestor",
            env!("CARGO_BIN_EXE_kubectl_complete-nestor"),
        ),
    ] {
        std::os::unix::fs::symlink(exe, bed.bin.join(name)).expect("symlink");
    }
    bed
}

/// COMPREPLY after bash's completion function of `completion bash` ran for `words` (as
/// COMP_WORDS, the cursor on the last one), with the bed's bin/ first on PATH.
fn bash_complete(bed: &Bed, words: &[&str]) -> Vec<String> {
    let out = bed.cmd().args(["completion", "bash"]).run();
    out.code(0);
    let script = bed.tmp.path().join("completion.bash");
    fs::write(&script, &out.stdout).expect("write");
    let quoted: Vec<String> = words.iter().map(|w| shell_quote(w)).collect();
    let probe = format!(
        "source {script}; COMP_WORDS=({words}); COMP_CWORD={cword}; COMP_LINE=\"${{COMP_WORDS[*]}}\"; COMP_POINT=${{#COMP_LINE}}; _kubectl_nestor; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script = shell_quote(&script.display().to_string()),
        words = quoted.join(" "),
        cword = words.len() - 1,
    );
    let r = bed.cmd_program("bash").arg("-c").arg(probe).run();
    assert!(
        r.status.success(),
        "bash: {}",
        String::from_utf8_lossy(&r.stderr_bytes)
    );
    String::from_utf8_lossy(&r.stdout_bytes)
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

fn v(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn bash_completes_nested_subcommands_and_their_flags() {
    let bed = bed();
    assert_eq!(
        bash_complete(&bed, &["kubectl-nestor", "st"]),
        v(&["stack"])
    );
    // clap_complete's script completed the directory `stacks/` here (hyphenated-name bug).
    assert_eq!(
        bash_complete(&bed, &["kubectl-nestor", "stack", "s"]),
        v(&["show", "select"])
    );
    assert_eq!(
        bash_complete(&bed, &["kubectl-nestor", "preview", "--det"]),
        v(&["--detailed-exitcode"])
    );
    assert_eq!(
        bash_complete(&bed, &["kubectl-nestor", "kubeconfig", ""]),
        v(&["fetch", "help"])
    );
    // A global flag before the subcommand, its value taken as a value.
    assert_eq!(
        bash_complete(&bed, &["kubectl-nestor", "-o", "json", "stack", "l"]),
        v(&["list"])
    );
}

#[test]
fn bash_completes_stack_names_and_flag_values_split_at_equals() {
    let bed = bed();
    assert_eq!(
        bash_complete(&bed, &["kubectl-nestor", "stack", "select", ""]),
        v(&["dirqual", "lab"])
    );
    assert_eq!(
        bash_complete(&bed, &["kubectl-nestor", "--stack", "l"]),
        v(&["lab"])
    );
    // bash splits `--output=j` at '=' (COMP_WORDBREAKS); readline replaces the text after it.
    assert_eq!(
        bash_complete(&bed, &["kubectl-nestor", "--output", "=", "j"]),
        v(&["json", "junit"])
    );
    assert_eq!(
        bash_complete(&bed, &["kubectl-nestor", "preview", "--output", "="]),
        v(&["text", "json", "yaml", "junit"])
    );
    // Another stacks directory typed on the line is the one listed.
    let other = bed.tmp.path().join("other");
    fs::create_dir_all(&other).expect("mkdir");
    fs::write(other.join("edge.yaml"), PROD.replace("dirqual", "edge")).expect("write");
    let dir = other.display().to_string();
    assert_eq!(
        bash_complete(
            &bed,
            &["kubectl-nestor", "--stacks-dir", &dir, "stack", "show", ""]
        ),
        v(&["edge"])
    );
}

#[test]
fn bash_completes_layer_ids_from_the_catalog_of_the_stack_on_the_line() {
    let bed = bed();
    // The active stack (dirqual) uses the built-in catalog.
    assert_eq!(
        bash_complete(&bed, &["kubectl-nestor", "wait", "--for", "healthy", "ce"]),
        v(&["ceph", "certs"])
    );
    assert_eq!(
        bash_complete(&bed, &["kubectl-nestor", "wait", "v"]),
        v(&[])
    );
    // lab's catalog: file adds vault; --stack on the line picks it.
    assert_eq!(
        bash_complete(&bed, &["kubectl-nestor", "--stack", "lab", "wait", "v"]),
        v(&["vault"])
    );
    assert_eq!(
        bash_complete(&bed, &["kubectl-nestor", "wait", "--for", ""]),
        v(&["healthy", "present"])
    );
}

#[test]
fn completion_helper_prints_the_kubectl_protocol() {
    let bed = bed();
    let out = bed
        .cmd_program(
            bed.bin
                .join("kubectl_complete-nestor")
                .to_str()
                .expect("utf-8"),
        )
        .args(["stack", "select", ""])
        .run();
    out.code(0);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout_bytes),
        "dirqual\nlab\n:4\n"
    );
    out.no_stderr();
    // The same engine as `kubectl-nestor __complete`.
    let direct = bed.cmd().args(["__complete", "stack", "select", ""]).run();
    assert_eq!(direct.stdout, out.stdout);
    // Nothing to read (no stacks directory): no candidates, no error, exit 0.
    let empty = Bed::new();
    let out = empty
        .cmd()
        .args(["__complete", "stack", "select", ""])
        .env("NESTOR_STACKS_DIR", empty.tmp.path().join("absent"))
        .run();
    out.code(0);
    assert_eq!(String::from_utf8_lossy(&out.stdout_bytes), ":4\n");
}

/// The kubectl to drive: `NESTOR_E2E_KUBECTL`, else the newest versioned `kubectl.1.N`
/// beside the `kubectl` on PATH (the Cloud SDK layout), else that `kubectl`.
fn kubectl() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("NESTOR_E2E_KUBECTL").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let on_path = std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join("kubectl"))
        .find(|p| p.is_file())?;
    let dir = fs::canonicalize(&on_path).ok()?.parent()?.to_path_buf();
    let newest = fs::read_dir(&dir)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let minor: u32 = name.strip_prefix("kubectl.1.")?.parse().ok()?;
            Some((minor, e.path()))
        })
        .max();
    Some(newest.map_or(on_path, |(_, p)| p))
}

/// The client's minor version, from `kubectl version --client -o json`.
fn minor_version(kubectl: &Path) -> Option<u32> {
    let out = Run::new(kubectl)
        .args(["version", "--client", "-o", "json"])
        .env("KUBECONFIG", "/dev/null")
        .try_run()
        .ok()?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout_bytes).ok()?;
    let minor = v["clientVersion"]["minor"].as_str()?;
    minor.trim_end_matches('+').parse().ok()
}

/// `kubectl __complete nestor WORDS...` (what kubectl's own completion script runs for
/// `kubectl nestor <TAB>`) with the bed's bin/ first on PATH; stdout.
fn kubectl_complete(bed: &Bed, kubectl: &Path, words: &[&str]) -> String {
    let out = bed
        .cmd_program(kubectl.to_str().expect("utf-8"))
        .arg("__complete")
        .arg("nestor")
        .args(words)
        .env("KUBECONFIG", bed.tmp.path().join("no-kubeconfig"))
        .run();
    String::from_utf8_lossy(&out.stdout_bytes).into_owned()
}

#[test]
fn kubectl_nestor_tab_completes_through_kubectls_plugin_completion() {
    let Some(kubectl) = kubectl() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "no kubectl on PATH: .ci/run installs one"
        );
        eprintln!("SKIP kubectl_nestor_tab: no kubectl on PATH");
        return;
    };
    let bed = bed();
    let first = kubectl_complete(&bed, &kubectl, &[""]);
    if !first.contains("stack\t") {
        match minor_version(&kubectl) {
            Some(minor) if minor < 26 => {
                eprintln!(
                    "SKIP kubectl_nestor_tab: {} is 1.{minor}; plugin completion (kubectl_complete-*) came in 1.26",
                    kubectl.display()
                );
                return;
            }
            _ => panic!(
                "{}: `kubectl __complete nestor ''` did not reach kubectl_complete-nestor:\n{first}",
                kubectl.display()
            ),
        }
    }
    eprintln!("kubectl: {}", kubectl.display());
    assert!(first.starts_with("preview\t"), "{first}");
    assert!(first.ends_with(":4\n"), "{first}");
    assert_eq!(
        kubectl_complete(&bed, &kubectl, &["stack", "s"]),
        "show\tOne parsed topology (default: the active stack)\nselect\tMake NAME the active stack (stacks/current.yaml); for prod, offer to declare and fetch its kubeconfig\n:4\n"
    );
    assert_eq!(
        kubectl_complete(&bed, &kubectl, &["stack", "select", ""]),
        "dirqual\nlab\n:4\n"
    );
    let flags = kubectl_complete(&bed, &kubectl, &["preview", "--det"]);
    assert!(flags.starts_with("--detailed-exitcode\t"), "{flags}");
    assert_eq!(
        kubectl_complete(&bed, &kubectl, &["--output", "j"]),
        "json\njunit\n:4\n"
    );
    assert_eq!(
        kubectl_complete(&bed, &kubectl, &["--stack", "lab", "wait", "va"]),
        "vault\n:4\n"
    );
    // A file argument leaves kubectl's file completion on (directive 0).
    assert_eq!(
        kubectl_complete(&bed, &kubectl, &["preview", "--snapshot", ""]),
        ":0\n"
    );
}

#[test]
fn fish_completes_through_the_same_engine() {
    let bed = bed();
    let script = bed.tmp.path().join("completion.fish");
    let out = bed.cmd().args(["completion", "fish"]).run();
    fs::write(&script, &out.stdout).expect("write");
    let probe = format!(
        "source {}; complete -C'kubectl-nestor stack s'; complete -C'kubectl-nestor stack select '; complete -C'kubectl-nestor --output=j'",
        shell_quote(&script.display().to_string())
    );
    let r = match bed.cmd_program("fish").arg("-c").arg(probe).try_run() {
        Ok(r) => r,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "fish: {e} (.ci/run installs fish)"
            );
            eprintln!("SKIP fish_completes: fish not installed ({e})");
            return;
        }
    };
    let values: Vec<String> = String::from_utf8_lossy(&r.stdout_bytes)
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        values,
        v(&[
            "select",
            "show",
            "dirqual",
            "lab",
            "--output=json",
            "--output=junit"
        ]),
        "{}",
        String::from_utf8_lossy(&r.stderr_bytes)
    );
}
