//! Starting, serving and stopping: the engine is built and the configured
//! parameters preloaded before any listener answers; every listener serves
//! the same service; on shutdown new jobs are refused, in-flight RPCs and
//! jobs finish (or are cancelled, per configuration), and only then does
//! serving return.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use cuzk_pipeline::Engine;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_stream::wrappers::UnixListenerStream;
use tokio_stream::StreamExt;
use tonic::transport::server::TcpIncoming;

use crate::authority::AuthorityFix;
use crate::config::{Config, OnShutdown};
use crate::core::{Core, Summary};
use crate::error::DaemonError;
use crate::listen::{self, Address, Bound};
use crate::proto::proving_engine_server::ProvingEngineServer;
use crate::service::Service;

/// A daemon with its engine running and its addresses bound, not yet serving.
pub struct Server {
    core: Arc<Core>,
    listeners: Vec<Bound>,
    metrics: Option<(TcpListener, SocketAddr)>,
}

impl Server {
    /// Checks and logs the configuration, starts the engine, preloads the
    /// configured parameters, and binds every address.
    pub async fn start(config: Config) -> Result<Server, DaemonError> {
        config.check()?;
        config.log();
        let engine = Engine::new(config.engine_config()?)?;
        tracing::info!(backends = ?engine.backends(), memory_budget_bytes = engine.memory_budget(), "engine started");
        let core = Arc::new(Core::new(engine, config));
        for id in core.config.params.preload.clone() {
            let (_, ms) = core
                .preload(&id)
                .await
                .map_err(|s| DaemonError::Preload { circuit: id.clone(), reason: s.message().to_string() })?;
            tracing::info!(circuit = %id, load_ms = ms, "preloaded");
        }
        let mut listeners = Vec::new();
        for a in &core.config.server.listen {
            let address: Address = a.parse().map_err(DaemonError::Config)?;
            let bound = listen::bind(&address)
                .await
                .map_err(|reason| DaemonError::Listen { address: a.clone(), reason })?;
            tracing::info!(address = %bound.address(), "listening (gRPC)");
            listeners.push(bound);
        }
        let metrics = match &core.config.server.metrics_listen {
            Some(a) => {
                let hostport = a.strip_prefix("tcp://").unwrap_or(a);
                let listener = TcpListener::bind(hostport)
                    .await
                    .map_err(|e| DaemonError::Listen { address: a.clone(), reason: e.to_string() })?;
                let local = listener
                    .local_addr()
                    .map_err(|e| DaemonError::Listen { address: a.clone(), reason: e.to_string() })?;
                tracing::info!(address = %local, "listening (HTTP /metrics)");
                Some((listener, local))
            }
            None => None,
        };
        Ok(Server { core, listeners, metrics })
    }

    /// The gRPC addresses as bound (TCP ports resolved when 0 was asked for).
    pub fn addresses(&self) -> Vec<Address> {
        self.listeners.iter().map(Bound::address).collect()
    }

    /// The metrics endpoint's address, when configured.
    pub fn metrics_address(&self) -> Option<SocketAddr> {
        self.metrics.as_ref().map(|(_, a)| *a)
    }

