//! A blocking client of `cuzk.v1.ProvingEngine`: one connection and a
//! current-thread runtime of its own, so a caller without an async runtime
//! (the `cuzk client` command) makes one call at a time and gets the message
//! back. Concurrent callers each connect their own [`Client`] (from their own
//! thread), as separate Curio processes would.
//!
//! Over TCP it speaks TLS (https) when given the CA of the daemon's
//! certificate, shows a certificate of its own when given one (for a
//! daemon with `server.tls.client_ca`), and sends a bearer token with every
//! call when given one ([`Options`]).

/// Requests built from their inputs, as Curio fills them.
pub mod request;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hyper_util::rt::TokioIo;
use tokio::runtime::Runtime;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::interceptor::InterceptedService;
use tonic::service::Interceptor;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity, Uri};

use crate::listen::Address;
use crate::pem;
use crate::proto::{self, proving_engine_client::ProvingEngineClient};

/// Largest message sent or received. Curio's largest request is 256 MiB;
/// the daemon refuses what is over its own limit, and says so.
const MAX_MESSAGE_BYTES: usize = 512 << 20;

/// How long a TCP connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a call did not get an answer from the daemon.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The address is neither `unix:///path` nor `host:port`.
    #[error("--addr {0}")]
    Address(String),
    /// Nothing answers at the address.
    #[error("cannot connect to {address}: {reason} (is `cuzk daemon` serving there?)")]
    Connect {
        /// The address dialled.
        address: String,
        /// Why, down to the system's error.
        reason: String,
    },
    /// The daemon answered an RPC with an error status.
    #[error("{rpc}: {code}: {message}")]
    Rpc {
        /// The RPC (`SubmitProof`, `GetStatus`, ...).
        rpc: &'static str,
        /// gRPC's status code, by name (`InvalidArgument`, `NotFound`, ...).
        code: String,
        /// The daemon's message, which names the field or file at fault.
        message: String,
    },
    /// A request's input is malformed; the message names it.
    #[error("{field}: {reason}")]
    Request {
        /// The input (`randomness`, `c1.json`, `registered_proof`, ...).
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The client's runtime could not start.
    #[error("client runtime: {0}")]
    Runtime(String),
    /// A TLS file given to the client is absent, unreadable or not PEM of
    /// what it should hold.
    #[error("{flag} {}: {reason}", path.display())]
    TlsFile {
        /// The option that named it (`--tls-ca`, `--tls-cert`, `--tls-key`).
        flag: &'static str,
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The TLS options do not fit together or with the address.
    #[error("{0}")]
    Tls(String),
    /// The bearer token cannot be sent as an HTTP header value.
    #[error("the bearer token ({origin}): {reason}")]
    Token {
        /// Where it came from (`--token-file FILE`, `CUZK_TOKEN`).
        origin: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// How to reach a daemon beyond its address: TLS and a bearer token.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The CA certificate (PEM) the daemon's certificate chains to: TCP
    /// connections use TLS and check the daemon against it. None: plain TCP.
    pub tls_ca: Option<PathBuf>,
    /// The client's certificate and key (PEM), for a daemon that requires
    /// client certificates; needs `tls_ca`.
    pub tls_identity: Option<(PathBuf, PathBuf)>,
    /// The bearer token sent with every call, and where it came from (for
    /// messages); the daemon's unix socket ignores it.
    pub token: Option<Token>,
}

/// A bearer token and where it was read from.
#[derive(Clone)]
pub struct Token {
    /// The token, as sent after `Bearer `.
    pub secret: String,
    /// Where it came from (`--token-file FILE`, `CUZK_TOKEN`), for messages.
    pub origin: String,
}

/// Written without the secret, so that a debug print or a log line never shows it.
impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Token {{ origin: {:?}, .. }}", self.origin)
    }
}

/// Puts `authorization: Bearer <token>` on every call, when there is a token.
#[derive(Clone)]
struct Bearer(Option<MetadataValue<Ascii>>);

impl Interceptor for Bearer {
    fn call(&mut self, mut request: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(value) = &self.0 {
            request.metadata_mut().insert("authorization", value.clone());
        }
        Ok(request)
    }
}

/// The generated client over a channel, with the token put on each call.
type Inner = ProvingEngineClient<InterceptedService<Channel, Bearer>>;

