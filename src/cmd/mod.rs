//! One file per subcommand. Each returns the exit code it decided, or an error.

pub mod catalog;
pub mod complete;
pub mod completion;
pub mod context;
pub mod current;
pub mod diff;
pub mod discover;
pub mod explain;
pub mod fetch;
pub mod fleet;
pub mod gate;
pub mod gate_explain;
pub mod preview;
pub mod schema;
pub mod select;
pub mod stack;
pub mod target;
pub mod version;
pub mod wait;
