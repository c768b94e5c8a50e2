//! nestor-replay: a replay Kubernetes API server for kubectl-nestor's end-to-end tests.
//!
//! It serves a fixture cluster over plain HTTP on loopback so that the REAL `kubectl`
//! can talk to it through a kubeconfig: `/version`, legacy and aggregated discovery,
//! lists (with `limit`/`continue` paging and selectors), single objects and server-side
//! Tables. Faults (401/403/404/500, hangs, delays) are injected per method and path
//! prefix, and every request is recorded, so a test can prove that nothing but GET (and
//! HEAD) ever arrived. Only std and serde_json: one thread per connection, no async.
//!
//! ```no_run
//! use nestor_replay::{fixtures, Config, Server};
//! let mut server = Server::start(Config::new(fixtures::dirqual())).expect("start");
//! println!("kubectl --server {}", server.url());
//! assert!(server.audit_non_get().is_empty());
//! server.stop();
//! ```

pub mod apiservices;
pub mod audit;
pub mod builders;
pub mod claims;
pub mod clusters;
pub mod discovery;
pub mod drifts;
pub mod events;
pub mod fault;
pub mod fixture;
pub mod fixtures;
pub mod gates;
pub mod gateway;
pub mod http;
pub mod node_events;
pub mod nodes;
pub mod placement;
pub mod platform;
pub mod scale;
pub mod scenarios;
pub mod select;
pub mod server;
pub mod status;
pub mod table;
pub mod timeline;
pub mod truth;
pub mod versions;
pub mod webhooks;
pub mod when;
pub mod wireguard;

pub use audit::AuditEntry;
pub use fault::{FaultAction, FaultRule};
pub use fixture::{Cluster, Fixture, ResourceType};
pub use server::{Config, Server};
pub use timeline::Stage;
