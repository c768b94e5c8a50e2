//! Stack topology files (`stacks/<name>.yaml`, SPEC §3).

pub mod edit;
