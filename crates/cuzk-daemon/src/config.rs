//! The daemon's configuration: a TOML file in which every key has a default,
//! so an empty file is a working daemon, and an unknown key is an error that
//! names it (a misspelt key silently ignored is a setting silently lost).

use std::path::{Path, PathBuf};

use cuzk_pipeline::{BackendChoice, SynthesisMode};
use serde::{Deserialize, Serialize};

use crate::error::DaemonError;
use crate::listen::Address;

/// The smallest message limit accepted: Curio sends requests up to 256 MiB.
pub const MIN_MESSAGE_BYTES: usize = 256 << 20;
/// The largest `server.max_message_bytes`: a message is held whole while it
/// decodes, outside the engine's memory budget, once per request in flight.
pub const MAX_MESSAGE_BYTES: usize = 1 << 30;

/// The default configuration as a commented TOML file (what
/// `cuzk daemon --print-default-config` writes): every key at its default,
/// those without a fixed default commented out. A test holds it to
/// [`Config::default`] and to the keys the types have.
pub const DEFAULT_TOML: &str = include_str!("default_config.toml");

/// Everything the daemon can be told, by section.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Where and how gRPC is served.
    pub server: ServerConfig,
    /// The proving engine.
    pub engine: EngineConfig,
    /// Parameter files.
    pub params: ParamsConfig,
    /// How long finished results are kept for `AwaitProof`.
    pub results: ResultsConfig,
}

/// `[server]`: listeners, limits, what a disconnect or a shutdown does.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    /// gRPC addresses: `unix:///path/to.sock` or `host:port` (`tcp://` optional).
    pub listen: Vec<String>,
    /// HTTP address of the Prometheus `/metrics` endpoint; none when absent.
    pub metrics_listen: Option<String>,
    /// Largest gRPC message received or sent, in bytes (at least 256 MiB).
    pub max_message_bytes: usize,
    /// A client that disconnects from `Prove` cancels its job (unless another
    /// `Prove` call waits on the same job).
    pub cancel_on_disconnect: bool,
    /// What SIGTERM/SIGINT does to jobs in flight: `finish` them, or `cancel` them.
    pub on_shutdown: OnShutdown,
    /// After the jobs have ended on shutdown, the most seconds the daemon
    /// keeps serving while results of `SubmitProof` jobs are unfetched.
    pub shutdown_grace_secs: u64,
    /// Log lines as `text` or `json` (used by [`crate::init_logging`]).
    pub log_format: LogFormat,
    /// Which log lines are written, as a tracing filter (`info`, `cuzk_daemon=debug,info`).
    pub log_filter: String,
    /// A TCP listener without TLS may bind an address other than loopback:
    /// its requests, and any bearer token in them, then cross the network
    /// in plain text, so the operator says so here.
    pub allow_plaintext_remote: bool,
    /// The bearer tokens file (TOML, SHA-256 hashes of the tokens, never
    /// the tokens): who may call the TCP listeners, for which proof kinds,
    /// up to which priority, with how many unfinished jobs.
    pub tokens_file: Option<PathBuf>,
    /// Every TCP listener refuses a call without a bearer token of
    /// `tokens_file`; the unix socket is trusted through its file mode.
    pub require_token: bool,
    /// TLS on every TCP gRPC listener (`[server.tls]`); plain TCP when absent.
    /// Last: TOML writes a table after the plain values of its section.
    pub tls: Option<TlsConfig>,
}

/// `[server.tls]`: the daemon's certificate and, for mutual TLS, the CAs
/// its clients' certificates must chain to. Every file is PEM and is read
/// again on SIGHUP (new connections get what it holds then).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TlsConfig {
    /// The server's certificate chain, leaf first.
    pub cert: PathBuf,
    /// The private key of the leaf (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// CA certificates of the clients; set, every TLS client must present
    /// a certificate one of them signed (mTLS).
    pub client_ca: Option<PathBuf>,
}