    /// Serves until `shutdown` resolves, then drains: new jobs are refused,
    /// RPCs in flight answer, accepted jobs finish (or are cancelled with
    /// `on_shutdown = "cancel"`), unix sockets are removed. Returns how jobs ended.
    pub async fn serve(self, shutdown: impl Future<Output = ()>) -> Result<Summary, DaemonError> {
        let Server { core, listeners, metrics } = self;
        let (stop_tx, stop_rx) = watch::channel(false);
        let stopped = |mut rx: watch::Receiver<bool>| async move {
            let _ = rx.wait_for(|v| *v).await;
        };
        let limit = core.config.server.max_message_bytes;
        let service = ProvingEngineServer::new(Service { core: core.clone() })
            .max_decoding_message_size(limit)
            .max_encoding_message_size(limit);
        let mut tasks: JoinSet<Result<(), String>> = JoinSet::new();
        let mut sockets = Vec::new();
        for bound in listeners {
            let router = tonic::transport::Server::builder().add_service(service.clone());
            let stop = stopped(stop_rx.clone());
            match bound {
                Bound::Tcp(l, _) => {
                    let incoming = TcpIncoming::from(l).with_nodelay(Some(true));
                    tasks.spawn(async move {
                        router.serve_with_incoming_shutdown(incoming, stop).await.map_err(|e| e.to_string())
                    });
                }
                Bound::Unix(l, path) => {
                    sockets.push(path);
                    // The socket path that grpcio and others send as the
                    // authority becomes one h2 accepts (authority.rs).
                    let incoming = UnixListenerStream::new(l).map(|c| c.map(AuthorityFix::new));
                    tasks.spawn(async move {
                        router.serve_with_incoming_shutdown(incoming, stop).await.map_err(|e| e.to_string())
                    });
                }
            }
        }
        if let Some((listener, _)) = metrics {
            let (core, stop) = (core.clone(), stopped(stop_rx.clone()));
            tasks.spawn(async move {
                crate::http::serve(listener, core, stop).await;
                Ok(())
            });
        }
        let (sweeper, mut stop) = (core.clone(), stop_rx.clone());
        tasks.spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            loop {
                tokio::select! {
                    _ = stop.wait_for(|v| *v) => return Ok(()),
                    _ = tick.tick() => sweeper.sweep(),
                }
            }
        });

        // A listener that fails ends serving as a shutdown would.
        let mut failure = None;
        tokio::select! {
            _ = shutdown => {}
            Some(ended) = tasks.join_next() => failure = Some(describe(ended)),
        }
        let cancel = core.config.server.on_shutdown == OnShutdown::Cancel;
        tracing::info!(unfinished = core.jobs.unfinished().len(), cancel, "shutting down: no new jobs");
        core.stop_accepting(cancel);
        // The listeners keep serving while the accepted jobs finish, and
        // then while results of SubmitProof jobs are still unfetched (up to
        // server.shutdown_grace_secs): a client's AwaitProof gets them.
        core.drained().await;
        core.delivered_or(Duration::from_secs(core.config.server.shutdown_grace_secs)).await;
        let _ = stop_tx.send(true);
        while let Some(ended) = tasks.join_next().await {
            if let Err(e) = describe(ended) {
                failure.get_or_insert(Err(e));
            }
        }
        for path in sockets {
            let _ = std::fs::remove_file(&path);
        }
        let summary = core.summary();
        tracing::info!(?summary, "stopped");
        // The service holds the core too; the engine stops with the last holder.
        drop(service);
        stop_engine(core).await;
        match failure {
            Some(Err(e)) => Err(DaemonError::Runtime(e)),
            _ => Ok(summary),
        }
    }
}

fn describe(ended: Result<Result<(), String>, tokio::task::JoinError>) -> Result<(), String> {
    match ended {
        Ok(r) => r,
        Err(e) => Err(format!("a server task failed: {e}")),
    }
}

/// Drops the engine (joining its threads) once the jobs' threads have let
/// go of it, off the async workers.
async fn stop_engine(mut core: Arc<Core>) {
    for _ in 0..200 {
        match Arc::try_unwrap(core) {
            Ok(c) => {
                let _ = tokio::task::spawn_blocking(move || drop(c)).await;
                return;
            }
            Err(c) => core = c,
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tracing::warn!("the engine is still referenced; it stops when its last job thread ends");
}

/// Starts, serves until `shutdown` resolves, drains and stops.
pub async fn run(config: Config, shutdown: impl Future<Output = ()>) -> Result<Summary, DaemonError> {
    Server::start(config).await?.serve(shutdown).await
}

/// Resolves on SIGTERM or SIGINT; SIGHUP is logged and ignored. The handlers are installed when this is
/// called, not when the future is first polled, so a signal that comes while
/// the daemon is still starting is not lost (nor kills the process).
pub fn shutdown_signal() -> Result<impl Future<Output = ()>, DaemonError> {
    use tokio::signal::unix::{signal, SignalKind};
    let handler = |kind: SignalKind, name: &str| {
        signal(kind).map_err(|e| DaemonError::Runtime(format!("installing the {name} handler: {e}")))
    };
    let mut term = handler(SignalKind::terminate(), "SIGTERM")?;
    let mut int = handler(SignalKind::interrupt(), "SIGINT")?;
    // SIGHUP's default action kills the process at once, without draining:
    // a closed terminal or a reload by habit must not lose the jobs.
    let mut hup = handler(SignalKind::hangup(), "SIGHUP")?;
    Ok(async move {
        loop {
            tokio::select! {
                _ = term.recv() => return tracing::info!("SIGTERM"),
                _ = int.recv() => return tracing::info!("SIGINT"),
                _ = hup.recv() => tracing::info!("SIGHUP ignored: nothing reloads; SIGTERM stops the daemon"),
            }
        }
    })
}

/// The daemon as a program runs it (what `cuzk daemon` calls): its own
/// runtime, serving until SIGTERM or SIGINT, then draining.
pub fn serve_until_signal(config: Config) -> Result<Summary, DaemonError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("cuzk-rpc")
        .build()
        .map_err(|e| DaemonError::Runtime(e.to_string()))?;
    runtime.block_on(async {
        let shutdown = shutdown_signal()?;
        run(config, shutdown).await
    })
}
