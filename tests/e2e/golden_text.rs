//! The exact text of each command a person reads, and of each error nestor words itself,
//! compared byte for byte with `tests/e2e/golden/` (the real kubectl, the replay server).
//! A change shows as a diff; `SNAPSHOTS=overwrite cargo test --test e2e golden_text`
//! rewrites the files after a deliberate one. Errors that quote kubectl's own words vary
//! with the kubectl version and stay in `failures.rs` with the part nestor owns asserted.

use crate::bed_or_skip;
use crate::support::*;

/// `$ ARGS`, the exit code, stdout and stderr of one run: what the golden file holds.
fn transcript(bed: &E2e, args: &[&str]) -> String {
    let r = bed.run(args);
    bed.stable(&format!(
        "$ kubectl nestor {}\nexit {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        r.code.map_or("signal".to_string(), |c| c.to_string()),
        r.stdout,
        r.stderr
    ))
}

#[test]
fn golden_preview_discover_target_and_stack_list_on_the_healthy_cluster() {
    let bed = bed_or_skip!(E2e::dirqual());
    let runs = [
        &["preview", "--no-input", "--no-color"][..],
        &["discover", "--no-color"],
        &["target", "--no-input", "--no-color"],
        &["stack", "list", "--no-color"],
    ];
    let text: String = runs.iter().map(|a| transcript(&bed, a) + "\n").collect();
    golden("text-dirqual.txt", &text);
}

#[test]
fn golden_preview_on_the_degraded_cluster() {
    let bed = bed_or_skip!(E2e::new("degraded", &[]));
    golden(
        "text-degraded.txt",
        &transcript(&bed, &["preview", "--no-input", "--no-color"]),
    );
}

#[test]
fn golden_errors_nestor_words_itself() {
    let bed = bed_or_skip!(E2e::dirqual());
    let mut text = String::new();
    // The target refused: endpoint mismatch, no declared kubeconfig, a KUBECONFIG list.
    bed.write_stack(
        "moved",
        &dirqual_topology("https://10.67.2.11:6443").replace("name: dirqual", "name: moved"),
    );
    text += &transcript(&bed, &["--stack", "moved", "preview", "--no-input"]);
    text += &transcript(&bed, &["--stack", "moved", "target", "--no-input"]);
    bed.write_stack(
        "undeclared",
        "name: undeclared\ntarget_kind: prod\nnodes:\n  - { name: n1, role: control-plane }\nlayers: [k8s]\n",
    );
    text += &transcript(&bed, &["--stack", "undeclared", "preview", "--no-input"]);
    // Bad input: an unknown stack, a topology with a misspelt key, a bad flag value.
    text += &transcript(&bed, &["--stack", "nope", "preview", "--no-input"]);
    bed.write_stack(
        "typo",
        "name: typo\ntarget_kind: prod\nkubeconfg: ~/.kube/typo.config\nlayers: [k8s]\n",
    );
    text += &transcript(&bed, &["--stack", "typo", "preview", "--no-input"]);
    text += &transcript(&bed, &["preview", "--request-timeout", "ten"]);
    golden("errors.txt", &text);
}
