//! TLS on the TCP listeners (`[server.tls]`), with rustls through
//! tokio-rustls, the crates tonic's own TLS is built on.
//!
//! tonic's `ServerTlsConfig` fixes the certificate when the server is
//! built, and a new one would need a new server on the listener, which
//! drops or drains the connections. So the daemon makes the TLS
//! connections itself and hands tonic streams that have finished their
//! handshake (tonic serves any `Connected` stream, and tokio-rustls'
//! server streams are, with the client's certificates in the request's
//! `TlsConnectInfo`). Each handshake takes the configuration current when
//! its connection was accepted, and SIGHUP replaces that configuration
//! whole ([`Tls::reload`]): a new certificate, key or client CA applies to
//! the next connection, and the connections already open keep theirs.

use std::io;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::rustls::crypto::{ring, CryptoProvider};
use tokio_rustls::rustls::server::WebPkiClientVerifier;
use tokio_rustls::rustls::{self, RootCertStore, ServerConfig};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;
use tokio_stream::wrappers::ReceiverStream;

use crate::config::TlsConfig;
use crate::error::DaemonError;
use crate::pem;

/// The longest a client may take to finish its handshake: a connection
/// that opens and says nothing holds a task and a socket until then.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Handshaken connections waiting for tonic to take them.
const ACCEPTED_BACKLOG: usize = 64;

/// The server's TLS: the files it is read from and the configuration they
/// gave at the last (re)load.
pub(crate) struct Tls {
    files: TlsConfig,
    current: RwLock<Arc<ServerConfig>>,
}

impl Tls {
    /// Reads the files of `[server.tls]`; an error names the key and the file.
    pub(crate) fn load(files: &TlsConfig) -> Result<Tls, DaemonError> {
        let config = server_config(files)?;
        Ok(Tls { files: files.clone(), current: RwLock::new(Arc::new(config)) })
    }

    /// Reads the files again; the connections accepted from now on use
    /// them. On an error the configuration in use stays.
    pub(crate) fn reload(&self) -> Result<(), DaemonError> {
        let config = Arc::new(server_config(&self.files)?);
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = config;
        Ok(())
    }

    /// Whether clients must present a certificate.
    pub(crate) fn mutual(&self) -> bool {
        self.files.client_ca.is_some()
    }

    fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(self.current.read().unwrap_or_else(|p| p.into_inner()).clone())
    }
}

/// The connections of `listener` once their TLS handshake has succeeded.
/// Handshakes run side by side, each on a task of its own, so a slow or
/// silent client holds up no other; one that fails or times out is logged
/// and dropped. The accepting task ends, closing the listener, when the
/// stream is dropped (tonic drops it when it stops serving).
pub(crate) fn incoming(listener: TcpListener, tls: Arc<Tls>) -> ReceiverStream<io::Result<TlsStream<TcpStream>>> {
    let (tx, rx) = mpsc::channel(ACCEPTED_BACKLOG);
    tokio::spawn(async move {
        loop {
            let accepted = tokio::select! {
                _ = tx.closed() => return,
                accepted = listener.accept() => accepted,
            };
            let (stream, peer) = match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors, most likely: wait for some to close.
                    tracing::warn!(error = %e, "accepting a TCP connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            let (acceptor, tx) = (tls.acceptor(), tx.clone());
            tokio::spawn(async move {
                match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                    Ok(Ok(connection)) => {
                        let _ = tx.send(Ok(connection)).await;
                    }
                    Ok(Err(e)) => tracing::info!(%peer, error = %e, "TLS handshake failed"),
                    Err(_) => tracing::info!(%peer, "TLS handshake timed out"),
                }
            });
        }
    });
    ReceiverStream::new(rx)
}

/// The rustls configuration of `files`: certificate chain and key, client
/// verification when `client_ca` is set, HTTP/2 by ALPN.
fn server_config(files: &TlsConfig) -> Result<ServerConfig, DaemonError> {
    let fail = |key: &'static str, path: &std::path::Path| {
        let path = path.to_path_buf();
        move |reason: String| DaemonError::Tls { key, path, reason }
    };
    let provider = provider();
    let certs =
        pem::read(&files.cert).and_then(|b| pem::certificates(&b)).map_err(fail("server.tls.cert", &files.cert))?;
    let key = pem::read(&files.key).and_then(|b| pem::private_key(&b)).map_err(fail("server.tls.key", &files.key))?;
    // Parsed here, so that a key rustls cannot use is told as the key's fault.
    provider
        .key_provider
        .load_private_key(key.clone_key())
        .map_err(|e| fail("server.tls.key", &files.key)(format!("not a usable private key: {e}")))?;
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| fail("server.tls.cert", &files.cert)(e.to_string()))?;
    let builder = match &files.client_ca {
        Some(path) => builder.with_client_cert_verifier(client_verifier(path, provider)?),
        None => builder.with_no_client_auth(),
    };
    let mut config = builder.with_single_cert(certs, key).map_err(|e| match e {
        rustls::Error::InconsistentKeys(_) => {
            let why = format!("not the key of the certificate in server.tls.cert ({}): {e}", files.cert.display());
            fail("server.tls.key", &files.key)(why)
        }
        e => fail("server.tls.cert", &files.cert)(format!("not a usable certificate: {e}")),
    })?;
    // gRPC runs over HTTP/2 only, and grpc-go refuses a TLS server that
    // does not say so by ALPN.
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(config)
}

/// rustls' *ring* provider, the one tonic's client (`tls-ring`) uses too.
/// rustls 0.23.48 deprecates it for lacking post-quantum key exchange,
/// which only its aws-lc-rs provider has, and aws-lc-rs builds a C library
/// with cmake; the key exchange stays classical (X25519, P-256, P-384).
#[allow(deprecated)]
fn provider() -> Arc<CryptoProvider> {
    Arc::new(ring::default_provider())
}

/// Requires of every client a certificate that chains to a CA of `path`.
fn client_verifier(
    path: &std::path::Path,
    provider: Arc<CryptoProvider>,
) -> Result<Arc<dyn rustls::server::danger::ClientCertVerifier>, DaemonError> {
    let fail = |reason: String| DaemonError::Tls { key: "server.tls.client_ca", path: path.to_path_buf(), reason };
    let mut roots = RootCertStore::empty();
    for (i, cert) in pem::read(path).and_then(|b| pem::certificates(&b)).map_err(fail)?.into_iter().enumerate() {
        roots.add(cert).map_err(|e| fail(format!("certificate {}: not a usable CA certificate: {e}", i + 1)))?;
    }
    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider).build().map_err(|e| fail(e.to_string()))
}
