//! Shell completion: one engine behind `kubectl-nestor __complete WORDS...`, the
//! `kubectl_complete-nestor` helper that kubectl (1.26 and later) runs for `kubectl nestor
//! <TAB>`, and the bash, zsh and fish scripts of `completion SHELL`.
//!
//! The protocol is kubectl's plugin completion, which is cobra's `__complete`: the words after
//! the program name, the last one being the word under the cursor (empty for a new word); the
//! answer is one candidate per line (`value<TAB>description`) and a last line `:<directive>`
//! (0 default: the shell may complete file names; 4 no file names; 16 directory names only).
//!
//! The engine walks the clap definition it is given (subcommands, flags, which flags take a
//! value), so a new subcommand or flag completes without a line here. Values come from the
//! definition (`value_enum`) and from [`Values`]: stack names from the stacks directory, layer
//! ids from the stack's catalog (read at completion time: the catalog is data, never a list
//! here), node names (`gate drain NODE`) from the stack's declared `nodes:`. Completion never
//! spawns a process and never contacts a cluster: a TAB must not read a production cluster
//! (nor ask for its confirmation), so NODE offers what the stack declares, and a node the
//! cluster has but the stack does not is typed by hand (the gate then names it in its verdict).

use crate::output::render::Printer;
use std::path::PathBuf;

use clap::builder::ValueHint;
use clap::{Arg, Command};

use crate::env::Environment;
use crate::error::{Exit, Result};
use crate::stack::{self as topology, StacksDir, Topology};

/// cobra's `ShellCompDirective` values used here.
pub const DEFAULT: u32 = 0;
pub const NO_FILE_COMP: u32 = 4;
pub const FILTER_DIRS: u32 = 16;

/// The answer: candidates with their descriptions, and the directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    pub candidates: Vec<(String, String)>,
    pub directive: u32,
}

impl Completion {
    /// cobra's `__complete` output, as kubectl and the scripts of `completion SHELL` read it.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (value, help) in &self.candidates {
            out.push_str(value);
            if !help.is_empty() {
                out.push('\t');
                out.push_str(help);
            }
            out.push('\n');
        }
        out.push_str(&format!(":{}\n", self.directive));
        out
    }
}

/// The global flags typed before the word being completed, which say where dynamic values
/// are read from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Typed {
    pub stacks_dir: Option<PathBuf>,
    pub stack: Option<String>,
}

/// Where the values that are data come from.
pub trait Values {
    /// The stack names of the stacks directory.
    fn stacks(&self, typed: &Typed) -> Vec<String>;
    /// The layer ids of the stack's catalog (the built-in one plus its `catalog:` file).
    fn layers(&self, typed: &Typed) -> Vec<String>;
    /// The node names the stack declares (`nodes:`), in its order.
    fn nodes(&self, typed: &Typed) -> Vec<String>;
}

/// What kind of value an argument takes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Enum(Vec<(String, String)>),
    /// Stack names; `paths`: a topology file path is accepted too (`--stack`).
    Stack {
        paths: bool,
    },
    Layer,
    /// A node of the stack (`gate drain NODE`).
    Node,
    File,
    Dir,
    Free,
}

/// The kind of value `arg` of the subcommand at `path` takes. Stack names: `--stack` and the
/// NAME of `stack show|env|select`; layer ids: an argument named or shown as LAYER(S), and the
/// ID of `catalog show`.
// clap::ValueHint is #[non_exhaustive]: every hint but these completes as free text.
#[allow(clippy::wildcard_enum_match_arm)]
fn kind(path: &[String], arg: &Arg) -> Kind {
    let values: Vec<(String, String)> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| {
            let help = v.get_help().map(|h| h.to_string()).unwrap_or_default();
            (v.get_name().to_string(), help)
        })
        .collect();
    if !values.is_empty() {
        return Kind::Enum(values);
    }
    let id = arg.get_id().as_str();
    let shown: Vec<String> = arg
        .get_value_names()
        .unwrap_or_default()
        .iter()
        .map(|n| n.to_ascii_uppercase())
        .collect();
    let first = path.first().map(String::as_str);
    if id == "stack" {
        return Kind::Stack { paths: true };
    }
    if first == Some("stack") && id == "name" {
        return Kind::Stack { paths: false };
    }
    let layer_named = |s: &str| s.eq_ignore_ascii_case("layer") || s.eq_ignore_ascii_case("layers");
    if layer_named(id)
        || shown.iter().any(|s| layer_named(s))
        || (first == Some("catalog") && id == "id")
    {
        return Kind::Layer;
    }
    if first == Some("gate") && id == "node" {
        return Kind::Node;
    }
    match arg.get_value_hint() {
        ValueHint::DirPath => Kind::Dir,
        _ if shown.iter().any(|s| s == "DIR") => Kind::Dir,
        ValueHint::AnyPath | ValueHint::FilePath | ValueHint::ExecutablePath => Kind::File,
        _ if shown.iter().any(|s| s == "FILE" || s == "PATH") => Kind::File,
        _ => Kind::Free,
    }
}