/// A connection to one daemon.
pub struct Client {
    runtime: Runtime,
    inner: Inner,
}

impl Client {
    /// Connects to `address` (`unix:///path.sock`, `host:port` or
    /// `tcp://host:port`, as `server.listen` writes them) in plain text and
    /// without a token: an address nothing answers at is an error now, not
    /// at the first call.
    pub fn connect(address: &str) -> Result<Client, ClientError> {
        Client::connect_with(address, &Options::default())
    }

    /// Connects to `address` with `options`: TLS to a TCP address when a
    /// CA is given (a file that cannot be used is an error naming it), the
    /// token on every call.
    pub fn connect_with(address: &str, options: &Options) -> Result<Client, ClientError> {
        let parsed: Address = address.parse().map_err(ClientError::Address)?;
        let tls = tls_config(&parsed, options)?;
        let bearer = match &options.token {
            Some(token) => {
                // RFC 6750's token characters are all visible ASCII; a
                // header value would also take bytes above 127 and spaces.
                let refuse = || ClientError::Token {
                    origin: token.origin.clone(),
                    reason: "not visible ASCII (letters, digits, punctuation; no spaces)".into(),
                };
                if token.secret.is_empty() || !token.secret.bytes().all(|b| b.is_ascii_graphic()) {
                    return Err(refuse());
                }
                Bearer(Some(format!("Bearer {}", token.secret).parse::<MetadataValue<Ascii>>().map_err(|_| refuse())?))
            }
            None => Bearer(None),
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ClientError::Runtime(e.to_string()))?;
        let channel = runtime
            .block_on(open(&parsed, tls))
            .map_err(|reason| ClientError::Connect { address: parsed.to_string(), reason })?;
        let inner = ProvingEngineClient::with_interceptor(channel, bearer)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES);
        Ok(Client { runtime, inner })
    }

    /// Runs one RPC to its answer.
    fn call<T, F, Fut>(&self, rpc: &'static str, f: F) -> Result<T, ClientError>
    where
        F: FnOnce(Inner) -> Fut,
        Fut: Future<Output = Result<tonic::Response<T>, tonic::Status>>,
    {
        let answer = self.runtime.block_on(f(self.inner.clone()));
        answer.map(tonic::Response::into_inner).map_err(|s| {
            // A status made by the client's transport (a TLS alert, a reset
            // connection) says only "transport error"; its causes say why.
            let message = match std::error::Error::source(&s) {
                Some(cause) => format!("{}: {}", s.message(), chain(cause)),
                None => s.message().to_string(),
            };
            ClientError::Rpc { rpc, code: format!("{:?}", s.code()), message }
        })
    }

    /// `GetStatus`: devices, resident parameters, queues, totals, memory.
    pub fn status(&self) -> Result<proto::GetStatusResponse, ClientError> {
        self.call("GetStatus", |mut c| async move { c.get_status(proto::GetStatusRequest {}).await })
    }

    /// `GetMetrics`: the Prometheus text.
    pub fn metrics(&self) -> Result<String, ClientError> {
        let r = self.call("GetMetrics", |mut c| async move { c.get_metrics(proto::GetMetricsRequest {}).await })?;
        Ok(r.prometheus_text)
    }

    /// `PreloadSRS`: loads a circuit's parameters now.
    pub fn preload(&self, circuit_id: &str) -> Result<proto::PreloadSrsResponse, ClientError> {
        let req = proto::PreloadSrsRequest { circuit_id: circuit_id.to_string() };
        self.call("PreloadSRS", |mut c| async move { c.preload_srs(req).await })
    }

    /// `EvictSRS`: drops a circuit's parameters (refused while a job uses them).
    pub fn evict(&self, circuit_id: &str) -> Result<proto::EvictSrsResponse, ClientError> {
        let req = proto::EvictSrsRequest { circuit_id: circuit_id.to_string() };
        self.call("EvictSRS", |mut c| async move { c.evict_srs(req).await })
    }

    /// `SubmitProof`: queues a proof; answers with its job id at once.
    pub fn submit(&self, req: proto::SubmitProofRequest) -> Result<proto::SubmitProofResponse, ClientError> {
        self.call("SubmitProof", |mut c| async move { c.submit_proof(req).await })
    }

    /// `AwaitProof`: the job's outcome, or `TIMEOUT` after `timeout_ms`
    /// (0: wait until it ends).
    pub fn await_proof(&self, job_id: &str, timeout_ms: u64) -> Result<proto::AwaitProofResponse, ClientError> {
        let req = proto::AwaitProofRequest { job_id: job_id.to_string(), timeout_ms };
        self.call("AwaitProof", |mut c| async move { c.await_proof(req).await })
    }

    /// `Prove`: submits and waits for the outcome (what Curio calls).
    pub fn prove(&self, req: proto::SubmitProofRequest) -> Result<proto::AwaitProofResponse, ClientError> {
        let req = proto::ProveRequest { submit: Some(req) };
        let r = self.call("Prove", |mut c| async move { c.prove(req).await })?;
        r.result.ok_or_else(|| ClientError::Rpc {
            rpc: "Prove",
            code: "Internal".into(),
            message: "the answer carries no result".into(),
        })
    }

    /// `CancelProof`: whether a partition of the job had started.
    pub fn cancel(&self, job_id: &str) -> Result<bool, ClientError> {
        let req = proto::CancelProofRequest { job_id: job_id.to_string() };
        Ok(self.call("CancelProof", |mut c| async move { c.cancel_proof(req).await })?.was_running)
    }
}

