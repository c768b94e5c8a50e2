//! `kubeconfig fetch` with a recording stub `ssh` on PATH: the inventory-driven argv, the
//! write rules (0600, 0700 parent, unchanged, backup after an interactive yes, refusals),
//! the server rewrite, each failure's message and exit code, and no secret in any output.
//! The same flow against a real sshd is in `sshd.rs`.

use std::fs;
use std::path::{Path, PathBuf};

use snapbox::str;

use crate::harness::{golden, text_snap};
use crate::support::*;

const INVENTORY: &str = "\
all:
  vars:
    ansible_user: ops
  children:
    k8s:
      children:
        control_plane:
          vars:
            ansible_port: 2222
          hosts:
            dirqual1:
              ansible_host: 10.67.2.11
              ansible_ssh_private_key_file: keys/id_dirqual
            dirqual2:
        workers:
          hosts:
            dirqual3:
";

struct Fetch {
    bed: Bed,
    /// The file the stub ssh prints (the "remote" admin.conf).
    remote: PathBuf,
    /// The declared kubeconfig.
    dest: PathBuf,
}

/// A prod stack with a declared kubeconfig, the inventory above, a stub ssh printing an
/// admin.conf for `server`, and a kubectl stub serving the dirqual nodes.
fn setup(server: &str) -> Fetch {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.select("dirqual");
    fs::create_dir_all(bed.repo.join("bootstrap")).expect("mkdir");
    fs::write(bed.repo.join("bootstrap/hosts.yaml"), INVENTORY).expect("write");
    let remote = bed.tmp.path().join("remote-admin.conf");
    fs::write(&remote, admin_conf(server)).expect("write");
    bed.stub("ssh", &format!("cat '{}'", remote.display()));
    bed.kubectl_serving_nodes(&nodes_dirqual());
    let dest = bed.home.join(".kube/dirqual.config");
    Fetch { bed, remote, dest }
}

/// `kubeconfig fetch` without a terminal, and the same with `-v`.
const FETCH: &[&str] = &["--no-input", "kubeconfig", "fetch"];
const FETCH_V: &[&str] = &["--no-input", "-v", "kubeconfig", "fetch"];

impl Fetch {
    /// `kubectl nestor ARGS` on the bed, and its stderr.
    fn run(&self, args: &[&str]) -> (Outcome, String) {
        let out = self.bed.cmd().args(args).run();
        let err = stderr_of(&out);
        (out, err)
    }

    /// `kubectl nestor ARGS` exits `code` and leaves every file of the bed as it was; the
    /// outcome and its stderr.
    #[track_caller]
    fn fails_unchanged(&self, args: &[&str], code: i32) -> (Outcome, String) {
        let before = self.bed.tree();
        let (out, err) = self.run(args);
        out.code(code);
        assert_eq!(self.bed.tree(), before, "{args:?} wrote: {err}");
        (out, err)
    }

    /// The remote admin.conf holds `content`, which `fetch -v` refuses (exit 1) before
    /// writing or running kubectl: nothing written, no secret printed; its stderr.
    #[track_caller]
    fn refuses_content(&self, content: &str, what: &str) -> String {
        fs::write(&self.remote, content).expect("write");
        let (out, err) = self.fails_unchanged(FETCH_V, 1);
        // (each caller snapshots the whole stderr: "...; nothing was written", the hint)
        no_secret(&out);
        assert!(self.bed.calls("kubectl").is_empty(), "{what}: kubectl ran");
        err
    }
}

fn no_secret(out: &Outcome) {
    for (what, text) in [("stdout", stdout_of(out)), ("stderr", stderr_of(out))] {
        assert!(
            !text.contains(SECRET_MARKER),
            "a secret leaked on {what}:\n{text}"
        );
    }
}

fn argv(s: &str) -> Vec<String> {
    s.split(' ').map(String::from).collect()
}

