//! Every `nestor/v1` document a test reads is validated against its kind's committed JSON
//! Schema (`docs/schema/KIND.json`, which `cli::schema` proves equal to what
//! `kubectl nestor schema KIND` generates from the types). `Outcome::json` calls
//! [`check`], so every scenario's document is validated where it is read.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

/// Where the committed schemas are.
pub fn dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/schema"))
}

/// The one command that rewrites `docs/schema/` from the types (then review the diff).
pub const REGENERATE: &str = "SCHEMAS=overwrite cargo test --test cli schema::committed";

type Cache = Mutex<BTreeMap<String, Arc<jsonschema::Validator>>>;

fn validator(kind: &str) -> Result<Arc<jsonschema::Validator>, String> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Cache::default);
    if let Some(v) = cache.lock().map_err(|e| e.to_string())?.get(kind) {
        return Ok(v.clone());
    }
    let path = dir().join(format!("{kind}.json"));
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("no schema for kind `{kind}` ({}: {e})", path.display()))?;
    let schema: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let v = Arc::new(
        jsonschema::validator_for(&schema)
            .map_err(|e| format!("{} is not a valid schema: {e}", path.display()))?,
    );
    cache
        .lock()
        .map_err(|e| e.to_string())?
        .insert(kind.to_string(), v.clone());
    Ok(v)
}

/// Validate `doc` against the schema of its `kind`: every error, with its JSON pointer.
pub fn validate(doc: &Value) -> Result<(), String> {
    let Some(kind) = doc.get("kind").and_then(Value::as_str) else {
        return Err("a document without `kind`".into());
    };
    let v = validator(kind)?;
    let errors: Vec<String> = v
        .iter_errors(doc)
        .map(|e| format!("  at `{}`: {e}", e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "a {kind} document does not match docs/schema/{kind}.json:\n{}",
            errors.join("\n")
        ))
    }
}

/// [`validate`] for a nestor/v1 document (anything else is left alone), panicking with the
/// errors and the document.
#[track_caller]
pub fn check(doc: &Value) {
    if doc.get("apiVersion").and_then(Value::as_str) != Some("nestor/v1") {
        return;
    }
    if let Err(e) = validate(doc) {
        panic!("{e}\n(if the types changed on purpose: {REGENERATE})\ndocument: {doc:#}");
    }
}
