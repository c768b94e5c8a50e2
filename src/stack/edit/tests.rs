//! Golden tests of the one-line edit: every byte but the new line is kept.

use super::*;

/// A hand-written prod topology: comments everywhere, both quoting styles, trailing
/// spaces, a flow list spanning lines back to column 0, block and flow node entries.
const PROD: &str = "\
# dirqual: the 4-node prod cluster in room 2.
#   owner: platform team   (keep this file out of git)

---   # one document
name: \"dirqual\"   
# the kind decides VM vs prod reasoning
target_kind: prod     # never lima here
endpoint: 'https://10.67.2.11:6443'

inventory: bootstrap/hosts.yaml # Ansible
control_group: control_plane
nodes:
  # control plane first
  - { name: dirqual1, role: control-plane }   # the API server
  - name: dirqual2   
    role: worker
  # storage nodes
  - {name: dirqual3,
     role: worker}
  - name: dirqual4
    role: worker
layers: [k8s, cni, ceph, storage,
monitoring, gitops, \"registry\", 'dataops']   # flow list back at column 0
notes: |
  target_kind: is not a key here
  # nor is this a comment
description: \"a quoted value
spanning: lines\"
# trailing comment after the mapping

# and another, after a blank line
";

const LINE: &str = "kubeconfig: ~/.kube/dirqual.config";

/// `original` with `insert` spliced in at byte `at`: the only change allowed.
fn spliced(original: &[u8], at: usize, insert: &[u8]) -> Vec<u8> {
    [&original[..at], insert, &original[at..]].concat()
}

/// Offset just after the line that contains `needle`.
fn after_line(text: &[u8], needle: &str) -> usize {
    let i = text
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .unwrap();
    i + text[i..].iter().position(|&b| b == b'\n').unwrap() + 1
}

fn refused(text: &str) -> Error {
    add_kubeconfig_line(text.as_bytes(), "dirqual").unwrap_err()
}

#[test]
fn golden_prod_topology_gains_exactly_one_line() {
    let original = PROD.as_bytes();
    let got = add_kubeconfig_line(original, "dirqual").unwrap();
    let at = after_line(original, "target_kind: prod");
    assert_eq!(
        String::from_utf8(got.clone()).unwrap(),
        String::from_utf8(spliced(original, at, format!("{LINE}\n").as_bytes())).unwrap()
    );
    // byte diff: common prefix up to `at`, common suffix after the line, nothing else
    assert_eq!(&got[..at], &original[..at]);
    assert_eq!(&got[at + LINE.len() + 1..], &original[at..]);
    let parsed: Value = yaml_serde::from_slice(&got).unwrap();
    assert_eq!(parsed["kubeconfig"], Value::from("~/.kube/dirqual.config"));
    assert_eq!(parsed["name"], Value::from("dirqual"));
    let keys: Vec<&str> = parsed
        .as_mapping()
        .unwrap()
        .keys()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "name",
            "target_kind",
            "kubeconfig",
            "endpoint",
            "inventory",
            "control_group",
            "nodes",
            "layers",
            "notes",
            "description"
        ]
    );
}

#[test]
fn golden_crlf_file_gets_a_crlf_line() {
    let original = PROD.replace('\n', "\r\n").into_bytes();
    let got = add_kubeconfig_line(&original, "dirqual").unwrap();
    let at = after_line(&original, "target_kind: prod");
    assert_eq!(
        got,
        spliced(&original, at, format!("{LINE}\r\n").as_bytes())
    );
}

#[test]
fn golden_no_final_newline_stays_without_one() {
    // target_kind in the middle: the last bytes are untouched
    let original = PROD.trim_end_matches('\n').as_bytes();
    let got = add_kubeconfig_line(original, "dirqual").unwrap();
    let at = after_line(original, "target_kind: prod");
    assert_eq!(got, spliced(original, at, format!("{LINE}\n").as_bytes()));
    assert!(got.ends_with(b"after a blank line"));
    // target_kind is the very last line, without a newline
    let original = b"name: dirqual\r\ntarget_kind: prod";
    let got = add_kubeconfig_line(original, "dirqual").unwrap();
    assert_eq!(
        got,
        b"name: dirqual\r\ntarget_kind: prod\r\nkubeconfig: ~/.kube/dirqual.config"
    );
}

#[test]
fn golden_bom_is_kept() {
    let original = [BOM, PROD.as_bytes()].concat();
    let got = add_kubeconfig_line(&original, "dirqual").unwrap();
    let at = after_line(&original, "target_kind: prod");
    assert_eq!(got, spliced(&original, at, format!("{LINE}\n").as_bytes()));
    assert!(got.starts_with(BOM));
}

#[test]
fn after_name_when_no_target_kind_and_quoted_keys_count() {
    let original = "# c\n'name': dirqual # n\nnodes:\n- {name: a}\n";
    let got = add_kubeconfig_line(original.as_bytes(), "dirqual").unwrap();
    assert_eq!(
        String::from_utf8(got).unwrap(),
        format!("# c\n'name': dirqual # n\n{LINE}\nnodes:\n- {{name: a}}\n")
    );
    let original = "\"target_kind\": prod\nname: dirqual\n";
    let got = add_kubeconfig_line(original.as_bytes(), "dirqual").unwrap();
    assert_eq!(
        String::from_utf8(got).unwrap(),
        format!("\"target_kind\": prod\n{LINE}\nname: dirqual\n")
    );
}

