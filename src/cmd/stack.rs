//! `stack list`, `stack show`, `stack env`: the stacks as the files declare them (`stack
//! current` is cmd/current.rs, `stack select` cmd/select.rs).

use clap::Subcommand;

use crate::cmd::context::Invocation;
use crate::error::{Error, Exit, Result};
use crate::output::documents::stack::{NodeRow, StackDoc, StackList, StackRow};
use crate::output::render::Format;
use crate::output::render::{self, API_VERSION};
use crate::stack::{TargetKind, Topology};
use crate::target;

/// `stack --help` examples, in kubectl's style.
pub const EXAMPLES: &str = "\
Examples:
  # The stacks, the active one marked with *
  kubectl nestor stack list

  # The stack commands use here, and why (--stack, NESTOR_STACK or stacks/current.yaml)
  kubectl nestor stack current

  # Make dirqual the active stack
  kubectl nestor stack select dirqual";

const LIST_EXAMPLES: &str = "\
Examples:
  # The stacks of the stacks directory; * marks the active one
  kubectl nestor stack list

  # As JSON, for a script
  kubectl nestor stack list -o json";

const SHOW_EXAMPLES: &str = "\
Examples:
  # The active stack, paths resolved
  kubectl nestor stack show

  # Another stack, as YAML
  kubectl nestor stack show dirqual -o yaml";

const ENV_EXAMPLES: &str = "\
Examples:
  # Export the active stack's kubeconfig into this shell
  eval \"$(kubectl nestor stack env)\"

  # Another stack's
  eval \"$(kubectl nestor stack env dirqual)\"

  # In fish
  kubectl nestor stack env --shell fish | source";

const SELECT_EXAMPLES: &str = "\
Examples:
  # Make dirqual the active stack (for prod: offers to declare and fetch its kubeconfig)
  kubectl nestor stack select dirqual

  # In a script: never prompts, never writes the topology, never contacts a cluster
  kubectl nestor stack select dirqual --no-input";

#[derive(Debug, Subcommand)]
pub enum StackCommand {
    /// The stacks with their kind and declared kubeconfig; `*` marks the active one.
    #[command(after_help = LIST_EXAMPLES)]
    List,
    /// The stack a command run here would use, and why: --stack, NESTOR_STACK, or stacks/current.yaml.
    #[command(after_help = crate::cmd::current::EXAMPLES)]
    Current,
    /// One parsed topology (default: the active stack).
    #[command(after_help = SHOW_EXAMPLES)]
    Show {
        /// Stack name (default: --stack, else NESTOR_STACK, else the active stack).
        name: Option<String>,
    },
    /// Print `export KUBECONFIG='...'` for the stack, for `eval "$(kubectl nestor stack env)"`.
    #[command(after_help = ENV_EXAMPLES)]
    Env {
        /// Stack name (default: --stack, else NESTOR_STACK, else the active stack).
        name: Option<String>,
        /// The shell that reads the line: `posix` (sh, bash, zsh: `export KUBECONFIG='...'`) or `fish` (`set -gx KUBECONFIG '...'`).
        #[arg(long, value_enum, default_value_t = crate::shell::Shell::Posix)]
        shell: crate::shell::Shell,
    },
    /// Make NAME the active stack (stacks/current.yaml); for prod, offer to declare and fetch its kubeconfig.
    #[command(
        after_help = SELECT_EXAMPLES,
        long_about = "Make NAME the active stack: stacks/current.yaml becomes a symlink to NAME.yaml, switched atomically.\n\nFor a prod stack without `kubeconfig:` it asks `Add \"kubeconfig: ~/.kube/NAME.config\" to FILE? [y/N]` and adds that one line, leaving every other byte of the file as it was. When the declared kubeconfig is absent or its cluster unreachable it offers `kubeconfig fetch`. With --no-input (or without a terminal) it never writes the topology and never contacts a cluster: it prints the line to add."
    )]
    Select {
        /// Stack name: stacks/NAME.yaml.
        name: String,
    },
}

/// Dispatch a `stack` subcommand.
pub fn run(invocation: &Invocation, command: &StackCommand) -> Result<Exit> {
    match command {
        StackCommand::List => list(invocation),
        StackCommand::Current => crate::cmd::current::run(invocation),
        StackCommand::Show { name } => show(invocation, name.as_deref()),
        StackCommand::Env { name, shell } => env(invocation, name.as_deref(), *shell),
        StackCommand::Select { name } => crate::cmd::select::run(invocation, name),
    }
}

