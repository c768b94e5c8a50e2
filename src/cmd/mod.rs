//! One file per subcommand. Each returns the exit code it decided, or an error.

pub mod discover;
pub mod preview;
pub mod stack;
pub mod target;
pub mod version;
