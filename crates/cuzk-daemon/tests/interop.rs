//! The wire is the protocol: a client built from the same `proving.proto` by
//! another gRPC implementation (Python's grpcio, from PyPI;
//! `interop/curio_client.py`), with its default options, proves a 2 KiB
//! PoRep C2 through the daemon over loopback TCP as Curio's client asks for
//! one, is refused a request with the wrong miner id, and reads the status
//! and metrics, then reads the status over the unix socket too, with
//! grpcio's default authority there, the %-encoded socket path (which the
//! daemon rewrites for its HTTP/2 layer; src/authority.rs);
//! filecoin-proofs' `verify_seal` accepts the proof it printed.
//!
//! A second client (`interop/tls_client.py`) reaches a daemon whose TCP
//! listener requires client certificates and bearer tokens, over grpcio's
//! TLS (BoringSSL, not rustls) with certificates made by rcgen: refused
//! without its certificate, `UNAUTHENTICATED` without its token, answered
//! and proving with both.
//!
//! It needs CPython 3 with its `venv` module and pip on PATH as `python3`,
//! and PyPI: the virtual environment with the pinned packages is made once
//! under the target directory and reused. Without them the test fails,
//! saying which is missing.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::Instant;

use cuzk_daemon::TlsConfig;
use support::filecoin::{c1, porep_verifies, MINER, POREP_SECTOR, SEAL_PROOF};
use support::pki::{self, Ca};
use support::{mul_chain_params, parse_metrics, sample, start, timed, token_entry, SMALL};

/// What the virtual environment holds (grpcio-tools bundles protoc, so no
/// system protoc is needed). A change here rebuilds it.
const PINNED: [&str; 3] = ["grpcio==1.85.1", "grpcio-tools==1.85.1", "protobuf==7.36.2"];

