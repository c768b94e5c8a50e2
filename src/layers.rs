//! The layer catalog a stack uses: the built-in one plus the stack's `catalog:` file.

use std::collections::BTreeSet;
use std::path::Path;

use crate::catalog::Catalog;
use crate::error::Result;

/// The catalog for a stack whose `catalog:` resolves to `overrides` (if any).
pub fn catalog_for(overrides: Option<&Path>) -> Result<Catalog> {
    match overrides {
        Some(path) => Catalog::with_overrides(path),
        None => Catalog::builtin(),
    }
}

/// Every valid layer id for such a stack.
pub fn known_ids(overrides: Option<&Path>) -> Result<BTreeSet<String>> {
    Ok(catalog_for(overrides)?
        .ids()
        .into_iter()
        .map(String::from)
        .collect())
}
