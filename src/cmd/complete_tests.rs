//! The completion engine over a small clap definition shaped like nestor's (global flags,
//! nested subcommands, a value_enum, stack and layer arguments), with values from a table.

use std::path::PathBuf;

// `Cmd`: .ci/run greps for the std process builder's constructor outside read::exec, and clap's has the same name.
use clap::{Arg, ArgAction, Command as Cmd};

use super::*;

struct Table;

impl Values for Table {
    fn stacks(&self, typed: &Typed) -> Vec<String> {
        match typed.stacks_dir.as_deref() {
            Some(d) if d == std::path::Path::new("/other") => vec!["lab".into()],
            _ => vec!["bench".into(), "dirqual".into()],
        }
    }
    fn layers(&self, typed: &Typed) -> Vec<String> {
        match typed.stack.as_deref() {
            Some("bench") => vec!["cni".into(), "vms".into()],
            _ => vec!["ceph".into(), "cni".into(), "gitops".into()],
        }
    }
    fn nodes(&self, typed: &Typed) -> Vec<String> {
        match typed.stack.as_deref() {
            Some("bench") => vec!["node1".into(), "node2".into()],
            _ => vec!["dirqual1".into(), "dirqual2".into(), "edge1".into()],
        }
    }
}

fn root() -> Cmd {
    let mut root = Cmd::new("kubectl-nestor")
        .arg(
            Arg::new("stack")
                .long("stack")
                .global(true)
                .value_name("NAME|PATH"),
        )
        .arg(
            Arg::new("stacks_dir")
                .long("stacks-dir")
                .global(true)
                .value_name("DIR")
                .value_parser(clap::value_parser!(PathBuf)),
        )
        .arg(
            Arg::new("output")
                .short('o')
                .long("output")
                .global(true)
                .value_parser(["text", "json", "yaml"]),
        )
        .arg(
            Arg::new("verbose")
                .short('v')
                .long("verbose")
                .global(true)
                .action(ArgAction::Count),
        )
        .arg(Arg::new("secret").long("secret").hide(true).global(true))
        .subcommand(
            Cmd::new("preview")
                .about("The real state. And more.")
                .arg(
                    Arg::new("detailed_exitcode")
                        .long("detailed-exitcode")
                        .action(ArgAction::SetTrue)
                        .help("Exit 2 when the plan is not empty."),
                )
                .arg(
                    Arg::new("snapshot")
                        .long("snapshot")
                        .value_name("FILE")
                        .value_parser(clap::value_parser!(PathBuf)),
                ),
        )
        .subcommand(
            Cmd::new("stack")
                .about("List, show and use stacks")
                .subcommand(Cmd::new("list"))
                .subcommand(Cmd::new("show").arg(Arg::new("name")))
                .subcommand(Cmd::new("select").arg(Arg::new("name").required(true))),
        )
        .subcommand(
            Cmd::new("catalog")
                .subcommand(Cmd::new("list"))
                .subcommand(Cmd::new("show").arg(Arg::new("id").required(true))),
        )
        .subcommand(
            Cmd::new("wait").arg(
                Arg::new("layers")
                    .num_args(1..)
                    .value_name("LAYER")
                    .required(true),
            ),
        )
        .subcommand(
            Cmd::new("gate")
                .subcommand(Cmd::new("drain").arg(Arg::new("node").required(true)))
                .subcommand(
                    Cmd::new("upgrade")
                        .arg(Arg::new("component").required(true).value_parser([
                            "kubernetes",
                            "cilium",
                            "rook",
                        ]))
                        .arg(Arg::new("version").required(true)),
                ),
        )
        .subcommand(Cmd::new("internal").hide(true));
    root.build();
    root
}

fn words(line: &str) -> Vec<String> {
    // A trailing space means "a new, empty word".
    let mut w: Vec<String> = line.split_whitespace().map(String::from).collect();
    if line.is_empty() || line.ends_with(' ') {
        w.push(String::new());
    }
    w
}

fn values(line: &str) -> (Vec<String>, u32) {
    let c = complete(&root(), &words(line), &Table);
    (
        c.candidates.into_iter().map(|(v, _)| v).collect(),
        c.directive,
    )
}

