//! What the CLI tests share: running the binary, a scratch directory per
//! test binary, parameters made once per workload, prove and verify calls.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Runs the binary with its user cache (where recordings go by default)
/// in this test binary's scratch directory, not the user's.
pub fn cuzk(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuzk")).args(args).env("XDG_CACHE_HOME", cache()).output().expect("running cuzk")
}

/// The user cache directory the binary sees under [`cuzk`].
pub fn cache() -> PathBuf {
    dir().join("cache")
}

pub fn dir() -> &'static Path {
    static D: OnceLock<PathBuf> = OnceLock::new();
    D.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("cuzk-cli-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    })
}

pub fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// Parameters for a workload, made once per test binary.
pub fn params(circuit: &str, size: &str) -> PathBuf {
    static MADE: OnceLock<std::sync::Mutex<Vec<PathBuf>>> = OnceLock::new();
    let made = MADE.get_or_init(Default::default);
    let mut made = made.lock().unwrap();
    let path = dir().join(format!("{circuit}-{size}.params"));
    if !made.contains(&path) {
        let o = cuzk(&["setup", "--circuit", circuit, "--size", size, "--out", path.to_str().unwrap()]);
        assert!(o.status.success(), "setup failed: {}", text(&o));
        made.push(path.clone());
    }
    path
}

pub fn prove_json(circuit: &str, size: &str, batch: &str, out: &Path) -> serde_json::Value {
    let p = params(circuit, size);
    let o = cuzk(&[
        "prove", "--circuit", circuit, "--size", size, "--params", p.to_str().unwrap(),
        "--batch", batch, "--out", out.to_str().unwrap(), "--json",
    ]);
    assert!(o.status.success(), "prove failed: {}", text(&o));
    let line = String::from_utf8(o.stdout).unwrap();
    serde_json::from_str(line.trim()).unwrap()
}

pub fn verify(circuit: &str, size: &str, proofs: &Path, inputs: &Path) -> Output {
    let p = params(circuit, size);
    cuzk(&[
        "verify", "--params", p.to_str().unwrap(), "--proofs", proofs.to_str().unwrap(),
        "--inputs", inputs.to_str().unwrap(),
    ])
}

/// The CUDA devices the `cuzk` binary sees (it is the same build as this
/// test, on the same machine): empty without a GPU or without CUDA compiled
/// in. Tests branch on it, so `cargo xtask test` passes on a GPU machine too.
pub fn gpus() -> Vec<i32> {
    cuzk_gpu::devices().map(|d| d.iter().map(|i| i.id).collect()).unwrap_or_default()
}

/// The backends `--backend auto` proves on here: every GPU, else the CPU.
pub fn auto_backends() -> Vec<String> {
    let gpus = gpus();
    if gpus.is_empty() {
        vec!["cpu".to_string()]
    } else {
        gpus.iter().map(|id| format!("cuda:{id}")).collect()
    }
}

pub fn inputs_of(proofs: &Path) -> PathBuf {
    PathBuf::from(format!("{}.inputs.json", proofs.display()))
}
