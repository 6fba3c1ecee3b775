//! What SIGHUP re-reads without a restart: the files of `[server.tls]`
//! (certificate, key, client CAs) and the tokens file. Each is replaced
//! whole, or, when the new file is wrong, kept as it was and the error
//! logged: a bad edit never leaves the daemon without a certificate or
//! with no tokens. Everything else of the configuration needs a restart.

use std::sync::Arc;

use crate::error::DaemonError;
use crate::tls::Tls;
use crate::tokens::TokenStore;

/// The reloadable parts of a running daemon ([`crate::Server::reloader`]).
#[derive(Clone)]
pub struct Reloader {
    pub(crate) tls: Option<Arc<Tls>>,
    pub(crate) tokens: Option<Arc<TokenStore>>,
}

impl Reloader {
    /// Reads the TLS files and the tokens file again (what SIGHUP does),
    /// logging each outcome. Returns the first error; the parts that
    /// reloaded stay reloaded.
    pub fn reload(&self) -> Result<(), DaemonError> {
        if self.tls.is_none() && self.tokens.is_none() {
            tracing::info!(
                "SIGHUP ignored: nothing to reload (neither [server.tls] nor server.tokens_file is set); \
                 SIGTERM stops the daemon"
            );
            return Ok(());
        }
        let mut first = None;
        if let Some(tls) = &self.tls {
            match tls.reload() {
                Ok(()) => tracing::info!("SIGHUP: [server.tls] reloaded; new connections use it"),
                Err(e) => {
                    tracing::error!(error = %e, "SIGHUP: [server.tls] not reloaded; the previous files stay in use");
                    first.get_or_insert(e);
                }
            }
        }
        if let Some(tokens) = &self.tokens {
            match tokens.reload() {
                Ok(count) => tracing::info!(tokens = count, "SIGHUP: server.tokens_file reloaded"),
                Err(e) => {
                    tracing::error!(error = %e, "SIGHUP: server.tokens_file not reloaded; the previous tokens stay in use");
                    first.get_or_insert(e);
                }
            }
        }
        first.map_or(Ok(()), Err)
    }
}