#[test]
fn at_the_end_of_the_mapping_before_trailing_comments_and_end_marker() {
    let original =
        "endpoint: https://x:6443\nnodes:\n  - a   \n  # inside\n\n# after\n...\n# tail\n";
    let got = add_kubeconfig_line(original.as_bytes(), "dirqual").unwrap();
    assert_eq!(
            String::from_utf8(got).unwrap(),
            format!("endpoint: https://x:6443\nnodes:\n  - a   \n{LINE}\n  # inside\n\n# after\n...\n# tail\n")
        );
}

#[test]
fn refuses_an_existing_kubeconfig_key() {
    let e = refused("name: dirqual\ntarget_kind: prod\nkubeconfig: ~/.kube/other.config\n");
    assert_eq!(
        e.message,
        "the topology of stack `dirqual` already declares `kubeconfig:` (line 3)"
    );
    assert_eq!(e.exit.code(), 1);
}

#[test]
fn refuses_flow_mappings_lists_and_several_documents() {
    let e = refused("{name: dirqual, target_kind: prod}\n");
    assert_eq!(
            e.message,
            "the topology of stack `dirqual` is a flow mapping `{...}` (line 1), not a block mapping of `key: value` lines"
        );
    assert_eq!(
        e.hint,
        "add the line `kubeconfig: ~/.kube/dirqual.config` to the stack's topology by hand"
    );
    let e = refused("# c\n--- {name: dirqual}\n");
    assert!(
        e.message.contains("has content on its `---` line (line 2)"),
        "{}",
        e.message
    );
    let e = refused("---\nname: dirqual\n---\nname: other\n");
    assert_eq!(
            e.message,
            "the topology of stack `dirqual` holds several YAML documents (`---` at line 3); a topology is one document"
        );
    let e = refused("name: dirqual\n...\nname: other\n");
    assert!(
        e.message.contains("content after `...` at line 3"),
        "{}",
        e.message
    );
    let e = refused("- name: dirqual\n");
    assert!(
        e.message
            .contains("does not start with a `key: value` line"),
        "{}",
        e.message
    );
    let e = refused("  name: dirqual\n  target_kind: prod\n");
    assert!(
        e.message.contains("top-level keys indented (line 1)"),
        "{}",
        e.message
    );
    let e = refused("");
    assert!(e.message.contains("is not a YAML mapping"), "{}", e.message);
}

#[test]
fn refuses_a_target_kind_spanning_lines() {
    for text in [
        "name: dirqual\ntarget_kind:\n  prod\n",
        "name: dirqual\ntarget_kind: \"pr\nod\"\n",
        "name: dirqual\ntarget_kind: |\n  prod\n",
        "name: dirqual\ntarget_kind: prod\n  # a comment is fine but this is not\n  more\n",
        "target_kind: [prod,\n lima]\n",
        "target_kind:\n- prod\n",
    ] {
        let e = refused(text);
        assert!(
            e.message
                .starts_with("the topology of stack `dirqual`: the value of `target_kind:`")
                || e.message.contains("is not valid YAML"),
            "{text:?}: {}",
            e.message
        );
    }
    let e = refused("name: dirqual\ntarget_kind: |\n  prod\n");
    assert_eq!(
        e.message,
        "the topology of stack `dirqual`: the value of `target_kind:` (line 2) spans several lines"
    );
}

#[test]
fn refuses_invalid_yaml_bad_names_and_bare_cr() {
    let e = refused("name: dirqual\ntarget_kind: [prod\n");
    assert!(
        e.message
            .starts_with("the topology of stack `dirqual` is not valid YAML: "),
        "{}",
        e.message
    );
    let e = add_kubeconfig_line(b"name: x\n", "Bad_Name").unwrap_err();
    assert_eq!(e.message, "invalid stack name `Bad_Name`");
    let e = add_kubeconfig_line(b"name: x\n", "-x").unwrap_err();
    assert_eq!(e.message, "invalid stack name `-x`");
    let e = refused("name: dirqual\rtarget_kind: prod\r");
    assert!(e.message.contains("bare CR"), "{}", e.message);
    let e = add_kubeconfig_line(b"name: caf\xe9\n", "dirqual").unwrap_err();
    assert!(e.message.contains("is not UTF-8 text"), "{}", e.message);
}

#[test]
fn a_bad_edit_is_caught_by_the_reparse() {
    let original = "name: dirqual\nnotes: |\n  line one\n  line two\ntarget_kind: prod\n";
    let Value::Mapping(mut expected) = yaml_serde::from_str(original).unwrap() else {
        panic!("not a mapping")
    };
    expected.insert("kubeconfig".into(), "~/.kube/dirqual.config".into());
    let line = format!("{LINE}\n");
    let good = after_line(original.as_bytes(), "target_kind");
    assert!(reads_as(
        &spliced(original.as_bytes(), good, line.as_bytes()),
        &expected
    ));
    // a splice inside the block scalar parses, but to something else: caught
    let inside = after_line(original.as_bytes(), "line one");
    assert!(!reads_as(
        &spliced(original.as_bytes(), inside, line.as_bytes()),
        &expected
    ));
    // a splice that breaks the YAML: caught
    assert!(!reads_as(
        &spliced(original.as_bytes(), 2, line.as_bytes()),
        &expected
    ));
}

#[test]
fn a_keep_block_scalar_at_the_end_keeps_its_blank_lines() {
    let original = "endpoint: x\nnotes: |+\n  text\n\n";
    let got = add_kubeconfig_line(original.as_bytes(), "dirqual").unwrap();
    assert_eq!(
        String::from_utf8(got).unwrap(),
        format!("endpoint: x\nnotes: |+\n  text\n\n{LINE}\n")
    );
}
