//! Reads of the outside world. `exec` is the only code that spawns a process (behind the
//! read-only allowlist); `kubectl` builds kubectl argv; `proxy` and `http` are the batched
//! read path (one `kubectl proxy` on a private unix socket); `apiread` turns read requests
//! into API paths and responses into observations; `reader` picks the read path and runs a
//! batch; `admin_conf` brings a control plane's admin.conf over ssh (for `kubeconfig fetch`);
//! `explain` words the read-only command behind an evidence line (`--explain`).

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
