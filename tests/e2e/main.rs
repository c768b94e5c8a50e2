//! End-to-end tests: the REAL kubectl against the replay API server (`crates/replay`), the
//! plugin invoked as `kubectl nestor ...` through kubectl's own plugin discovery. A second
//! integration binary beside `tests/cli` (stub tools): see `support` for the bed.

mod support;

mod failures;
mod health;
mod quickstart;
mod readonly;
mod scenarios;