/// Runs `cmd`; when it cannot start or fails, panics naming `what` and
/// what the test `needs`, with the command's output.
fn run(what: &str, cmd: &mut Command, needs: &str) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: cannot run it ({e}); this test needs {needs}"));
    if !out.status.success() {
        panic!(
            "{what} failed ({}); this test needs {needs}\n--- stdout\n{}\n--- stderr\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

/// The virtual environment's python with [`PINNED`] installed, made the
/// first time (its pip install timed) and reused after; once per test
/// binary, whose tests run side by side: two pip installs into one
/// directory break each other.
fn python() -> PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(make_python).clone()
}

fn make_python() -> PathBuf {
    let venv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("grpcio-venv");
    let python = venv.join("bin").join("python");
    let marker = venv.join("cuzk-pinned.txt");
    let pinned = PINNED.join("\n");
    if python.exists() && std::fs::read_to_string(&marker).is_ok_and(|m| m == pinned) {
        eprintln!("reusing {} ({})", venv.display(), PINNED.join(" "));
        return python;
    }
    let _ = std::fs::remove_dir_all(&venv);
    let needs = "CPython 3 with its venv module and pip on PATH as python3 (Debian: python3-venv)";
    run("python3 -m venv", Command::new("python3").args(["-m", "venv"]).arg(&venv), needs);
    let started = Instant::now();
    let needs = format!("PyPI, to install {}", PINNED.join(" "));
    let pip = ["-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--quiet"];
    run("pip install", Command::new(&python).args(pip).args(PINNED), &needs);
    eprintln!("pip install {}: {:.1} s", PINNED.join(" "), started.elapsed().as_secs_f64());
    // Written last: an install that failed half-way is redone next time.
    std::fs::write(&marker, pinned).unwrap();
    python
}

/// Python stubs of `proving.proto` in `out`, by grpcio-tools' protoc.
fn generate_stubs(python: &Path, out: &Path) {
    let proto = Path::new(env!("CARGO_MANIFEST_DIR")).join("proto");
    let mut protoc = Command::new(python);
    protoc.current_dir(&proto).args(["-m", "grpc_tools.protoc", "-I."]);
    protoc.arg(format!("--python_out={}", out.display())).arg(format!("--grpc_python_out={}", out.display()));
    run("grpc_tools.protoc", protoc.arg("cuzk/v1/proving.proto"), "grpcio-tools' protoc");
}

fn from_hex(hex: &str) -> Vec<u8> {
    assert!(hex.len().is_multiple_of(2), "odd hex length {}", hex.len());
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_grpcio_client_proves_a_porep_through_the_daemon() {
    let t = Instant::now();
    let python = python();
    let work = tempfile::tempdir().unwrap();
    generate_stubs(&python, work.path());
    let wrapper = work.path().join("c1.json");
    std::fs::write(&wrapper, &c1().wrapper).unwrap();
    let daemon = start(|_| {}).await;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/curio_client.py");
    let mut client = Command::new(&python);
    // No __pycache__ beside the checked-in script.
    client.env("PYTHONDONTWRITEBYTECODE", "1").arg(script).arg("--stubs").arg(work.path()).arg("--c1").arg(&wrapper);
    client.arg("--target").arg(&daemon.tcp).arg("--unix-socket").arg(&daemon.unix);
    for (flag, value) in [
        ("--registered-proof", SEAL_PROOF),
        ("--sector-size", 2048),
        ("--sector-number", POREP_SECTOR),
        ("--miner-id", MINER),
    ] {
        client.arg(flag).arg(value.to_string());
    }
    let started = Instant::now();
    let out = tokio::task::spawn_blocking(move || run("curio_client.py", &mut client, "grpcio")).await.unwrap();
    eprintln!("the Python client ran {:.1} s", started.elapsed().as_secs_f64());
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the client prints one JSON object");

    assert_eq!(answer["status"], "COMPLETED", "{}", answer["error_message"]);
    assert_eq!(answer["job_id"], format!("porep-{MINER}-{POREP_SECTOR}"));
    let proof = from_hex(answer["proof_hex"].as_str().unwrap());
    assert_eq!(proof.len(), 192);
    assert!(porep_verifies(&proof), "filecoin-proofs' verify_seal refuses the proof the Python client got");
    let refused = &answer["refused"];
    assert_eq!(refused["code"], "INVALID_ARGUMENT", "{refused}");
    assert!(refused["message"].as_str().unwrap().starts_with("miner_id: "), "{refused}");
    assert_eq!(answer["gpus"], serde_json::json!(["cpu"]));
    assert_eq!(answer["unix_gpus"], serde_json::json!(["cpu"]), "GetStatus over the unix socket");
    assert!(answer["queues"].as_array().unwrap().iter().any(|q| q == "porep"), "{}", answer["queues"]);
    assert_eq!(answer["total_proofs_completed"], 1);
    let samples = parse_metrics(answer["prometheus_text"].as_str().unwrap());
    assert_eq!(sample(&samples, "cuzk_proofs_completed_total", &[("kind", "porep")]), Some(1.0));
    assert_eq!(daemon.stop().await.completed, 1);
    timed("a_python_grpcio_client_proves_a_porep_through_the_daemon", t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_grpcio_client_reaches_a_mutual_tls_daemon_with_a_token() {
    let t = Instant::now();
    let python = python();
    mul_chain_params(SMALL);
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    generate_stubs(&python, dir);
    let (ca, clients) = (Ca::new("cuzk test CA"), Ca::new("clients CA"));
    let (server, client) = (ca.server(), clients.client("python"));
    let tls = TlsConfig {
        cert: pki::write(dir, "server.pem", &server.cert),
        key: pki::write(dir, "server.key", &server.key),
        client_ca: Some(pki::write(dir, "clients.pem", &clients.pem)),
    };
    let tokens = pki::write(dir, "tokens.toml", &token_entry("python", "py-token", r#"["mul-chain"]"#, "normal"));
    let daemon = start(move |c| {
        c.server.tls = Some(tls);
        c.server.tokens_file = Some(tokens);
        c.server.require_token = true;
    })
    .await;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/tls_client.py");
    let mut cmd = Command::new(&python);
    cmd.env("PYTHONDONTWRITEBYTECODE", "1").arg(script).arg("--stubs").arg(dir).arg("--target").arg(&daemon.tcp);
    cmd.arg("--ca").arg(pki::write(dir, "ca.pem", &ca.pem));
    cmd.arg("--cert").arg(pki::write(dir, "client.pem", &client.cert));
    cmd.arg("--key").arg(pki::write(dir, "client.key", &client.key));
    cmd.args(["--token", "py-token", "--workload-size", &SMALL.to_string()]);
    let out = tokio::task::spawn_blocking(move || run("tls_client.py", &mut cmd, "grpcio")).await.unwrap();
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the client prints one JSON object");

    assert_eq!(answer["without_certificate"]["code"], "UNAVAILABLE", "{answer}");
    assert_eq!(answer["without_token"]["code"], "UNAUTHENTICATED", "{answer}");
    assert_eq!(answer["with_both"]["code"], "OK", "{answer}");
    assert_eq!(answer["with_both"]["gpus"], serde_json::json!(["cpu"]), "{answer}");
    assert_eq!(answer["prove"]["status"], "COMPLETED", "{answer}");
    assert_eq!(answer["prove"]["proof_bytes"], 192, "{answer}");
    assert_eq!(daemon.stop().await.completed, 1);
    timed("a_python_grpcio_client_reaches_a_mutual_tls_daemon_with_a_token", t);
}
