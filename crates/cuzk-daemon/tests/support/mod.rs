//! What the daemon tests share: daemons on loopback TCP and a unix socket
//! under a temporary directory (CPU backend), clients over either, one
//! parameter directory (mul-chain parameters and random 2 KiB Filecoin test
//! parameters, each generated once and kept between runs), the Filecoin
//! fixtures ([`filecoin`]), certificates for TLS ([`pki`]), requests sent
//! as raw bytes ([`raw`]), and a strict reader of the Prometheus text.

#![allow(dead_code)]

pub mod filecoin;
pub mod pki;
pub mod raw;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use blstrs::Scalar;
use cuzk_daemon::proto::proving_engine_client::ProvingEngineClient;
use cuzk_daemon::proto::{self, await_proof_response::Status as AwaitStatus};
use cuzk_daemon::{Address, Config, Reloader, Summary};
use cuzk_synth::workloads::Workload;
use hyper_util::rt::TokioIo;
use tokio::sync::oneshot;
use tonic::transport::{Channel, Endpoint};

pub type Client = ProvingEngineClient<Channel>;

/// A quick workload size (a proof in tens of milliseconds).
pub const SMALL: usize = 1024;
/// A slower one (a partition in a few hundred milliseconds on 2 cores).
pub const LARGE: usize = 1 << 15;

/// The parameter directory shared by the tests, under the target directory
/// so reruns reuse what earlier runs generated. It is cuzk-filecoin's test
/// cache: 2 KiB PoRep parameters (1.1 GB, minutes of CPU) and SnapDeals'
/// (656 MB) are made once for both crates' tests. Files land atomically, so
/// a binary never reads half of one another is writing.
pub fn param_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filecoin-params");
    std::fs::create_dir_all(&dir).expect("create the parameter directory");
    dir
}

/// Mul-chain parameters of `size` in the shared directory (made once).
pub fn mul_chain_params(size: usize) -> PathBuf {
    static GENERATING: Mutex<()> = Mutex::new(());
    let _guard = GENERATING.lock().unwrap_or_else(|p| p.into_inner());
    let path = param_dir().join(format!("mul-chain-{size}.params"));
    if !path.exists() {
        let circuit = Workload::MulChain.circuit::<Scalar>(size, 0).unwrap();
        let params = cuzk_groth16::generate_random_parameters(circuit, &mut rand::thread_rng(), None).unwrap();
        let tmp = path.with_extension("partial");
        params.write(&mut std::io::BufWriter::new(std::fs::File::create(&tmp).unwrap())).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
    }
    path
}

/// A configuration for tests: CPU, one synthesis worker, the shared
/// parameters, TCP on a free loopback port and a unix socket in `dir`.
pub fn config(dir: &Path) -> Config {
    let mut c = Config::default();
    c.server.listen = vec!["127.0.0.1:0".into(), format!("unix://{}", dir.join("cuzk.sock").display())];
    c.server.metrics_listen = Some("127.0.0.1:0".into());
    c.engine.backend = "cpu".into();
    c.engine.synthesis_workers = Some(1);
    c.engine.memory_budget_gib = Some(4.0);
    c.params.dir = param_dir();
    c
}

/// A running daemon.
pub struct Daemon {
    pub tcp: String,
    pub unix: PathBuf,
    pub metrics: std::net::SocketAddr,
    /// What SIGHUP would reload.
    pub reloader: Reloader,
    stop: Option<oneshot::Sender<()>>,
    pub done: tokio::task::JoinHandle<Result<Summary, cuzk_daemon::DaemonError>>,
    _dir: tempfile::TempDir,
}

/// Starts a daemon with `config(dir)` changed by `edit`.
pub async fn start(edit: impl FnOnce(&mut Config)) -> Daemon {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path());
    edit(&mut c);
    let server = cuzk_daemon::Server::start(c).await.expect("daemon starts");
    let mut tcp = String::new();
    let mut unix = PathBuf::new();
    for a in server.addresses() {
        match a {
            Address::Tcp(t) => tcp = t,
            Address::Unix(p) => unix = p,
        }
    }
    let metrics = server.metrics_address().expect("metrics endpoint");
    let reloader = server.reloader();
    let (tx, rx) = oneshot::channel::<()>();
    let done = tokio::spawn(server.serve(async move {
        let _ = rx.await;
    }));
    Daemon { tcp, unix, metrics, reloader, stop: Some(tx), done, _dir: dir }
}

impl Daemon {
    /// A client over TCP.
    pub async fn tcp(&self) -> Client {
        let channel = Endpoint::from_shared(format!("http://{}", self.tcp)).unwrap().connect().await.unwrap();
        limits(ProvingEngineClient::new(channel))
    }

    /// A client over the unix socket.
    pub async fn unix(&self) -> Client {
        let path = self.unix.clone();
        let channel = Endpoint::from_static("http://localhost")
            .connect_with_connector(tower::service_fn(move |_: tonic::transport::Uri| {
                let path = path.clone();
                async move { tokio::net::UnixStream::connect(path).await.map(TokioIo::new) }
            }))
            .await
            .unwrap();
        limits(ProvingEngineClient::new(channel))
    }

