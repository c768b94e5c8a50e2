//! Reads of the outside world: the only layer that touches it.
//!
//! Files: `exec/`, the only code that spawns a process (`Runner::run`, the long-running
//! `Service`), behind the read-only allowlist (`exec/allowlist/`), with the hermetic kubectl
//! environment, the `-v` trace lines and the watchdog; `kubectl.rs`, kubectl argv (explicit
//! `--kubeconfig`, pinned `--context`/`--server`, explicit `--cache-dir`, always); `proxy.rs`,
//! one `kubectl proxy` on a private unix socket; the GET-only client over it: `http.rs` (an
//! answer buffered whole: discovery documents, error statuses), `stream.rs` (a body decoded
//! while it arrives: every list and named object) and `wire.rs` (the one answer decoder both
//! use; `test_socket.rs`, tests only, the proxy's side); `apiread/`, a batch of reads through
//! the proxy (every GET of a round sent at once, answers decoded as they arrive, discovery,
//! statuses worded as kubectl's, the gates' reads); `reader.rs`, the rounds of one read
//! path, through one proxy and one memory budget; `hosts/`, the host-level checks and the
//! gates' host probes over ssh; `ssh.rs`, the ssh argv from an inventory host, shared by
//! `hosts/` and `admin_conf.rs` (the admin.conf for `kubeconfig fetch`); `explain.rs`, the
//! command lines `--explain` prints, checked against the allowlist, never spawned.

pub(crate) mod admin_conf;
pub(crate) mod apiread;
pub mod exec;
pub(crate) mod explain;
pub mod hosts;
pub(crate) mod http;
pub(crate) mod kubectl;
pub(crate) mod proxy;
pub(crate) mod reader;
pub(crate) mod ssh;
pub(crate) mod stream;
#[cfg(test)]
mod test_socket;
pub mod wire;
