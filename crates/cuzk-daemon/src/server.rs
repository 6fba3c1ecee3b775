//! Starting, serving and stopping: the TLS and tokens files are read and
//! the engine is built and the configured parameters preloaded before any
//! listener answers; every listener serves the same service (TCP listeners
//! with TLS when `[server.tls]` is set, and behind the token check when
//! `server.require_token` is); on shutdown new jobs are refused, in-flight
//! RPCs and jobs finish (or are cancelled, per configuration), and only
//! then does serving return.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use cuzk_pipeline::Engine;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_stream::wrappers::UnixListenerStream;
use tokio_stream::{Stream, StreamExt};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::server::{Connected, Router, TcpIncoming};

use crate::auth::RequireToken;
use crate::authority::AuthorityFix;
use crate::config::{Config, OnShutdown};
use crate::core::{Core, Summary};
use crate::error::DaemonError;
use crate::listen::{self, Address, Bound};
use crate::proto::proving_engine_server::ProvingEngineServer;
use crate::reload::Reloader;
use crate::service::Service;
use crate::tls::{self, Tls};
use crate::tokens::TokenStore;

/// A daemon with its engine running and its addresses bound, not yet serving.
pub struct Server {
    core: Arc<Core>,
    listeners: Vec<Bound>,
    metrics: Option<(TcpListener, SocketAddr)>,
    tls: Option<Arc<Tls>>,
    tokens: Option<Arc<TokenStore>>,
}

impl Server {
    /// Checks and logs the configuration, reads the TLS and tokens files,
    /// starts the engine, preloads the configured parameters, and binds
    /// every address.
    pub async fn start(config: Config) -> Result<Server, DaemonError> {
        config.check()?;
        config.log();
        // Before the engine: a bad certificate or tokens file stops the
        // start at once, naming the key and the file.
        let tls = config.server.tls.as_ref().map(Tls::load).transpose()?.map(Arc::new);
        let tokens = match (&config.server.tokens_file, config.server.require_token) {
            (Some(path), true) => Some(Arc::new(TokenStore::load(path)?)),
            _ => None,
        };
        if let Some(t) = &tokens {
            tracing::info!(tokens = t.current().len(), "tokens read; TCP listeners require one");
        }
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
            let (tls, token) = match bound {
                Bound::Tcp(..) => {
                    (tls.as_ref().map(|t| if t.mutual() { "mutual" } else { "server" }), tokens.is_some())
                }
                Bound::Unix(..) => (None, false),
            };
            tracing::info!(address = %bound.address(), tls = tls.unwrap_or("none"), token, "listening (gRPC)");
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
        Ok(Server { core, listeners, metrics, tls, tokens })
    }

    /// What SIGHUP reloads: the TLS files and the tokens file.
    pub fn reloader(&self) -> Reloader {
        Reloader { tls: self.tls.clone(), tokens: self.tokens.clone() }
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
        let Server { core, listeners, metrics, tls, tokens } = self;
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
            let mut builder = tonic::transport::Server::builder();
            let stop = stopped(stop_rx.clone());
            match bound {
                Bound::Tcp(l, _) => {
                    let router = match &tokens {
                        Some(store) => builder
                            .add_service(InterceptedService::new(service.clone(), RequireToken::new(store.clone()))),
                        None => builder.add_service(service.clone()),
                    };
                    match &tls {
                        Some(tls) => serve_on(&mut tasks, router, tls::incoming(l, tls.clone()), stop),
                        None => serve_on(&mut tasks, router, TcpIncoming::from(l).with_nodelay(Some(true)), stop),
                    }
                }
                Bound::Unix(l, path) => {
                    sockets.push(path);
                    // The unix socket is trusted through its file mode: no
                    // token. The socket path that grpcio and others send as
                    // the authority becomes one h2 accepts (authority.rs).
                    let incoming = UnixListenerStream::new(l).map(|c| c.map(AuthorityFix::new));
                    serve_on(&mut tasks, builder.add_service(service.clone()), incoming, stop);
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

/// Serves `router` on the connections of `incoming` until `stop`, as a task of `tasks`.
fn serve_on<S, IO, E>(
    tasks: &mut JoinSet<Result<(), String>>,
    router: Router,
    incoming: S,
    stop: impl Future<Output = ()> + Send + 'static,
) where
    S: Stream<Item = Result<IO, E>> + Send + 'static,
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Connected + Unpin + Send + 'static,
    IO::ConnectInfo: Clone + Send + Sync + 'static,
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    tasks.spawn(async move { router.serve_with_incoming_shutdown(incoming, stop).await.map_err(|e| e.to_string()) });
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

fn handler(kind: tokio::signal::unix::SignalKind, name: &str) -> Result<tokio::signal::unix::Signal, DaemonError> {
    tokio::signal::unix::signal(kind).map_err(|e| DaemonError::Runtime(format!("installing the {name} handler: {e}")))
}

/// Resolves on SIGTERM or SIGINT. The handlers are installed when this is
/// called, not when the future is first polled, so a signal that comes
/// while the daemon is still starting is not lost (nor kills the process).
pub fn shutdown_signal() -> Result<impl Future<Output = ()>, DaemonError> {
    use tokio::signal::unix::SignalKind;
    let mut term = handler(SignalKind::terminate(), "SIGTERM")?;
    let mut int = handler(SignalKind::interrupt(), "SIGINT")?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => tracing::info!("SIGTERM"),
            _ = int.recv() => tracing::info!("SIGINT"),
        }
    })
}

/// The daemon as a program runs it (what `cuzk daemon` calls): its own
/// runtime, serving until SIGTERM or SIGINT, then draining; each SIGHUP
/// reloads the TLS and tokens files ([`Reloader::reload`]).
pub fn serve_until_signal(config: Config) -> Result<Summary, DaemonError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("cuzk-rpc")
        .build()
        .map_err(|e| DaemonError::Runtime(e.to_string()))?;
    runtime.block_on(async {
        let shutdown = shutdown_signal()?;
        // Installed before the start too: SIGHUP's default action kills the
        // process at once, without draining, and a closed terminal or a
        // reload during a long preload must not lose the jobs. One that
        // comes while the daemon starts is answered once it serves.
        let mut hangups = handler(tokio::signal::unix::SignalKind::hangup(), "SIGHUP")?;
        let server = Server::start(config).await?;
        let reloader = server.reloader();
        let reloading = tokio::spawn(async move {
            while hangups.recv().await.is_some() {
                // Errors are logged, and the files in use stay.
                let _ = reloader.reload();
            }
        });
        let summary = server.serve(shutdown).await;
        reloading.abort();
        summary
    })
}