#[test]
fn inventory_port_and_key_become_p_and_i_and_the_file_is_written_0600() {
    let f = setup("https://10.67.2.11:6443");
    let out = f
        .bed
        .cmd()
        .args(["kubeconfig", "fetch", "-v", "--no-color"])
        .run();
    let (text, err) = (stdout_of(&out), stderr_of(&out));
    out.code(0);
    let key = f.bed.repo.join("keys/id_dirqual");
    assert_eq!(
        f.bed.calls("ssh"),
        vec![argv(&format!(
            "-p 2222 -i {} -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf",
            key.display()
        ))]
    );
    assert_eq!(
        fs::read(&f.dest).expect("read"),
        fs::read(&f.remote).expect("read")
    );
    assert_eq!(mode(&f.dest), 0o600);
    assert_eq!(mode(&f.bed.home.join(".kube")), 0o700);
    // verified through the new file
    let calls = f.bed.reads();
    assert_eq!(calls.len(), 1);
    text_snap(&out.redact_text(&calls[0].join(" ")), str!["--kubeconfig=/t/home/.kube/dirqual.config --context=kubernetes-admin@kubernetes --server=https://10.67.2.11:6443 --request-timeout=10s --cache-dir=/t/home/.kube/cache proxy --unix-socket=/tmp/kubectl-nestor-XXXXXX/proxy.sock --reject-methods=^(?:[^GH].*|G|GE|G[^E].*|GE[^T].*|GET.+|H|HE|HEA|H[^E].*|HE[^A].*|HEA[^D].*|HEAD.+)$ --accept-paths=^/api/v1/nodes$ --reject-paths=/secrets(/|$),/token(/|$),/proxy(/|$),/exec(/|$),/attach(/|$),/portforward(/|$),/log(/|$)"]);
    out.stdout_snap(str![[r#"
stack       dirqual (prod)
source      ops@10.67.2.11:/etc/kubernetes/admin.conf (host dirqual1 of /t/repo/bootstrap/hosts.yaml)
kubeconfig  /t/home/.kube/dirqual.config (written, mode 0600)
context     kubernetes-admin@kubernetes
endpoint    https://10.67.2.11:6443
verified    nodes read through kubectl proxy: dirqual1..4, 4/4 Ready
  NAME      READY  ROLES          INTERNAL-IP  VERSION
  dirqual1  Ready  control-plane  10.67.2.11   v1.31.4
  dirqual2  Ready  <none>         10.67.2.12   v1.31.4
  dirqual3  Ready  <none>         10.67.2.13   v1.31.4
  dirqual4  Ready  <none>         10.67.2.14   v1.31.4

"#]]);
    // -v shows each argv, never the content
    out.stderr_snap(str![[r#"
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: exec: kubectl --kubeconfig=/tmp/kubectl-nestor-fetch-XXXXXX/fetched.kubeconfig --context=kubernetes-admin@kubernetes --server=https://10.67.2.11:6443 --request-timeout=10s --cache-dir=/t/home/.kube/cache config view -o=json
kubectl-nestor: exec: exit 0 in #.#s: kubectl
kubectl-nestor: exec: kubectl --kubeconfig=/t/home/.kube/dirqual.config --context=kubernetes-admin@kubernetes --server=https://10.67.2.11:6443 --request-timeout=10s --cache-dir=/t/home/.kube/cache config view --minify -o=json
kubectl-nestor: exec: exit 0 in #.#s: kubectl
kubectl-nestor: step: authority (kubectl config view) #.#..#.# ms
kubectl-nestor: read path: proxy (one kubectl proxy on a private unix socket)
kubectl-nestor: exec: kubectl --kubeconfig=/t/home/.kube/dirqual.config --context=kubernetes-admin@kubernetes --server=https://10.67.2.11:6443 --request-timeout=10s --cache-dir=/t/home/.kube/cache proxy --unix-socket=/tmp/kubectl-nestor-XXXXXX/proxy.sock '--reject-methods=^(?:[^GH].*|G|GE|G[^E].*|GE[^T].*|GET.+|H|HE|HEA|H[^E].*|HE[^A].*|HEA[^D].*|HEAD.+)$' '--accept-paths=^/api/v1/nodes$' '--reject-paths=/secrets(/|$),/token(/|$),/proxy(/|$),/exec(/|$),/attach(/|$),/portforward(/|$),/log(/|$)' (in the background)
kubectl-nestor: proxy: serving after #.#s (pid #)
kubectl-nestor: step: proxy start (until its socket accepts) #.#..#.# ms
kubectl-nestor: round 1: 1 reads, 1 GETs at once (at most 64 in flight)
kubectl-nestor: get: /api/v1/nodes: 200 (9221 bytes, decoded as they arrived) in #.#s
kubectl-nestor: step: reads round 1 (1 reads) #.#..#.# ms
kubectl-nestor: memory budget: 0.0 MiB of 48 MiB kept from this run's answers
kubectl-nestor: exec: stopped after #.#s: kubectl
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms

"#]]);
    no_secret(&out);
    let _ = (text, err);
    // no temporary file left next to the kubeconfig
    let names: Vec<_> = fs::read_dir(f.bed.home.join(".kube"))
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["dirqual.config"]);
}

#[test]
fn a_root_user_runs_plain_cat_and_a_host_without_user_has_no_at() {
    let f = setup("https://10.67.2.11:6443");
    let inv = f.bed.repo.join("bootstrap/hosts.yaml");
    fs::write(
        &inv,
        "control_plane:\n  hosts:\n    cp1: {ansible_host: 10.67.2.11, ansible_user: root}\n",
    )
    .expect("write");
    let out = f
        .bed
        .cmd()
        .args([
            "--no-input",
            "--request-timeout",
            "1500ms",
            "kubeconfig",
            "fetch",
        ])
        .run();
    out.code(0);
    fs::write(&inv, "control_plane:\n  hosts:\n    cp1.lan:\n").expect("write");
    let (out, _) = f.run(FETCH);
    out.code(0);
    out.stdout_snap(str![[r#"
stack       dirqual (prod)
source      cp1.lan:/etc/kubernetes/admin.conf (host cp1.lan of /t/repo/bootstrap/hosts.yaml)
kubeconfig  /t/home/.kube/dirqual.config (unchanged: same content as the fetched one)
context     kubernetes-admin@kubernetes
endpoint    https://10.67.2.11:6443
verified    nodes read through kubectl proxy: dirqual1..4, 4/4 Ready
  NAME      READY  ROLES          INTERNAL-IP  VERSION
  dirqual1  Ready  control-plane  10.67.2.11   v1.31.4
  dirqual2  Ready  <none>         10.67.2.12   v1.31.4
  dirqual3  Ready  <none>         10.67.2.13   v1.31.4
  dirqual4  Ready  <none>         10.67.2.14   v1.31.4

"#]]);
    assert_eq!(
        f.bed.calls("ssh"),
        vec![
            argv("-o ConnectTimeout=2 -o BatchMode=yes root@10.67.2.11 cat /etc/kubernetes/admin.conf"),
            argv("-o ConnectTimeout=10 -o BatchMode=yes cp1.lan sudo -n cat /etc/kubernetes/admin.conf"),
        ]
    );
}

#[test]
fn control_group_and_admin_conf_come_from_the_topology() {
    let f = setup("https://10.67.2.11:6443");
    f.bed.write_stack(
        "dirqual",
        &format!("{PROD_DECLARED}control_group: workers\nadmin_conf: /srv/k8s/admin.conf\ninventory: ops/inv.yaml\n"),
    );
    fs::create_dir_all(f.bed.repo.join("ops")).expect("mkdir");
    fs::rename(
        f.bed.repo.join("bootstrap/hosts.yaml"),
        f.bed.repo.join("ops/inv.yaml"),
    )
    .expect("mv");
    let (out, _) = f.run(FETCH);
    out.code(0);
    assert_eq!(
        f.bed.calls("ssh"),
        vec![argv(
            "-o ConnectTimeout=10 -o BatchMode=yes ops@dirqual3 sudo -n cat /srv/k8s/admin.conf"
        )]
    );
}

#[test]
fn a_different_existing_file_is_not_replaced_without_an_interactive_yes() {
    let f = setup("https://10.67.2.11:6443");
    f.bed.kubeconfig(&f.dest, "https://10.1.1.1:6443");
    let before = f.bed.tree();
    let mut all = String::new();
    for args in [
        vec!["--no-input", "kubeconfig", "fetch"],
        vec!["kubeconfig", "fetch"],
    ] {
        let out = f.bed.cmd().args(&args).write_stdin("y\n").run();
        out.code(1).no_stdout();
        all.push_str(&format!("== {args:?}\n{}", out.redact_text(&out.stderr)));
        assert_eq!(f.bed.tree(), before);
        assert!(f.bed.reads().is_empty());
        no_secret(&out);
    }
    text_snap(
        &all,
        str![[r#"
== ["--no-input", "kubeconfig", "fetch"]
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: error: /t/home/.kube/dirqual.config already exists with different content; it is replaced only after an interactive yes, nothing was written
hint: run `kubectl nestor kubeconfig fetch` in a terminal and answer yes to replace it (the old file is kept as /t/home/.kube/dirqual.config.bak-YYYYMMDDTHHMMSSZ), or move it away first
== ["kubeconfig", "fetch"]
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: error: /t/home/.kube/dirqual.config already exists with different content; it is replaced only after an interactive yes, nothing was written
hint: run `kubectl nestor kubeconfig fetch` in a terminal and answer yes to replace it (the old file is kept as /t/home/.kube/dirqual.config.bak-YYYYMMDDTHHMMSSZ), or move it away first

"#]],
    );
}

fn backups(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().contains(".bak-"))
        .collect();
    v.sort();
    v
}

#[test]
fn an_interactive_yes_replaces_the_file_and_keeps_a_timestamped_backup() {
    let f = setup("https://10.67.2.11:6443");
    f.bed.kubeconfig(&f.dest, "https://10.1.1.1:6443");
    let old = fs::read(&f.dest).expect("read");
    let out = f
        .bed
        .pty(&["--no-color", "kubeconfig", "fetch"], "y\n", &[]);
    let text = stdout_of(&out);
    out.code(0);
    assert!(!text.contains(SECRET_MARKER), "{text}");
    let kube = f.bed.home.join(".kube");
    let found = backups(&kube);
    assert_eq!(found.len(), 1, "{found:?}");
    let name = found[0]
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stamp = name.strip_prefix("dirqual.config.bak-").unwrap_or_default();
    assert_eq!(stamp.len(), 16, "{name}");
    assert!(
        stamp.as_bytes()[8] == b'T'
            && stamp.ends_with('Z')
            && stamp[..8].bytes().all(|b| b.is_ascii_digit())
            && stamp[9..15].bytes().all(|b| b.is_ascii_digit()),
        "{name}"
    );
    assert_eq!(fs::read(&found[0]).expect("read"), old);
    assert_eq!(mode(&found[0]), 0o600);
    assert_eq!(
        fs::read(&f.dest).expect("read"),
        fs::read(&f.remote).expect("read")
    );
    assert_eq!(mode(&f.dest), 0o600);
    // The terminal's whole transcript, the backup's timestamp shown as STAMP.
    let transcript = out.redact_text(&text).replace(stamp, "STAMP");
    text_snap(
        &transcript,
        str![[r#"
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
Replace /t/home/.kube/dirqual.config, whose content differs? The current file is kept as /t/home/.kube/dirqual.config.bak-NOW. [y/N] stack       dirqual (prod)
source      ops@10.67.2.11:/etc/kubernetes/admin.conf (host dirqual1 of /t/repo/bootstrap/hosts.yaml)
kubeconfig  /t/home/.kube/dirqual.config (replaced, mode 0600; previous file kept as /t/home/.kube/dirqual.config.bak-NOW)
context     kubernetes-admin@kubernetes
endpoint    https://10.67.2.11:6443
verified    nodes read through kubectl proxy: dirqual1..4, 4/4 Ready
  NAME      READY  ROLES          INTERNAL-IP  VERSION
  dirqual1  Ready  control-plane  10.67.2.11   v1.31.4
  dirqual2  Ready  <none>         10.67.2.12   v1.31.4
  dirqual3  Ready  <none>         10.67.2.13   v1.31.4
  dirqual4  Ready  <none>         10.67.2.14   v1.31.4

"#]],
    );
    // interactive: no BatchMode, so ssh may ask for a passphrase on the terminal
    let calls: Vec<String> = f.bed.calls("ssh").iter().map(|c| c.join(" ")).collect();
    text_snap(&out.redact_text(&calls.join("\n")), str!["-p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf"]);
}

#[test]
fn an_interactive_no_keeps_the_file() {
    let f = setup("https://10.67.2.11:6443");
    f.bed.kubeconfig(&f.dest, "https://10.1.1.1:6443");
    let before = f.bed.tree();
    let out = f
        .bed
        .pty(&["--no-color", "kubeconfig", "fetch"], "n\n", &[]);
    let text = stdout_of(&out);
    out.code(1);
    out.stdout_snap(str![[r#"
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
Replace /t/home/.kube/dirqual.config, whose content differs? The current file is kept as /t/home/.kube/dirqual.config.bak-NOW. [y/N] kubectl-nestor: error: /t/home/.kube/dirqual.config already exists with different content; you said no, nothing was written
hint: run `kubectl nestor kubeconfig fetch` in a terminal and answer yes to replace it (the old file is kept as /t/home/.kube/dirqual.config.bak-YYYYMMDDTHHMMSSZ), or move it away first

"#]]);
    let _ = text;
    assert_eq!(f.bed.tree(), before);
}

#[test]
fn a_lima_stack_is_refused_the_bench_harness_writes_its_kubeconfig() {
    let f = setup("https://10.67.2.11:6443");
    f.bed.write_stack("bench", LIMA_BENCH);
    let (out, _) = f.fails_unchanged(
        &["--no-input", "--stack", "bench", "kubeconfig", "fetch"],
        1,
    );
    out.no_stdout().stderr_snap(str![[r#"
kubectl-nestor: error: stack bench is a lima bench: its kubeconfig (/t/repo/bench/lima/.work/kubeconfig) is written by the bench harness, not fetched
hint: bring the bench up with its harness; `kubeconfig fetch` repatriates the kubeconfig of prod stacks

"#]]);
    assert!(f.bed.calls("ssh").is_empty());
}

#[test]
fn an_undeclared_kubeconfig_is_exit_3() {
    let f = setup("https://10.67.2.11:6443");
    f.bed.write_stack("dirqual", PROD_UNDECLARED);
    let (out, _) = f.run(FETCH);
    out.code(3).no_stdout().stderr_snap(str![[r#"
kubectl-nestor: error: kubeconfig target not declared for stack dirqual: add `kubeconfig: ~/.kube/dirqual.config` (no rule chose one: no --kubeconfig flag, no KUBECONFIG, no topology kubeconfig:)
hint: run `kubectl nestor stack select dirqual` (it offers to add the line), or pass `kubectl nestor --kubeconfig FILE ...`

"#]]);
    assert!(f.bed.calls("ssh").is_empty());
}

#[test]
fn a_destination_inside_a_git_work_tree_is_refused_before_any_ssh() {
    let f = setup("https://10.67.2.11:6443");
    f.bed.write_stack(
        "dirqual",
        &PROD_DECLARED.replace("~/.kube/dirqual.config", "secrets/dirqual.config"),
    );
    fs::create_dir_all(f.bed.repo.join(".git")).expect("mkdir");
    let (out, _) = f.fails_unchanged(FETCH, 1);
    out.no_stdout().stderr_snap(str![[r#"
kubectl-nestor: error: refusing to write kubeconfig /t/repo/secrets/dirqual.config inside the git work tree /t/repo: it holds the cluster's admin credentials
hint: declare a path outside any repository in /t/repo/stacks/dirqual.yaml, e.g. `kubeconfig: ~/.kube/dirqual.config`

"#]]);
    assert!(f.bed.calls("ssh").is_empty());
    assert!(!f.bed.repo.join("secrets").exists());
}

#[test]
fn sudo_asking_for_a_password_is_a_clear_error() {
    let f = setup("https://10.67.2.11:6443");
    f.bed
        .stub("ssh", "echo 'sudo: a password is required' >&2; exit 1");
    let (out, _) = f.fails_unchanged(FETCH, 1);
    out.no_stdout().stderr_snap(str![[r#"
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: error: sudo on ops@10.67.2.11 asks for a password: nestor runs `sudo -n cat /etc/kubernetes/admin.conf` and never types one
hint: allow it without a password (sudoers: `USER ALL=(root) NOPASSWD: /usr/bin/cat /etc/kubernetes/admin.conf`), or set ansible_user: root for this host

"#]]);
}

#[test]
fn ssh_connection_refused_is_exit_4_quoting_ssh() {
    let f = setup("https://10.67.2.11:6443");
    f.bed.stub(
        "ssh",
        "echo 'ssh: connect to host 10.67.2.11 port 2222: Connection refused' >&2; exit 255",
    );
    let (out, _) = f.fails_unchanged(FETCH, 4);
    out.no_stdout().stderr_snap(str![[r#"
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: error: cannot reach ops@10.67.2.11 over ssh: ssh: ssh: connect to host 10.67.2.11 port 2222: Connection refused
hint: check that the host is up, that sshd listens on the inventory's port, and the address in the inventory (ansible_host, ansible_port)

"#]]);
}

#[test]
fn a_missing_ssh_says_how_to_install_it() {
    let f = setup("https://10.67.2.11:6443");
    fs::remove_file(f.bed.bin.join("ssh")).expect("rm");
    let out = f
        .bed
        .cmd()
        .args(["--no-input", "kubeconfig", "fetch"])
        .env("PATH", f.bed.bin.display().to_string())
        .run();
    out.code(1).no_stdout().stderr_snap(str![[r#"
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: error: ssh not found: no `ssh` on PATH
hint: install the OpenSSH client (e.g. `apt-get install openssh-client`) or set NESTOR_SSH=/path/to/ssh

"#]]);
    let out = f
        .bed
        .cmd()
        .args(["--no-input", "kubeconfig", "fetch"])
        .env("NESTOR_SSH", "/nonexistent/ssh")
        .run();
    out.code(1).no_stdout().stderr_snap(str![[r#"
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: error: ssh not found: NESTOR_SSH=/nonexistent/ssh is not an executable
hint: install the OpenSSH client (e.g. `apt-get install openssh-client`) or set NESTOR_SSH=/path/to/ssh

"#]]);
}

#[test]
fn fetched_bytes_that_are_not_a_kubeconfig_write_nothing_and_quote_nothing() {
    let good = admin_conf("https://10.67.2.11:6443");
    let cases = [
        ("empty", String::new(), "is empty"),
        (
            "no context",
            good.replace("current-context: kubernetes-admin@kubernetes\n", ""),
            "has no current-context",
        ),
        (
            "no user",
            good.replace("- name: kubernetes-admin\n", "- name: someone\n"),
            "names user `kubernetes-admin`, which is not in the file",
        ),
        (
            "not yaml",
            format!("{good}\n  client-key-data: [{SECRET_MARKER}\n"),
            "is not a valid kubeconfig YAML",
        ),
        (
            "a shell banner",
            format!("Welcome {SECRET_MARKER}\n"),
            "is not a usable kubeconfig",
        ),
    ];
    let mut all = String::new();
    for (what, content, expected) in cases {
        let f = setup("https://10.67.2.11:6443");
        let err = f.refuses_content(&content, what);
        all.push_str(&format!(
            "== {what} ({expected})\n{}",
            err.replace(&f.bed.tmp.path().display().to_string(), "/t")
        ));
    }
    text_snap(
        &all,
        str![[r#"
== empty (is empty)
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: error: the file fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf is not a usable kubeconfig (kubeconfig ops@10.67.2.11:/etc/kubernetes/admin.conf is empty); nothing was written
hint: point `admin_conf:` in the topology at the kubeadm admin kubeconfig of the control-plane host (default /etc/kubernetes/admin.conf)
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms
== no context (has no current-context)
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: error: the file fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf is not a usable kubeconfig (kubeconfig ops@10.67.2.11:/etc/kubernetes/admin.conf has no current-context); nothing was written
hint: point `admin_conf:` in the topology at the kubeadm admin kubeconfig of the control-plane host (default /etc/kubernetes/admin.conf)
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms
== no user (names user `kubernetes-admin`, which is not in the file)
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: error: the file fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf is not a usable kubeconfig (kubeconfig ops@10.67.2.11:/etc/kubernetes/admin.conf: context `kubernetes-admin@kubernetes` names user `kubernetes-admin`, which is not in the file); nothing was written
hint: point `admin_conf:` in the topology at the kubeadm admin kubeconfig of the control-plane host (default /etc/kubernetes/admin.conf)
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms
== not yaml (is not a valid kubeconfig YAML)
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: error: the file fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf is not a usable kubeconfig (kubeconfig ops@10.67.2.11:/etc/kubernetes/admin.conf is not a valid kubeconfig YAML (line 22, column 3): users[0]: unknown field `client-key-data`, expected `name` or `user`); nothing was written
hint: point `admin_conf:` in the topology at the kubeadm admin kubeconfig of the control-plane host (default /etc/kubernetes/admin.conf)
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms
== a shell banner (is not a usable kubeconfig)
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: error: the file fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf is not a usable kubeconfig (kubeconfig ops@10.67.2.11:/etc/kubernetes/admin.conf is not a valid kubeconfig YAML (line 1, column 1)); nothing was written
hint: point `admin_conf:` in the topology at the kubeadm admin kubeconfig of the control-plane host (default /etc/kubernetes/admin.conf)
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms

"#]],
    );
}

const UNRESOLVABLE: &str = "https://cp.nestor-test.invalid:6443";

#[test]
fn an_unresolvable_server_is_a_warning_without_a_terminal() {
    let f = setup(UNRESOLVABLE);
    let (out, err) = f.run(FETCH);
    // Written, then the verification read follows the target policy: without a prompt the
    // server must be the topology's endpoint, so nothing is dialled (SPEC §5).
    out.code(3).stderr_snap(str![[r#"
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: warning: the fetched kubeconfig's server https://cp.nestor-test.invalid:6443 names host `cp.nestor-test.invalid`, which does not resolve here; the topology's endpoint is https://10.67.2.11:6443 (run `kubectl nestor kubeconfig fetch` in a terminal to rewrite it)
kubectl-nestor: warning: the fetched server https://cp.nestor-test.invalid:6443 differs from the topology's endpoint https://10.67.2.11:6443: non-interactive prod commands will refuse this target
kubectl-nestor: /t/home/.kube/dirqual.config was written but is not verified: the target check refused it
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is https://cp.nestor-test.invalid:6443, the topology's endpoint is https://10.67.2.11:6443; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)

"#]]).stdout_snap(str![[r#"
stack       dirqual (prod)
source      ops@10.67.2.11:/etc/kubernetes/admin.conf (host dirqual1 of /t/repo/bootstrap/hosts.yaml)
kubeconfig  /t/home/.kube/dirqual.config (written, mode 0600)
context     kubernetes-admin@kubernetes
endpoint    https://cp.nestor-test.invalid:6443

"#]]);
    assert!(f.bed.reads().is_empty(), "{err}");
    assert_eq!(
        fs::read(&f.dest).expect("read"),
        fs::read(&f.remote).expect("read")
    );
}

#[test]
fn an_unresolvable_server_is_rewritten_to_the_endpoint_after_a_yes() {
    let f = setup(UNRESOLVABLE);
    let out = f
        .bed
        .pty(&["--no-color", "kubeconfig", "fetch"], "y\n", &[]);
    let text = stdout_of(&out);
    out.code(0).stdout_snap(str![[r#"
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: the fetched kubeconfig's server https://cp.nestor-test.invalid:6443 names host `cp.nestor-test.invalid`, which does not resolve here
Rewrite its server to the topology's endpoint https://10.67.2.11:6443? [y/N] stack       dirqual (prod)
source      ops@10.67.2.11:/etc/kubernetes/admin.conf (host dirqual1 of /t/repo/bootstrap/hosts.yaml)
kubeconfig  /t/home/.kube/dirqual.config (written, mode 0600)
context     kubernetes-admin@kubernetes
endpoint    https://10.67.2.11:6443
verified    nodes read through kubectl proxy: dirqual1..4, 4/4 Ready
  NAME      READY  ROLES          INTERNAL-IP  VERSION
  dirqual1  Ready  control-plane  10.67.2.11   v1.31.4
  dirqual2  Ready  <none>         10.67.2.12   v1.31.4
  dirqual3  Ready  <none>         10.67.2.13   v1.31.4
  dirqual4  Ready  <none>         10.67.2.14   v1.31.4

"#]]);
    let expected = admin_conf(UNRESOLVABLE).replace(UNRESOLVABLE, "https://10.67.2.11:6443");
    assert_eq!(fs::read_to_string(&f.dest).expect("read"), expected);
    assert!(!text.contains(SECRET_MARKER));
}

#[test]
fn an_unreachable_cluster_after_the_write_is_exit_4_and_the_file_stays() {
    let f = setup("https://10.67.2.11:6443");
    // What kubectl proxy answers when the API server refuses its connection.
    f.bed.kubectl_cluster(
        &Cluster::empty()
            .fault("/=proxy-error:dial tcp 10.67.2.11:6443: connect: connection refused"),
    );
    let (out, err) = f.run(FETCH);
    out.code(4).stdout_snap(str![[r#"
stack       dirqual (prod)
source      ops@10.67.2.11:/etc/kubernetes/admin.conf (host dirqual1 of /t/repo/bootstrap/hosts.yaml)
kubeconfig  /t/home/.kube/dirqual.config (written, mode 0600)
context     kubernetes-admin@kubernetes
endpoint    https://10.67.2.11:6443

"#]]).stderr_snap(str![[r#"
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: error: cluster https://10.67.2.11:6443 unreachable: Unable to connect to the server: dial tcp 10.67.2.11:6443: connect: connection refused | The connection to the server 10.67.2.11:6443 was refused - did you specify the right host or port?
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid

"#]]);
    let _ = err;
    assert_eq!(mode(&f.dest), 0o600);
}

#[test]
fn help_documents_both_commands() {
    let bed = Bed::new();
    let out = bed.cmd().args(["kubeconfig", "fetch", "--help"]).run();
    // The whole help, as help.rs keeps it: it names `sudo -n cat ADMIN_CONF` and the
    // backup `FILE.bak-YYYYMMDDTHHMMSSZ`.
    let help = |name: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/cli/golden/help/{name}.txt"))
    };
    golden(&help("kubectl-nestor-kubeconfig-fetch"), &out.stdout);
    // And stack select's asks `Add "kubeconfig: ~/.kube/NAME.config" to FILE? [y/N]`.
    let out = bed.cmd().args(["stack", "select", "--help"]).run();
    golden(&help("kubectl-nestor-stack-select"), &out.stdout);
}

/// An admin.conf with two users of one name: kubectl's own error would dump every user entry
/// (tokens, keys as decimal byte arrays). nestor refuses it before writing or running
/// anything, and prints no credential.
#[test]
fn a_fetched_file_with_duplicate_user_names_is_refused_without_printing_it() {
    let f = setup("https://10.67.2.11:6443");
    let doubled = admin_conf("https://10.67.2.11:6443").replace(
        "users:\n",
        &format!("users:\n- name: kubernetes-admin\n  user:\n    token: {SECRET_MARKER}2\n    client-key-data: {SECRET_MARKER}3\n"),
    );
    fs::write(&f.remote, doubled).expect("write");
    let before = f.bed.tree();
    let mut all = String::new();
    for extra in [&[][..], &["-v"]] {
        let (out, _) = f.fails_unchanged(&[FETCH, extra].concat(), 1);
        out.no_stdout();
        all.push_str(&format!("== {extra:?}\n{}", out.redact_text(&out.stderr)));
        no_secret(&out);
        assert_eq!(f.bed.tree(), before);
        assert!(f.bed.calls("kubectl").is_empty());
    }
    text_snap(
        &all,
        str![[r#"
== []
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: error: the file fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf is not a usable kubeconfig (kubeconfig ops@10.67.2.11:/etc/kubernetes/admin.conf: two users are named `kubernetes-admin`: kubectl refuses such a file); nothing was written
hint: point `admin_conf:` in the topology at the kubeadm admin kubeconfig of the control-plane host (default /etc/kubernetes/admin.conf)
== ["-v"]
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: error: the file fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf is not a usable kubeconfig (kubeconfig ops@10.67.2.11:/etc/kubernetes/admin.conf: two users are named `kubernetes-admin`: kubectl refuses such a file); nothing was written
hint: point `admin_conf:` in the topology at the kubeadm admin kubeconfig of the control-plane host (default /etc/kubernetes/admin.conf)
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms

"#]],
    );
}

/// Issue 21: `admin_conf: /dev/zero` on the remote host drove nestor to 1 GiB (ssh's output
/// was captured without a cap). Past the kubeconfig bound (1 MiB, issue 31: cut while it is
/// read, not at the process layer's 48 MiB) ssh is killed and fetch fails, in bounded time
/// and memory, writing nothing.
#[test]
fn an_endless_remote_output_is_cut_at_the_cap() {
    let f = setup("https://10.67.2.11:6443");
    f.bed.stub("ssh", "exec cat /dev/zero");
    let before = f.bed.tree();
    let started = std::time::Instant::now();
    let out = f
        .bed
        .cmd()
        .args(["-v", "--no-input", "kubeconfig", "fetch"])
        .run();
    let err = stderr_of(&out);
    // The whole stderr: ssh "printed more than 1 MiB and was killed", nothing written.
    out.code(1).stderr_snap(str![[r#"
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: killed, output over its cap: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: error: `ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf` printed more than 1 MiB and was killed: nothing of it was used
hint: an answer that large is not what was asked for: check the file or object it reads (a device such as /dev/zero, a runaway log)
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms

"#]]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    // nestor's own peak memory (the -v usage line, from VmHWM): under 64 MiB, not 1 GiB.
    let peak_kib: u64 = err
        .split("own peak rss ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no usage line: {err}"));
    assert!(peak_kib < 64 * 1024, "peak {peak_kib} KiB");
    assert_eq!(f.bed.tree(), before, "nothing was written");
}

/// Issue 21: the depth pre-scan's quote trick through `fetch`: a fetched admin.conf with
/// `extension: [a ', [[[...]]]]` (300 levels were accepted, 300 000 spent minutes) is
/// refused as nested too deep, in bounded time (killed at 30 s), nothing written, no kubectl.
#[test]
fn a_fetched_file_hiding_deep_nesting_behind_a_quote_is_refused_fast() {
    let f = setup("https://10.67.2.11:6443");
    let plain = admin_conf("https://10.67.2.11:6443");
    let mut all = String::new();
    for levels in [300, 300_000] {
        let trick = format!(
            "{plain}extension: [a ', {}{}]\n",
            "[".repeat(levels),
            "]".repeat(levels)
        );
        fs::write(&f.remote, trick).expect("write");
        let before = f.bed.tree();
        let started = std::time::Instant::now();
        let out = f
            .bed
            .cmd()
            .args(["--no-input", "kubeconfig", "fetch"])
            .timeout(std::time::Duration::from_secs(30))
            .run();
        let took = started.elapsed();
        let err = stderr_of(&out);
        assert_eq!(out.code, Some(1), "{levels} levels: {err}");
        out.no_stdout();
        all.push_str(&format!("== {levels}\n{}", out.redact_text(&err)));
        assert!(
            took < std::time::Duration::from_secs(5),
            "{levels} levels took {took:?}"
        );
        assert!(!f.dest.exists(), "{levels}: written");
        assert_eq!(f.bed.tree(), before, "{levels}: nothing written");
        assert!(f.bed.reads().is_empty(), "{levels}: kubectl read");
    }
    text_snap(
        &all,
        str![[r#"
== 300
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: error: the file fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf is not a usable kubeconfig (kubeconfig ops@10.67.2.11:/etc/kubernetes/admin.conf is nested deeper than 64 levels: refused before parsing); nothing was written
hint: point `admin_conf:` in the topology at the kubeadm admin kubeconfig of the control-plane host (default /etc/kubernetes/admin.conf)
== 300000
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: error: the file fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf is not a usable kubeconfig (kubeconfig ops@10.67.2.11:/etc/kubernetes/admin.conf is nested deeper than 64 levels: refused before parsing); nothing was written
hint: point `admin_conf:` in the topology at the kubeadm admin kubeconfig of the control-plane host (default /etc/kubernetes/admin.conf)

"#]],
    );
}

/// Issue 21: a fetched file may hold nothing that runs a command or names a file of this
/// machine, and nothing nestor's strict reader cannot see: an `exec:` user hidden under a
/// merge key (nestor skipped it, kubectl ran it), a `tokenFile:` (kubectl sent that local
/// file to the fetched server as a bearer token), certificate paths, a misspelt or unknown
/// key, an alias. Each is refused before anything is written and before kubectl runs.
#[test]
fn fetched_credentials_that_run_or_read_local_files_or_hide_are_refused() {
    let good = admin_conf("https://10.67.2.11:6443");
    let key = format!("    client-key-data: {SECRET_MARKER}KEY\n");
    let with = |extra: &str| good.replace(&key, &format!("{key}{extra}"));
    let cases = [
        (
            "a merge-key exec user",
            with("    <<: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh}}\n"),
            "a merge key (`<<`)",
        ),
        (
            "a tokenFile user",
            with("    tokenFile: ~/.vault-token\n"),
            "with a `tokenFile:` credential, which names a file of this machine",
        ),
        (
            "a client-certificate path",
            with("    client-certificate: /home/op/.kube/op.crt\n"),
            "with a `client-certificate:` credential, which names a file of this machine",
        ),
        (
            "a client-key path",
            with("    client-key: /home/op/.kube/op.key\n"),
            "with a `client-key:` credential, which names a file of this machine",
        ),
        (
            "a certificate-authority path",
            good.replace(
                "    server: https://10.67.2.11:6443\n",
                "    server: https://10.67.2.11:6443\n    certificate-authority: /etc/kubernetes/pki/ca.crt\n",
            ),
            "has cluster `kubernetes` with a `certificate-authority:` path",
        ),
        (
            "a misspelt key",
            with("    tokenfile: /root/.vault-token\n"),
            "unknown field `tokenfile`",
        ),
        (
            "an unknown top-level key",
            format!("{good}shadow-users: []\n"),
            "unknown field `shadow-users`",
        ),
        (
            "an alias",
            good.replace(
                &format!("    token: {SECRET_MARKER}TOKEN\n"),
                "    token: &t x\n    password: *t\n",
            ),
            "an anchor (`&name`)",
        ),
    ];
    let mut all = String::new();
    for (what, content, expected) in cases {
        assert_ne!(content, good, "{what}");
        let f = setup("https://10.67.2.11:6443");
        let err = f.refuses_content(&content, what);
        all.push_str(&format!(
            "== {what} ({expected})\n{}",
            err.replace(&f.bed.tmp.path().display().to_string(), "/t")
        ));
        assert!(!f.dest.exists(), "{what}");
    }
    text_snap(
        &all,
        str![[r#"
== a merge-key exec user (a merge key (`<<`))
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: error: the file fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf is not a usable kubeconfig (kubeconfig ops@10.67.2.11:/etc/kubernetes/admin.conf: a merge key (`<<`) (near line 20, column 5): YAML readers do not all resolve it alike, and kubectl may see entries nestor does not); nothing was written
hint: point `admin_conf:` in the topology at the kubeadm admin kubeconfig of the control-plane host (default /etc/kubernetes/admin.conf)
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms
== a tokenFile user (with a `tokenFile:` credential, which names a file of this machine)
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: error: the kubeconfig fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf has user `kubernetes-admin` with a `tokenFile:` credential, which names a file of this machine (kubectl would read it and send it to the fetched server); nothing was written
hint: a kubeadm admin.conf holds its credentials inline (client-certificate-data, client-key-data, certificate-authority-data): fetch that file, or build the kubeconfig yourself after reading what it does
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms
== a client-certificate path (with a `client-certificate:` credential, which names a file of this machine)
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: error: the kubeconfig fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf has user `kubernetes-admin` with a `client-certificate:` credential, which names a file of this machine (kubectl would read it and send it to the fetched server); nothing was written
hint: a kubeadm admin.conf holds its credentials inline (client-certificate-data, client-key-data, certificate-authority-data): fetch that file, or build the kubeconfig yourself after reading what it does
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms
== a client-key path (with a `client-key:` credential, which names a file of this machine)
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: error: the kubeconfig fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf has user `kubernetes-admin` with a `client-key:` credential, which names a file of this machine (kubectl would read it and send it to the fetched server); nothing was written
hint: a kubeadm admin.conf holds its credentials inline (client-certificate-data, client-key-data, certificate-authority-data): fetch that file, or build the kubeconfig yourself after reading what it does
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms
== a certificate-authority path (has cluster `kubernetes` with a `certificate-authority:` path)
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: error: the kubeconfig fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf has cluster `kubernetes` with a `certificate-authority:` path, which names a file of this machine (a fetched file decides nothing about local files); nothing was written
hint: a kubeadm admin.conf holds its credentials inline (client-certificate-data, client-key-data, certificate-authority-data): fetch that file, or build the kubeconfig yourself after reading what it does
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms
== a misspelt key (unknown field `tokenfile`)
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: error: the file fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf is not a usable kubeconfig (kubeconfig ops@10.67.2.11:/etc/kubernetes/admin.conf is not a valid kubeconfig YAML (line 20, column 5): users[0].user: unknown field `tokenfile`, expected one of `client-certificate`, `client-certificate-data`, `client-key`, `client-key-data`, `token`, `tokenFile`, `as`, `as-uid`, `as-groups`, `as-user-extra`, `username`, `password`, `auth-provider`, `exec`, `extensions`); nothing was written
hint: point `admin_conf:` in the topology at the kubeadm admin kubeconfig of the control-plane host (default /etc/kubernetes/admin.conf)
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms
== an unknown top-level key (unknown field `shadow-users`)
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: error: the file fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf is not a usable kubeconfig (kubeconfig ops@10.67.2.11:/etc/kubernetes/admin.conf is not a valid kubeconfig YAML (line 21, column 1): unknown field `shadow-users`, expected one of `apiVersion`, `kind`, `preferences`, `extensions`, `current-context`, `contexts`, `clusters`, `users`, `<<`); nothing was written
hint: point `admin_conf:` in the topology at the kubeadm admin kubeconfig of the control-plane host (default /etc/kubernetes/admin.conf)
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms
== an alias (an anchor (`&name`))
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: error: the file fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf is not a usable kubeconfig (kubeconfig ops@10.67.2.11:/etc/kubernetes/admin.conf: an anchor (`&name`) (near line 20, column 15): YAML readers do not all resolve it alike, and kubectl may see entries nestor does not); nothing was written
hint: point `admin_conf:` in the topology at the kubeadm admin kubeconfig of the control-plane host (default /etc/kubernetes/admin.conf)
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms

"#]],
    );
}

/// Issue 21: kubectl's own redacted `config view` of the fetched bytes is asked before they
/// are written, and must show the users and credential keys nestor's reader found. A kubectl
/// that sees an `exec:` nestor did not (what a reader difference would give) is refused.
#[test]
fn a_fetched_file_kubectl_reads_differently_is_not_written() {
    let f = setup("https://10.67.2.11:6443");
    // The lie goes before the stub's own `config view` answer (logged like every call).
    f.bed.stub("kubectl", "exit 1");
    let stub = f.bed.bin.join("kubectl");
    let script = fs::read_to_string(&stub).expect("stub");
    let lie = "case \" $* \" in *' config view -o=json '*) printf '%s' '{\"clusters\":[],\"users\":[{\"name\":\"kubernetes-admin\",\"user\":{\"client-certificate-data\":\"DATA+OMITTED\",\"client-key-data\":\"DATA+OMITTED\",\"token\":\"REDACTED\",\"exec\":{\"command\":\"/bin/sh\"}}}]}'; exit 0;; esac\n";
    let at = script
        .find("case \" $* \" in *' --kubeconfig='")
        .expect("the stub's guard");
    fs::write(&stub, [&script[..at], lie, &script[at..]].concat()).expect("stub");
    let (out, _) = f.fails_unchanged(FETCH_V, 1);
    out.no_stdout().stderr_snap(str![[r#"
kubectl-nestor: reading /etc/kubernetes/admin.conf on dirqual1 (ops@10.67.2.11) over ssh
kubectl-nestor: exec: ssh -p 2222 -i /t/repo/keys/id_dirqual -o ConnectTimeout=10 -o BatchMode=yes ops@10.67.2.11 sudo -n cat /etc/kubernetes/admin.conf
kubectl-nestor: exec: exit 0 in #.#s: ssh
kubectl-nestor: exec: kubectl --kubeconfig=/tmp/kubectl-nestor-fetch-XXXXXX/fetched.kubeconfig --context=kubernetes-admin@kubernetes --server=https://10.67.2.11:6443 --request-timeout=10s --cache-dir=/t/home/.kube/cache config view -o=json
kubectl-nestor: exec: exit 0 in #.#s: kubectl
kubectl-nestor: error: the file fetched from ops@10.67.2.11:/etc/kubernetes/admin.conf is refused: kubectl and nestor read it differently: user `kubernetes-admin` has the credential keys [client-certificate-data, client-key-data, exec, token] for kubectl, [client-certificate-data, client-key-data, token] for nestor; nothing was written
hint: the file is ambiguous (a merge key, an alias, a look-alike key): a kubeadm admin.conf is plain YAML with one user holding client-certificate-data and client-key-data
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms

"#]]);
    no_secret(&out);
    // Only the local view ran: no call that reaches a cluster.
    let calls = f.bed.calls("kubectl");
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert!(f.bed.reads().is_empty(), "{calls:?}");
    // The view read a private temporary copy, removed afterwards.
    let file = calls[0]
        .iter()
        .find_map(|a| a.strip_prefix("--kubeconfig="))
        .map(std::path::PathBuf::from)
        .expect("--kubeconfig=");
    assert!(
        !file.exists() && file.parent().is_some_and(|d| !d.exists()),
        "{file:?}"
    );
}

/// Issue 21: `kubeconfig: ~/.bashrc` was written with the fetched bytes. The destination
/// must be a kubeconfig's place — under `~/.kube/`, or a new file, or an existing kubeconfig —
/// and a regular file: refused before any ssh otherwise, nothing written.
#[test]
fn a_destination_that_is_no_kubeconfig_place_is_refused_before_any_ssh() {
    let f = setup("https://10.67.2.11:6443");
    let bashrc = f.bed.home.join(".bashrc");
    fs::write(&bashrc, "export PATH=$HOME/bin:$PATH\n").expect("write");
    let outside = f.bed.tmp.path().join("notes.txt");
    fs::write(&outside, "just notes\n").expect("write");
    // The FIFO lives outside the bed (whose tree() reads every file), linked from ~/.kube.
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let fifo = elsewhere.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    assert!(made, "mkfifo");
    fs::create_dir_all(f.bed.home.join(".kube")).expect("mkdir");
    std::os::unix::fs::symlink(&fifo, f.bed.home.join(".kube/fifo.config")).expect("symlink");
    let link = f.bed.home.join(".kube/link.config");
    std::os::unix::fs::symlink(&bashrc, &link).expect("symlink");
    let mut all = String::new();
    for (declared, expected) in [
        (
            "~/.bashrc".to_string(),
            "`.bashrc` is a shell or tool startup file",
        ),
        (
            "~/.zshrc".to_string(),
            "`.zshrc` is a shell or tool startup file",
        ),
        (
            "~/.kube/link.config".to_string(),
            "`.bashrc` is a shell or tool startup file",
        ),
        (
            outside.display().to_string(),
            "it exists outside ~/.kube/ and is not a kubeconfig",
        ),
        (
            "~/.kube/fifo.config".to_string(),
            "it exists and is not a regular file",
        ),
        (
            fifo.display().to_string(),
            "it exists and is not a regular file",
        ),
        (
            "/dev/null".to_string(),
            "it exists and is not a regular file",
        ),
        // Issue 21: a `/dev/zero` destination was read (to compare) without a cap.
        (
            "/dev/zero".to_string(),
            "it exists and is not a regular file",
        ),
    ] {
        f.bed.write_stack(
            "dirqual",
            &PROD_DECLARED.replace("~/.kube/dirqual.config", &declared),
        );
        let (out, err) = f.fails_unchanged(FETCH, 1);
        out.no_stdout();
        let shown = err
            .replace(&elsewhere.path().display().to_string(), "/elsewhere")
            .replace(&f.bed.tmp.path().display().to_string(), "/t");
        let declared = declared
            .replace(&elsewhere.path().display().to_string(), "/elsewhere")
            .replace(&f.bed.tmp.path().display().to_string(), "/t");
        all.push_str(&format!("== {declared} ({expected})\n{shown}"));
        assert!(f.bed.calls("ssh").is_empty(), "{declared}: ssh ran");
    }
    text_snap(
        &all,
        str![[r#"
== ~/.bashrc (`.bashrc` is a shell or tool startup file)
kubectl-nestor: error: refusing to write the fetched kubeconfig to /t/home/.bashrc: `.bashrc` is a shell or tool startup file, never a kubeconfig; nothing was fetched or written
hint: declare `kubeconfig: ~/.kube/NAME.config` in /t/repo/stacks/dirqual.yaml (kubeconfig fetch writes under ~/.kube/, or a new file, or over a kubeconfig)
== ~/.zshrc (`.zshrc` is a shell or tool startup file)
kubectl-nestor: error: refusing to write the fetched kubeconfig to /t/home/.zshrc: `.zshrc` is a shell or tool startup file, never a kubeconfig; nothing was fetched or written
hint: declare `kubeconfig: ~/.kube/NAME.config` in /t/repo/stacks/dirqual.yaml (kubeconfig fetch writes under ~/.kube/, or a new file, or over a kubeconfig)
== ~/.kube/link.config (`.bashrc` is a shell or tool startup file)
kubectl-nestor: error: refusing to write the fetched kubeconfig to /t/home/.kube/link.config (a symlink to /t/home/.bashrc): `.bashrc` is a shell or tool startup file, never a kubeconfig; nothing was fetched or written
hint: declare `kubeconfig: ~/.kube/NAME.config` in /t/repo/stacks/dirqual.yaml (kubeconfig fetch writes under ~/.kube/, or a new file, or over a kubeconfig)
== /t/notes.txt (it exists outside ~/.kube/ and is not a kubeconfig)
kubectl-nestor: error: refusing to write the fetched kubeconfig to /t/notes.txt: it exists outside ~/.kube/ and is not a kubeconfig; nothing was fetched or written
hint: declare `kubeconfig: ~/.kube/NAME.config` in /t/repo/stacks/dirqual.yaml (kubeconfig fetch writes under ~/.kube/, or a new file, or over a kubeconfig)
== ~/.kube/fifo.config (it exists and is not a regular file)
kubectl-nestor: error: refusing to write the fetched kubeconfig to /t/home/.kube/fifo.config (a symlink to /elsewhere/fifo): it exists and is not a regular file; nothing was fetched or written
hint: declare `kubeconfig: ~/.kube/NAME.config` in /t/repo/stacks/dirqual.yaml (kubeconfig fetch writes under ~/.kube/, or a new file, or over a kubeconfig)
== /elsewhere/fifo (it exists and is not a regular file)
kubectl-nestor: error: refusing to write the fetched kubeconfig to /elsewhere/fifo: it exists and is not a regular file; nothing was fetched or written
hint: declare `kubeconfig: ~/.kube/NAME.config` in /t/repo/stacks/dirqual.yaml (kubeconfig fetch writes under ~/.kube/, or a new file, or over a kubeconfig)
== /dev/null (it exists and is not a regular file)
kubectl-nestor: error: refusing to write the fetched kubeconfig to /dev/null: it exists and is not a regular file; nothing was fetched or written
hint: declare `kubeconfig: ~/.kube/NAME.config` in /t/repo/stacks/dirqual.yaml (kubeconfig fetch writes under ~/.kube/, or a new file, or over a kubeconfig)
== /dev/zero (it exists and is not a regular file)
kubectl-nestor: error: refusing to write the fetched kubeconfig to /dev/zero: it exists and is not a regular file; nothing was fetched or written
hint: declare `kubeconfig: ~/.kube/NAME.config` in /t/repo/stacks/dirqual.yaml (kubeconfig fetch writes under ~/.kube/, or a new file, or over a kubeconfig)

"#]],
    );
    assert_eq!(
        fs::read_to_string(&bashrc).expect("read"),
        "export PATH=$HOME/bin:$PATH\n"
    );
    // A new file outside ~/.kube/, and an existing kubeconfig there, are kubeconfig places.
    let new = f.bed.tmp.path().join("kube/new.config");
    f.bed.write_stack(
        "dirqual",
        &PROD_DECLARED.replace("~/.kube/dirqual.config", &new.display().to_string()),
    );
    let (out, _) = f.run(FETCH);
    out.code(0);
    assert_eq!(
        fs::read(&new).expect("read"),
        fs::read(&f.remote).expect("read")
    );
    let (again, _) = f.run(FETCH);
    again.code(0).stdout_snap(str![[r#"
stack       dirqual (prod)
source      ops@10.67.2.11:/etc/kubernetes/admin.conf (host dirqual1 of /t/repo/bootstrap/hosts.yaml)
kubeconfig  /t/kube/new.config (unchanged: same content as the fetched one)
context     kubernetes-admin@kubernetes
endpoint    https://10.67.2.11:6443
verified    nodes read through kubectl proxy: dirqual1..4, 4/4 Ready
  NAME      READY  ROLES          INTERNAL-IP  VERSION
  dirqual1  Ready  control-plane  10.67.2.11   v1.31.4
  dirqual2  Ready  <none>         10.67.2.12   v1.31.4
  dirqual3  Ready  <none>         10.67.2.13   v1.31.4
  dirqual4  Ready  <none>         10.67.2.14   v1.31.4

"#]]);
}