pub fn list(invocation: &Invocation) -> Result<Exit> {
    let dir = invocation.stacks.stacks_dir()?;
    let active = dir.active_name();
    let mut rows = Vec::new();
    let mut errors: Vec<Error> = vec![];
    for file in dir.stack_files()? {
        let name = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let is_active = active.as_deref() == Some(name.as_str());
        let row = match Topology::load(&file, &dir.path) {
            Ok(t) => StackRow {
                warnings: match t.kind() {
                    TargetKind::Lima => target::isolation::checked_bench(&t, &invocation.env)
                        .err()
                        .filter(|e| e.exit == Exit::Refused)
                        .map(|e| e.message)
                        .into_iter()
                        .collect(),
                    TargetKind::Prod => vec![],
                },
                target_kind: Some(t.kind().as_str()),
                kubeconfig: match t.kind() {
                    TargetKind::Lima => Some(
                        t.raw
                            .kubeconfig
                            .clone()
                            .unwrap_or_else(|| crate::stack::BENCH_KUBECONFIG.to_string()),
                    ),
                    TargetKind::Prod => t.raw.kubeconfig.clone(),
                },
                name,
                file: file.display().to_string(),
                active: is_active,
                error: None,
            },
            Err(e) => {
                let message = e.message.clone();
                errors.push(e);
                StackRow {
                    name,
                    file: file.display().to_string(),
                    target_kind: None,
                    kubeconfig: None,
                    active: is_active,
                    error: Some(message),
                    warnings: vec![],
                }
            }
        };
        rows.push(row);
    }
    let prods = target::isolation::known_prod_endpoints(&dir.path, &invocation.env);
    for (endpoint, stacks) in target::isolation::shared_endpoints(&prods) {
        for r in rows.iter_mut().filter(|r| stacks.contains(&r.name)) {
            let others: Vec<&str> = stacks
                .iter()
                .filter(|s| **s != r.name)
                .map(String::as_str)
                .collect();
            r.warnings.push(format!(
                "prod stack {} declares the same endpoint {endpoint} as prod stack {}: one of them targets the wrong cluster",
                r.name,
                others.join(", ")
            ));
        }
    }
    // Not stacks (one spelling, `.yaml`): said, never silently skipped.
    let misnamed = dir.misnamed_files();
    if invocation.global.output == Format::Text {
        let mut table = vec![vec![
            String::new(),
            "NAME".to_string(),
            "KIND".to_string(),
            "KUBECONFIG".to_string(),
        ]];
        for r in &rows {
            table.push(vec![
                // One column wide whether or not a stack is active, so NAME never shifts.
                if r.active { "*" } else { " " }.to_string(),
                r.name.clone(),
                r.target_kind.unwrap_or("invalid").to_string(),
                match (&r.error, &r.kubeconfig) {
                    (Some(_), _) => "-".to_string(),
                    (None, Some(k)) => k.clone(),
                    (None, None) => "(not declared)".to_string(),
                },
            ]);
        }
        if rows.is_empty() {
            render::notice(&format!("no stacks in {}", dir.path.display()));
        } else {
            invocation.printer.out(&render::table(&table))?;
        }
        for w in rows.iter().flat_map(|r| &r.warnings) {
            render::notice(&format!("warning: {w}"));
        }
        for f in &misnamed {
            let stem = f.file_stem().map(|s| s.to_string_lossy().to_lowercase());
            render::notice(&format!(
                "warning: {} is not read: stack files are named NAME.yaml (rename it to {}.yaml)",
                f.display(),
                stem.unwrap_or_default()
            ));
        }
    } else {
        invocation.printer.document(
            invocation.global.output,
            &StackList {
                api_version: API_VERSION,
                kind: "StackList",
                stacks_dir: dir.path.display().to_string(),
                active,
                stacks: rows,
            },
        )?;
    }
    match invalid_files(errors) {
        Some(e) => Err(e),
        None => Ok(Exit::Ok),
    }
}

/// One error for every invalid stack file, each named with its own message (file and line):
/// the first alone would hide the others until it is fixed.
fn invalid_files(mut errors: Vec<Error>) -> Option<Error> {
    if errors.len() <= 1 {
        return errors.pop();
    }
    let exit = errors[0].exit;
    let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
    let mut hints: Vec<&str> = vec![];
    for e in &errors {
        if !hints.contains(&e.hint.as_str()) {
            hints.push(&e.hint);
        }
    }
    Some(Error::new(
        exit,
        format!(
            "{} stack files are invalid: {}",
            errors.len(),
            messages.join("; ")
        ),
        hints.join("; "),
    ))
}

