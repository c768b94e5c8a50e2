//! One memory budget for every read (issue 49 item 9, SPEC §9 "Bounded per run"): the
//! APIService list, the drain gate's PodDisruptionBudgets and `limactl list --json` are
//! decoded as their bytes arrive into the fields the checks use, charged to the run's
//! budget, so nestor's own peak RSS stays under 64 MiB whatever one answer weighs. Each
//! answer is shaped as its source writes it (kube-aggregator's `apiregistration.k8s.io/v1`,
//! the disruption controller's `policy/v1`, Lima's `limactl list --json`), at the sizes
//! the red team reported (45 MB, 34 MB, 47 MB). Measured by nestor's own `-v` usage line
//! (getrusage of nestor alone).

use crate::support::{Bed, Cluster, LIMA_BENCH};

/// SPEC §9: nestor's own peak RSS, whatever one answer weighs.
const PEAK_KIB: u64 = 64 * 1024;

/// nestor's own peak RSS, from its `-v` usage line (`own peak rss N KiB`).
fn own_peak_kib(stderr: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| l.split("own peak rss ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no usage line in stderr:\n{stderr}"))
}

fn run(bed: &Bed, args: &[&str]) -> crate::support::Outcome {
    let mut run = bed.cmd();
    run.args(["--no-input", "--no-color", "-v", "--request-timeout=300s"])
        .args(args);
    run.run()
}

/// A local APIService as kube-aggregator's autoregister controller writes it for a CRD
/// group (no `spec.service`: always available), named `VERSION.GROUP`.
fn local_apiservice(group: &str) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {
            "name": format!("v1.{group}"),
            "uid": "6f1c2a4e-0d7b-4c39-9a55-2b8e1f3d7c10",
            "resourceVersion": "41207",
            "labels": {"kube-aggregator.kubernetes.io/automanaged": "true"},
            "creationTimestamp": "2026-01-01T00:00:00Z",
        },
        "spec": {"group": group, "version": "v1", "groupPriorityMinimum": 1000, "versionPriority": 100},
        "status": {"conditions": [{
            "type": "Available", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z",
            "reason": "Local", "message": "Local APIServices are always available",
        }]},
    })
}

/// dirqual answering 100 000 more APIServices (45 MB), every one local and available: k8s
/// is judged as without them, and nestor keeps each one's group and condition only.
#[test]
#[ignore = "tier 2, at scale: bash scripts/test.sh runs it (-- --include-ignored)"]
fn a_hundred_thousand_apiservices_are_decoded_as_they_arrive() {
    let mut fixture = nestor_replay::fixtures::dirqual();
    for i in 0..100_000 {
        let group = format!("g{i:06}.tenants.platform.example.com");
        fixture.objects.push(local_apiservice(&group));
    }
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::replay(&fixture));
    let out = run(&bed, &["preview"]);
    let peak = own_peak_kib(&out.stderr);
    eprintln!("measured: 100 000 APIServices, nestor's own peak RSS {peak} KiB");
    assert_eq!(
        out.code,
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        out.stdout,
        out.stderr
    );
    assert!(
        out.stdout
            .contains("✓ every APIService available (0 served by a Service)"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("get: /apis/apiregistration.k8s.io/v1/apiservices: 200 (")
            && out.stderr.contains(" bytes, decoded as they arrived) in "),
        "{}",
        out.stderr
    );
    assert!(peak < PEAK_KIB, "own peak RSS {peak} KiB");
}

