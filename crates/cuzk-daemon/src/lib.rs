//! The cuzk proving daemon: one engine kept resident, served over gRPC as
//! Curio's `cuzk.v1.ProvingEngine` (unix socket and/or TCP, TCP with TLS
//! and bearer tokens when configured), with idempotent submissions,
//! per-kind priorities, cancellation, bounded result retention, status,
//! Prometheus metrics and a draining shutdown.
//!
//! The only crate of the workspace with an async runtime or gRPC; it reaches
//! devices only through the engine (`cuzk-pipeline`), and Filecoin's proof
//! kinds only through `cuzk-filecoin`. The `cuzk daemon` command calls
//! [`serve_until_signal`]; tests drive [`Server`] with a shutdown of their own.
//! The `cuzk client` command talks to a daemon through [`client::Client`], a
//! blocking API, so that no other crate needs the runtime.
#![forbid(unsafe_code)]

/// The bearer-token check of the TCP listeners that require one.
mod auth;
/// The unix socket's `:authority`, made one h2 accepts.
mod authority;
/// A blocking client of the service, and requests built from their inputs.
pub mod client;
/// The gRPC codec: undecodable messages are the sender's fault.
pub mod codec;
/// The TOML configuration.
pub mod config;
/// What every RPC acts on: the engine, the job table, metrics.
mod core;
/// Errors that stop the daemon.
mod error;
/// The Prometheus scrape endpoint.
mod http;
/// Jobs by id: claims, states, retention.
mod jobs;
/// Proof kinds and their requests, from message to engine job.
mod kinds;
/// Listen addresses and binding.
pub mod listen;
/// Prometheus metrics.
mod metrics;
/// PEM certificates and keys, read with errors that say what is wrong.
mod pem;
/// What SIGHUP re-reads: the TLS files and the tokens file.
mod reload;
/// Starting, serving, draining.
mod server;
/// The gRPC service.
mod service;
/// TLS on the TCP listeners, its configuration replaced on reload.
mod tls;
/// The bearer tokens file: grants by token hash.
mod tokens;
/// The protocol pinned byte for byte against Curio's numbering.
#[cfg(test)]
mod wire;

/// The messages, client and server generated from `proto/cuzk/v1/proving.proto`.
#[allow(missing_docs, clippy::all)]
pub mod proto {
    tonic::include_proto!("cuzk.v1");
}

pub use crate::config::{Config, LogFormat, OnShutdown, TlsConfig};
pub use crate::core::Summary;
pub use crate::error::DaemonError;
pub use crate::listen::Address;
pub use crate::reload::Reloader;
pub use crate::server::{run, serve_until_signal, shutdown_signal, Server};

/// Installs the process's log subscriber: lines on standard error as
/// `format` says, filtered by `filter` (tracing's directive syntax; the
/// daemon reads no environment variable for it). Fails when the filter does
/// not parse or a subscriber is already installed.
///
/// A line that cannot be written (the pipe to `tee` or a logger closed, a
/// full disk) is dropped: logging never takes the daemon down. The
/// subscriber's own report of a failed write is off too, since it would go
/// to the same closed stream through `eprintln!`, which panics.
pub fn init_logging(format: LogFormat, filter: &str) -> Result<(), DaemonError> {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .map_err(|e| DaemonError::Config(format!("server.log_filter: {e}")))?;
    use std::io::IsTerminal;
    // Colours only for a terminal: a journal or a log file gets plain text.
    let builder = tracing_subscriber::fmt()
        .with_writer(|| LossyStderr)
        .log_internal_errors(false)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter);
    let installed = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
    installed.map_err(|e| DaemonError::Runtime(format!("installing the log subscriber: {e}")))
}

/// Standard error, where a write that fails is dropped instead of reported.
pub struct LossyStderr;

impl std::io::Write for LossyStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let _ = std::io::stderr().write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let _ = std::io::stderr().flush();
        Ok(())
    }
}