/// `[engine]`: devices, memory, synthesis.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct EngineConfig {
    /// `auto` (every GPU, else the CPU), `cpu`, `cuda` (every GPU) or `cuda:N`.
    pub backend: String,
    /// Bytes for parameters, witnesses and temporaries, in GiB; three
    /// quarters of RAM when absent.
    pub memory_budget_gib: Option<f64>,
    /// Threads synthesizing partitions; one per core when absent.
    pub synthesis_workers: Option<usize>,
    /// Threads beside them that take only high and critical partitions
    /// (WindowPoSt, WinningPoSt), so that one starts while every other
    /// thread is busy with a PoRep partition; 0 turns the lane off.
    pub urgent_synthesis_workers: usize,
    /// `recorded` (constraint matrices recorded once per parameter file) or `classic`.
    pub synthesis: String,
    /// Where recordings persist between runs; in memory only when absent.
    pub recordings_dir: Option<PathBuf>,
    /// Plan each GPU's memory as a card of this many GiB; the card's own
    /// size when absent.
    pub device_memory_gib: Option<f64>,
    /// With `device_memory_gib`, also take the memory above the cap.
    pub device_memory_enforce: bool,
}

/// `[params]`: where parameter files are, which to load at start.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ParamsConfig {
    /// The Filecoin parameter cache directory (`v28-….params` and `.vk`),
    /// also where workload parameters `<name>-<size>.params` are looked for.
    pub dir: PathBuf,
    /// Circuit ids loaded before serving (`porep-32g`, `wpost-32g`, `winning-32g`, `snap-32g`, …).
    pub preload: Vec<String>,
}

/// `[results]`: finished results are forgotten after a time or beyond a count.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ResultsConfig {
    /// Seconds a finished result stays available to `AwaitProof`.
    pub retention_secs: u64,
    /// Most finished results kept; the oldest are forgotten first.
    pub max_kept: usize,
}

/// What shutdown does to jobs in flight.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OnShutdown {
    /// Finish every accepted job, then exit.
    #[default]
    Finish,
    /// Cancel every unfinished job, then exit.
    Cancel,
}

/// The format of log lines.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            listen: vec!["unix:///run/cuzk/cuzk.sock".into()],
            metrics_listen: None,
            max_message_bytes: 272 << 20,
            cancel_on_disconnect: true,
            shutdown_grace_secs: 30,
            on_shutdown: OnShutdown::Finish,
            log_format: LogFormat::Text,
            log_filter: "info".into(),
            allow_plaintext_remote: false,
            tokens_file: None,
            require_token: false,
            tls: None,
        }
    }
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            backend: "auto".into(),
            memory_budget_gib: None,
            synthesis_workers: None,
            urgent_synthesis_workers: cuzk_pipeline::Config::default().urgent_synthesis_workers,
            synthesis: "recorded".into(),
            recordings_dir: None,
            device_memory_gib: None,
            device_memory_enforce: false,
        }
    }
}

impl Default for ParamsConfig {
    fn default() -> Self {
        ParamsConfig { dir: PathBuf::from("/var/tmp/filecoin-proof-parameters"), preload: Vec::new() }
    }
}

impl Default for ResultsConfig {
    fn default() -> Self {
        ResultsConfig { retention_secs: 600, max_kept: 10_000 }
    }
}

impl Config {
    /// Parses and checks a TOML configuration.
    pub fn from_toml(text: &str) -> Result<Config, DaemonError> {
        let config: Config = toml::from_str(text).map_err(|e| DaemonError::Config(e.to_string()))?;
        config.check()?;
        Ok(config)
    }

    /// The configuration as TOML, every value set (keys without a value
    /// left out): what a daemon runs with, echoed at its start.
    pub fn to_toml(&self) -> Result<String, DaemonError> {
        toml::to_string(self).map_err(|e| DaemonError::Config(format!("not representable as TOML: {e}")))
    }

    /// This configuration with the values the engine picks where they are
    /// absent filled in (the memory budget, the synthesis workers): every
    /// value the daemon runs with, as its start-up echo shows them.
    pub fn resolved(&self) -> Config {
        let engine = cuzk_pipeline::Config::default();
        let mut c = self.clone();
        c.engine.memory_budget_gib.get_or_insert(engine.memory_budget as f64 / (1u64 << 30) as f64);
        c.engine.synthesis_workers.get_or_insert(engine.synthesis_workers);
        c
    }