fn v(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn subcommands_at_every_level_hidden_ones_left_out() {
    assert_eq!(
        values(""),
        (
            v(&["preview", "stack", "catalog", "wait", "gate", "help"]),
            NO_FILE_COMP
        )
    );
    assert_eq!(values("st"), (v(&["stack"]), NO_FILE_COMP));
    assert_eq!(
        values("stack "),
        (v(&["list", "show", "select", "help"]), NO_FILE_COMP)
    );
    assert_eq!(values("stack s"), (v(&["show", "select"]), NO_FILE_COMP));
    // Global flags before the subcommand do not stop the walk.
    assert_eq!(
        values("-v --output json stack s"),
        (v(&["show", "select"]), NO_FILE_COMP)
    );
}

#[test]
fn flags_of_the_subcommand_with_the_globals_and_without_hidden_ones() {
    assert_eq!(
        values("preview --"),
        (
            v(&[
                "--detailed-exitcode",
                "--help",
                "--output",
                "--snapshot",
                "--stack",
                "--stacks-dir",
                "--verbose"
            ]),
            NO_FILE_COMP
        )
    );
    assert_eq!(
        values("preview --d"),
        (v(&["--detailed-exitcode"]), NO_FILE_COMP)
    );
    let c = complete(&root(), &words("preview --det"), &Table);
    assert_eq!(
        c.candidates,
        vec![(
            "--detailed-exitcode".to_string(),
            "Exit 2 when the plan is not empty".to_string()
        )]
    );
    assert_eq!(
        c.render(),
        "--detailed-exitcode\tExit 2 when the plan is not empty\n:4\n"
    );
}

#[test]
fn enum_values_after_the_flag_after_equals_and_after_a_short_flag() {
    assert_eq!(
        values("--output "),
        (v(&["text", "json", "yaml"]), NO_FILE_COMP)
    );
    assert_eq!(values("preview -o j"), (v(&["json"]), NO_FILE_COMP));
    assert_eq!(
        values("preview --output=y"),
        (v(&["--output=yaml"]), NO_FILE_COMP)
    );
    // -vo: a cluster whose last flag takes the next word.
    assert_eq!(values("-vo "), (v(&["text", "json", "yaml"]), NO_FILE_COMP));
    // A flag's value is not a subcommand: `--output stack` then a new word.
    assert_eq!(
        values("--output stack "),
        (
            v(&["preview", "stack", "catalog", "wait", "gate", "help"]),
            NO_FILE_COMP
        )
    );
}

#[test]
fn stack_names_from_the_stacks_dir_typed_so_far() {
    assert_eq!(
        values("stack select "),
        (v(&["bench", "dirqual"]), NO_FILE_COMP)
    );
    assert_eq!(values("stack show d"), (v(&["dirqual"]), NO_FILE_COMP));
    assert_eq!(
        values("--stacks-dir /other stack select "),
        (v(&["lab"]), NO_FILE_COMP)
    );
    assert_eq!(
        values("--stacks-dir=/other stack select "),
        (v(&["lab"]), NO_FILE_COMP)
    );
    // --stack also takes a path: names first, file names when none matches.
    assert_eq!(values("preview --stack b"), (v(&["bench"]), NO_FILE_COMP));
    assert_eq!(values("preview --stack ./x"), (v(&[]), DEFAULT));
    // The positional is filled: nothing more to offer.
    assert_eq!(values("stack select bench "), (v(&[]), NO_FILE_COMP));
}

#[test]
fn layer_ids_from_the_catalog_of_the_stack_typed_so_far() {
    assert_eq!(
        values("catalog show "),
        (v(&["ceph", "cni", "gitops"]), NO_FILE_COMP)
    );
    assert_eq!(
        values("--stack bench catalog show "),
        (v(&["cni", "vms"]), NO_FILE_COMP)
    );
    assert_eq!(values("wait g"), (v(&["gitops"]), NO_FILE_COMP));
    // A variadic LAYER argument keeps completing.
    assert_eq!(values("wait ceph c"), (v(&["ceph", "cni"]), NO_FILE_COMP));
}

/// `gate drain NODE`: the nodes the stack typed so far declares (never read from a cluster);
/// the component of `gate upgrade` from its subcommands; VERSION left to the user.
#[test]
fn gate_nodes_from_the_stack_and_components_from_the_definition() {
    let nodes = v(&["dirqual1", "dirqual2", "edge1"]);
    assert_eq!(values("gate drain "), (nodes, NO_FILE_COMP));
    assert_eq!(
        values("gate drain d"),
        (v(&["dirqual1", "dirqual2"]), NO_FILE_COMP)
    );
    assert_eq!(
        values("--stack bench gate drain "),
        (v(&["node1", "node2"]), NO_FILE_COMP)
    );
    assert_eq!(values("gate drain dirqual2 "), (v(&[]), NO_FILE_COMP));
    let (components, _) = values("gate upgrade ");
    assert_eq!(components, v(&["kubernetes", "cilium", "rook"]));
    assert_eq!(values("gate upgrade kubernetes "), (v(&[]), NO_FILE_COMP));
}

#[test]
fn paths_leave_the_shell_its_file_and_directory_completion() {
    assert_eq!(values("preview --snapshot "), (v(&[]), DEFAULT));
    assert_eq!(values("--stacks-dir "), (v(&[]), FILTER_DIRS));
    assert_eq!(values("--stacks-dir=st"), (v(&[]), FILTER_DIRS));
}

#[test]
fn unknown_words_and_the_double_dash_complete_nothing_and_never_fail() {
    assert_eq!(values("nosuch "), (v(&[]), NO_FILE_COMP));
    assert_eq!(
        values("--nosuch "),
        (
            v(&["preview", "stack", "catalog", "wait", "gate", "help"]),
            NO_FILE_COMP
        )
    );
    assert_eq!(values("preview -- --"), (v(&[]), NO_FILE_COMP));
    assert_eq!(values("--output=nosuch=x"), (v(&[]), NO_FILE_COMP));
    let c = complete(&root(), &[], &Table);
    assert!(c.candidates.iter().any(|(v, _)| v == "preview"));
}

/// The filesystem values: stack names from a real stacks directory, layer ids from the
/// built-in catalog plus the stack's own `catalog:` file, chosen by `--stack` or the active
/// stack; an unloadable stack falls back to the built-in catalog.
#[test]
fn fs_values_read_the_stacks_dir_and_the_stacks_catalog() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let stacks = tmp.path().join("stacks");
    std::fs::create_dir_all(&stacks).expect("mkdir");
    let stack = |name: &str, extra: &str| {
        format!("name: {name}\ntarget_kind: prod\nkubeconfig: ~/.kube/{name}.config\n{extra}nodes:\n  - {{ name: {name}1, role: control-plane }}\nlayers: [k8s]\n")
    };
    std::fs::write(stacks.join("plain.yaml"), stack("plain", "")).expect("write");
    std::fs::write(
        stacks.join("site.yaml"),
        stack("site", "catalog: layers.yaml\n"),
    )
    .expect("write");
    std::fs::write(
        stacks.join("layers.yaml"),
        "- id: vault\n  title: Vault\n  after: [k8s]\n  detect:\n    - namespace: vault\n  healthy:\n    - namespace: vault\n  install: ansible-playbook vault.yaml\n",
    )
    .expect("write");
    std::fs::write(stacks.join("broken.yaml"), "name: broken\nnosuchkey: 1\n").expect("write");
    std::os::unix::fs::symlink("site.yaml", stacks.join("current.yaml")).expect("symlink");
    let values = FsValues {
        env: Environment {
            cwd: tmp.path().to_path_buf(),
            ..Environment::default()
        },
    };
    let typed = |stack: Option<&str>| Typed {
        stacks_dir: None,
        stack: stack.map(String::from),
    };
    // The catalog file is not a stack; current.yaml is the link, not a stack either.
    assert_eq!(values.stacks(&typed(None)), v(&["broken", "plain", "site"]));
    let builtin = values.layers(&typed(Some("plain")));
    assert!(builtin.contains(&"k8s".to_string()) && builtin.contains(&"ceph".to_string()));
    assert!(!builtin.contains(&"vault".to_string()), "{builtin:?}");
    // The active stack (site) and --stack site both read site's catalog.
    for t in [typed(None), typed(Some("site"))] {
        let ids = values.layers(&t);
        assert!(ids.contains(&"vault".to_string()), "{ids:?}");
        assert!(ids.contains(&"k8s".to_string()), "{ids:?}");
    }
    assert_eq!(values.layers(&typed(Some("broken"))), builtin);
    // No stacks directory at all: nothing, never an error.
    let nowhere = FsValues {
        env: Environment {
            cwd: PathBuf::from("/"),
            ..Environment::default()
        },
    };
    assert!(nowhere.stacks(&typed(None)).is_empty());
    assert_eq!(nowhere.layers(&typed(None)), builtin);
}
