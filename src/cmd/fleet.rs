//! `preview --all`: the fleet view (SPEC §14). Every stack of the stacks directory (not
//! `current.yaml`) is previewed in parallel, at most [`parallel`] at a time, each under
//! the non-interactive target policy (a prod target must be its `endpoint:`; no prompt, even
//! on a terminal). One aligned line per stack and a total; `-o json|yaml` is a
//! `PreviewList` of each stack's `Preview` document or its error. One stack's failure never
//! hides the others: it is that stack's line, and the exit code is the worst outcome.

use crate::cmd::context::Invocation;
use crate::error::{Error, Exit, Result};
use crate::model::plan::Outcome;
use crate::model::state::State;
use crate::output::documents::fleet::{ErrorDoc, Item, PreviewList, SharedEndpoint, Total};
use crate::output::layout::{cut, hang, visible_width, Layout};
use crate::output::render::{self, escape, Format, Paint, API_VERSION};
use crate::output::report::Preview;
use crate::session::{observe, Ground, Prompt};
use crate::stack::Topology;
use crate::target::isolation;

/// Stacks previewed at the same time: [`crate::pool::STACKS_PER_CORE`] per core (sixteen on
/// 2 cores), at most [`crate::pool::MAX_STACKS`] (SPEC §9 "Bounded per run"). A stack's wall is
/// two kubectl start-ups (CPU: ~110 ms for the pair) and then one round of reads that only
/// waits on its server, so the fleet's wall can be no less than its CPU time over the cores
/// plus the last stack's round trip. Measured on 2 cores, 10 stacks at 100 ms per request,
/// alternating runs: two per core 1.34 s against 0.93 s for every stack at once; pacing the
/// starts gave no faster wall (docs/read-path.md, "Measured").
pub fn parallel() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    cores
        .saturating_mul(crate::pool::STACKS_PER_CORE)
        .clamp(2, crate::pool::MAX_STACKS)
}

pub fn run(invocation: &Invocation, detailed_exitcode: bool, no_ssh: bool) -> Result<Exit> {
    if invocation.global.stack.is_some() {
        return Err(Error::input(
            "--all previews every stack of the stacks directory: it takes no --stack",
            "drop --stack (or drop --all to preview one stack)",
        ));
    }
    if let Some(env) = &invocation.env.stack {
        render::notice(&format!(
            "NESTOR_STACK={env} is ignored by --all: every stack of the stacks directory is previewed"
        ));
    }
    if invocation.global.kubeconfig.is_some() {
        return Err(Error::input(
            "--all reads each stack through its own kubeconfig: it takes no --kubeconfig",
            "drop --kubeconfig; each stack's topology declares its target",
        ));
    }
    let dir = invocation.stacks.stacks_dir()?;
    let files = dir.stack_files()?;
    if files.is_empty() {
        return Err(Error::input(
            format!("no stacks in {}", dir.path.display()),
            "add a stack file stacks/<name>.yaml (see `kubectl nestor stack list`)",
        ));
    }
    // The fleet's policy: never a prompt, and an exported KUBECONFIG chooses no stack's
    // target (it can only be one stack's file).
    let mut env = invocation.env.clone();
    if let Some(k) = env.kubeconfig.take() {
        render::notice(&format!(
            "KUBECONFIG ({}) ignored by --all: each stack is read through its own kubeconfig",
            k.to_string_lossy()
        ));
    }
    let ground = Ground {
        runner: &invocation.runner,
        env: &env,
        kubeconfig: None,
        prompt: Prompt::Never,
    };
    let items: Vec<Item> = crate::pool::map(&files, parallel(), |file| {
        preview_one(ground, &dir.path, file, detailed_exitcode, no_ssh)
    })
    .into_iter()
    .flatten()
    .collect();
    let shared: Vec<SharedEndpoint> =
        isolation::shared_endpoints(&isolation::known_prod_endpoints(&dir.path, &invocation.env))
            .into_iter()
            .map(|(endpoint, stacks)| SharedEndpoint { endpoint, stacks })
            .collect();
    for s in &shared {
        render::notice(&format!(
            "warning: prod stacks {} declare the same endpoint {}: one of them targets the wrong cluster",
            s.stacks.join(", "),
            s.endpoint
        ));
    }
    let mut total = Total {
        stacks: items.len(),
        ..Total::default()
    };
    for i in &items {
        *match i.outcome {
            "ok" => &mut total.ok,
            "work" => &mut total.work,
            "undecided" => &mut total.undecided,
            "refused" => &mut total.refused,
            "unreachable" => &mut total.unreachable,
            _ => &mut total.error,
        } += 1;
    }
    let worst = items
        .iter()
        .map(|i| i.exit_code)
        .max_by_key(|c| severity(*c))
        .unwrap_or(0);
    let list = PreviewList {
        api_version: API_VERSION,
        kind: "PreviewList",
        stacks_dir: dir.path.display().to_string(),
        items,
        total,
        shared_endpoints: shared,
    };
    match invocation.global.output {
        Format::Text => invocation.printer.out(&text(
            &list,
            Paint {
                on: invocation.printer.color(),
            },
            invocation.layout,
        ))?,
        Format::Junit => invocation.printer.junit(&junit(&list))?,
        f @ (Format::Json | Format::Yaml) => {
            invocation
                .printer
                .observed(f, &list, &crate::clock::now_rfc3339())?
        }
    }
    Ok(exit_of(worst))
}

