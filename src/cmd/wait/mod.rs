//! `wait --for=healthy|present LAYER...`: poll the real state until every named layer
//! reaches the condition, for bash harnesses that install a layer and then wait for it
//! (SPEC §14). The reads and the states are preview's; `unknown` (a failed read) never
//! counts as reached. The target is confirmed once, before the first poll; the read path
//! keeps one `kubectl proxy` for the whole wait, so a poll after the first costs one round
//! trip. Progress goes to stderr: on a terminal one live line per layer, redrawn in place;
//! otherwise one line per state change. The result is printed on stdout.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use crate::cmd::context::{parse_duration, parse_wait_timeout, Invocation};
use crate::error::{Error, Exit, Result};
use crate::model::state::{LayerReport, State};
use crate::output::documents::wait::{LayerDoc, WaitDoc};
use crate::output::render::{self, escape, Format, Paint, API_VERSION};
use crate::session::observe::Watch;

mod progress;
use progress::*;

pub const EXAMPLES: &str = "\
Examples:
  # After installing the datalake: wait until it is present and healthy (exit 5 after 10m)
  kubectl nestor wait --for=healthy datalake

  # Several layers, a bench-sized timeout, a poll every 2s
  kubectl nestor wait --for=healthy datalake certs --timeout 4m --interval 2s

  # Detected is enough (degraded counts), as a document for a script
  kubectl nestor wait --for=present ceph --no-input -o json";

/// The long `--help` text.
pub const LONG_ABOUT: &str = "Poll the real state of the stack until every named layer reaches the condition: `--for=healthy` (present: detected and every health check true; or degraded with every failing check acknowledged in the topology) or `--for=present` (detected: present or degraded). The reads and states are preview's; unknown (a failed read) never counts as reached.\n\nThe target is confirmed once, before the first poll; the read path keeps one kubectl proxy for the whole wait. Progress goes to stderr: on a terminal one live line per layer, redrawn in place; otherwise one line per state change. The result goes to stdout (`-o json`: a `Wait` document). Exit 0 when reached, 5 on timeout (with the last evidence of each layer not there), 3 target refused, 4 unreachable at the first poll.";

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The condition: healthy (present and healthy) or present (detected, even degraded).
    #[arg(long = "for", value_enum, value_name = "CONDITION")]
    pub condition: WaitFor,
    /// Layer ids to wait for (the stack's catalog).
    #[arg(required = true, value_name = "LAYER")]
    pub layers: Vec<String>,
    /// Give up after this long (exit 5), e.g. 10m, 90s, 1h.
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse_wait_timeout)]
    pub timeout: Duration,
    /// Time from the start of one poll to the start of the next.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration)]
    pub interval: Duration,
}

/// What `wait` waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WaitFor {
    /// Present: detected and every health check true.
    Healthy,
    /// Detected: present or degraded.
    Present,
}

fn reached_state(condition: WaitFor, state: State) -> bool {
    match condition {
        WaitFor::Healthy => state == State::Present,
        WaitFor::Present => matches!(state, State::Present | State::Degraded),
    }
}

/// A layer reached the condition; for `healthy`, a degraded layer whose every failing check
/// the topology acknowledges counts as reached, as `--detailed-exitcode` counts it as no
/// work (SPEC §6 v0.4): a known, tracked finding must not hold a pipeline's wait forever.
fn reached(condition: WaitFor, r: &LayerReport) -> bool {
    reached_state(condition, r.state)
        || (condition == WaitFor::Healthy && crate::model::ack::fully_acknowledged(r))
}

fn condition_name(c: WaitFor) -> &'static str {
    match c {
        WaitFor::Healthy => "healthy",
        WaitFor::Present => "present",
    }
}

