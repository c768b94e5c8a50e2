//! Every exit path of SPEC §8, as a person reads it (text: one `error:` line and one
//! `hint:` line on stderr, nothing on stdout) and as a script reads it (`-o json`: the same
//! code, a `kind: Error` document on stdout; the plan codes 2 and 5 a Preview document),
//! collected into one table and compared whole (issue 30 item 4). Each case's setup is the
//! smallest that reaches its path: the replay cluster behind the stub kubectl's `proxy`,
//! with a fault where the path needs one.

use crate::harness::{at_once, Table};
use crate::support::*;
use serde_json::Value;
use std::fs;

const ENDPOINT: &str = "https://10.67.2.11:6443";

/// The dirqual stack declaring only `layers`.
fn with_layers(layers: &str) -> String {
    PROD_DECLARED.replace(
        "layers: [k8s, cni, ceph, storage, monitoring, gitops, registry, dataops, datalake, certs]",
        &format!("layers: [{layers}]"),
    )
}

/// A case: its name, the bed that reaches the path, the arguments, the code SPEC §8 gives it.
struct Case {
    name: &'static str,
    bed: Bed,
    args: Vec<&'static str>,
    code: i32,
    /// PATH is the bed's stubs only (no system kubectl behind them).
    stubs_only: bool,
}

impl Case {
    fn run(&self, extra: &[&str]) -> Outcome {
        let mut run = self.bed.cmd();
        run.args(&self.args).args(extra);
        if self.stubs_only {
            run.env("PATH", &self.bed.bin);
        }
        run.run()
    }
}

fn cases() -> Vec<Case> {
    let fault = |f: &str| Bed::dirqual(ENDPOINT, &Cluster::dirqual().fault(f));
    let undeclared = Bed::new();
    undeclared.write_stack("dirqual", PROD_UNDECLARED);
    undeclared.select("dirqual");
    let bad_topology = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    bad_topology.write_stack("dirqual", &format!("{PROD_DECLARED}layer: [k8s]\n"));
    let no_kubectl = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    fs::remove_file(no_kubectl.bin.join("kubectl")).expect("remove the kubectl stub");
    let cannot_serve = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    cannot_serve.kubectl_failing(
        "error: unable to load root certificates: unable to parse bytes as PEM block",
    );
    let hanging = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    // Like the Cloud SDK dispatcher: the real work happens in a grandchild.
    hanging.stub("kubectl", "sleep 30 & wait");
    let undecided = fault("GET /apis/ceph.rook.io/v1=403");
    undecided.write_stack("dirqual", &with_layers("k8s, cni, ceph"));
    vec![
        Case {
            name: "1 bad input: a stack that does not exist",
            bed: Bed::dirqual(ENDPOINT, &Cluster::dirqual()),
            args: vec!["--stack", "nope", "preview"],
            code: 1,
            stubs_only: false,
        },
        Case {
            name: "1 bad input: a topology key that does not exist",
            bed: bad_topology,
            args: vec!["preview", "--no-input"],
            code: 1,
            stubs_only: false,
        },
        Case {
            name: "1 bad input: a usage error",
            bed: Bed::dirqual(ENDPOINT, &Cluster::dirqual()),
            args: vec!["preview", "--bogus"],
            code: 1,
            stubs_only: false,
        },
        Case {
            name: "1 missing tool: no kubectl on PATH",
            bed: no_kubectl,
            args: vec!["preview", "--no-input"],
            code: 1,
            stubs_only: true,
        },
        Case {
            name: "1 unexpected output: kubectl cannot serve the read proxy",
            bed: cannot_serve,
            args: vec!["preview", "--no-input"],
            code: 1,
            stubs_only: false,
        },
        Case {
            // `preview` shows a failed read as data (nodes: read failed, layers unknown);
            // `target`, whose one job is the nodes, fails.
            name: "1 unexpected output: the nodes read forbidden",
            bed: fault("GET /api/v1/nodes=403"),
            args: vec!["target", "--no-input"],
            code: 1,
            stubs_only: false,
        },
        Case {
            name: "3 target refused: kubeconfig not declared",
            bed: undeclared,
            args: vec!["preview", "--no-input"],
            code: 3,
            stubs_only: false,
        },
        Case {
            name: "3 target refused: endpoint mismatch",
            bed: Bed::dirqual("https://10.99.0.1:6443", &Cluster::dirqual()),
            args: vec!["preview", "--no-input"],
            code: 3,
            stubs_only: false,
        },
        Case {
            name: "4 unreachable: connection refused",
            bed: fault("/=proxy-error:dial tcp 10.67.2.11:6443: connect: connection refused"),
            args: vec!["preview", "--no-input"],
            code: 4,
            stubs_only: false,
        },
        Case {
            name: "4 unreachable: credentials refused",
            bed: fault("/api=401"),
            args: vec!["preview", "--no-input"],
            code: 4,
            stubs_only: false,
        },
        Case {
            name: "4 unreachable: TLS failure",
            bed: fault("/=proxy-error:tls: failed to verify certificate: x509: certificate signed by unknown authority"),
            args: vec!["preview", "--no-input"],
            code: 4,
            stubs_only: false,
        },
        Case {
            name: "4 unreachable: timeout",
            bed: hanging,
            args: vec!["preview", "--no-input", "--request-timeout", "1s"],
            code: 4,
            stubs_only: false,
        },
        Case {
            name: "2 detailed exit code: something to install",
            bed: Bed::dirqual(ENDPOINT, &Cluster::dirqual()),
            args: vec!["preview", "--no-input", "--no-ssh", "--detailed-exitcode"],
            code: 2,
            stubs_only: false,
        },
        Case {
            name: "5 detailed exit code: nothing to do, something undecided",
            bed: undecided,
            args: vec!["preview", "--no-input", "--detailed-exitcode"],
            code: 5,
            stubs_only: false,
        },
    ]
}