fn preview_one(
    ground: Ground,
    stacks_dir: &std::path::Path,
    file: &std::path::Path,
    detailed_exitcode: bool,
    no_ssh: bool,
) -> Item {
    let name = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let loaded = Topology::load(file, stacks_dir);
    let target_kind = loaded.as_ref().ok().map(|t| t.kind().as_str());
    let declared = loaded
        .as_ref()
        .ok()
        .and_then(|t| t.raw.endpoint.as_ref().map(|e| e.to_string()));
    // A panic in one stack's read is that stack's error, never the fleet's.
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        loaded.and_then(|t| observe::preview(ground, &t, None, no_ssh))
    }))
    .unwrap_or_else(|_| Err(Error::internal(format!("previewing stack {name} panicked"))));
    let file = file.display().to_string();
    match built {
        Ok(b) => {
            let outcome = plan_outcome(&b.preview);
            let exit_code = match (detailed_exitcode, outcome) {
                (true, "work") => Exit::PlanNotEmpty.code(),
                (true, "undecided") => Exit::Undecided.code(),
                _ => Exit::Ok.code(),
            };
            Item {
                name,
                file,
                target_kind,
                endpoint: b
                    .preview
                    .target
                    .as_ref()
                    .map(|t| t.endpoint.clone())
                    .or(declared),
                outcome,
                exit_code,
                preview: Some(b.preview),
                error: None,
            }
        }
        Err(e) => Item {
            name,
            file,
            target_kind,
            endpoint: declared,
            outcome: match e.exit {
                Exit::Refused => "refused",
                Exit::Unreachable => "unreachable",
                Exit::Ok | Exit::Error | Exit::PlanNotEmpty | Exit::Undecided => "error",
            },
            exit_code: e.exit.code(),
            preview: None,
            error: Some(ErrorDoc {
                message: crate::error::one_line(&e.message),
                hint: crate::error::one_line(&e.hint),
            }),
        },
    }
}

/// `ok`, `work` or `undecided`: the plan's outcome, as `--detailed-exitcode` reads it.
fn plan_outcome(p: &Preview) -> &'static str {
    match p.plan.plan.outcome() {
        Outcome::Settled => "ok",
        Outcome::Work => "work",
        Outcome::Undecided => "undecided",
    }
}

/// The worst outcome wins the fleet's exit code: a refused target first (the most
/// dangerous), then an unreachable cluster, an error, work to do (2), undecided (5), ok.
fn severity(code: u8) -> u8 {
    match code {
        3 => 6,
        4 => 5,
        1 => 4,
        2 => 3,
        5 => 2,
        0 => 0,
        _ => 1,
    }
}