pub fn run(invocation: &Invocation, args: &Args) -> Result<Exit> {
    let stack = invocation.stacks.topology(None)?;
    let catalog = &stack.catalog;
    let mut ids: Vec<String> = vec![];
    for id in &args.layers {
        if catalog.get(id).is_none() {
            return Err(Error::input(
                format!(
                    "unknown layer `{}`{}",
                    escape(id),
                    crate::suggest::did_you_mean(id, catalog.ids())
                ),
                "`kubectl nestor catalog list` or the stack's `layers:` name the layer ids",
            ));
        }
        if !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    if let Some(l) = crate::read::hosts::host_layers(catalog, &ids).first() {
        return Err(Error::input(
            format!(
                "layer `{}` is read on the hosts over ssh: wait polls Kubernetes layers only",
                l.id
            ),
            "check host-level layers with `kubectl nestor preview`",
        ));
    }
    let watch = Watch::open(invocation.ground(), &stack, &ids)?;
    let target = watch.target();
    let mut polls = watch.polls();
    let mut progress = Progress::new(invocation, &ids);
    let started = Instant::now();
    let deadline = started + args.timeout;
    let (reports, ok) = loop {
        let poll_started = Instant::now();
        let reports = match polls.poll() {
            Ok(reports) => reports,
            Err(e) => {
                progress.finish();
                return Err(e);
            }
        };
        let all = reports.iter().all(|r| reached(args.condition, r));
        progress.update(started.elapsed(), &reports, args.condition);
        if all {
            break (reports, true);
        }
        let next = poll_started + args.interval;
        if next >= deadline {
            // Sleep out the timeout: a harness's --timeout is a wall-clock promise.
            std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
            break (reports, false);
        }
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    };
    let polls_made = polls.count();
    drop(polls);
    progress.finish();
    let elapsed = started.elapsed();
    let doc = WaitDoc {
        api_version: API_VERSION,
        kind: "Wait",
        stack: stack.name().to_string(),
        condition: condition_name(args.condition),
        reached: ok,
        elapsed_ms: elapsed.as_millis() as u64,
        polls: polls_made,
        target,
        layers: reports
            .into_iter()
            .map(|r| LayerDoc {
                reached: reached(args.condition, &r),
                report: r,
            })
            .collect(),
    };
    match invocation.global.output {
        Format::Text => invocation.printer.out(&text(
            &doc,
            Paint {
                on: invocation.printer.color(),
            },
        ))?,
        f @ (Format::Json | Format::Yaml | Format::Junit) => {
            invocation
                .printer
                .observed(f, &doc, &crate::clock::now_rfc3339())?
        }
    }
    if ok {
        return Ok(Exit::Ok);
    }
    let missing: Vec<String> = doc
        .layers
        .iter()
        .filter(|l| !l.reached)
        .map(|l| {
            format!(
                "{} {} ({})",
                l.report.id,
                l.report.state.as_str(),
                escape(&l.report.reason)
            )
        })
        .collect();
    Err(Error::new(
        Exit::Undecided,
        format!(
            "timed out after {} waiting for {} to be {}: {}",
            crate::duration::format(args.timeout),
            ids.join(", "),
            doc.condition,
            missing.join("; ")
        ),
        "the evidence above says what is not there yet; wait longer with --timeout, or repair it",
    ))
}

fn text(doc: &WaitDoc, paint: Paint) -> String {
    let mut rows = vec![];
    for l in &doc.layers {
        let state = match l.report.state {
            State::Present => paint.green("present"),
            State::Degraded => paint.yellow("degraded"),
            State::Absent => "absent".to_string(),
            State::Unknown => paint.yellow("unknown"),
        };
        let why = if l.report.state == State::Present {
            l.report.evidence.join("; ")
        } else if crate::model::ack::fully_acknowledged(&l.report) {
            // Reached because every failing check is acknowledged: the finding and its
            // acknowledgement, never hidden.
            format!(
                "{}; {}",
                l.report.reason,
                crate::model::ack::words(&l.report)
            )
        } else {
            l.report.reason.clone()
        };
        rows.push(vec![
            format!("  {}", l.report.id),
            state,
            if l.reached { "reached" } else { "NOT reached" }.to_string(),
            escape(&why),
        ]);
    }
    let head = if doc.reached {
        format!(
            "reached: every layer {} after {:.1}s ({} poll{})\n",
            doc.condition,
            doc.elapsed_ms as f64 / 1000.0,
            doc.polls,
            if doc.polls == 1 { "" } else { "s" }
        )
    } else {
        format!(
            "timed out after {:.1}s ({} poll{}): not every layer {}\n",
            doc.elapsed_ms as f64 / 1000.0,
            doc.polls,
            if doc.polls == 1 { "" } else { "s" },
            doc.condition
        )
    };
    format!("{head}{}", render::table(&rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_is_never_reached() {
        for c in [WaitFor::Healthy, WaitFor::Present] {
            assert!(!reached_state(c, State::Unknown));
            assert!(!reached_state(c, State::Absent));
            assert!(reached_state(c, State::Present));
        }
        assert!(!reached_state(WaitFor::Healthy, State::Degraded));
        assert!(reached_state(WaitFor::Present, State::Degraded));
    }
}