fn takes_value(arg: &Arg) -> bool {
    arg.get_action().takes_values()
}

fn help_of(arg: &Arg) -> String {
    first_line(arg.get_help().map(|h| h.to_string()).unwrap_or_default())
}

/// The first line of a help text, without its final period.
fn first_line(text: String) -> String {
    let line = text.lines().next().unwrap_or_default();
    line.trim_end().trim_end_matches('.').to_string()
}

/// Complete the last of `words` (the words after the program name) against `root`, which
/// must be built (`Command::build`) so global flags reach every subcommand.
pub fn complete(root: &Command, words: &[String], values: &dyn Values) -> Completion {
    let (current, before) = match words.split_last() {
        Some((last, rest)) => (last.as_str(), rest),
        None => ("", &[][..]),
    };
    let mut cmd = root;
    let mut path: Vec<String> = Vec::new();
    let mut typed = Typed::default();
    let mut pending: Option<&Arg> = None;
    let mut positionals = 0usize;
    let mut only_positionals = false;

    for word in before {
        if let Some(arg) = pending.take() {
            record(&mut typed, arg, word);
            continue;
        }
        if !only_positionals && word == "--" {
            only_positionals = true;
            continue;
        }
        if !only_positionals && word.starts_with("--") {
            let (name, value) = match word[2..].split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (&word[2..], None),
            };
            if let Some(arg) = cmd.get_arguments().find(|a| a.get_long() == Some(name)) {
                match value {
                    Some(v) => record(&mut typed, arg, v),
                    None if takes_value(arg) => pending = Some(arg),
                    None => {}
                }
            }
            continue;
        }
        if !only_positionals && word.len() > 1 && word.starts_with('-') {
            // A cluster of short flags: the first one that takes a value takes the rest of
            // the word, or the next word.
            for (i, c) in word.char_indices().skip(1) {
                if let Some(arg) = cmd.get_arguments().find(|a| a.get_short() == Some(c)) {
                    if takes_value(arg) {
                        let rest = &word[i + c.len_utf8()..];
                        if rest.is_empty() {
                            pending = Some(arg);
                        } else {
                            record(&mut typed, arg, rest.trim_start_matches('='));
                        }
                        break;
                    }
                }
            }
            continue;
        }
        if positionals == 0 && !only_positionals {
            if let Some(sub) = find_subcommand(cmd, word) {
                cmd = sub;
                path.push(sub.get_name().to_string());
                continue;
            }
        }
        positionals += 1;
    }

    if let Some(arg) = pending {
        return values_of(&path, arg, current, "", &typed, values);
    }
    if !only_positionals && current.starts_with("--") {
        if let Some((name, value)) = current[2..].split_once('=') {
            return match cmd.get_arguments().find(|a| a.get_long() == Some(name)) {
                Some(arg) if takes_value(arg) => {
                    values_of(&path, arg, value, &format!("--{name}="), &typed, values)
                }
                _ => none(),
            };
        }
    }
    if !only_positionals && current.starts_with('-') {
        let mut candidates: Vec<(String, String)> = cmd
            .get_arguments()
            .filter(|a| !a.is_hide_set() && !a.is_positional())
            .filter_map(|a| a.get_long().map(|l| (format!("--{l}"), help_of(a))))
            .filter(|(flag, _)| flag.starts_with(current))
            .collect();
        candidates.sort();
        candidates.dedup_by(|a, b| a.0 == b.0);
        return Completion {
            candidates,
            directive: NO_FILE_COMP,
        };
    }

    let mut candidates: Vec<(String, String)> = Vec::new();
    if positionals == 0 && !only_positionals {
        candidates.extend(
            cmd.get_subcommands()
                .filter(|s| !s.is_hide_set())
                .map(|s| {
                    let about = s.get_about().map(|a| a.to_string()).unwrap_or_default();
                    (s.get_name().to_string(), first_line(about))
                })
                .filter(|(name, _)| name.starts_with(current)),
        );
    }
    let positional = cmd
        .get_positionals()
        .nth(positionals)
        .or_else(|| cmd.get_positionals().last().filter(|a| is_multiple(a)));
    let mut directive = NO_FILE_COMP;
    if let Some(arg) = positional {
        let more = values_of(&path, arg, current, "", &typed, values);
        candidates.extend(more.candidates);
        if candidates.is_empty() {
            directive = more.directive;
        }
    }
    Completion {
        candidates,
        directive,
    }
}

