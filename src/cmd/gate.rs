//! `gate`: "may I do this now?" (SPEC §17). `gate rules`, the built-in rule table with each
//! rule's severity and upstream source, reads no cluster; `gate drain NODE` asks the session
//! for its evaluation (the target confirmed as for preview, the drain reads through the
//! restricted proxy, the host rules' inventory decided before any ssh); `gate upgrade
//! kubernetes|cilium|rook VERSION` likewise (VERSION parsed first: one that does not parse is
//! a usage error); each
//! render it: text (verdict first), `-o json|yaml` (a `Gate`
//! document), `-o junit`; exit 0 GO, 2 NO-GO, 5 CANNOT TELL.

use crate::output::render::Printer;
use clap::{Args, Subcommand};

use crate::cmd::context::Invocation;
use crate::error::{Error, Exit, Result};
use crate::model::gate;
use crate::model::gate::explain::Gated;
use crate::model::gate::version::Version;
use crate::output::documents::gate::{GateDoc, GateRulesDoc, Subject};
use crate::output::render::{self, Format, Paint};
use crate::read::apiread::gate::{ComponentGate, NodeName};
use crate::session;
use crate::session::gate::Ask;

/// `gate --help` examples, in kubectl's style.
pub const EXAMPLES: &str = "\
Examples:
  # May I drain dirqual2 now? (GO, NO-GO with the blockers, or CANNOT TELL)
  kubectl nestor gate drain dirqual2

  # May the control plane move to Kubernetes 1.32 now?
  kubectl nestor gate upgrade kubernetes 1.32

  # Every gate rule, its severity and the upstream document it encodes
  kubectl nestor gate rules";

const DRAIN_EXAMPLES: &str = "\
Examples:
  # May I drain dirqual2 now?
  kubectl nestor gate drain dirqual2

  # As JSON for a script (exit 0 GO, 2 NO-GO, 5 CANNOT TELL)
  kubectl nestor gate drain dirqual2 --no-input -o json";

const RULES_EXAMPLES: &str = "\
Examples:
  # The rules of every gate
  kubectl nestor gate rules

  # As JSON, for a script
  kubectl nestor gate rules -o json";

#[derive(Debug, Subcommand)]
pub enum GateCommand {
    /// Every gate rule: its gate, its severity (blocker or warning) and its upstream source.
    #[command(after_help = RULES_EXAMPLES)]
    Rules,
    /// May NODE be drained now? Reads PDBs, NODE's pods, the etcd and mon pods, PVs, the
    /// CephCluster and the nodes, read-only; exit 0 GO, 2 NO-GO, 5 CANNOT TELL.
    #[command(after_help = DRAIN_EXAMPLES)]
    Drain(DrainArgs),
    /// May the cluster move to VERSION now? Read-only; exit 0 GO, 2 NO-GO, 5 CANNOT TELL.
    ///
    /// For kubernetes: reads the nodes, the kube-apiserver mirror pods, the PDBs, the CRDs,
    /// `/readyz?verbose`, one list per API VERSION removes and the platform components'
    /// workloads by name (their versions); over ssh, the control-plane certificates and (from
    /// 1.35) each node's cgroup version. For cilium: the agent DaemonSet and the
    /// operator Deployment; for rook: the operator, the mon/mgr/OSD Deployments'
    /// rook-version labels and the CephCluster; both with the kube-apiserver mirror pods.
    #[command(after_help = UPGRADE_EXAMPLES)]
    Upgrade(UpgradeArgs),
}

const UPGRADE_EXAMPLES: &str = "\
Examples:
  # May the control plane move to Kubernetes 1.32 now?
  kubectl nestor gate upgrade kubernetes 1.32

  # A patch, as JSON for a script (exit 0 GO, 2 NO-GO, 5 CANNOT TELL)
  kubectl nestor gate upgrade kubernetes v1.32.4 --no-input -o json

  # May Cilium move to 1.19 now? May Rook move to 1.17?
  kubectl nestor gate upgrade cilium 1.19
  kubectl nestor gate upgrade rook 1.17";

