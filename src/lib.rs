//! kubectl-nestor: reads the real state of a Kubernetes stack and prints what is really missing.
//!
//! Data flow, one module per step:
//! `topology` (stack files) → `target` (which cluster, which kubeconfig) → `exec` (the only
//! code that spawns processes, behind a read-only allowlist) → `probe` (pure parsers of
//! kubectl/limactl JSON) → `state` (one state per layer) → `plan` (what is missing) →
//! `render` (text, JSON, YAML).

pub mod catalog;
pub mod error;
pub mod plan;
pub mod probe;
pub mod state;
