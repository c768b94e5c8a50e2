//! `--explain` (SPEC §16): every command printed beside an evidence line, run as printed by
//! `sh` with the real kubectl against the replay server, shows what the evidence says — the
//! fixtures' healthy and degraded clusters, every Kubernetes layer of the catalog.

use crate::bed_or_skip;
use snapbox::str;

use crate::support::*;

/// Run one printed command line as a person would: `sh -c LINE`, `kubectl` on PATH being the
/// real one, the bed's HOME.
fn run_as_printed(bed: &E2e, line: &str) -> Outcome {
    let dir = bed.tmp.path().join("explain-bin");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let link = dir.join("kubectl");
    if !link.exists() {
        std::os::unix::fs::symlink(&bed.kubectl, &link).expect("symlink");
    }
    let mut c = Run::new("/bin/sh");
    c.args(["-c", line])
        .env("HOME", &bed.home)
        .env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
        .env_remove("KUBECONFIG")
        .env("KUBERNETES_MASTER", decoy().url());
    run(&c)
}

/// The words of `text` that carry a value: names, numbers, states (punctuation around them
/// dropped, the glue words of evidence left out).
fn values(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || "(),;=:".contains(c))
        .map(|w| w.trim_matches(|c: char| "'\"[]{}".contains(c)))
        .filter(|w| w.len() >= 3 || w.chars().all(|c| c.is_ascii_digit() || c == '/'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn check_every_command(bed: &E2e, fixture: &str) -> usize {
    let r = bed.run(&["preview", "--no-input", "--explain", "-o", "json"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    r.stderr_snap(str![]);
    let doc = r.json();
    let mut ran = 0;
    for layer in doc["real"]["layers"].as_array().expect("layers") {
        let evidence: Vec<&str> = layer["evidence"]
            .as_array()
            .expect("evidence")
            .iter()
            .filter_map(|e| e.as_str())
            .collect();
        let explain = layer["explain"].as_array().cloned().unwrap_or_default();
        let kubernetes =
            layer["hosts"].is_null() && layer["reason"] != "not observable through Kubernetes";
        if kubernetes {
            for e in &evidence {
                assert!(
                    explain.iter().any(|x| x["evidence"] == *e),
                    "{fixture}: no command for `{e}` of {}",
                    layer["id"]
                );
            }
        }
        for item in &explain {
            let line = item["command"].as_str().expect("command");
            let said = item["evidence"].as_str().expect("evidence");
            assert!(line.starts_with("kubectl --kubeconfig "), "{line}");
            assert!(line.contains(" --context replay "), "{line}");
            let out = run_as_printed(bed, line);
            assert_eq!(
                out.code,
                Some(0),
                "{fixture}: `{line}` failed: {}",
                out.stderr
            );
            ran += 1;
            let absence = said.starts_with("no ") || said.ends_with(" not served");
            // `cilium.io/v2` shows the group `cilium.io`: the output's words split at `/` too.
            let shown: Vec<String> = values(&out.stdout)
                .iter()
                .flat_map(|w| w.split('/').map(str::to_string).collect::<Vec<_>>())
                .filter(|w| w.len() >= 3)
                .chain(values(&out.stdout))
                .collect();
            if absence {
                // What the evidence says is missing is not in what the command shows.
                let missing = values(said)
                    .into_iter()
                    .find(|w| w.contains('.') || w.contains('/'));
                if let Some(m) = missing {
                    assert!(
                        !shown.iter().any(|w| w == &m),
                        "{fixture}: `{said}` yet `{line}` shows {m}:\n{}",
                        out.stdout
                    );
                }
            } else {
                // A value of the evidence is in the output, or the evidence counts the rows
                // the command lists (`4 nodes registered`, `3/4 ... Ready`).
                let rows = out.stdout.lines().filter(|l| !l.trim().is_empty()).count();
                let counted = values(said)
                    .iter()
                    .any(|w| w.split('/').any(|n| n.parse::<usize>() == Ok(rows)));
                // `Deployment rook-ceph/rook-ceph-osd-*`: the command lists those by name.
                let prefixed = values(said)
                    .iter()
                    .filter_map(|w| w.strip_suffix('*'))
                    .any(|p| {
                        let p = p.rsplit('/').next().unwrap_or(p);
                        shown.iter().any(|w| w.starts_with(p))
                    });
                // `... outOfQuorum empty`: the command prints nothing.
                let empty = said.ends_with(" empty") && out.stdout.trim().is_empty();
                // A short object name the command lists first (`pg`) named in the evidence as
                // `NAMESPACE/NAME ` (`Cluster dataops/pg without .spec.backup: ...`).
                let named = out
                    .stdout
                    .lines()
                    .filter_map(|l| l.split_whitespace().next())
                    .any(|n| said.contains(&format!("/{n} ")));
                assert!(
                    empty
                        || counted
                        || prefixed
                        || named
                        || shown.iter().any(|w| said.contains(w.as_str())),
                    "{fixture}: `{line}` shows none of `{said}`:\n{}",
                    out.stdout
                );
            }
        }
    }
    ran
}

#[test]
fn explain_commands_run_as_printed_and_show_the_evidence_healthy() {
    let bed = bed_or_skip!(E2e::dirqual());
    assert!(check_every_command(&bed, "dirqual") >= 20);
}

#[test]
fn explain_commands_run_as_printed_and_show_the_evidence_degraded() {
    let bed = bed_or_skip!(E2e::new("degraded", &[]));
    assert!(check_every_command(&bed, "degraded") >= 20);
    // The degraded value itself, over the list the check walks, as SPEC §16 words it.
    let r = bed.run(&["preview", "--no-input", "--explain", "-o", "json"]);
    let doc = r.json();
    let ceph = doc["real"]["layers"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["id"] == "ceph"))
        .expect("ceph");
    let health = ceph["explain"]
        .as_array()
        .and_then(|x| {
            x.iter().find(|e| {
                e["evidence"]
                    .as_str()
                    .is_some_and(|s| s.contains("HEALTH_WARN"))
            })
        })
        .expect("the health line has a command");
    let line = health["command"].as_str().expect("command");
    assert!(
        line.ends_with(r#" get cephclusters.ceph.rook.io -n rook-ceph -o 'jsonpath={range .items[*]}{.metadata.name} {.status.ceph.health} {.status.ceph.details}{"\n"}{end}'"#),
        "{line}"
    );
    let shown = run_as_printed(&bed, line).stdout;
    assert!(shown.starts_with("rook-ceph HEALTH_WARN "), "{shown}");
    // In text, under its evidence line, whole.
    let t = bed.run(&["preview", "--no-input", "--no-color", "--explain"]);
    assert!(
        t.stdout.contains(&format!("      $ {line}\n")),
        "{}",
        t.stdout
    );
}