/// What `gate upgrade` upgrades.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum UpgradeComponent {
    /// Kubernetes itself, by kubeadm (also `k8s`, the layer's id)
    #[value(alias = "k8s")]
    Kubernetes,
    Cilium,
    Rook,
}

#[derive(Debug, Args)]
pub struct UpgradeArgs {
    /// What to upgrade: kubernetes, cilium or rook.
    #[arg(value_enum)]
    pub component: UpgradeComponent,
    /// The version to move to, as kubeadm takes it: `1.32.4`, `v1.32.4`, `v1.32.4+build`,
    /// `v1.33.0-rc.1`; `1.32` is that minor's `.0` (refused when it is the current minor).
    pub version: String,
    /// Do not read the host rules over ssh (k8s-node-cgroup-v2, k8s-certs-*): reported as
    /// skipped (cilium and rook have no host rule).
    #[arg(long)]
    pub no_ssh: bool,
    /// Under each rule, the reads it was decided from: what each showed and the read-only
    /// command that shows it by hand (the GET as sent, the ssh as run); JSON: `rules[].explain`.
    #[arg(long)]
    pub explain: bool,
}

/// VERSION as the operator writes it and kubeadm parses it (`version.ParseSemantic` after an
/// optional `v`): `1.32.4`, `v1.32.4`, `v1.32.4+build.1`, `v1.33.0-rc.1`, and a bare minor
/// `1.32` (SPEC §17: that minor's `.0`). The flag says VERSION was a bare minor. Cilium's
/// and Rook's VERSION (`kubeadm` false) is numbers only: their gates judge releases.
fn parse_version(text: &str, kubeadm: bool) -> Result<(Version, bool)> {
    let plain = text.strip_prefix('v').unwrap_or(text);
    // Build metadata after `+`, then a pre-release after `-`: dot-separated identifiers of
    // [0-9A-Za-z-], only after a patch.
    let (core, build) = plain
        .split_once('+')
        .map_or((plain, None), |(c, b)| (c, Some(b)));
    let (core, pre) = core
        .split_once('-')
        .map_or((core, None), |(c, p)| (c, Some(p)));
    let identifiers_ok = |s: Option<&str>| {
        s.is_none_or(|s| {
            s.split('.')
                .all(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
        })
    };
    let parts: Vec<&str> = core.split('.').collect();
    let numbers_ok = parts.iter().all(|p| {
        !p.is_empty()
            && p.len() <= 9
            && p.bytes().all(|b| b.is_ascii_digit())
            && (p.len() == 1 || !p.starts_with('0'))
    });
    let bare = parts.len() == 2;
    let plain_numbers = pre.is_none() && build.is_none();
    let ok = (parts.len() == 3 || (bare && plain_numbers))
        && (kubeadm || plain_numbers)
        && numbers_ok
        && identifiers_ok(pre)
        && identifiers_ok(build);
    match Version::parse(core).filter(|_| ok) {
        Some(v) => Ok((v, bare)),
        None => Err(Error::input(
            format!(
                "`{}` is not a version",
                crate::term::terminal_safe(&text.chars().take(80).collect::<String>())
            ),
            if kubeadm {
                "write VERSION as kubeadm does: MAJOR.MINOR.PATCH, optionally with a leading v, a -pre-release or a +build (1.32.4, v1.32.4, v1.33.0-rc.1), or MAJOR.MINOR for that minor's .0"
            } else {
                "write VERSION as MAJOR.MINOR or MAJOR.MINOR.PATCH, optionally with a leading v: 1.18, 1.18.2, v1.18.2"
            },
        )),
    }
}

/// A bare `MAJOR.MINOR` names that minor's `.0` only when it is not the control plane's own
/// minor (SPEC §17): there it would mean a downgrade to `.0`, never what was meant.
fn bare_minor_is_current(written: &str, version: Version, facts: &gate::Facts) -> Result<()> {
    match gate::control_plane_version(facts) {
        Some(current) if current.minor() == version.minor() => Err(Error::input(
            format!(
                "`{}` is the control plane's own minor: it runs {current}",
                crate::term::terminal_safe(written)
            ),
            format!(
                "name the patch you mean (`gate upgrade kubernetes {}.{}.N`), or the next minor {}",
                current.major,
                current.minor,
                current.minor().next()
            ),
        )),
        _ => Ok(()),
    }
}

#[derive(Debug, Args)]
pub struct DrainArgs {
    /// The node to drain (as `kubectl get nodes` names it).
    pub node: String,
    /// Do not read the host rules over ssh (drain-time-sync): reported as skipped.
    #[arg(long)]
    pub no_ssh: bool,
    /// Under each rule, the reads it was decided from: what each showed and the read-only
    /// command that shows it by hand (the GET as sent, the ssh as run); JSON: `rules[].explain`.
    #[arg(long)]
    pub explain: bool,
}

pub fn run(
    printer: &Printer,
    format: Format,
    command: &GateCommand,
    invocation: &dyn Fn() -> Result<Invocation>,
) -> Result<Exit> {
    match command {
        GateCommand::Rules => rules(printer, format),
        GateCommand::Drain(args) => drain(&invocation()?, args),
        GateCommand::Upgrade(args) => upgrade(invocation, args),
    }
}

fn upgrade(invocation: &dyn Fn() -> Result<Invocation>, args: &UpgradeArgs) -> Result<Exit> {
    let kubeadm = args.component == UpgradeComponent::Kubernetes;
    let (version, bare) = parse_version(&args.version, kubeadm)?;
    let invocation = invocation()?;
    let stack = invocation.stacks.optional_topology()?;
    let (name, ask) = match args.component {
        UpgradeComponent::Kubernetes => (
            "kubernetes",
            Ask::UpgradeKubernetes {
                version,
                no_ssh: args.no_ssh,
            },
        ),
        UpgradeComponent::Cilium => ("cilium", Ask::Component(ComponentGate::Cilium, version)),
        UpgradeComponent::Rook => ("rook", Ask::Component(ComponentGate::Rook, version)),
    };
    let (session, gated) = session::gate::run(invocation.ground(), stack.as_ref(), &ask)?;
    if bare && kubeadm {
        bare_minor_is_current(&args.version, version, &gated.facts)?;
    }
    let subject = Subject {
        gate: ask.gate(),
        node: None,
        version: Some(version.to_string()),
    };
    show(
        &invocation,
        &stack,
        &session,
        subject,
        &gated,
        &format!("gate upgrade {name} {version}"),
        args.explain,
    )
}

type Stack = Option<crate::stack::Topology>;

fn drain(invocation: &Invocation, args: &DrainArgs) -> Result<Exit> {
    let node = NodeName::parse(&args.node).map_err(|e| {
        Error::input(
            e,
            "name a node as `kubectl get nodes` lists it (`kubectl nestor target` shows them)",
        )
    })?;
    let stack = invocation.stacks.optional_topology()?;
    let ask = Ask::Drain {
        node: node.clone(),
        no_ssh: args.no_ssh,
    };
    let (session, gated) = session::gate::run(invocation.ground(), stack.as_ref(), &ask)?;
    let subject = Subject {
        gate: ask.gate(),
        node: Some(node.as_str().to_string()),
        version: None,
    };
    show(
        invocation,
        &stack,
        &session,
        subject,
        &gated,
        &format!("gate drain {}", node.as_str()),
        args.explain,
    )
}

/// The gate's answer: text (`HEADER on ENDPOINT (context, rule)`, verdict first), a `Gate`
/// document or JUnit; its exit code says the verdict.
fn show(
    invocation: &Invocation,
    stack: &Stack,
    session: &session::Session<'_>,
    subject: Subject,
    gated: &Gated,
    header: &str,
    explain: bool,
) -> Result<Exit> {
    let evaluation = &gated.evaluation;
    let mut doc = GateDoc::new(
        stack.as_ref().map(|s| s.name().to_string()),
        session.target_ref(),
        subject,
        evaluation,
    );
    if explain {
        crate::cmd::gate_explain::add(&mut doc, gated, &session.target_ref());
    }
    let now = crate::clock::now_rfc3339();
    match invocation.global.output {
        Format::Json | Format::Yaml => {
            invocation
                .printer
                .observed(invocation.global.output, &doc, &now)?
        }
        Format::Junit => invocation
            .printer
            .out(&crate::output::gate::junit(&doc, &now))?,
        Format::Text => {
            let paint = Paint {
                on: invocation.printer.color(),
            };
            let target = session.target_ref();
            invocation.printer.out(&format!(
                "{header} on {} (context {}, rule: {})\n{}",
                render::escape(&target.endpoint),
                render::escape(&target.context),
                session.chosen.rule.name(),
                crate::output::gate::text(&doc, paint, invocation.layout.showing_all(explain))
            ))?;
        }
    }
    Ok(evaluation.verdict.exit())
}

fn rules(printer: &Printer, format: Format) -> Result<Exit> {
    let table = gate::builtin();
    match format {
        Format::Json | Format::Yaml => {
            printer.document(format, &GateRulesDoc::new(&table.rules))?;
        }
        Format::Junit => {
            return Err(Error::input(
                "`gate rules` has no JUnit form",
                "-o junit is for a gate's verdict; use -o json or -o yaml for the table",
            ))
        }
        Format::Text => {
            let mut rows = vec![["RULE", "GATE", "SEVERITY", "SSH", "SOURCE"]
                .map(String::from)
                .to_vec()];
            for r in &table.rules {
                rows.push(vec![
                    r.id.as_str().to_string(),
                    r.gate.as_str().to_string(),
                    r.severity.as_str().to_string(),
                    if r.host { "yes" } else { "-" }.to_string(),
                    r.source.url.clone(),
                ]);
            }
            printer.out(&render::table(&rows))?;
        }
    }
    Ok(Exit::Ok)
}

#[cfg(test)]
mod tests {
    use super::parse_version;

    #[test]
    fn versions_parse_as_kubeadm_parses_them() {
        for (text, want, bare) in [
            ("1.34", "1.34.0", true),
            ("1.34.8", "1.34.8", false),
            ("v1.34.8", "1.34.8", false),
            // kubeadm's policy_test "build release supported at MinimumControlPlaneVersion".
            ("v1.34.0+build", "1.34.0", false),
            ("v1.35.0-rc.1", "1.35.0", false),
            ("v1.35.0-beta.1+build.7", "1.35.0", false),
        ] {
            assert_eq!(
                parse_version(text, true)
                    .map(|(v, b)| (v.to_string(), b))
                    .ok(),
                Some((want.to_string(), bare)),
                "{text}"
            );
        }
        for bad in [
            "",
            "1",
            "v",
            "1.",
            "1.34.",
            "1.34.8.1",
            "1.x",
            "latest",
            "1.34-rc.1",
            "1.34+k3s1",
            "1.34.0-",
            "1.34.0+",
            "1.34.0-rc..1",
            "1.34.0+b_1",
            "01.34.0",
            "1.034.0",
            "containerd://1.34",
            "vv1.34",
            " 1.34",
            "1234567890.1",
        ] {
            assert!(parse_version(bad, true).is_err(), "{bad:?}");
        }
        // Cilium's and Rook's VERSION: numbers only.
        assert!(parse_version("v1.18.2-rc.1", false).is_err());
        assert!(parse_version("v1.18.2+build", false).is_err());
        assert_eq!(
            parse_version("1.18", false)
                .map(|(v, b)| (v.to_string(), b))
                .ok(),
            Some(("1.18.0".to_string(), true))
        );
        let err = parse_version("1.\u{1b}[31m", true)
            .expect_err("refused")
            .to_string();
        assert!(!err.contains('\u{1b}'), "{err}");
    }
}
