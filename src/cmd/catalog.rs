//! `catalog list` and `catalog show ID`: what each layer detects and checks, as the stack's
//! catalog defines it (the built-in one plus the stack's `catalog:` file), with the reason
//! the operators gate on each check; `catalog show RULE` shows one gate rule of the built-in
//! rule table (`gate rules` lists them). Reads no cluster.

use clap::Subcommand;

use crate::cmd::context::Invocation;
use crate::error::{Error, Exit, Result};
use crate::model::catalog::host::{HostCheck, HostProbe};
use crate::model::catalog::{Catalog, Check, Layer};
use crate::model::gate::Rule;
use crate::output::documents::catalog::{
    CatalogDoc, CatalogLayerDoc, CheckDoc, HostDoc, LayerDoc, Source,
};
use crate::output::documents::gate::GateRulesDoc;
use crate::output::render::{self, Format, API_VERSION};

/// `catalog --help` examples, in kubectl's style.
pub const EXAMPLES: &str = "\
Examples:
  # Every layer of the active stack's catalog
  kubectl nestor catalog list

  # What ceph detects and checks, and why
  kubectl nestor catalog show ceph";

const LIST_EXAMPLES: &str = "\
Examples:
  # The layers, their order and how many checks each has
  kubectl nestor catalog list

  # As JSON, for a script
  kubectl nestor catalog list -o json";

const SHOW_EXAMPLES: &str = "\
Examples:
  # Every check of the gitops layer, with the operators' reason
  kubectl nestor catalog show gitops

  # Another stack's catalog, as YAML
  kubectl nestor --stack dirqual catalog show audit-log -o yaml

  # One gate rule: what it reads, its severity and its upstream source
  kubectl nestor catalog show drain-time-sync";

#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// The layers of the stack's catalog (built-in plus its `catalog:` file), in order.
    #[command(after_help = LIST_EXAMPLES)]
    List,
    /// One layer: what it detects, what healthy means, each check's reason, its install hint.
    #[command(after_help = SHOW_EXAMPLES)]
    Show {
        /// Layer id, as in `catalog list`, or a gate rule id, as in `gate rules`.
        id: String,
    },
}

fn check_doc(id: String, c: &Check, detect: bool) -> CheckDoc {
    CheckDoc {
        id: Some(id),
        kind: c.kind.key(),
        check: c.kind.describe(detect),
        why: c.why.clone(),
    }
}

