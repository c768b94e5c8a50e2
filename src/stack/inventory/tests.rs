//! Tests of the inventory reader: groups, variables, precedence, patterns, errors.

use super::*;

pub(super) const PROD: &str = r#"
# Inventory of the dirqual prod stack.
all:
  vars:
    ansible_user: ops
    level: all
    site: all
  hosts:
    bastion:
      ansible_host: 10.67.0.1
  children:
    prod:
      vars:
        level: prod
      children:
        k8s:
          vars:
            level: k8s
            site: k8s
          children:
            control_plane:
              vars:
                level: control_plane
              hosts:
                dirqual1:
                  ansible_host: 10.67.2.11
                  ansible_port: 2222
                  level: host
                dirqual2:
                  ansible_port: "2200"
            workers:
              hosts:
                dirqual3:
                dirqual4:
                  ansible_ssh_private_key_file: ~/.ssh/dirqual
                dirqual1:
    monitoring:
      hosts:
        dirqual4:
      vars:
        scrape: "yes"
storage:
  children:
    monitoring:
      hosts:
        dirqual3:
      vars:
        retention: 15d
"#;

pub(super) fn inv(text: &str) -> Inventory {
    match Inventory::parse(text, Path::new("bootstrap/hosts.yaml")) {
        Ok(i) => i,
        Err(e) => panic!("{e}"),
    }
}

