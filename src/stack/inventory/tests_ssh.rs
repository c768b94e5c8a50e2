//! Tests of the SSH connection variables and of the control-plane host choice.

use super::tests::{inv, PROD};
use super::*;

#[test]
fn ssh_target_from_vars_ports_as_int_and_string_and_key_with_tilde() {
    let i = inv(PROD);
    let home = Path::new("/home/op");
    assert_eq!(
        i.ssh_target("dirqual1", Some(home)).unwrap(),
        SshTarget {
            host: "10.67.2.11".into(),
            user: Some("ops".into()),
            port: Some(2222),
            key: None
        }
    );
    assert_eq!(
        i.ssh_target("dirqual2", Some(home)).unwrap(),
        SshTarget {
            host: "dirqual2".into(),
            user: Some("ops".into()),
            port: Some(2200),
            key: None
        }
    );
    assert_eq!(
        i.ssh_target("dirqual4", Some(home)).unwrap().key,
        Some(PathBuf::from("/home/op/.ssh/dirqual"))
    );
}

#[test]
fn ssh_target_without_vars_is_the_inventory_name() {
    let i = inv("all:\n  hosts:\n    node1:\n");
    assert_eq!(
        i.ssh_target("node1", None).unwrap(),
        SshTarget {
            host: "node1".into(),
            user: None,
            port: None,
            key: None
        }
    );
}