fn is_multiple(arg: &Arg) -> bool {
    arg.get_num_args().is_some_and(|r| r.max_values() > 1)
        || matches!(arg.get_action(), clap::ArgAction::Append)
}

fn find_subcommand<'a>(cmd: &'a Command, word: &str) -> Option<&'a Command> {
    cmd.get_subcommands()
        .find(|s| s.get_name() == word || s.get_all_aliases().any(|a| a == word))
}

fn record(typed: &mut Typed, arg: &Arg, value: &str) {
    match arg.get_id().as_str() {
        "stacks_dir" => typed.stacks_dir = Some(PathBuf::from(value)),
        "stack" => typed.stack = Some(value.to_string()),
        _ => {}
    }
}

fn none() -> Completion {
    Completion {
        candidates: Vec::new(),
        directive: NO_FILE_COMP,
    }
}

/// The values of `arg` that start with `current`, each prefixed with `prefix` (`--flag=`).
fn values_of(
    path: &[String],
    arg: &Arg,
    current: &str,
    prefix: &str,
    typed: &Typed,
    values: &dyn Values,
) -> Completion {
    let listed = |names: Vec<String>| -> Vec<(String, String)> {
        names.into_iter().map(|n| (n, String::new())).collect()
    };
    let (all, directive) = match kind(path, arg) {
        Kind::Enum(v) => (v, NO_FILE_COMP),
        Kind::Stack { paths: true } => (listed(values.stacks(typed)), DEFAULT),
        Kind::Stack { paths: false } => (listed(values.stacks(typed)), NO_FILE_COMP),
        Kind::Layer => (listed(values.layers(typed)), NO_FILE_COMP),
        Kind::Node => (listed(values.nodes(typed)), NO_FILE_COMP),
        Kind::File => (Vec::new(), DEFAULT),
        Kind::Dir => (Vec::new(), FILTER_DIRS),
        Kind::Free => (Vec::new(), NO_FILE_COMP),
    };
    let candidates: Vec<(String, String)> = all
        .into_iter()
        .filter(|(v, _)| v.starts_with(current))
        .map(|(v, h)| (format!("{prefix}{v}"), h))
        .collect();
    // `--stack` also takes a path: file names when no stack name matches.
    let directive = if candidates.is_empty() || directive != DEFAULT {
        directive
    } else {
        NO_FILE_COMP
    };
    Completion {
        candidates,
        directive,
    }
}

/// [`Values`] read from the filesystem as the other commands read it: the stacks directory
/// from `--stacks-dir`, `NESTOR_STACKS_DIR` or the walk up from here; the stack from
/// `--stack`, else the active one. Anything unreadable completes nothing (or, for layer
/// ids, the built-in catalog's): completion never prints an error.
pub struct FsValues {
    pub env: Environment,
}

impl FsValues {
    fn stacks_dir(&self, typed: &Typed) -> Option<StacksDir> {
        StacksDir::locate(typed.stacks_dir.as_deref(), &self.env).ok()
    }

    /// The stack typed so far (`--stack`), else the active one; `None` when unreadable.
    fn topology(&self, typed: &Typed) -> Option<Topology> {
        let dir = self.stacks_dir(typed)?;
        let file = topology::select_file(typed.stack.as_deref(), &dir, &self.env).ok()?;
        Topology::load(&file, &dir.path).ok()
    }
}

impl Values for FsValues {
    fn stacks(&self, typed: &Typed) -> Vec<String> {
        let Some(dir) = self.stacks_dir(typed) else {
            return Vec::new();
        };
        (dir.stack_files().unwrap_or_default().iter())
            .filter_map(|f| f.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .collect()
    }

    fn layers(&self, typed: &Typed) -> Vec<String> {
        let catalog = self.topology(typed).map(|t| t.catalog);
        catalog
            .map(Ok)
            .unwrap_or_else(crate::model::catalog::Catalog::builtin)
            .map(|c| c.ids().into_iter().map(String::from).collect())
            .unwrap_or_default()
    }

    fn nodes(&self, typed: &Typed) -> Vec<String> {
        self.topology(typed)
            .map(|t| t.node_names())
            .unwrap_or_default()
    }
}

/// `__complete WORDS...`: print the completion of the last word. `root` is the clap
/// definition of the whole command line.
pub fn run(printer: &Printer, mut root: Command, words: &[String]) -> Result<Exit> {
    root.build();
    let values = FsValues {
        env: Environment::capture()?,
    };
    printer.out(&complete(&root, words, &values).render())?;
    Ok(Exit::Ok)
}

#[cfg(test)]
#[path = "complete_tests.rs"]
mod tests;