#[test]
fn every_exit_path_of_spec_section_8_in_text_and_as_a_document() {
    let text = Table::new();
    let json = Table::new();
    for case in cases() {
        // The text and the document at once (the timeout case waits its timeout out twice).
        let (out, as_json) = at_once(|| case.run(&["--no-color"]), || case.run(&["-o", "json"]));
        assert_eq!(out.code, Some(case.code), "{}: {out:?}", case.name);
        text.add(&format!("{} ({})", case.name, case.args.join(" ")), &out);
        let out = as_json;
        assert_eq!(out.code, Some(case.code), "{} -o json: {out:?}", case.name);
        let doc: Value = serde_json::from_slice(&out.stdout_bytes)
            .unwrap_or_else(|e| panic!("{} -o json: {e}: {out:?}", case.name));
        crate::doc_schema::check(&doc);
        match case.code {
            2 | 5 => assert_eq!(doc["kind"], "Preview", "{doc}"),
            _ => {
                assert_eq!(doc["kind"], "Error", "{doc}");
                assert_eq!(doc["exitCode"], case.code, "{doc}");
            }
        }
        // The document itself (the plan codes' Preview documents are compared whole by
        // document_kinds.rs): the Error's message and hint, and stderr beside it.
        let shown = match case.code {
            2 | 5 => format!("kind Preview, plan {}\n", doc["plan"]),
            _ => format!(
                "kind Error, exitCode {}\nmessage: {}\nhint: {}\n",
                doc["exitCode"],
                doc["message"].as_str().unwrap_or("(none)"),
                doc["hint"].as_str().unwrap_or("(none)")
            ),
        };
        let mut out = out;
        out.stdout = shown;
        json.add(&format!("{} -o json", case.name), &out);
    }
    text.table_snap(snapbox::str![[r#"
== 1 bad input: a stack that does not exist (--stack nope preview): exit 1
--- stderr
kubectl-nestor: error: no stack `nope` in /t/repo/stacks
hint: stacks here: dirqual
== 1 bad input: a topology key that does not exist (preview --no-input): exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/dirqual.yaml:11:1: unknown key `layer` (did you mean `layers`?)
hint: valid keys here: name, target_kind, kubeconfig, endpoint, context, inventory, control_group, admin_conf, nodes, layers, catalog, lima, acknowledged
== 1 bad input: a usage error (preview --bogus): exit 1
--- stderr
kubectl-nestor: error: unexpected argument '--bogus' found
hint: usage: kubectl nestor preview [OPTIONS]; `kubectl nestor preview --help` shows every flag, with examples
== 1 missing tool: no kubectl on PATH (preview --no-input): exit 1
--- stderr
kubectl-nestor: error: kubectl not found: no `kubectl` on PATH
hint: install kubectl (https://kubernetes.io/docs/tasks/tools/) or set NESTOR_KUBECTL=/path/to/kubectl
== 1 unexpected output: kubectl cannot serve the read proxy (preview --no-input): exit 1
--- stderr
kubectl-nestor: error: kubectl cannot serve nestor's read proxy, so nothing was read: `kubectl --kubeconfig=/t/home/.kube/dirqual.config --context=kubernetes-admin@dirqual --server=https://10.67.2.11:6443 --request-timeout=10s --cache-dir=/t/home/.kube/cache proxy --unix-socket=/tmp/kubectl-nestor-XXXXXX/proxy.sock '--reject-methods=<...>' '--accept-paths=<74 paths>' '--reject-paths=<...>'` exited with code 1: error: unable to load root certificates: unable to parse bytes as PEM block
hint: nestor reads a cluster only through `kubectl proxy` on a private unix socket (no redirect followed): make TMPDIR an existing directory you can write (or unset it), and point NESTOR_KUBECTL (or PATH) at a real kubectl
== 1 unexpected output: the nodes read forbidden (target --no-input): exit 1
--- stderr
kubectl-nestor: error: cannot read the nodes of https://10.67.2.11:6443: Error from server (Forbidden): nodes is forbidden: User "nestor" cannot list resource "nodes" in API group "" at the cluster scope
hint: check that the kubeconfig's user may list nodes (`kubectl auth can-i list nodes`)
== 3 target refused: kubeconfig not declared (preview --no-input): exit 3
--- stderr
kubectl-nestor: error: kubeconfig target not declared for stack dirqual: add `kubeconfig: ~/.kube/dirqual.config` (no rule chose one: no --kubeconfig flag, no KUBECONFIG, no topology kubeconfig:)
hint: run `kubectl nestor stack select dirqual` (it offers to add the line), or pass `kubectl nestor --kubeconfig FILE ...`
== 3 target refused: endpoint mismatch (preview --no-input): exit 3
--- stderr
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is https://10.99.0.1:6443, the topology's endpoint is https://10.67.2.11:6443; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)
== 4 unreachable: connection refused (preview --no-input): exit 4
--- stderr
kubectl-nestor: error: cluster https://10.67.2.11:6443 unreachable: Unable to connect to the server: dial tcp 10.67.2.11:6443: connect: connection refused | The connection to the server 10.67.2.11:6443 was refused - did you specify the right host or port?
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid
== 4 unreachable: credentials refused (preview --no-input): exit 4
--- stderr
kubectl-nestor: error: cluster https://10.67.2.11:6443 unreachable (credentials refused): error: You must be logged in to the server (Unauthorized)
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid
== 4 unreachable: TLS failure (preview --no-input): exit 4
--- stderr
kubectl-nestor: error: cluster https://10.67.2.11:6443 unreachable (TLS failure): Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid
== 4 unreachable: timeout (preview --no-input --request-timeout 1s): exit 4
--- stderr
kubectl-nestor: error: cluster https://10.67.2.11:6443 unreachable (timed out): `kubectl --kubeconfig=/t/home/.kube/dirqual.config --context=kubernetes-admin@dirqual --server=https://10.67.2.11:6443 --request-timeout=1s --cache-dir=/t/home/.kube/cache proxy --unix-socket=/tmp/kubectl-nestor-XXXXXX/proxy.sock '--reject-methods=<...>' '--accept-paths=<74 paths>' '--reject-paths=<...>'` was not serving after #.#s and was stopped
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid
== 2 detailed exit code: something to install (preview --no-input --no-ssh --detailed-exitcode): exit 2
--- stdout
stack       dirqual (prod)
target      https://10.67.2.11:6443 (context kubernetes-admin@dirqual)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml

REAL (read live, not stored)
  nodes                dirqual1..4, 4/4 Ready
  k8s         present  5 checks hold
  cni         present  5 checks hold
  ceph        present  9 checks hold
  storage     present  3 checks hold
  monitoring  present  6 checks hold
  gitops      present  9 checks hold
  registry    present  2 checks hold
  dataops     present  7 checks hold
  datalake    absent   not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs       absent   not found
    ✗ API group cert-manager.io not served
== 5 detailed exit code: nothing to do, something undecided (preview --no-input --detailed-exitcode): exit 5
--- stdout
stack       dirqual (prod)
target      https://10.67.2.11:6443 (context kubernetes-admin@dirqual)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 1 undecided
  undecided ceph  not planned: fix the failed read and run again

REAL (read live, not stored)
  nodes           dirqual1..4, 4/4 Ready
  k8s    present  5 checks hold
  cni    present  5 checks hold
  ceph   unknown  could not be decided
    ? read of cephclusters.ceph.rook.io failed: Forbidden

"#]]);
    json.table_snap(snapbox::str![[r#"
== 1 bad input: a stack that does not exist -o json: exit 1
--- stdout
kind Error, exitCode 1
message: no stack `nope` in /t/repo/stacks
hint: stacks here: dirqual
--- stderr
kubectl-nestor: error: no stack `nope` in /t/repo/stacks
hint: stacks here: dirqual
== 1 bad input: a topology key that does not exist -o json: exit 1
--- stdout
kind Error, exitCode 1
message: /t/repo/stacks/dirqual.yaml:11:1: unknown key `layer` (did you mean `layers`?)
hint: valid keys here: name, target_kind, kubeconfig, endpoint, context, inventory, control_group, admin_conf, nodes, layers, catalog, lima, acknowledged
--- stderr
kubectl-nestor: error: /t/repo/stacks/dirqual.yaml:11:1: unknown key `layer` (did you mean `layers`?)
hint: valid keys here: name, target_kind, kubeconfig, endpoint, context, inventory, control_group, admin_conf, nodes, layers, catalog, lima, acknowledged
== 1 bad input: a usage error -o json: exit 1
--- stdout
kind Error, exitCode 1
message: unexpected argument '--bogus' found
hint: usage: kubectl nestor preview [OPTIONS]; `kubectl nestor preview --help` shows every flag, with examples
--- stderr
kubectl-nestor: error: unexpected argument '--bogus' found
hint: usage: kubectl nestor preview [OPTIONS]; `kubectl nestor preview --help` shows every flag, with examples
== 1 missing tool: no kubectl on PATH -o json: exit 1
--- stdout
kind Error, exitCode 1
message: kubectl not found: no `kubectl` on PATH
hint: install kubectl (https://kubernetes.io/docs/tasks/tools/) or set NESTOR_KUBECTL=/path/to/kubectl
--- stderr
kubectl-nestor: error: kubectl not found: no `kubectl` on PATH
hint: install kubectl (https://kubernetes.io/docs/tasks/tools/) or set NESTOR_KUBECTL=/path/to/kubectl
== 1 unexpected output: kubectl cannot serve the read proxy -o json: exit 1
--- stdout
kind Error, exitCode 1
message: kubectl cannot serve nestor's read proxy, so nothing was read: `kubectl --kubeconfig=/t/home/.kube/dirqual.config --context=kubernetes-admin@dirqual --server=https://10.67.2.11:6443 --request-timeout=10s --cache-dir=/t/home/.kube/cache proxy --unix-socket=/tmp/kubectl-nestor-XXXXXX/proxy.sock '--reject-methods=<...>' '--accept-paths=<74 paths>' '--reject-paths=<...>'` exited with code 1: error: unable to load root certificates: unable to parse bytes as PEM block
hint: nestor reads a cluster only through `kubectl proxy` on a private unix socket (no redirect followed): make TMPDIR an existing directory you can write (or unset it), and point NESTOR_KUBECTL (or PATH) at a real kubectl
--- stderr
kubectl-nestor: error: kubectl cannot serve nestor's read proxy, so nothing was read: `kubectl --kubeconfig=/t/home/.kube/dirqual.config --context=kubernetes-admin@dirqual --server=https://10.67.2.11:6443 --request-timeout=10s --cache-dir=/t/home/.kube/cache proxy --unix-socket=/tmp/kubectl-nestor-XXXXXX/proxy.sock '--reject-methods=<...>' '--accept-paths=<74 paths>' '--reject-paths=<...>'` exited with code 1: error: unable to load root certificates: unable to parse bytes as PEM block
hint: nestor reads a cluster only through `kubectl proxy` on a private unix socket (no redirect followed): make TMPDIR an existing directory you can write (or unset it), and point NESTOR_KUBECTL (or PATH) at a real kubectl
== 1 unexpected output: the nodes read forbidden -o json: exit 1
--- stdout
kind Error, exitCode 1
message: cannot read the nodes of https://10.67.2.11:6443: Error from server (Forbidden): nodes is forbidden: User "nestor" cannot list resource "nodes" in API group "" at the cluster scope
hint: check that the kubeconfig's user may list nodes (`kubectl auth can-i list nodes`)
--- stderr
kubectl-nestor: error: cannot read the nodes of https://10.67.2.11:6443: Error from server (Forbidden): nodes is forbidden: User "nestor" cannot list resource "nodes" in API group "" at the cluster scope
hint: check that the kubeconfig's user may list nodes (`kubectl auth can-i list nodes`)
== 3 target refused: kubeconfig not declared -o json: exit 3
--- stdout
kind Error, exitCode 3
message: kubeconfig target not declared for stack dirqual: add `kubeconfig: ~/.kube/dirqual.config` (no rule chose one: no --kubeconfig flag, no KUBECONFIG, no topology kubeconfig:)
hint: run `kubectl nestor stack select dirqual` (it offers to add the line), or pass `kubectl nestor --kubeconfig FILE ...`
--- stderr
kubectl-nestor: error: kubeconfig target not declared for stack dirqual: add `kubeconfig: ~/.kube/dirqual.config` (no rule chose one: no --kubeconfig flag, no KUBECONFIG, no topology kubeconfig:)
hint: run `kubectl nestor stack select dirqual` (it offers to add the line), or pass `kubectl nestor --kubeconfig FILE ...`
== 3 target refused: endpoint mismatch -o json: exit 3
--- stdout
kind Error, exitCode 3
message: target mismatch for stack dirqual: the kubeconfig's server is https://10.99.0.1:6443, the topology's endpoint is https://10.67.2.11:6443; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)
--- stderr
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is https://10.99.0.1:6443, the topology's endpoint is https://10.67.2.11:6443; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)
== 4 unreachable: connection refused -o json: exit 4
--- stdout
kind Error, exitCode 4
message: cluster https://10.67.2.11:6443 unreachable: Unable to connect to the server: dial tcp 10.67.2.11:6443: connect: connection refused | The connection to the server 10.67.2.11:6443 was refused - did you specify the right host or port?
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid
--- stderr
kubectl-nestor: error: cluster https://10.67.2.11:6443 unreachable: Unable to connect to the server: dial tcp 10.67.2.11:6443: connect: connection refused | The connection to the server 10.67.2.11:6443 was refused - did you specify the right host or port?
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid
== 4 unreachable: credentials refused -o json: exit 4
--- stdout
kind Error, exitCode 4
message: cluster https://10.67.2.11:6443 unreachable (credentials refused): error: You must be logged in to the server (Unauthorized)
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid
--- stderr
kubectl-nestor: error: cluster https://10.67.2.11:6443 unreachable (credentials refused): error: You must be logged in to the server (Unauthorized)
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid
== 4 unreachable: TLS failure -o json: exit 4
--- stdout
kind Error, exitCode 4
message: cluster https://10.67.2.11:6443 unreachable (TLS failure): Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid
--- stderr
kubectl-nestor: error: cluster https://10.67.2.11:6443 unreachable (TLS failure): Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid
== 4 unreachable: timeout -o json: exit 4
--- stdout
kind Error, exitCode 4
message: cluster https://10.67.2.11:6443 unreachable (timed out): `kubectl --kubeconfig=/t/home/.kube/dirqual.config --context=kubernetes-admin@dirqual --server=https://10.67.2.11:6443 --request-timeout=1s --cache-dir=/t/home/.kube/cache proxy --unix-socket=/tmp/kubectl-nestor-XXXXXX/proxy.sock '--reject-methods=<...>' '--accept-paths=<74 paths>' '--reject-paths=<...>'` was not serving after #.#s and was stopped
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid
--- stderr
kubectl-nestor: error: cluster https://10.67.2.11:6443 unreachable (timed out): `kubectl --kubeconfig=/t/home/.kube/dirqual.config --context=kubernetes-admin@dirqual --server=https://10.67.2.11:6443 --request-timeout=1s --cache-dir=/t/home/.kube/cache proxy --unix-socket=/tmp/kubectl-nestor-XXXXXX/proxy.sock '--reject-methods=<...>' '--accept-paths=<74 paths>' '--reject-paths=<...>'` was not serving after #.#s and was stopped
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid
== 2 detailed exit code: something to install -o json: exit 2
--- stdout
kind Preview, plan {"acknowledged":[],"empty":false,"install":[{"hint":"ansible-playbook platform/datalake.yaml","id":"datalake","reason":"no CephObjectStore in rook-ceph; no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket","title":"S3 datalake (Ceph object store)"},{"hint":"ansible-playbook platform/cert-manager.yaml","id":"certs","reason":"API group cert-manager.io not served","title":"cert-manager"}],"repair":[],"undecided":[],"vmsBroken":[],"vmsToCreate":[],"vmsToStart":[],"vmsUndecided":[]}
== 5 detailed exit code: nothing to do, something undecided -o json: exit 5
--- stdout
kind Preview, plan {"acknowledged":[],"empty":false,"install":[],"repair":[],"undecided":[{"hint":"not planned: fix the failed read and run again","id":"ceph","reason":"read of cephclusters.ceph.rook.io failed: Forbidden","title":"Rook-Ceph cluster"}],"vmsBroken":[],"vmsToCreate":[],"vmsToStart":[],"vmsUndecided":[]}

"#]]);
}