/// A host check in words: the remote command's verdict it gates on.
fn host_check_doc(id: String, c: &HostCheck) -> CheckDoc {
    let sudo = if c.sudo { " (through sudo -n)" } else { "" };
    let (kind, check) = match &c.probe {
        HostProbe::Unit {
            unit,
            active,
            result,
        } => {
            let mut what = vec![format!("systemctl show {unit}: loaded")];
            if *active == Some(true) {
                what.push("active".to_string());
            }
            if let Some(r) = result {
                what.push(format!("last run {r}"));
            }
            ("unit", what.join(", "))
        }
        HostProbe::NewestFile {
            dir,
            pattern,
            max_age_secs,
            min_size,
        } if *max_age_secs == crate::model::catalog::host::ANY_AGE && *min_size == 0 => (
            "file",
            format!("{dir}/{pattern} present (find -maxdepth 1 -type f -name)"),
        ),
        HostProbe::NewestFile {
            dir,
            pattern,
            max_age_secs,
            min_size,
        } => (
            "newestFile",
            format!(
                "the newest {dir}/{pattern} younger than {} and at least {min_size} byte(s)",
                crate::duration::format(std::time::Duration::from_secs(*max_age_secs))
            ),
        ),
        HostProbe::Sshd { expect } => (
            "sshd",
            format!(
                "sshd -T shows {}",
                expect
                    .iter()
                    .map(|(k, v)| format!("{k} {}", v.join("|")))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
        HostProbe::Executable { programs } => (
            "executable",
            format!(
                "{} each a regular file in {} (find -maxdepth 1 -type f -name, one per directory)",
                programs.join(", "),
                crate::model::catalog::host::EXECUTABLE_DIRS.join(", ")
            ),
        ),
    };
    CheckDoc {
        id: Some(id),
        kind,
        check: format!("{check}{sudo}"),
        why: c.why.clone(),
    }
}

fn layer_doc(catalog: &Catalog, l: &Layer) -> LayerDoc {
    let named = l.named_checks();
    let checks = |healthy: bool| -> Vec<CheckDoc> {
        named
            .iter()
            .filter(|(_, h, _)| *h == healthy)
            .map(|(id, _, c)| check_doc(id.clone(), c, !healthy))
            .collect()
    };
    LayerDoc {
        id: l.id.clone(),
        title: l.title.clone(),
        after: l.after.clone(),
        observable: l.observable,
        install: l.install.clone(),
        defined_at: catalog.origin(&l.id),
        detect: checks(false),
        healthy: checks(true),
        host: l.host.as_ref().map(|h| HostDoc {
            group: h.group.clone(),
            detect: h.detect.clone(),
            checks: h
                .named_checks(&l.id)
                .into_iter()
                .map(|(id, c)| host_check_doc(id, c))
                .collect(),
        }),
    }
}

/// The catalog of `--stack` (or the active stack); the built-in one, with a notice, when no
/// stack is named and none can be found.
fn load(ctx: &Invocation) -> Result<(Catalog, Source)> {
    let explicit = ctx.stacks.explicit();
    match ctx.stacks.topology(None) {
        Ok(stack) => {
            let overrides = stack.catalog_path();
            let catalog = stack.catalog.clone();
            Ok((
                catalog,
                Source {
                    stack: Some(stack.name().to_string()),
                    overrides: overrides.map(|p| p.display().to_string()),
                },
            ))
        }
        Err(e) if explicit => Err(e),
        Err(_) => {
            render::notice("no stack found: showing the built-in catalog (name one with --stack)");
            Ok((
                Catalog::builtin()?,
                Source {
                    stack: None,
                    overrides: None,
                },
            ))
        }
    }
}

/// Dispatch a `catalog` subcommand.
pub fn run(ctx: &Invocation, command: &CatalogCommand) -> Result<Exit> {
    let (catalog, source) = load(ctx)?;
    match command {
        CatalogCommand::List => list(ctx, &catalog, source),
        CatalogCommand::Show { id } => show(ctx, &catalog, source, id),
    }
}

fn list(ctx: &Invocation, catalog: &Catalog, source: Source) -> Result<Exit> {
    if ctx.global.output != Format::Text {
        let doc = CatalogDoc {
            api_version: API_VERSION,
            kind: "Catalog",
            source,
            layers: catalog
                .layers()
                .iter()
                .map(|l| layer_doc(catalog, l))
                .collect(),
        };
        ctx.printer.document(ctx.global.output, &doc)?;
        return Ok(Exit::Ok);
    }
    let mut rows = vec![["ID", "TITLE", "AFTER", "DETECT", "HEALTHY"]
        .map(String::from)
        .to_vec()];
    for l in catalog.layers() {
        let after = if l.after.is_empty() {
            "-".to_string()
        } else {
            l.after.join(",")
        };
        let (detect, healthy) = match (&l.host, l.observable) {
            (Some(h), _) => ("-".to_string(), format!("host: {}", h.checks.len())),
            (None, true) => (l.detect.len().to_string(), l.healthy.len().to_string()),
            (None, false) => ("-".to_string(), "host-level".to_string()),
        };
        rows.push(vec![l.id.clone(), l.title.clone(), after, detect, healthy]);
    }
    ctx.printer.out(&render::table(&rows))?;
    Ok(Exit::Ok)
}

/// One gate rule (a layer of the same id would win; none has one): as `gate rules -o json`
/// prints the table, one rule in it.
fn show_rule(ctx: &Invocation, rule: &Rule) -> Result<Exit> {
    match ctx.global.output {
        Format::Json | Format::Yaml => {
            let doc = GateRulesDoc::new(std::slice::from_ref(rule));
            ctx.printer.document(ctx.global.output, &doc)?;
        }
        Format::Junit => {
            return Err(Error::input(
                "`catalog show` has no JUnit form",
                "use -o json or -o yaml",
            ))
        }
        Format::Text => {
            let reads: Vec<&str> = rule.reads.iter().map(|r| r.as_str()).collect();
            let ssh = if rule.host {
                " (over ssh; skipped by --no-ssh)"
            } else {
                ""
            };
            ctx.printer.out(&format!(
                "rule      {} ({}, gate {})
title     {}
reads     {}{ssh}
source    {}
          {}
",
                rule.id.as_str(),
                rule.severity.as_str(),
                rule.gate.as_str(),
                rule.title,
                reads.join(", "),
                rule.source.title,
                rule.source.url,
            ))?;
        }
    }
    Ok(Exit::Ok)
}

fn show(ctx: &Invocation, catalog: &Catalog, source: Source, id: &str) -> Result<Exit> {
    let Some(layer) = catalog.get(id) else {
        let rules = &crate::model::gate::builtin().rules;
        if let Some(rule) = rules.iter().find(|r| r.id.as_str() == id) {
            return show_rule(ctx, rule);
        }
        let ids = catalog.ids();
        let suggestion = crate::suggest::nearest(id, ids.iter().copied())
            .map(|n| format!(" (did you mean `{n}`?)"))
            .unwrap_or_default();
        return Err(Error::input(
            format!("no layer `{id}` in the catalog{suggestion}"),
            "`kubectl nestor catalog list` shows the layer ids",
        ));
    };
    let doc = layer_doc(catalog, layer);
    if ctx.global.output != Format::Text {
        ctx.printer.document(
            ctx.global.output,
            &CatalogLayerDoc {
                api_version: API_VERSION,
                kind: "CatalogLayer",
                source,
                layer: doc,
            },
        )?;
        return Ok(Exit::Ok);
    }
    let mut out = format!("layer     {} ({})\n", doc.id, doc.title);
    let after = if doc.after.is_empty() {
        "-".to_string()
    } else {
        doc.after.join(", ")
    };
    out.push_str(&format!("after     {after}\n"));
    out.push_str(&format!("defined   {}\n", doc.defined_at));
    out.push_str(&format!(
        "install   {}   (printed in the plan, never run)\n",
        doc.install
    ));
    if let Some(h) = &doc.host {
        out.push_str(&format!(
            "\nhost (read over ssh on every host of inventory group {}; all true: healthy)\n",
            h.group
        ));
        if let Some(unit) = &h.detect {
            out.push_str(&format!("  detected by {unit} being installed on a host\n"));
        }
        for c in &h.checks {
            out.push_str(&format!("  - {:12}  {}\n", c.kind, c.check));
            if let Some(id) = &c.id {
                out.push_str(&format!("    {:12}  id: {id}\n", ""));
            }
            if let Some(why) = &c.why {
                out.push_str(&format!("    {:12}  why: {why}\n", ""));
            }
        }
    } else if !doc.observable {
        out.push_str(
            "\nhost-level: not visible through Kubernetes; always unknown, never planned\n",
        );
    }
    for (title, checks) in [
        ("detect (any true: the layer exists)", &doc.detect),
        ("healthy (all true: the layer is healthy)", &doc.healthy),
    ] {
        if checks.is_empty() {
            continue;
        }
        out.push_str(&format!("\n{title}\n"));
        for c in checks {
            out.push_str(&format!("  - {:12}  {}\n", c.kind, c.check));
            if let Some(id) = &c.id {
                out.push_str(&format!("    {:12}  id: {id}\n", ""));
            }
            if let Some(why) = &c.why {
                out.push_str(&format!("    {:12}  why: {why}\n", ""));
            }
        }
    }
    ctx.printer.out(&out)?;
    Ok(Exit::Ok)
}
