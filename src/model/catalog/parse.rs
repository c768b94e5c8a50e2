//! Reading a catalog file: strict YAML decoding with file:line:column errors and a
//! did-you-mean, the position of each layer id, and the checks every layer must pass.

use super::*;

/// Parse one catalog file into layers with their origin.
pub(super) fn parse_layers(text: &str, file: &str) -> Result<Vec<(Layer, DefinedAt)>> {
    let blank = text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
    if blank {
        return Ok(Vec::new());
    }
    let layers: Vec<Layer> = yaml_serde::from_str(text).map_err(|e| yaml_error(file, &e))?;
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::with_capacity(layers.len());
    for layer in layers {
        let nth = seen.entry(layer.id.clone()).or_insert(0);
        let origin = DefinedAt {
            file: file.to_string(),
            at: locate_id(text, &layer.id, *nth),
        };
        *nth += 1;
        validate_layer(&layer, &origin)?;
        unique_check_names(text, &layer, &origin)?;
        out.push((layer, origin));
    }
    Ok(out)
}

/// No two checks of a layer share a name (written or derived): the second one is the error,
/// located at its `name: NAME` after the layer's `id:` when it is written.
fn unique_check_names(text: &str, layer: &Layer, origin: &DefinedAt) -> Result<()> {
    let mut seen = BTreeSet::new();
    let mut written: BTreeMap<&str, usize> = BTreeMap::new();
    let kube = layer
        .named_checks()
        .into_iter()
        .map(|(id, _, c)| (id, c.name.as_deref()));
    let host = layer.host.iter().flat_map(|h| {
        h.named_checks(&layer.id)
            .into_iter()
            .map(|(id, c)| (id, c.name.as_deref()))
    });
    for (id, name) in kube.chain(host).collect::<Vec<_>>() {
        let nth = name.map_or(0, |n| {
            let count = written.entry(n).or_insert(0);
            *count += 1;
            *count
        });
        if seen.insert(id.clone()) {
            continue;
        }
        let after = origin.at.map_or(0, |(line, _)| line);
        let place = name
            .and_then(|n| locate_key_after(text, "name", n, after, nth))
            .map_or(origin.to_string(), |(l, c)| {
                format!("{}:{l}:{c}", origin.file)
            });
        return Err(Error::input(
            format!("{place}: two checks of layer `{}` are named `{id}`", layer.id),
            "give each check of a layer its own `name:` (lowercase letters, digits and `-`); a check without one is `detect-N`, `healthy-N` or `host-N` by its place",
        ));
    }
    Ok(())
}

/// Line and column (1-based) of the `nth` (1-based) line at or after line `after` whose first
/// key is `KEY: VALUE` (`- name: x`, `name: x`, `- {name: x, ...}`).
fn locate_key_after(
    text: &str,
    key: &str,
    value: &str,
    after: usize,
    nth: usize,
) -> Option<(usize, usize)> {
    text.lines()
        .enumerate()
        .skip(after.saturating_sub(1))
        .filter_map(|(n, line)| {
            let rest = line.trim_start();
            let rest = rest.strip_prefix("- ").unwrap_or(rest).trim_start();
            let rest = rest.strip_prefix('{').unwrap_or(rest).trim_start();
            let v = rest.strip_prefix(key)?.strip_prefix(':')?.trim_start();
            let v = v.trim_start_matches(['"', '\'']);
            let ends = v
                .strip_prefix(value)
                .is_some_and(|r| r.is_empty() || r.starts_with([',', '}', ' ', '"', '\'', '#']));
            ends.then(|| (n + 1, line.len() - rest.len() + 1))
        })
        .nth(nth.saturating_sub(1))
}

/// Line and column (1-based) of the `nth` (0-based) `id: <id>` in the text.
pub(crate) fn locate_id(text: &str, id: &str, nth: usize) -> Option<(usize, usize)> {
    text.lines()
        .enumerate()
        .filter_map(|(n, line)| {
            let trimmed = line.trim_start();
            let rest = trimmed.strip_prefix("- ").unwrap_or(trimmed).trim_start();
            let value = rest.strip_prefix("id:")?;
            let value = value.split(" #").next().unwrap_or_default().trim();
            let value = value.trim_matches(|c| c == '"' || c == '\'');
            (value == id).then(|| (n + 1, line.len() - rest.len() + 1))
        })
        .nth(nth)
}

/// Turn a yaml_serde error into `file:line:column: message` with a did-you-mean.
pub(super) fn yaml_error(file: &str, e: &yaml_serde::Error) -> Error {
    yaml_error_with(file, e, LAYER_FORMAT_HINT)
}

/// The same for another strict file of nestor's own (the gate rule table), with its hint.
pub(crate) fn yaml_error_with(file: &str, e: &yaml_serde::Error, hint: &str) -> Error {
    let problem = crate::suggest::YamlProblem::of(e);
    let place = match problem.location {
        Some((line, column)) => format!("{file}:{line}:{column}"),
        None => file.to_string(),
    };
    let prefix = problem
        .path
        .as_deref()
        .map(|p| format!("{p}: "))
        .unwrap_or_default();
    if let Some((variant, bad, valid)) = problem.unknown_word() {
        let noun = if variant { "value" } else { "key" };
        let suggestion = crate::suggest::nearest(bad, valid.iter().copied())
            .map(|n| format!(", did you mean `{n}`?"))
            .unwrap_or_default();
        let list = valid
            .iter()
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(", ");
        return Error::input(
            format!("{place}: {prefix}unknown {noun} `{bad}`{suggestion}"),
            format!("valid {noun}s here: {list}"),
        );
    }
    Error::input(format!("{place}: {prefix}{}", problem.message), hint)
}

// ---- strict deserialization ------------------------------------------------------------

pub(super) fn yes() -> bool {
    true
}

/// Rules on one layer that serde cannot express; `origin` locates the layer.
pub(super) fn validate_layer(layer: &Layer, origin: &DefinedAt) -> Result<()> {
    let fail = |msg: String| Err(Error::input(format!("{origin}: {msg}"), LAYER_FORMAT_HINT));
    if !is_dns_label(&layer.id) {
        return fail(format!(
            "layer id `{}` must be lowercase letters, digits and `-`",
            layer.id
        ));
    }
    if layer.title.trim().is_empty() {
        return fail(format!("layer `{}` has an empty title", layer.id));
    }
    if let Some(spec) = &layer.host {
        if !layer.detect.is_empty() || !layer.healthy.is_empty() || !layer.observable {
            return fail(format!(
                "layer `{}` is read on hosts (`host:`) and cannot have `detect:`, `healthy:` or `observable: false`",
                layer.id
            ));
        }
        return host::validate(spec).or_else(|m| fail(format!("layer `{}`: {m}", layer.id)));
    }
    if layer.observable && layer.detect.is_empty() {
        return fail(format!(
            "layer `{}` has no `detect:` check; add one, or `observable: false` for a host-level layer",
            layer.id
        ));
    }
    if !layer.observable && (!layer.detect.is_empty() || !layer.healthy.is_empty()) {
        return fail(format!(
            "layer `{}` is `observable: false` (host-level) and cannot have `detect:` or `healthy:` checks",
            layer.id
        ));
    }
    Ok(())
}
