//! Why the daemon could not start or keep serving. Errors of one request are
//! gRPC statuses instead (see `service`); these are the daemon's own.

use std::path::PathBuf;

/// What stops the daemon: a bad configuration, an address it cannot bind,
/// an engine it cannot start, parameters it was told to preload.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// The configuration file does not parse, has an unknown key, or a value
    /// out of range; the message names the key.
    #[error("configuration: {0}")]
    Config(String),
    /// A file of `[server.tls]` is missing, unreadable, or holds no usable
    /// PEM (no certificate, no key, a key that is not the certificate's).
    #[error("configuration: {key}: {}: {reason}", path.display())]
    Tls {
        /// The configuration key that names the file (`server.tls.cert`, ...).
        key: &'static str,
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The file of `server.tokens_file` is missing, unreadable, does not
    /// parse, or has an entry that is wrong; the reason names the entry.
    #[error("configuration: server.tokens_file: {}: {reason}", path.display())]
    Tokens {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A TCP listener would serve without TLS on an address other than
    /// loopback, and `server.allow_plaintext_remote` does not allow it.
    #[error(
        "configuration: server.listen: {address} is not a loopback address and [server.tls] is not set: \
         requests and bearer tokens would cross the network in plain text (set [server.tls], or \
         server.allow_plaintext_remote = true to accept that)"
    )]
    PlaintextRemote {
        /// The address as configured.
        address: String,
    },
    /// A file the daemon needs could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A listen address could not be bound.
    #[error("cannot listen on {address}: {reason}")]
    Listen {
        /// The address as configured.
        address: String,
        /// Why.
        reason: String,
    },
    /// The engine could not start (e.g. a GPU was asked for and none is present).
    #[error("engine: {0}")]
    Engine(#[from] cuzk_pipeline::EngineError),
    /// Parameters named in `preload` could not be loaded.
    #[error("preloading {circuit}: {reason}")]
    Preload {
        /// The circuit id.
        circuit: String,
        /// Why.
        reason: String,
    },
    /// The async runtime could not start, or a server task failed.
    #[error("runtime: {0}")]
    Runtime(String),
}
