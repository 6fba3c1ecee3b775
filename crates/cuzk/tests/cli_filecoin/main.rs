//! `cuzk filecoin` end to end at 2 KiB on the CPU: filecoin-proofs seals the
//! sectors and makes the vanilla proofs (through the fixtures, or through
//! `cuzk filecoin test-data`), `cuzk filecoin params` writes the test
//! parameters, `cuzk filecoin prove` proves, filecoin-proofs' own verifiers
//! accept the bytes, `cuzk filecoin verify` accepts them and refuses a
//! flipped byte; bad inputs exit non-zero, name the problem and leave no
//! output.
//!
//! One test binary, so each circuit's test parameters are written once per
//! run (2 KiB PoRep's take minutes on two cores) and shared by its modules.
#![cfg(feature = "filecoin")]

#[path = "../common/mod.rs"]
mod common;
#[path = "../filecoin_support/mod.rs"]
mod filecoin_support;

mod params;
mod post;
mod sealed;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use common::{cuzk, text};
use filecoin_support::timed;

/// The circuits whose test parameters this binary writes.
const CIRCUITS: [&str; 4] = ["winning-2k", "wpost-2k", "porep-2k", "snap-2k"];

/// The parameter cache of this run (filecoin-proofs' too, for its
/// verifiers), with the test parameters of `circuits` written by the CLI,
/// each once per run whichever test asks first.
fn params_dir(circuits: &[&str]) -> &'static Path {
    static WRITTEN: [OnceLock<()>; CIRCUITS.len()] = [const { OnceLock::new() }; CIRCUITS.len()];
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        filecoin_support::init_filecoin_env();
        filecoin_support::params_dir()
    });
    for id in circuits {
        let index = CIRCUITS.iter().position(|c| c == id).unwrap_or_else(|| panic!("{id} is not in CIRCUITS"));
        WRITTEN[index].get_or_init(|| write_test_params(dir, id));
    }
    dir
}

/// Writes `id`'s test parameters into `dir`. The PoSt ones go through
/// `cuzk filecoin params --write-test-params` (seconds, and the command under
/// test); PoRep's and SnapDeals' (minutes each on 2 cores) come from the
/// workspace's shared cache, which cuzk-filecoin's tests check.
fn write_test_params(dir: &Path, id: &str) {
    if matches!(id, "porep-2k" | "snap-2k") {
        return filecoin_support::link_shared_params(dir, id);
    }
    let o = timed(&format!("cuzk filecoin params --write-test-params {id}"), || {
        cuzk(&["filecoin", "params", "--params-dir", path(dir), "--write-test-params", id])
    });
    assert!(o.status.success(), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("NOT Filecoin's production parameters"), "not said loudly enough: {stderr}");
    assert!(stderr.contains("test params") && stderr.contains("100%"), "no progress: {stderr}");
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A file of this binary's scratch directory.
fn file(name: &str) -> PathBuf {
    let dir = filecoin_support::scratch().join("files");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// `cuzk filecoin COMMAND ARGS EXTRA`, timed.
fn run(command: &str, args: &[String], extra: &[&str]) -> Output {
    let mut all: Vec<&str> = vec!["filecoin", command];
    all.extend(args.iter().map(String::as_str));
    all.extend_from_slice(extra);
    timed(&format!("cuzk filecoin {command} {}", args[0]), || cuzk(&all))
}

/// Proves through the CLI with `--json`, writing `out`; returns the JSON line.
fn prove(args: &[String], out: &Path) -> serde_json::Value {
    let o = run("prove", args, &["--backend", "cpu", "--json", "--out", path(out)]);
    assert!(o.status.success(), "{}", text(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)))
}

/// `cuzk filecoin verify` accepts `proof`.
fn verify_accepts(args: &[String], proof: &Path) {
    let o = run("verify", args, &["--proof", path(proof)]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("valid"), "{}", text(&o));
}

/// `cuzk filecoin verify` accepts `proof` and refuses it with one byte flipped.
fn verify_accepts_and_refuses_a_flipped_byte(args: &[String], proof: &Path) {
    verify_accepts(args, proof);
    let mut bytes = std::fs::read(proof).unwrap();
    bytes[150] ^= 0x01; // inside C
    let flipped = file(&format!("flipped-{}", proof.file_name().unwrap().to_string_lossy()));
    std::fs::write(&flipped, &bytes).unwrap();
    // cuzk's verifier, then filecoin-proofs' own, on the good proof and the flipped one.
    for verifier in ["cuzk", "filecoin-proofs"] {
        let o = run("verify", args, &["--proof", path(proof), "--verifier", verifier]);
        assert!(o.status.success() && text(&o).contains("valid"), "{verifier}: {}", text(&o));
        let o = run("verify", args, &["--proof", path(&flipped), "--verifier", verifier]);
        assert_eq!(o.status.code(), Some(1), "{verifier}: {}", text(&o));
        assert!(text(&o).contains("INVALID"), "{verifier}: {}", text(&o));
    }
}

/// The JSON line of a one-partition proof of `circuit` on the CPU.
fn check_json(j: &serde_json::Value, circuit: &str) {
    assert_eq!(j["circuit_id"], circuit, "{j}");
    assert_eq!(j["proof_bytes"], 192, "{j}");
    assert_eq!((j["partitions"].as_u64(), j["verified"].as_bool()), (Some(1), Some(true)), "{j}");
    assert_eq!(j["backend"], "cpu", "{j}");
    for key in ["queue_ms", "srs_ms", "synth_ms", "prove_ms", "gpu_ms", "total_ms"] {
        assert!(j[key].is_number(), "{key} missing in {j}");
    }
    assert!(j["stages"].is_object(), "{j}");
}

/// Fails unless `o` failed cleanly (no panic), naming every one of `names`.
fn refused(o: &Output, what: &str, names: &[&str]) {
    let t = text(o);
    assert!(!o.status.success() && o.status.code().is_some(), "{what}: {t}");
    assert!(!t.contains("panicked"), "{what}: {t}");
    for name in names {
        assert!(t.contains(name), "{what}: `{name}` missing from {t}");
    }
}

/// Runs `prove` on each case with `--out` in a directory of its own: each
/// must be refused naming its problem, and leave nothing there.
fn refused_without_output(dir_name: &str, cases: Vec<(&str, Vec<String>, Vec<&str>)>) {
    let dir = filecoin_support::scratch().join(dir_name);
    std::fs::create_dir_all(&dir).unwrap();
    for (what, args, names) in cases {
        let out = dir.join("refused.proof");
        let o = run("prove", &args, &["--backend", "cpu", "--out", path(&out)]);
        refused(&o, what, &names);
        let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name()).collect();
        assert!(leftovers.is_empty(), "{what}: files left: {leftovers:?}");
    }
}