#[test]
fn ssh_aliases_and_key_forms() {
    let i = inv(r#"
all:
  hosts:
    a: {ansible_ssh_host: 10.0.0.5, ansible_ssh_user: root, ansible_ssh_port: 22}
    b: {ansible_private_key_file: /keys/id}
    c: {ansible_ssh_private_key_file: "~"}
    d: {ansible_ssh_private_key_file: keys/id}
"#);
    let home = Some(Path::new("/root"));
    let a = i.ssh_target("a", home).unwrap();
    assert_eq!(
        (a.host.as_str(), a.user.as_deref(), a.port),
        ("10.0.0.5", Some("root"), Some(22))
    );
    let key = |h: &str| i.ssh_target(h, home).unwrap().key;
    assert_eq!(key("b"), Some(PathBuf::from("/keys/id")));
    assert_eq!(key("c"), Some(PathBuf::from("/root")));
    assert_eq!(key("d"), Some(PathBuf::from("keys/id")));
}

#[test]
fn key_with_tilde_needs_home_and_refuses_other_users() {
    let i = inv("all:\n  hosts:\n    a: {ansible_ssh_private_key_file: ~/.ssh/id}\n    b: {ansible_ssh_private_key_file: ~bob/.ssh/id}\n");
    let e = i.ssh_target("a", None).unwrap_err();
    assert_eq!(
            e.message,
            "host `a` in inventory bootstrap/hosts.yaml: ansible_ssh_private_key_file is \"~/.ssh/id\" but HOME is not set to expand `~`"
        );
    let e = i.ssh_target("b", Some(Path::new("/h"))).unwrap_err();
    assert!(
        e.message.contains("only `~` and `~/` are expanded"),
        "{}",
        e.message
    );
}

#[test]
fn port_out_of_range_or_not_numeric_is_an_error() {
    for (port, shown) in [
        ("0", "0"),
        ("65536", "65536"),
        ("-1", "-1"),
        ("\"70000\"", "\"70000\""),
        ("\"ssh\"", "\"ssh\""),
        ("[22]", "a list"),
    ] {
        let i = inv(&format!(
            "all:\n  hosts:\n    n1:\n      ansible_port: {port}\n"
        ));
        let e = i.ssh_target("n1", None).unwrap_err();
        assert_eq!(
                e.message,
                format!("host `n1` in inventory bootstrap/hosts.yaml: ansible_port is {shown}, not a port number 1-65535")
            );
        assert_eq!(
                e.hint,
                "fix ansible_port for n1 in bootstrap/hosts.yaml (on the host or in a group it belongs to)"
            );
        assert_eq!(e.exit.code(), 1);
    }
}

#[test]
fn templated_and_vaulted_connection_vars_are_refused() {
    let i = inv("all:\n  hosts:\n    a: {ansible_host: \"{{ ip }}\"}\n    b:\n      ansible_user: !vault |\n        $ANSIBLE_VAULT;1.1;AES256\n        6162\n");
    let e = i.ssh_target("a", None).unwrap_err();
    assert!(
        e.message.contains("ansible_host is a Jinja template"),
        "{}",
        e.message
    );
    let e = i.ssh_target("b", None).unwrap_err();
    assert!(
        e.message.contains("ansible_user is vault-encrypted"),
        "{}",
        e.message
    );
}

#[test]
fn control_plane_host_explicit_group() {
    let i = inv(PROD);
    let (host, t) = i.control_plane_host(Some("workers"), None).unwrap();
    assert_eq!(host, "dirqual1");
    assert_eq!(t.host, "10.67.2.11");
}

#[test]
fn control_plane_host_default_groups_in_documented_order() {
    let (host, _) = inv(PROD).control_plane_host(None, None).unwrap();
    assert_eq!(host, "dirqual1");
    // kube_control_plane comes before masters in the default order, whatever the file says
    let i = inv("
all:
  children:
    masters:
      hosts: {old1: }
    controllers:
      hosts: {ctl1: }
    kube_control_plane:
      hosts: {kcp1: , kcp2: }
");
    assert_eq!(i.control_plane_host(None, None).unwrap().0, "kcp1");
    let i = inv("all:\n  children:\n    controllers:\n      hosts: {ctl1: }\n");
    assert_eq!(i.control_plane_host(None, None).unwrap().0, "ctl1");
    assert_eq!(
        DEFAULT_CONTROL_GROUPS,
        [
            "control_plane",
            "kube_control_plane",
            "masters",
            "controllers"
        ]
    );
}

#[test]
fn error_no_default_control_group() {
    let i = inv("all:\n  children:\n    web:\n      hosts: {w1: }\n");
    let e = i.control_plane_host(None, None).unwrap_err();
    assert_eq!(
            e.message,
            "inventory bootstrap/hosts.yaml has none of the default control-plane groups (control_plane, kube_control_plane, masters, controllers); its groups: all, web"
        );
    assert_eq!(
            e.hint,
            "set `control_group:` in the topology to the group of bootstrap/hosts.yaml that holds the control-plane host"
        );
}

#[test]
fn error_missing_group_lists_the_groups() {
    let i = inv(PROD);
    let e = i
        .control_plane_host(Some("Control_Plane"), None)
        .unwrap_err();
    assert_eq!(
            e.message,
            "group `Control_Plane` not found in inventory bootstrap/hosts.yaml; its groups: all, prod, k8s, control_plane, workers, monitoring, storage"
        );
    assert_eq!(
            e.hint,
            "use one of the groups of bootstrap/hosts.yaml (group names are used as written, case included)"
        );
    assert_eq!(i.hosts_of("nope").unwrap_err().exit.code(), 1);
}

#[test]
fn error_empty_group() {
    let i = inv("all:\n  children:\n    control_plane:\n    workers:\n      hosts: {w1: }\n");
    assert_eq!(i.hosts_of("control_plane").unwrap(), Vec::<String>::new());
    let e = i.control_plane_host(None, None).unwrap_err();
    assert_eq!(
        e.message,
        "group `control_plane` in inventory bootstrap/hosts.yaml has no hosts"
    );
    assert_eq!(
            e.hint,
            "list the control-plane host under `control_plane:` → `hosts:` in bootstrap/hosts.yaml, or set `control_group:` in the topology to the group that holds it"
        );
}

#[test]
fn error_unknown_host() {
    let e = inv(PROD).host_vars("ghost").unwrap_err();
    assert_eq!(
        e.message,
        "host `ghost` not found in inventory bootstrap/hosts.yaml"
    );
}
