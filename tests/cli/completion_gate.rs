//! Issue 33: `kubectl nestor gate drain <TAB>` offers the nodes the stack declares, read from
//! the stack file at completion time (never from a cluster: no kubectl, no ssh is run), and
//! `gate upgrade <TAB>` the components the definition names.

use crate::support::*;

const TWO_STACKS: [(&str, &str); 2] = [
    (
        "dirqual",
        "name: dirqual\ntarget_kind: prod\nkubeconfig: ~/.kube/dirqual.config\nnodes:\n  - { name: dirqual1, role: control-plane }\n  - { name: dirqual2, role: worker }\n  - { name: edge1, role: worker }\nlayers: [k8s]\n",
    ),
    (
        "lab",
        "name: lab\ntarget_kind: prod\nkubeconfig: ~/.kube/lab.config\nnodes:\n  - { name: lab1, role: control-plane }\nlayers: [k8s]\n",
    ),
];

#[test]
fn gate_drain_completes_the_declared_nodes_without_touching_a_cluster() {
    let bed = Bed::new();
    for (name, text) in TWO_STACKS {
        bed.write_stack(name, text);
    }
    bed.select("dirqual");
    // A kubectl or ssh run by completion would fail the test: both stubs exit 97.
    bed.stub("kubectl", "exit 97");
    bed.stub("ssh", "exit 97");
    let complete = |words: &[&str]| {
        let out = bed.cmd().arg("__complete").args(words).run();
        out.code(0);
        out.no_stderr();
        out.stdout
    };
    assert_eq!(
        complete(&["gate", "drain", ""]),
        "dirqual1\ndirqual2\nedge1\n:4\n"
    );
    assert_eq!(
        complete(&["gate", "drain", "d"]),
        "dirqual1\ndirqual2\n:4\n"
    );
    assert_eq!(
        complete(&["--stack", "lab", "gate", "drain", ""]),
        "lab1\n:4\n"
    );
    assert_eq!(complete(&["gate", "drain", "dirqual2", ""]), ":4\n");
    let components = complete(&["gate", "upgrade", ""]);
    let names: Vec<&str> = components
        .lines()
        .map(|l| l.split('\t').next().unwrap_or(l))
        .collect();
    assert_eq!(names, ["kubernetes", "cilium", "rook", ":4"]);
    assert_eq!(bed.calls("kubectl"), Vec::<Vec<String>>::new());
    assert_eq!(bed.calls("ssh"), Vec::<Vec<String>>::new());
}