    /// Reads, parses and checks a TOML configuration file.
    pub fn load(path: &Path) -> Result<Config, DaemonError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| DaemonError::Io { path: path.to_path_buf(), source })?;
        Config::from_toml(&text).map_err(|e| match e {
            DaemonError::Config(why) => DaemonError::Config(format!("{}: {why}", path.display())),
            other => other,
        })
    }

    /// Checks every value a type cannot: addresses, ranges, names.
    pub fn check(&self) -> Result<(), DaemonError> {
        let bad = |key: &str, why: String| Err(DaemonError::Config(format!("{key}: {why}")));
        if self.server.listen.is_empty() {
            return bad("server.listen", "no address to serve on".into());
        }
        for a in &self.server.listen {
            let address = a.parse::<Address>().map_err(|e| DaemonError::Config(format!("server.listen: {e}")))?;
            let plain_remote = matches!(address, Address::Tcp(_)) && !address.is_loopback();
            if plain_remote && self.server.tls.is_none() && !self.server.allow_plaintext_remote {
                return Err(DaemonError::PlaintextRemote { address: a.clone() });
            }
        }
        match (&self.server.tokens_file, self.server.require_token) {
            (None, true) => return bad("server.require_token", "true without server.tokens_file".into()),
            (Some(f), false) => {
                let why =
                    format!("{} is set but server.require_token is false: no listener would check it", f.display());
                return bad("server.tokens_file", why);
            }
            _ => {}
        }
        if let Some(m) = &self.server.metrics_listen {
            match m.parse::<Address>() {
                Ok(Address::Tcp(_)) => {}
                Ok(Address::Unix(_)) => return bad("server.metrics_listen", format!("{m}: HTTP is served on TCP only")),
                Err(e) => return bad("server.metrics_listen", e),
            }
        }
        if self.server.max_message_bytes > MAX_MESSAGE_BYTES {
            let have = self.server.max_message_bytes;
            let why = format!("{have} is above {MAX_MESSAGE_BYTES} (1 GiB): each request in flight is held whole");
            return bad("server.max_message_bytes", why);
        }
        if self.server.max_message_bytes < MIN_MESSAGE_BYTES {
            let have = self.server.max_message_bytes;
            let why = format!("{have} is below {MIN_MESSAGE_BYTES} (256 MiB, Curio's largest request)");
            return bad("server.max_message_bytes", why);
        }
        if let Err(e) = tracing_subscriber::EnvFilter::try_new(&self.server.log_filter) {
            return bad("server.log_filter", e.to_string());
        }
        self.backend().map_err(|e| DaemonError::Config(format!("engine.backend: {e}")))?;
        self.synthesis().map_err(|e| DaemonError::Config(format!("engine.synthesis: {e}")))?;
        if let Some(gib) = self.engine.memory_budget_gib {
            if !(gib.is_finite() && gib > 0.0 && gib < (1u64 << 34) as f64) {
                return bad("engine.memory_budget_gib", format!("{gib} is not a positive size in GiB"));
            }
        }
        if let Some(gib) = self.engine.device_memory_gib {
            if !(gib.is_finite() && (1.0..=1024.0).contains(&gib)) {
                return bad("engine.device_memory_gib", format!("{gib} is not a card size of 1 to 1024 GiB"));
            }
        }
        if self.engine.device_memory_enforce && self.engine.device_memory_gib.is_none() {
            return bad("engine.device_memory_enforce", "true without engine.device_memory_gib to enforce".into());
        }
        if self.engine.synthesis_workers == Some(0) {
            return bad("engine.synthesis_workers", "0: at least one is needed".into());
        }
        if self.results.max_kept == 0 {
            return bad("results.max_kept", "0: a result must be kept until it is read".into());
        }
        for id in &self.params.preload {
            crate::kinds::params_for_circuit(&self.params.dir, id)
                .map_err(|e| DaemonError::Config(format!("params.preload: {}", e.message())))?;
        }
        Ok(())
    }

    /// The engine's backend choice.
    pub fn backend(&self) -> Result<BackendChoice, String> {
        self.engine.backend.parse()
    }

    /// The engine's synthesis mode.
    pub fn synthesis(&self) -> Result<SynthesisMode, String> {
        self.engine.synthesis.parse()
    }

    /// Logs every value, one line per section, so a log shows what the
    /// daemon ran with.
    pub fn log(&self) {
        let s = &self.server;
        tracing::info!(
            listen = ?s.listen,
            metrics_listen = ?s.metrics_listen,
            max_message_bytes = s.max_message_bytes,
            cancel_on_disconnect = s.cancel_on_disconnect,
            shutdown_grace_secs = s.shutdown_grace_secs,
            on_shutdown = ?s.on_shutdown,
            log_format = ?s.log_format,
            log_filter = %s.log_filter,
            allow_plaintext_remote = s.allow_plaintext_remote,
            tokens_file = ?s.tokens_file,
            require_token = s.require_token,
            "config [server]"
        );
        if let Some(t) = &s.tls {
            tracing::info!(cert = %t.cert.display(), key = %t.key.display(), client_ca = ?t.client_ca, "config [server.tls]");
        }
        let e = &self.engine;
        tracing::info!(
            backend = %e.backend,
            memory_budget_gib = ?e.memory_budget_gib,
            synthesis_workers = ?e.synthesis_workers,
            urgent_synthesis_workers = e.urgent_synthesis_workers,
            synthesis = %e.synthesis,
            recordings_dir = ?e.recordings_dir,
            device_memory_gib = ?e.device_memory_gib,
            device_memory_enforce = e.device_memory_enforce,
            "config [engine]"
        );
        tracing::info!(dir = %self.params.dir.display(), preload = ?self.params.preload, "config [params]");
        let r = &self.results;
        tracing::info!(retention_secs = r.retention_secs, max_kept = r.max_kept, "config [results]");
    }

    /// The engine's configuration.
    pub(crate) fn engine_config(&self) -> Result<cuzk_pipeline::Config, DaemonError> {
        let mut c = cuzk_pipeline::Config {
            backend: self.backend().map_err(DaemonError::Config)?,
            synthesis: self.synthesis().map_err(DaemonError::Config)?,
            recordings_dir: self.engine.recordings_dir.clone(),
            urgent_synthesis_workers: self.engine.urgent_synthesis_workers,
            ..cuzk_pipeline::Config::default()
        };
        if let Some(gib) = self.engine.memory_budget_gib {
            c.memory_budget = (gib * (1u64 << 30) as f64) as u64;
        }
        if let Some(n) = self.engine.synthesis_workers {
            c.synthesis_workers = n;
        }
        c.device_memory = self.engine.device_memory_gib.map(|gib| (gib * (1u64 << 30) as f64) as u64);
        c.device_memory_enforce = self.engine.device_memory_enforce;
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_file_is_every_default() {
        let c = Config::from_toml("").unwrap();
        assert_eq!(c.server.listen, vec!["unix:///run/cuzk/cuzk.sock".to_string()]);
        assert!(c.server.max_message_bytes >= MIN_MESSAGE_BYTES);
        assert_eq!(c.backend().unwrap(), BackendChoice::Auto);
        assert_eq!(c.synthesis().unwrap(), SynthesisMode::Recorded);
        assert_eq!((c.results.retention_secs, c.results.max_kept), (600, 10_000));
    }

    #[test]
    fn every_key_is_read() {
        let c = Config::from_toml(
            r#"
            [server]
            listen = ["unix:///tmp/x.sock", "127.0.0.1:9820"]
            metrics_listen = "127.0.0.1:9821"
            max_message_bytes = 536870912
            cancel_on_disconnect = false
            shutdown_grace_secs = 3
            on_shutdown = "cancel"
            log_format = "json"
            log_filter = "debug"
            allow_plaintext_remote = true
            tokens_file = "/etc/cuzk/tokens.toml"
            require_token = true
            [server.tls]
            cert = "/etc/cuzk/server.pem"
            key = "/etc/cuzk/server.key"
            client_ca = "/etc/cuzk/clients.pem"
            [engine]
            backend = "cpu"
            memory_budget_gib = 1.5
            synthesis_workers = 3
            urgent_synthesis_workers = 2
            synthesis = "classic"
            recordings_dir = "/tmp/rec"
            device_memory_gib = 48.0
            device_memory_enforce = true
            [params]
            dir = "/tmp/params"
            preload = ["wpost-2k", "winning-32g"]
            [results]
            retention_secs = 5
            max_kept = 7
            "#,
        )
        .unwrap();
        assert_eq!(c.server.listen.len(), 2);
        assert_eq!((c.server.on_shutdown, c.server.log_format), (OnShutdown::Cancel, LogFormat::Json));
        assert!(!c.server.cancel_on_disconnect);
        assert_eq!(c.server.shutdown_grace_secs, 3);
        assert_eq!(c.server.log_filter, "debug");
        assert!(c.server.allow_plaintext_remote && c.server.require_token);
        assert_eq!(c.server.tokens_file.as_deref(), Some(Path::new("/etc/cuzk/tokens.toml")));
        let tls = c.server.tls.as_ref().unwrap();
        assert_eq!((tls.cert.to_str(), tls.key.to_str()), (Some("/etc/cuzk/server.pem"), Some("/etc/cuzk/server.key")));
        assert_eq!(tls.client_ca.as_deref(), Some(Path::new("/etc/cuzk/clients.pem")));
        let e = c.engine_config().unwrap();
        assert_eq!((e.backend, e.synthesis, e.synthesis_workers), (BackendChoice::Cpu, SynthesisMode::Classic, 3));
        assert_eq!(e.urgent_synthesis_workers, 2);
        assert_eq!(e.memory_budget, 3 << 29);
        assert_eq!((e.device_memory, e.device_memory_enforce), (Some(48 << 30), true));
        assert_eq!(c.params.preload, vec!["wpost-2k".to_string(), "winning-32g".to_string()]);
        assert_eq!((c.results.retention_secs, c.results.max_kept), (5, 7));
    }

    #[test]
    fn the_default_file_is_the_default_and_names_every_key() {
        assert_eq!(Config::from_toml(DEFAULT_TOML).unwrap(), Config::default());
        let mut full = Config::default();
        full.server.metrics_listen = Some("127.0.0.1:9821".into());
        full.engine.memory_budget_gib = Some(2.5);
        full.engine.synthesis_workers = Some(3);
        full.engine.recordings_dir = Some("/tmp/rec".into());
        full.engine.device_memory_gib = Some(48.0);
        full.params.preload = vec!["wpost-2k".into()];
        full.server.tokens_file = Some("/etc/cuzk/tokens.toml".into());
        full.server.require_token = true;
        let tls = TlsConfig { cert: "/c.pem".into(), key: "/k.pem".into(), client_ca: Some("/ca.pem".into()) };
        full.server.tls = Some(tls);
        let text = full.to_toml().unwrap();
        assert_eq!(Config::from_toml(&text).unwrap(), full, "{text}");
        let table: toml::Table = toml::from_str(&text).unwrap();
        let mut keys = 0;
        let mut sections: Vec<(String, &toml::Table)> = table
            .iter()
            .map(|(section, values)| {
                (section.clone(), values.as_table().unwrap_or_else(|| panic!("[{section}] is a table")))
            })
            .collect();
        while let Some((section, values)) = sections.pop() {
            // A table with no fixed default is shown commented out.
            let at = [format!("\n[{section}]\n"), format!("\n# [{section}]\n")]
                .iter()
                .find_map(|header| DEFAULT_TOML.find(header))
                .unwrap_or_else(|| panic!("[{section}] missing"));
            let body = DEFAULT_TOML[at + 1..].split("\n[").next().unwrap();
            for (key, value) in values {
                if let Some(table) = value.as_table() {
                    sections.push((format!("{section}.{key}"), table));
                    continue;
                }
                let listed = body.contains(&format!("\n{key} = ")) || body.contains(&format!("\n# {key} = "));
                assert!(listed, "{section}.{key} is not in the default file");
                keys += 1;
            }
        }
        assert_eq!(keys, 26, "{text}");
    }

    #[test]
    fn resolving_fills_only_what_the_engine_picks() {
        let r = Config::default().resolved();
        assert!(r.engine.memory_budget_gib.is_some_and(|g| g > 0.0) && r.engine.synthesis_workers.is_some());
        assert_eq!((r.server.metrics_listen, r.engine.recordings_dir), (None, None));
        let mut set = Config::default();
        set.engine.memory_budget_gib = Some(1.5);
        set.engine.synthesis_workers = Some(3);
        assert_eq!(set.resolved(), set);
    }

    #[test]
    fn a_file_is_read_and_its_errors_name_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cuzk.toml");
        std::fs::write(&path, "[results]\nmax_kept = 3\n").unwrap();
        assert_eq!(Config::load(&path).unwrap().results.max_kept, 3);
        std::fs::write(&path, "[results]\nmax_kpt = 3\n").unwrap();
        let err = Config::load(&path).unwrap_err().to_string();
        assert!(err.starts_with(&format!("configuration: {}: ", path.display())) && err.contains("max_kpt"), "{err}");
        assert!(matches!(Config::load(&dir.path().join("absent.toml")), Err(DaemonError::Io { .. })));
    }

    #[test]
    fn unknown_keys_and_bad_values_are_named() {
        for (text, key) in [
            ("[server]\nlisten_on = []", "listen_on"),
            ("[engin]\nbackend = \"cpu\"", "engin"),
            ("[server]\nlisten = []", "server.listen"),
            ("[server]\nlisten = [\"nowhere\"]", "nowhere"),
            ("[server]\nlisten = [\"unix://relative.sock\"]", "relative.sock"),
            ("[server]\nmetrics_listen = \"unix:///tmp/m.sock\"", "server.metrics_listen"),
            ("[server]\nmax_message_bytes = 4194304", "server.max_message_bytes"),
            ("[server]\nmax_message_bytes = 68719476736", "server.max_message_bytes"),
            ("[server]\non_shutdown = \"abandon\"", "abandon"),
            ("[server]\nlog_filter = \"=\"", "server.log_filter"),
            ("[engine]\nbackend = \"tpu\"", "engine.backend"),
            ("[engine]\nsynthesis = \"fast\"", "engine.synthesis"),
            ("[engine]\nmemory_budget_gib = -1.0", "engine.memory_budget_gib"),
            ("[engine]\nsynthesis_workers = 0", "engine.synthesis_workers"),
            ("[engine]\ndevice_memory_gib = 0.5", "engine.device_memory_gib"),
            ("[engine]\ndevice_memory_enforce = true", "engine.device_memory_enforce"),
            ("[params]\npreload = [\"porep-1g\"]", "porep-1g"),
            ("[results]\nmax_kept = 0", "results.max_kept"),
            ("[server]\nrequire_token = true", "server.require_token"),
            ("[server]\ntokens_file = \"/etc/t.toml\"", "server.tokens_file"),
            ("[server.tls]\ncert = \"/c.pem\"", "key"),
            ("[server.tls]\ncert = \"/c\"\nkey = \"/k\"\nca = \"/a\"", "ca"),
        ] {
            let err = Config::from_toml(text).unwrap_err().to_string();
            assert!(err.contains(key), "{text:?}: {err}");
        }
    }

    #[test]
    fn plain_tcp_beyond_loopback_needs_tls_or_consent() {
        let listen = |a: &str| format!("[server]\nlisten = [\"unix:///tmp/c.sock\", \"127.0.0.1:1\", {a:?}]\n");
        for address in ["0.0.0.0:9820", "[::]:9820", "10.1.2.3:9820", "prover.example:9820"] {
            match Config::from_toml(&listen(address)) {
                Err(DaemonError::PlaintextRemote { address: named }) => assert_eq!(named, address),
                other => panic!("{address}: {other:?}"),
            }
            let err = Config::from_toml(&listen(address)).unwrap_err().to_string();
            assert!(err.contains("server.listen") && err.contains("allow_plaintext_remote"), "{err}");
            let consent = listen(address) + "allow_plaintext_remote = true\n";
            assert!(Config::from_toml(&consent).is_ok(), "{consent}");
            let tls = listen(address) + "[server.tls]\ncert = \"/c.pem\"\nkey = \"/k.pem\"\n";
            assert!(Config::from_toml(&tls).is_ok(), "{tls}");
        }
        for address in ["localhost:1", "127.0.0.2:1", "[::1]:1"] {
            assert!(Config::from_toml(&listen(address)).is_ok(), "{address}");
        }
    }
}
