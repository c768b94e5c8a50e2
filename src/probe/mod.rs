//! Transitional: replaced by the probe module of the preview work.
pub mod nodes;
