//! What the operator sees: `render` (formats, colours, escaping, notices on stderr),
//! `report` (the REAL/PLAN tables of preview) and `prompt` (`[y/N]` questions).

pub mod prompt;
pub mod render;
pub mod report;