fn exit_of(code: u8) -> Exit {
    match code {
        1 => Exit::Error,
        2 => Exit::PlanNotEmpty,
        3 => Exit::Refused,
        4 => Exit::Unreachable,
        5 => Exit::Undecided,
        _ => Exit::Ok,
    }
}

fn plan_size(p: &Preview) -> usize {
    let plan = &p.plan.plan;
    plan.install.len()
        + plan.repair.len()
        + plan.undecided.len()
        + plan.vms_to_create.len()
        + plan.vms_to_start.len()
        + plan.vms_broken.len()
        + plan.vms_undecided.len()
}

/// The fleet for a CI system: one testsuite per stack, an error for a stack not read.
fn junit(list: &PreviewList) -> String {
    use crate::output::junit::{report, Suite};
    let now = crate::clock::now_rfc3339();
    let suites: Vec<Suite> = list
        .items
        .iter()
        .map(|i| match (&i.preview, &i.error) {
            (Some(p), _) => Suite::Read(p, now.clone()),
            (None, Some(e)) => Suite::Failed {
                name: &i.name,
                message: &e.message,
                hint: &e.hint,
            },
            (None, None) => Suite::Failed {
                name: &i.name,
                message: i.outcome,
                hint: "run `kubectl nestor --stack NAME preview` for this stack",
            },
        })
        .collect();
    report(&suites)
}

/// The fleet for a person: one row per stack cut to the width, the outcome before the
/// endpoint so that a narrow terminal cuts the endpoint, never the answer.
fn text(list: &PreviewList, paint: Paint, layout: Layout) -> String {
    let mut rows = vec![[
        "STACK",
        "OUTCOME",
        "KIND",
        "NODES",
        "LAYERS P/D/A/U",
        "PLAN",
        "TARGET",
    ]
    .map(String::from)
    .to_vec()];
    for i in &list.items {
        let kind = i.target_kind.unwrap_or("invalid").to_string();
        let outcome = match i.outcome {
            "ok" => paint.green("ok"),
            "work" | "undecided" => paint.yellow(i.outcome),
            other => paint.red(other),
        };
        let endpoint = i
            .endpoint
            .as_deref()
            .map(escape)
            .unwrap_or_else(|| "-".into());
        let row = match &i.preview {
            Some(p) => {
                let count = |s: State| p.real.layers.iter().filter(|l| l.state == s).count();
                let nodes = &p.real.nodes;
                vec![
                    i.name.clone(),
                    outcome,
                    kind,
                    if nodes.error.is_some() {
                        format!("?/{}", nodes.declared)
                    } else {
                        format!("{}/{}", nodes.ready, nodes.declared)
                    },
                    format!(
                        "{}/{}/{}/{}",
                        count(State::Present),
                        count(State::Degraded),
                        count(State::Absent),
                        count(State::Unknown)
                    ),
                    match p.plan.plan.acknowledged.len() {
                        0 => plan_size(p).to_string(),
                        n => format!("{}, {n} acknowledged", plan_size(p)),
                    },
                    endpoint.clone(),
                ]
            }
            None => vec![
                i.name.clone(),
                outcome,
                kind,
                "-".into(),
                "-".into(),
                "-".into(),
                endpoint,
            ],
        };
        rows.push(row);
    }
    let mut out = String::new();
    let mut line = |l: &str| {
        out.push_str(&cut(l, layout.width));
        out.push('\n');
    };
    for l in render::table(&rows).lines() {
        line(l);
    }
    let t = &list.total;
    line(&format!(
        "total: {} stacks: {} ok, {} work, {} undecided, {} refused, {} unreachable, {} error",
        t.stacks, t.ok, t.work, t.undecided, t.refused, t.unreachable, t.error
    ));
    for i in &list.items {
        if let Some(e) = &i.error {
            let head = format!("{} ({}): ", i.name, i.outcome);
            for l in hang(
                &head,
                &escape(&e.message),
                visible_width(&head),
                layout.width,
            ) {
                out.push_str(&l);
                out.push('\n');
            }
            for l in hang("  hint: ", &escape(&e.hint), 8, layout.width) {
                out.push_str(&l);
                out.push('\n');
            }
        }
    }
    out
}
