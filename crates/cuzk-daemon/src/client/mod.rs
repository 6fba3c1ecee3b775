//! A blocking client of `cuzk.v1.ProvingEngine`: one connection and a
//! current-thread runtime of its own, so a caller without an async runtime
//! (the `cuzk client` command) makes one call at a time and gets the message
//! back. Concurrent callers each connect their own [`Client`] (from their own
//! thread), as separate Curio processes would.

/// Requests built from their inputs, as Curio fills them.
pub mod request;

use std::future::Future;
use std::time::Duration;

use hyper_util::rt::TokioIo;
use tokio::runtime::Runtime;
use tonic::transport::{Channel, Endpoint, Uri};

use crate::listen::Address;
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
}

/// A connection to one daemon.
pub struct Client {
    runtime: Runtime,
    inner: ProvingEngineClient<Channel>,
}

impl Client {
    /// Connects to `address` (`unix:///path.sock`, `host:port` or
    /// `tcp://host:port`, as `server.listen` writes them): an address nothing
    /// answers at is an error now, not at the first call.
    pub fn connect(address: &str) -> Result<Client, ClientError> {
        let parsed: Address = address.parse().map_err(ClientError::Address)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ClientError::Runtime(e.to_string()))?;
        let channel = runtime
            .block_on(open(&parsed))
            .map_err(|reason| ClientError::Connect { address: parsed.to_string(), reason })?;
        let inner = ProvingEngineClient::new(channel)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES);
        Ok(Client { runtime, inner })
    }

    /// Runs one RPC to its answer.
    fn call<T, F, Fut>(&self, rpc: &'static str, f: F) -> Result<T, ClientError>
    where
        F: FnOnce(ProvingEngineClient<Channel>) -> Fut,
        Fut: Future<Output = Result<tonic::Response<T>, tonic::Status>>,
    {
        let answer = self.runtime.block_on(f(self.inner.clone()));
        answer.map(tonic::Response::into_inner).map_err(|s| ClientError::Rpc {
            rpc,
            code: format!("{:?}", s.code()),
            message: s.message().to_string(),
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

/// Opens a channel to `address`; the error names the cause at the bottom of
/// the chain (`No such file or directory`, `Connection refused`).
async fn open(address: &Address) -> Result<Channel, String> {
    let connected = match address {
        Address::Tcp(hostport) => {
            let endpoint = Endpoint::from_shared(format!("http://{hostport}")).map_err(|e| e.to_string())?;
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