pub(super) fn err(text: &str) -> Error {
    match Inventory::parse(text, Path::new("bootstrap/hosts.yaml")) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

pub(super) fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

pub(super) fn var(i: &Inventory, host: &str, name: &str) -> Value {
    i.host_vars(host)
        .unwrap()
        .get(name)
        .cloned()
        .unwrap_or(Value::Null)
}

#[test]
fn nested_children_three_levels_deep() {
    let i = inv(PROD);
    assert_eq!(
        i.hosts_of("all").unwrap(),
        s(&["bastion", "dirqual1", "dirqual2", "dirqual3", "dirqual4"])
    );
    assert_eq!(
        i.hosts_of("prod").unwrap(),
        s(&["dirqual1", "dirqual2", "dirqual3", "dirqual4"])
    );
    assert_eq!(
        i.hosts_of("k8s").unwrap(),
        s(&["dirqual1", "dirqual2", "dirqual3", "dirqual4"])
    );
    // dirqual1 is listed twice (control_plane and workers): once in the result.
    assert_eq!(
        i.hosts_of("workers").unwrap(),
        s(&["dirqual1", "dirqual3", "dirqual4"])
    );
    assert_eq!(
        i.hosts_of("control_plane").unwrap(),
        s(&["dirqual1", "dirqual2"])
    );
    assert_eq!(
        i.groups(),
        vec![
            "all",
            "prod",
            "k8s",
            "control_plane",
            "workers",
            "monitoring",
            "storage"
        ]
    );
    assert!(i.warnings().is_empty(), "{:?}", i.warnings());
}

#[test]
fn a_group_under_two_parents_merges_hosts_and_vars() {
    let i = inv(PROD);
    assert_eq!(
        i.hosts_of("monitoring").unwrap(),
        s(&["dirqual3", "dirqual4"])
    );
    assert_eq!(i.hosts_of("storage").unwrap(), s(&["dirqual3", "dirqual4"]));
    // both occurrences' vars apply to every host of the group
    assert_eq!(var(&i, "dirqual4", "scrape"), Value::from("yes"));
    assert_eq!(var(&i, "dirqual4", "retention"), Value::from("15d"));
    assert_eq!(var(&i, "dirqual3", "scrape"), Value::from("yes"));
}

#[test]
fn vars_precedence_all_group_child_group_host() {
    let i = inv(PROD);
    // host > control_plane > k8s > prod > all
    assert_eq!(var(&i, "dirqual1", "level"), Value::from("host"));
    assert_eq!(var(&i, "dirqual2", "level"), Value::from("control_plane"));
    assert_eq!(var(&i, "dirqual2", "site"), Value::from("k8s"));
    assert_eq!(var(&i, "dirqual3", "level"), Value::from("k8s"));
    assert_eq!(var(&i, "bastion", "level"), Value::from("all"));
    assert_eq!(var(&i, "dirqual3", "ansible_user"), Value::from("ops"));
}

#[test]
fn deeper_group_wins_over_its_ancestor_whatever_the_names() {
    let i = inv("
all:
  children:
    zzz:
      vars: {color: parent}
      children:
        aaa:
          vars: {color: child}
          hosts: {h1: }
");
    assert_eq!(var(&i, "h1", "color"), Value::from("child"));
}

#[test]
fn siblings_later_in_alphabetical_order_win_not_later_in_file() {
    let text = "
all:
  children:
    beta:
      vars: {color: beta}
      hosts: {h1: }
    alpha:
      vars: {color: alpha}
      hosts: {h1: }
";
    assert_eq!(var(&inv(text), "h1", "color"), Value::from("beta"));
    // ansible_group_priority overrides the alphabetical tie-break
    let text = text.replace(
        "{color: alpha}",
        "{color: alpha, ansible_group_priority: 10}",
    );
    assert_eq!(var(&inv(&text), "h1", "color"), Value::from("alpha"));
}

#[test]
fn depth_is_the_longest_path_from_all() {
    // `c` is top-level (depth 1 that way) but also under a/b: depth 3, so it wins over b.
    let i = inv("
c:
  vars: {x: c}
  hosts: {h1: }
a:
  children:
    b:
      vars: {x: b}
      hosts: {h1: }
      children:
        c:
");
    assert_eq!(var(&i, "h1", "x"), Value::from("c"));
    assert_eq!(i.hosts_of("a").unwrap(), s(&["h1"]));
}

#[test]
fn host_vars_merge_across_occurrences_later_wins() {
    let i = inv("
all:
  children:
    g1:
      hosts:
        h1: {a: 1, b: 1}
    g2:
      hosts:
        h1: {b: 2}
");
    let v = i.host_vars("h1").unwrap();
    assert_eq!(v.get("a"), Some(&Value::from(1)));
    assert_eq!(v.get("b"), Some(&Value::from(2)));
}

#[test]
fn host_keys_with_port_and_ranges_expand_as_ansible() {
    let i = inv("
all:
  children:
    control_plane:
      hosts:
        cp[01:03]:
        edge-[a:c]:2222:
        node[1:5:2].lan:
        '[fe80::1]:2200':
        fe80::2:
");
    assert_eq!(
        i.hosts_of("control_plane").unwrap(),
        s(&[
            "cp01",
            "cp02",
            "cp03",
            "edge-a",
            "edge-b",
            "edge-c",
            "node1.lan",
            "node3.lan",
            "node5.lan",
            "fe80::1",
            "fe80::2"
        ])
    );
    assert_eq!(i.ssh_target("edge-b", None).unwrap().port, Some(2222));
    assert_eq!(i.ssh_target("fe80::1", None).unwrap().port, Some(2200));
    assert_eq!(i.ssh_target("fe80::2", None).unwrap().port, None);
    let e = err("all:\n  hosts:\n    n[3:1:0]:\n");
    assert!(
        e.message.contains("host pattern `n[3:1:0]` in group `all`"),
        "{}",
        e.message
    );
    let e = err("all:\n  hosts:\n    n[1:100000]:\n");
    assert!(e.message.contains("more than 10000 hosts"), "{}", e.message);
}

#[test]
fn string_shorthand_and_other_top_level_groups() {
    let i = inv("
all:
  hosts: lonely
masters:
  hosts: m1
  children: etcd
etcd:
  hosts:
    e1:
");
    assert_eq!(i.hosts_of("masters").unwrap(), s(&["m1", "e1"]));
    assert_eq!(i.hosts_of("all").unwrap(), s(&["lonely", "m1", "e1"]));
}

#[test]
fn unknown_group_keys_are_warnings_as_in_ansible() {
    let i = inv("all:\n  host:\n    n1:\n  hosts:\n    n2:\nversion: 2\n");
    assert_eq!(
            i.warnings(),
            [
                "inventory bootstrap/hosts.yaml: skipping key `host` in group `all`: only `hosts`, `vars` and `children` are valid",
                "inventory bootstrap/hosts.yaml: skipping top-level key `version`: not a group definition (found a number), as Ansible does",
            ]
        );
    assert_eq!(i.hosts_of("all").unwrap(), s(&["n2"]));
}

#[test]
fn merge_keys_are_applied() {
    let i = inv("
all:
  hosts:
    n1: &base {ansible_user: core, ansible_port: 22}
    n2:
      <<: *base
      ansible_port: 2200
");
    let t = i.ssh_target("n2", None).unwrap();
    assert_eq!((t.user.as_deref(), t.port), (Some("core"), Some(2200)));
}

#[test]
fn error_not_a_mapping_empty_and_invalid_yaml() {
    let e = err("- all\n- web\n");
    assert_eq!(
        e.message,
        "inventory bootstrap/hosts.yaml is not a YAML mapping of groups (found a list)"
    );
    assert!(e
        .hint
        .starts_with("bootstrap/hosts.yaml must be an Ansible YAML inventory"));
    let e = err("# only a comment\n");
    assert_eq!(e.message, "inventory bootstrap/hosts.yaml is empty");
    let e = err("all:\n  hosts:\n    a: [\n");
    assert!(
        e.message
            .starts_with("inventory bootstrap/hosts.yaml is not valid YAML: "),
        "{}",
        e.message
    );
    assert!(e.message.contains("line"), "{}", e.message);
    assert_eq!(
        e.hint,
        "fix the YAML syntax of bootstrap/hosts.yaml at the place shown"
    );
    let e = err("plugin: aws_ec2\n");
    assert!(
        e.message.contains("inventory plugin configuration"),
        "{}",
        e.message
    );
}

#[test]
fn error_hosts_written_as_a_list() {
    let e = err("all:\n  hosts:\n    - n1\n    - n2\n");
    assert_eq!(
        e.message,
        "inventory bootstrap/hosts.yaml: `hosts:` of group `all` must be a mapping, found a list"
    );
    let e = err("all:\n  hosts:\n    n1: 10.0.0.1\n");
    assert_eq!(
            e.message,
            "inventory bootstrap/hosts.yaml: host `n1` in group `all` has a string where its variables (a mapping) belong"
        );
    let e = err("all:\n  children:\n    g: [a]\n");
    assert!(
        e.message
            .contains("child group `g` of `all` must be a mapping or empty"),
        "{}",
        e.message
    );
}

#[test]
fn error_group_loop() {
    // b -> a is recorded first (depth-first), so closing the loop is a -> b
    let e = err("a:\n  children:\n    b:\n      children:\n        a:\n");
    assert_eq!(
        e.message,
        "inventory bootstrap/hosts.yaml: adding group `b` as a child of `a` creates a loop"
    );
}

#[test]
fn load_reads_the_file_and_names_it_in_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hosts.yaml");
    std::fs::write(&path, PROD).unwrap();
    let i = Inventory::load(&path).unwrap();
    assert_eq!(i.path(), path);
    assert_eq!(i.hosts_of("control_plane").unwrap().len(), 2);

    let missing = dir.path().join("nope.yaml");
    let e = Inventory::load(&missing).unwrap_err();
    assert_eq!(
        e.message,
        format!("inventory {} not found", missing.display())
    );
    assert!(
        e.hint.contains("`inventory:` in the topology"),
        "{}",
        e.hint
    );

    // a directory cannot be read as a file (works as root too, unlike a chmod)
    let e = Inventory::load(dir.path()).unwrap_err();
    assert!(
        e.message
            .starts_with(&format!("cannot read inventory {}: ", dir.path().display())),
        "{}",
        e.message
    );
    assert!(
        e.hint.contains(&dir.path().display().to_string()),
        "{}",
        e.hint
    );

    let bad = dir.path().join("latin1.yaml");
    std::fs::write(&bad, b"all:\n  hosts:\n    caf\xe9:\n").unwrap();
    let e = Inventory::load(&bad).unwrap_err();
    assert!(e.message.contains("is not UTF-8 text"), "{}", e.message);
}