    /// Triggers shutdown and waits for the daemon to drain and stop.
    pub async fn stop(mut self) -> Summary {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        (&mut self.done).await.unwrap().expect("the daemon stops cleanly")
    }

    /// Triggers shutdown without waiting.
    pub fn begin_stop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

fn limits(c: Client) -> Client {
    c.max_decoding_message_size(512 << 20).max_encoding_message_size(512 << 20)
}

/// A mul-chain request.
pub fn workload(id: &str, size: usize, partitions: u32) -> proto::SubmitProofRequest {
    proto::SubmitProofRequest {
        request_id: id.into(),
        proof_kind: proto::ProofKind::WorkloadMulChain as i32,
        workload_size: size as u64,
        workload_partitions: partitions,
        ..Default::default()
    }
}

/// One `[[tokens]]` entry of a tokens file for `token` (its SHA-256 in
/// hex), with these kinds (a TOML array) and priority ceiling, and at most
/// one unfinished job.
pub fn token_entry(name: &str, token: &str, kinds: &str, max_priority: &str) -> String {
    use sha2::Digest;
    let sha = hex::encode(sha2::Sha256::digest(token.as_bytes()));
    format!("[[tokens]]\nname = {name:?}\nsha256 = {sha:?}\nkinds = {kinds}\nmax_priority = {max_priority:?}\nmax_jobs = 1\n")
}

/// Submits and returns the job id.
pub async fn submit(c: &mut Client, req: proto::SubmitProofRequest) -> String {
    c.submit_proof(req).await.expect("submitted").into_inner().job_id
}

/// Waits for a job without a timeout.
pub async fn wait(c: &mut Client, id: &str) -> proto::AwaitProofResponse {
    c.await_proof(proto::AwaitProofRequest { job_id: id.into(), timeout_ms: 0 }).await.expect("awaited").into_inner()
}

/// The status of a response.
pub fn status(r: &proto::AwaitProofResponse) -> AwaitStatus {
    AwaitStatus::try_from(r.status).unwrap_or(AwaitStatus::Unknown)
}

/// Polls `check` (every 20 ms, at most 60 s) until it holds.
pub async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + Duration::from_secs(60);
    while !check().await {
        assert!(Instant::now() < deadline, "never happened: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// One sample of the Prometheus text: name, labels, value.
pub type Sample = (String, Vec<(String, String)>, f64);

/// Reads OpenMetrics/Prometheus text strictly: every line is a `# HELP`,
/// `# TYPE`, `# UNIT` or `# EOF` comment or a sample `name{k="v",…} value`
/// whose name is a valid metric name and whose value is a number; `# EOF`
/// ends it. Panics on any other line.
pub fn parse_metrics(text: &str) -> Vec<Sample> {
    let valid_name = |n: &str| {
        !n.is_empty()
            && n.chars().enumerate().all(|(i, c)| {
                c.is_ascii_alphabetic() || c == '_' || c == ':' || (i > 0 && c.is_ascii_digit())
            })
    };
    let mut samples = Vec::new();
    let mut saw_eof = false;
    for line in text.lines() {
        assert!(!saw_eof, "text after # EOF: {line:?}");
        if line == "# EOF" {
            saw_eof = true;
            continue;
        }
        if let Some(rest) = line.strip_prefix("# ") {
            let mut words = rest.splitn(3, ' ');
            let (kind, name) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
            assert!(["HELP", "TYPE", "UNIT"].contains(&kind) && valid_name(name), "bad comment line {line:?}");
            if kind == "TYPE" {
                let t = words.next().unwrap_or("");
                let types = ["counter", "gauge", "histogram", "summary", "info", "stateset", "unknown"];
                assert!(types.contains(&t), "{line:?}");
            }
            continue;
        }
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("no value: {line:?}"));
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("bad value: {line:?}"));
        let (name, labels) = match series.split_once('{') {
            Some((name, rest)) => {
                let body = rest.strip_suffix('}').unwrap_or_else(|| panic!("unclosed labels: {line:?}"));
                let labels = body
                    .split(',')
                    .filter(|p| !p.is_empty())
                    .map(|pair| {
                        let (k, v) = pair.split_once('=').unwrap_or_else(|| panic!("bad label: {line:?}"));
                        assert!(valid_name(k), "bad label name: {line:?}");
                        let v = v.strip_prefix('"').and_then(|v| v.strip_suffix('"'));
                        (k.to_string(), v.unwrap_or_else(|| panic!("unquoted label: {line:?}")).to_string())
                    })
                    .collect();
                (name, labels)
            }
            None => (series, Vec::new()),
        };
        assert!(valid_name(name), "bad metric name: {line:?}");
        samples.push((name.to_string(), labels, value));
    }
    assert!(saw_eof, "no # EOF");
    samples
}

/// The value of the sample `name` with `labels`, if present.
pub fn sample(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    samples
        .iter()
        .find(|(n, l, _)| n == name && labels.iter().all(|(k, v)| l.iter().any(|(lk, lv)| lk == k && lv == v)))
        .map(|s| s.2)
}

/// Test wall time, printed so a run shows where the time goes.
pub fn timed(what: &str, started: Instant) {
    eprintln!("{what}: {:.2} s", started.elapsed().as_secs_f64());
}
