//! `kubeconfig fetch` reads only a kubeconfig over ssh: a topology whose `admin_conf:` names
//! `/etc/shadow`, a private key or a hidden file is refused before any ssh runs (exit 1, a
//! hint, nothing written), as the allowlist would refuse the `cat` itself.

use std::fs;

use crate::support::*;

const INVENTORY: &str = "\
all:
  children:
    k8s:
      children:
        control_plane:
          hosts:
            dirqual1:
              ansible_host: 10.67.2.11
";

#[test]
fn an_admin_conf_that_is_not_a_kubeconfig_is_refused_before_any_ssh() {
    for bad in [
        "/etc/shadow",
        "/root/.ssh/id_rsa",
        "/etc/kubernetes/pki/ca.key",
        "/etc/kubernetes/.admin.conf",
    ] {
        let bed = Bed::new();
        bed.write_stack("dirqual", &format!("{PROD_DECLARED}admin_conf: {bad}\n"));
        bed.select("dirqual");
        fs::create_dir_all(bed.repo.join("bootstrap")).expect("mkdir");
        fs::write(bed.repo.join("bootstrap/hosts.yaml"), INVENTORY).expect("write");
        bed.stub("ssh", "echo must-not-run");
        let before = bed.tree();
        let out = bed.cmd().args(["--no-input", "kubeconfig", "fetch"]).run();
        out.code(1).no_stdout();
        let file = bed.repo.join("stacks/dirqual.yaml");
        out.stderr_eq(&format!(
            "kubectl-nestor: error: admin_conf `{bad}` in {} is not a kubeconfig path: nestor reads only a kubeconfig over ssh\n\
             hint: point `admin_conf:` at the kubeadm admin kubeconfig (default /etc/kubernetes/admin.conf): a *.conf, *.yaml, *.yml or *.kubeconfig file, or one named config or kubeconfig, outside ~/.ssh, never a key or a hidden file\n",
            file.display()
        ));
        assert!(bed.calls("ssh").is_empty(), "{bad}");
        assert_eq!(bed.tree(), before, "{bad}");
    }
}
