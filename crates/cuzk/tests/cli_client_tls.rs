//! `cuzk client`'s TLS and token flags against a `cuzk daemon` process whose
//! TCP listener requires client certificates (mutual TLS) and bearer tokens
//! (certificates made by rcgen as the test runs, the token's hash by
//! `printf %s "$TOKEN" | sha256sum` as docs/DAEMON.md says): status and a
//! proof with `--tls-ca`, `--tls-cert`, `--tls-key` and the token from
//! `--token-file` or `CUZK_TOKEN`, refusals without the token or the
//! certificate, SIGHUP reloading both files; and the flags' own mistakes,
//! named before anything is dialled.
#![cfg(feature = "daemon")]

mod common;
#[path = "../../cuzk-daemon/tests/support/pki.rs"]
mod pki;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::text;
use pki::Ca;

/// The token the daemon's tokens file holds the hash of.
const TOKEN: &str = "cli-test-token";

/// `cuzk client ARGS`, `CUZK_TOKEN` set to `token` or removed.
fn client(args: &[&str], token: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cuzk"));
    cmd.arg("client").args(args).env("XDG_CACHE_HOME", common::cache());
    match token {
        Some(t) => cmd.env("CUZK_TOKEN", t),
        None => cmd.env_remove("CUZK_TOKEN"),
    };
    cmd.output().expect("running cuzk client")
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The hex SHA-256 of `token`, by the command docs/DAEMON.md gives.
fn sha256sum(token: &str) -> String {
    let out = Command::new("sh").args(["-c", "printf %s \"$TOKEN\" | sha256sum"]).env("TOKEN", token).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8(out.stdout).unwrap().split_whitespace().next().unwrap().to_string()
}

/// A `cuzk daemon` child process serving TLS on a loopback port.
struct Daemon {
    child: Child,
    /// `127.0.0.1:<port>`, read from its log.
    tcp: String,
    stderr: PathBuf,
}

impl Daemon {
    /// Starts `cuzk daemon --config FILE` with `config` and waits for its TCP listener.
    fn start(config: &str, dir: &Path) -> Daemon {
        let file = dir.join("cuzk.toml");
        std::fs::write(&file, config).unwrap();
        let stderr = dir.join("daemon.stderr");
        let child = Command::new(env!("CARGO_BIN_EXE_cuzk"))
            .args(["daemon", "--config", path(&file)])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .expect("spawning cuzk daemon");
        let mut d = Daemon { child, tcp: String::new(), stderr };
        let deadline = Instant::now() + Duration::from_secs(120);
        while d.tcp.is_empty() {
            if let Some(status) = d.child.try_wait().unwrap() {
                panic!("the daemon exited at start ({status}): {}", d.log());
            }
            assert!(Instant::now() < deadline, "the daemon never listened: {}", d.log());
            std::thread::sleep(Duration::from_millis(50));
            let log = d.log();
            let listening = log.lines().filter(|l| l.contains("listening (gRPC)"));
            let address = listening.filter_map(|l| l.split("address=").nth(1)).find(|a| a.starts_with("127.0.0.1:"));
            d.tcp = address.and_then(|a| a.split_whitespace().next()).unwrap_or_default().to_string();
        }
        d
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    fn signal(&self, name: &str) {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").args([name, &pid]).status().unwrap().success());
    }
}

impl Drop for Daemon {
    /// A test that failed midway leaves no daemon behind.
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Waits up to 30 s for `done`.
fn wait_for(done: impl Fn() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "{what} never came");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_client_reaches_a_mutual_tls_daemon_with_its_certificate_and_token() {
    common::params("mul-chain", "1024");
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let (ca, clients) = (Ca::new("cuzk test CA"), Ca::new("clients CA"));
    let (server, me) = (ca.server(), clients.client("operator"));
    let tokens = format!(
        "[[tokens]]\nname = \"operator\"\nsha256 = \"{}\"\nkinds = [\"mul-chain\"]\nmax_priority = \"normal\"\n\
         max_jobs = 2\n",
        sha256sum(TOKEN)
    );
    let tokens = pki::write(dir, "tokens.toml", &tokens);
    let config = format!(
        "[server]\nlisten = [\"127.0.0.1:0\", \"unix://{}\"]\ntokens_file = \"{}\"\nrequire_token = true\n\
         [server.tls]\ncert = \"{}\"\nkey = \"{}\"\nclient_ca = \"{}\"\n\
         [engine]\nbackend = \"cpu\"\nsynthesis_workers = 1\nmemory_budget_gib = 2.0\n[params]\ndir = \"{}\"\n",
        dir.join("cuzk.sock").display(),
        tokens.display(),
        pki::write(dir, "server.pem", &server.cert).display(),
        pki::write(dir, "server.key", &server.key).display(),
        pki::write(dir, "clients.pem", &clients.pem).display(),
        common::dir().display(),
    );
    let mut d = Daemon::start(&config, dir);
    let ca_file = pki::write(dir, "ca.pem", &ca.pem);
    let (cert, key) = (pki::write(dir, "me.pem", &me.cert), pki::write(dir, "me.key", &me.key));
    let token_file = pki::write(dir, "token", &format!("{TOKEN}\n"));
    let tls = ["--addr", &d.tcp, "--tls-ca", path(&ca_file), "--tls-cert", path(&cert), "--tls-key", path(&key)];
    let with = |more: &[&str], token: Option<&str>| {
        let mut args = tls.to_vec();
        args.extend_from_slice(more);
        client(&args, token)
    };

    // The token from --token-file, or else from CUZK_TOKEN; the file first.
    for (args, env) in [
        (vec!["--token-file", path(&token_file), "status", "--json"], None),
        (vec!["status", "--json"], Some(TOKEN)),
        (vec!["--token-file", path(&token_file), "status", "--json"], Some("not-the-token")),
    ] {
        let o = with(&args, env);
        assert!(o.status.success(), "{args:?} {env:?}: {}\ndaemon: {}", text(&o), d.log());
        assert!(String::from_utf8_lossy(&o.stdout).contains("\"cpu\""), "{}", text(&o));
    }
    let o = with(&["--token-file", path(&token_file), "prove", "--workload", "mul-chain", "--size", "1024"], None);
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).starts_with("COMPLETED"), "{}", text(&o));

    // Without the token the daemon refuses the call; without the
    // certificate, the TLS handshake (the client sees the alert, or only
    // the connection closed when the server closed it first).
    let o = with(&["status"], None);
    assert!(!o.status.success() && text(&o).contains("Unauthenticated"), "{}", text(&o));
    let o = with(&["status"], Some("not-the-token"));
    assert!(!o.status.success() && text(&o).contains("Unauthenticated"), "{}", text(&o));
    let o = client(&["--addr", &d.tcp, "--tls-ca", path(&ca_file), "status"], Some(TOKEN));
    assert!(!o.status.success() && !text(&o).contains("Unauthenticated"), "{}", text(&o));
    wait_for(|| d.log().contains("TLS handshake failed"), "the daemon's log of the refused handshake");

    // SIGHUP reads both files again; the daemon goes on answering.
    d.signal("-HUP");
    wait_for(|| d.log().contains("server.tokens_file reloaded"), "the tokens reload line");
    assert!(d.log().contains("SIGHUP: [server.tls] reloaded"), "{}", d.log());
    assert!(with(&["status"], Some(TOKEN)).status.success(), "{}", d.log());
    d.signal("-TERM");
    let status = d.child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{}", d.log());
}

#[test]
fn mistaken_tls_and_token_flags_are_named_before_anything_is_dialled() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let ca = Ca::new("cuzk test CA");
    let leaf = ca.client("operator");
    let ca_file = pki::write(dir, "ca.pem", &ca.pem);
    let cert = pki::write(dir, "me.pem", &leaf.cert);
    let junk = pki::write(dir, "junk.pem", "hello\n");
    let empty = pki::write(dir, "empty", " \n");
    let absent = dir.join("absent");
    // Port 9 (discard) on loopback: nothing is dialled before these are refused.
    let tcp = ["--addr", "127.0.0.1:9"];
    for (args, token, said) in [
        (vec!["--tls-cert", path(&cert), "status"], None, "--tls-key".to_string()),
        (
            vec!["--addr", "unix:///nonexistent.sock", "--tls-ca", path(&ca_file), "status"],
            None,
            "TLS is for TCP".into(),
        ),
        (
            [&tcp[..], &["--tls-ca", path(&absent), "status"]].concat(),
            None,
            format!("--tls-ca {}: cannot read", path(&absent)),
        ),
        ([&tcp[..], &["--tls-ca", path(&junk), "status"]].concat(), None, "no CERTIFICATE block".into()),
        (
            [&tcp[..], &["--tls-ca", path(&ca_file), "--tls-cert", path(&cert), "--tls-key", path(&cert), "status"]]
                .concat(),
            None,
            format!("--tls-key {}: no PRIVATE KEY", path(&cert)),
        ),
        ([&tcp[..], &["--token-file", path(&empty), "status"]].concat(), None, "the bearer token is empty".into()),
        ([&tcp[..], &["--token-file", path(&absent), "status"]].concat(), None, path(&absent).to_string()),
        ([&tcp[..], &["status"]].concat(), Some(""), "CUZK_TOKEN: the bearer token is empty".into()),
        ([&tcp[..], &["status"]].concat(), Some("tökén"), "the bearer token (CUZK_TOKEN): not visible ASCII".into()),
    ] {
        let o = client(&args, token);
        assert!(!o.status.success() && text(&o).contains(&said), "{args:?}: {}\n(expected {said:?})", text(&o));
        assert!(!text(&o).contains("cannot connect"), "{args:?} dialled: {}", text(&o));
    }
}
