//! What the operator sees: `render` (formats, colours, escaping, notices on stderr),
//! `report` (the preview: outcome first, then its layers), `layers` (one line per layer and
//! its failing evidence), `layout` (the width rule), `junit` (preview's `-o junit`), `gate` (a
//! gate's text and its `-o junit`, both from its `Gate` document), `error_doc` (the `Error`
//! document of `-o json|yaml`), `documents` (every other `nestor/v1` document type), `prompt`
//! (`[y/N]` questions) and `schema` (the JSON Schema of every document kind).

pub(crate) mod documents;
pub(crate) mod error_doc;
pub(crate) mod gate;
pub(crate) mod junit;
pub(crate) mod layers;
pub(crate) mod layout;
pub(crate) mod prompt;
pub(crate) mod render;
pub mod report;
pub(crate) mod schema;