/// The drain gate on dirqual-gates with 8 000 more PodDisruptionBudgets (34 MB), each of a
/// tenant namespace with no pod on dirqual4 and a 60-label selector, as the disruption
/// controller writes them. The gate keeps every label (a selector is matched against pods),
/// each charged to the budget.
#[test]
#[ignore = "tier 2, at scale: bash scripts/test.sh runs it (-- --include-ignored)"]
fn eight_thousand_wide_pdbs_stay_within_the_budget() {
    let gate = |fixture: &nestor_replay::Fixture| {
        let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::replay(fixture));
        run(&bed, &["gate", "drain", "dirqual4", "--no-ssh"])
    };
    let plain = gate(&nestor_replay::fixtures::by_name("dirqual-gates").expect("dirqual-gates"));
    let mut fixture = nestor_replay::fixtures::by_name("dirqual-gates").expect("dirqual-gates");
    for i in 0..8000 {
        let labels: serde_json::Map<String, serde_json::Value> = (0..60)
            .map(|l| {
                (
                    format!("tenants.platform.example.com/dimension-{l:02}"),
                    format!("tenant-{i:05}-value-{l:02}").into(),
                )
            })
            .collect();
        fixture.objects.push(nestor_replay::gates::pdb(
            &format!("tenant-{:03}", i % 400),
            &format!("svc-{i:05}"),
            serde_json::json!({"maxUnavailable": 1, "selector": {"matchLabels": labels}}),
            2,
            1,
            2,
        ));
    }
    let out = gate(&fixture);
    let peak = own_peak_kib(&out.stderr);
    eprintln!("measured: gate drain, 8 000 PDBs of 60 labels, nestor's own peak RSS {peak} KiB");
    let verdict = |stdout: &str| stdout.lines().nth(1).unwrap_or_default().to_string();
    assert_eq!(
        (out.code, verdict(&out.stdout)),
        (plain.code, verdict(&plain.stdout)),
        "stdout:\n{}\nstderr:\n{}",
        out.stdout,
        out.stderr
    );
    assert!(peak < PEAK_KIB, "own peak RSS {peak} KiB");
}

/// One `limactl list --json` line as Lima 2.0 prints a stopped instance (fields of
/// `store.FormatData`, `config` the instance's lima.yaml), named `name`.
fn lima_line(name: &str, status: &str) -> String {
    serde_json::json!({
        "name": name, "hostname": format!("lima-{name}"), "status": status,
        "dir": format!("/Users/ops/.lima/{name}"), "vmType": "vz", "arch": "aarch64",
        "cpus": 4, "memory": 4294967296u64, "disk": 53687091200u64,
        "network": [{"lima": "user-v2", "macAddress": "52:55:55:12:34:56", "interface": "lima0"}],
        "sshConfigFile": format!("/Users/ops/.lima/{name}/ssh.config"), "errors": [],
        "config": {"vmType": "vz", "os": "Linux", "arch": "aarch64",
                   "images": [{"location": "https://cloud.debian.org/images/cloud/bookworm/20250210-2019/debian-12-genericcloud-arm64-20250210-2019.qcow2", "arch": "aarch64"}],
                   "cpus": 4, "memory": "4GiB", "disk": "50GiB", "mountType": "virtiofs",
                   "ssh": {"localPort": 0, "loadDotSSHPubKeys": false, "forwardAgent": false},
                   "containerd": {"system": false, "user": false},
                   "networks": [{"lima": "user-v2", "macAddress": "52:55:55:12:34:56", "interface": "lima0"}]},
        "sshAddress": "127.0.0.1", "protected": false, "limaVersion": "2.0.3",
        "HostOS": "darwin", "HostArch": "aarch64", "LimaHome": "/Users/ops/.lima",
        "IdentityFile": "/Users/ops/.lima/_config/user",
    })
    .to_string()
}

/// A bench whose `limactl list --json` prints 47 MB: its three instances among 40 000 more
/// of other benches. The bench's VMs are judged as without the others.
#[test]
#[ignore = "tier 2, at scale: bash scripts/test.sh runs it (-- --include-ignored)"]
fn a_huge_limactl_listing_is_decoded_as_it_arrives() {
    let bed = Bed::new();
    bed.write_stack("bench", LIMA_BENCH);
    bed.select("bench");
    let mut text = String::new();
    for (name, status) in [
        ("node1", "Running"),
        ("node2", "Stopped"),
        ("node3", "Stopped"),
    ] {
        text.push_str(&lima_line(name, status));
        text.push('\n');
    }
    let mut i = 0;
    while text.len() < 47_000_000 {
        text.push_str(&lima_line(&format!("ci-{i:05}"), "Stopped"));
        text.push('\n');
        i += 1;
    }
    bed.limactl_listing(&text);
    let out = run(&bed, &["preview"]);
    let peak = own_peak_kib(&out.stderr);
    eprintln!(
        "measured: {} MB of limactl list ({} instances), nestor's own peak RSS {peak} KiB",
        text.len() / 1_000_000,
        i + 3
    );
    let vms = out
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("VMs "))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "));
    assert_eq!(
        vms.as_deref(),
        Some("VMs node1 Running, node2 Stopped, node3 Stopped"),
        "stdout:\n{}\nstderr:\n{}",
        out.stdout,
        out.stderr
    );
    assert!(peak < PEAK_KIB, "own peak RSS {peak} KiB");
}
