//! Issue 32, SPEC §18: the context a stack was written for is recorded (`context:`), and a
//! later `kubectl config use-context` of its kubeconfig refuses every command (exit 3) with
//! the line that restores it. The other context's cluster is the DECOY: it never sees a
//! request (checked here and by every bed on drop).

use std::fs;

use crate::bed_or_skip;
use snapbox::str;

use crate::support::*;

#[test]
fn a_switched_current_context_refuses_every_command_and_the_other_cluster_sees_nothing() {
    let bed = bed_or_skip!(E2e::dirqual());
    // One file, two contexts: `replay` (current) and `edge`, whose cluster is the decoy.
    let kc = bed.home.join(".kube/lab.config");
    let text = bed.server.kubeconfig().replace(
        "contexts:\n",
        "contexts:\n- name: edge\n  context:\n    cluster: edge\n    user: replay\n",
    );
    let text = text.replace(
        "clusters:\n",
        &format!(
            "clusters:\n- name: edge\n  cluster:\n    server: {}\n    insecure-skip-tls-verify: true\n",
            decoy().url()
        ),
    );
    fs::write(&kc, text).expect("write");
    let kc_s = kc.to_str().unwrap_or_default().to_string();
    let r = bed.run(&[
        "--kubeconfig",
        &kc_s,
        "discover",
        "--no-input",
        "--write",
        "--name",
        "lab",
    ]);
    r.code(0);
    r.stderr_snap(str![[r#"
kubectl-nestor: not stack dirqual (active here): discovering the cluster of /t/home/.kube/lab.config alone (rule flag)
kubectl-nestor: warning: /t/home/.kube/lab.config holds 2 contexts: nestor reads its current-context replay only (the topology records it: `context: replay`)
kubectl-nestor: wrote /t/repo/stacks/lab.yaml (stack lab): review its layers, then `kubectl nestor stack select lab`

"#]]);
    let written = fs::read_to_string(bed.stacks.join("lab.yaml")).expect("lab.yaml");
    assert!(
        written.contains(&format!(
            "\nkubeconfig: ~/.kube/lab.config\nendpoint: {}\ncontext: replay\n",
            bed.server.url()
        )),
        "{written}"
    );
    let r = bed.run(&["--stack", "lab", "target", "--no-input"]);
    r.code(0);

    // The operator switches the file to the other cluster.
    let switched = run(bed.program(&bed.kubectl).args([
        "--kubeconfig",
        &kc_s,
        "config",
        "use-context",
        "edge",
    ]));
    switched.code(0);
    let reads_before = bed.server.audit().len();
    let restore = format!("kubectl --kubeconfig {kc_s} config use-context replay");
    for args in [
        &["--stack", "lab", "preview", "--no-input"][..],
        &["--stack", "lab", "preview", "--no-input", "-o", "json"],
        &["--stack", "lab", "target", "--no-input"],
        &["--stack", "lab", "discover", "--no-input"],
        &[
            "--stack",
            "lab",
            "wait",
            "--no-input",
            "--for",
            "present",
            "--timeout",
            "2s",
            "k8s",
        ],
    ] {
        let before = bed.tree();
        let r = bed.run(args);
        r.error(
            3,
            &format!(
                "current-context of {kc_s} changed from replay to edge since stack lab was written"
            ),
        );
        assert!(
            r.stderr.contains(&format!("`{restore}`")),
            "{args:?}: {r:?}"
        );
        assert_eq!(bed.tree(), before, "{args:?}: nothing written");
    }
    assert_decoy_untouched();
    assert_eq!(
        bed.server.audit().len(),
        reads_before,
        "no read of lab's own cluster either"
    );
    // The fleet shows lab refused, for the same reason; dirqual (the same cluster, its own
    // file) is read as usual.
    let r = bed.run(&["preview", "--all", "--no-input"]);
    r.code(3);
    let flat = r.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&format!("lab (refused): current-context of {kc_s} changed from replay to edge since stack lab was written hint: switch it back: `{restore}`")),
        "{r:?}"
    );
    assert_decoy_untouched();

    // What the printed line does (run by hand it is the operator's kubectl, and a version
    // dispatcher in front of it probes the current cluster's /version first: the decoy).
    let text = fs::read_to_string(&kc).expect("read");
    fs::write(
        &kc,
        text.replace("current-context: edge", "current-context: replay"),
    )
    .expect("write");
    bed.run(&["--stack", "lab", "target", "--no-input"]).code(0);
}