pub fn show(invocation: &Invocation, name: Option<&str>) -> Result<Exit> {
    let t = invocation.stacks.topology(name)?;
    let kubeconfig_path = t.kubeconfig_path(&invocation.env)?;
    let doc = StackDoc {
        api_version: API_VERSION,
        kind: "Stack",
        name: t.name().to_string(),
        file: t.file.display().to_string(),
        target_kind: t.kind().as_str(),
        kubeconfig: t.raw.kubeconfig.clone(),
        kubeconfig_path: kubeconfig_path.map(|p| p.display().to_string()),
        endpoint: t.raw.endpoint.as_ref().map(|e| e.to_string()),
        inventory: if t.has_no_inventory() {
            crate::stack::NO_INVENTORY.to_string()
        } else {
            t.inventory(&invocation.env)?.display().to_string()
        },
        control_group: t.raw.control_group.clone(),
        admin_conf: t.admin_conf().to_string(),
        nodes: t
            .raw
            .nodes
            .iter()
            .map(|n| NodeRow {
                name: n.name.to_string(),
                role: n.role.as_str(),
            })
            .collect(),
        layers: t.layer_ids(),
        catalog: t.raw.catalog.clone(),
        instance_prefix: t.raw.lima.as_ref().map(|l| l.instance_prefix.to_string()),
    };
    if invocation.global.output != Format::Text {
        invocation
            .printer
            .document(invocation.global.output, &doc)?;
        return Ok(Exit::Ok);
    }
    let none = || "-".to_string();
    let kubeconfig = match (&doc.kubeconfig, &doc.kubeconfig_path) {
        (Some(w), Some(p)) if w != p => format!("{w} ({p})"),
        (_, Some(p)) => p.clone(),
        (_, None) => format!(
            "not declared (add `kubeconfig: ~/.kube/{}.config`)",
            doc.name
        ),
    };
    let mut rows = vec![
        vec![
            "stack".to_string(),
            format!("{} ({})", doc.name, doc.target_kind),
        ],
        vec!["file".to_string(), doc.file.clone()],
        vec!["kubeconfig".to_string(), kubeconfig],
        vec![
            "endpoint".to_string(),
            doc.endpoint.clone().unwrap_or_else(none),
        ],
    ];
    if t.kind() == TargetKind::Prod {
        rows.push(vec!["inventory".to_string(), doc.inventory.clone()]);
        rows.push(vec![
            "control group".to_string(),
            doc.control_group
                .clone()
                .unwrap_or_else(|| "(default groups)".into()),
        ]);
        rows.push(vec!["admin_conf".to_string(), doc.admin_conf.clone()]);
    } else {
        rows.push(vec!["instances".to_string(), t.instance_names().join(", ")]);
    }
    let nodes: Vec<String> = doc
        .nodes
        .iter()
        .map(|n| format!("{} ({})", n.name, n.role))
        .collect();
    rows.push(vec![
        "nodes".to_string(),
        if nodes.is_empty() {
            none()
        } else {
            nodes.join(", ")
        },
    ]);
    rows.push(vec![
        "layers".to_string(),
        if doc.layers.is_empty() {
            none()
        } else {
            doc.layers.join(", ")
        },
    ]);
    if let Some(c) = &doc.catalog {
        rows.push(vec!["catalog".to_string(), c.clone()]);
    }
    invocation.printer.out(&render::table(&rows))?;
    Ok(Exit::Ok)
}

/// `stack env`: the stack's own kubeconfig (topology or lima bench), never the exported one.
pub fn env(
    invocation: &Invocation,
    name: Option<&str>,
    shell: crate::shell::Shell,
) -> Result<Exit> {
    let t = invocation.stacks.topology(name)?;
    let path = match t.kind() {
        // `eval` of this line must never point a bench shell at prod (SPEC §14).
        TargetKind::Lima => target::isolation::checked_bench(&t, &invocation.env)?,
        TargetKind::Prod => t
            .declared_kubeconfig(&invocation.env)?
            .ok_or_else(|| target::not_declared(t.name()))?,
    };
    let text = path.to_str().ok_or_else(|| {
        Error::input(
            format!("kubeconfig path {} is not UTF-8", path.display()),
            "use a UTF-8 path",
        )
    })?;
    invocation
        .printer
        .out(&crate::shell::export_line(shell, "KUBECONFIG", text))?;
    Ok(Exit::Ok)
}
