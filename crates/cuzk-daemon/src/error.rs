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