/// The TLS configuration of `options`, each file checked as PEM of what it
/// should hold; none without a CA.
fn tls_config(address: &Address, options: &Options) -> Result<Option<ClientTlsConfig>, ClientError> {
    let Some(ca) = &options.tls_ca else {
        if options.tls_identity.is_some() {
            return Err(ClientError::Tls("--tls-cert and --tls-key need --tls-ca (the daemon's CA)".into()));
        }
        return Ok(None);
    };
    if let Address::Unix(_) = address {
        return Err(ClientError::Tls(format!(
            "--tls-ca with {address}: TLS is for TCP addresses; the unix socket is trusted through its file mode"
        )));
    }
    let read = |flag: &'static str, path: &Path, check: fn(&[u8]) -> Result<(), String>| {
        let fail = |reason| ClientError::TlsFile { flag, path: path.to_path_buf(), reason };
        let bytes = pem::read(path).map_err(fail)?;
        check(&bytes).map_err(fail)?;
        Ok::<_, ClientError>(bytes)
    };
    let certs = |b: &[u8]| pem::certificates(b).map(drop);
    let mut config = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(read("--tls-ca", ca, certs)?));
    if let Some((cert, key)) = &options.tls_identity {
        let cert = read("--tls-cert", cert, certs)?;
        let key = read("--tls-key", key, |b| pem::private_key(b).map(drop))?;
        config = config.identity(Identity::from_pem(cert, key));
    }
    Ok(Some(config))
}

/// Opens a channel to `address`, with TLS when `tls` is given; the error
/// names the cause at the bottom of the chain (`No such file or
/// directory`, `Connection refused`, `invalid peer certificate: UnknownIssuer`).
async fn open(address: &Address, tls: Option<ClientTlsConfig>) -> Result<Channel, String> {
    let connected = match address {
        Address::Tcp(hostport) => {
            let scheme = if tls.is_some() { "https" } else { "http" };
            let mut endpoint = Endpoint::from_shared(format!("{scheme}://{hostport}")).map_err(|e| e.to_string())?;
            if let Some(tls) = tls {
                endpoint = endpoint.tls_config(tls).map_err(|e| chain(&e))?;
            }
            endpoint.connect_timeout(CONNECT_TIMEOUT).connect().await
        }
        Address::Unix(path) => {
            let path = path.clone();
            // The URI is not dialled: every connection is made to the socket.
            Endpoint::from_static("http://localhost")
                .connect_with_connector(tower::service_fn(move |_: Uri| {
                    let path = path.clone();
                    async move { tokio::net::UnixStream::connect(path).await.map(TokioIo::new) }
                }))
                .await
        }
    };
    connected.map_err(|e| chain(&e))
}

/// An error and its causes, outermost first, repeats left out.
fn chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

/// The name of an `AwaitProofResponse` status (`COMPLETED`, `TIMEOUT`, ...).
pub fn status_name(status: i32) -> &'static str {
    proto::await_proof_response::Status::try_from(status).map_or("UNKNOWN", |s| s.as_str_name())
}
