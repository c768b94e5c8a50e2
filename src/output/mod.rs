//! What the operator sees: `render` (formats, colours, escaping, notices on stderr),
//! `report` (the REAL/PLAN tables of preview), `documents` (every other `nestor/v1` document
//! type) and `prompt` (`[y/N]` questions).

pub(crate) mod documents;
pub(crate) mod prompt;
pub(crate) mod render;
pub mod report;
