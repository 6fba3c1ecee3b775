//! `cuzk filecoin` end to end at 2 KiB on the CPU: filecoin-proofs seals the
//! sectors and makes the vanilla proofs, `cuzk filecoin params` writes the
//! test parameters, `cuzk filecoin prove` proves, filecoin-proofs' own
//! verifiers accept the bytes, `cuzk filecoin verify` accepts them and
//! refuses a flipped byte; bad inputs exit non-zero, name the problem and
//! leave no output.
#![cfg(feature = "filecoin")]

mod common;
mod filecoin_support;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use base64::Engine as _;
use common::{cuzk, text};
use filecoin_support::{randomness, sectors, timed, vanilla, winning_sector, Sector, MINER, WINDOW, WINNING};

/// The parameter cache of this run: written once, by the CLI, for the two
/// kinds proved here.
fn params_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        filecoin_support::init_filecoin_env();
        let dir = filecoin_support::params_dir();
        for id in ["winning-2k", "wpost-2k"] {
            let o = timed(&format!("cuzk filecoin params --write-test-params {id}"), || {
                cuzk(&["filecoin", "params", "--params-dir", path(&dir), "--write-test-params", id])
            });
            assert!(o.status.success(), "{}", text(&o));
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert!(stderr.contains("NOT Filecoin's production parameters"), "not said loudly enough: {stderr}");
            assert!(stderr.contains("test params") && stderr.contains("100%"), "no progress: {stderr}");
        }
        dir
    })
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

/// Curio's `[][]byte` JSON of `proofs`.
fn write_vanilla_json(name: &str, proofs: &[Vec<u8>]) -> PathBuf {
    let b64: Vec<String> = proofs.iter().map(|p| base64::engine::general_purpose::STANDARD.encode(p)).collect();
    let f = file(name);
    std::fs::write(&f, serde_json::to_vec(&b64).unwrap()).unwrap();
    f
}

/// The PoSt arguments of a request (the kind's subcommand first).
fn post_args(kind: &str, proof: i64, rand: &[u8; 32], vanilla: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = vec![kind.into(), "--params-dir".into(), path(params_dir()).into()];
    args.extend(["--registered-proof".into(), proof.to_string(), "--randomness".into(), hex::encode(rand)]);
    args.extend(["--miner-id".into(), MINER.to_string()]);
    args.extend(vanilla.iter().map(|s| s.to_string()));
    args
}

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

/// `cuzk filecoin verify` accepts `proof` and refuses it with one byte flipped.
fn verify_accepts_and_refuses_a_flipped_byte(args: &[String], proof: &Path) {
    let o = run("verify", args, &["--proof", path(proof)]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("valid"), "{}", text(&o));
    let mut bytes = std::fs::read(proof).unwrap();
    bytes[150] ^= 0x01; // inside C
    let flipped = file(&format!("flipped-{}", proof.file_name().unwrap().to_string_lossy()));
    std::fs::write(&flipped, &bytes).unwrap();
    let o = run("verify", args, &["--proof", path(&flipped)]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("INVALID"), "{}", text(&o));
}

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

#[test]
fn winning_post_proves_through_the_cli_and_filecoin_proofs_accepts_it() {
    let rand = randomness(1);
    let sector = winning_sector(&rand, sectors());
    let json = write_vanilla_json("winning.json", &vanilla(WINNING, &rand, &[sector]));
    let args = post_args("winning-post", 0, &rand, &["--vanilla", path(&json)]);
    let out = file("winning.proof");
    let j = prove(&args, &out);
    check_json(&j, "winning-2k");
    let proof = std::fs::read(&out).unwrap();
    assert_eq!(proof.len(), 192);
    assert!(filecoin_support::winning_verifies(&rand, sector, &proof), "filecoin-proofs refuses cuzk's WinningPoSt");
    assert!(!filecoin_support::winning_verifies(&randomness(2), sector, &proof), "verifies under other randomness");
    verify_accepts_and_refuses_a_flipped_byte(&args, &out);
}

#[test]
fn window_post_partitions_prove_from_bincode_files_and_merge_into_what_filecoin_proofs_accepts() {
    let rand = randomness(3);
    let all: Vec<&Sector> = sectors().iter().collect();
    let proofs = vanilla(WINDOW, &rand, &all);
    let mut merged = Vec::new();
    // 2 KiB partitions hold two sectors: partition 0 has two, partition 1 one.
    for (k, chunk) in proofs.chunks(2).enumerate() {
        let files: Vec<PathBuf> = chunk
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let f = file(&format!("window-{k}-{i}.bin"));
                std::fs::write(&f, p).unwrap();
                f
            })
            .collect();
        let mut vanilla_args = Vec::new();
        for f in &files {
            vanilla_args.extend(["--vanilla-bin", path(f)]);
        }
        let mut args = post_args("window-post", 10, &rand, &vanilla_args);
        args.extend(["--partition-index".into(), k.to_string()]);
        let out = file(&format!("window-{k}.proof"));
        if k == 0 {
            check_json(&prove(&args, &out), "wpost-2k");
        } else {
            // The text report: the timings line and what was written.
            let o = run("prove", &args, &["--backend", "cpu", "--out", path(&out)]);
            assert!(o.status.success(), "{}", text(&o));
            let stdout = String::from_utf8_lossy(&o.stdout);
            let said = stdout.contains("timings: total=") && stdout.contains("wpost-2k: 192 proof bytes, verified");
            assert!(said, "{stdout}");
        }
        verify_accepts_and_refuses_a_flipped_byte(&args, &out);
        merged.extend(std::fs::read(&out).unwrap());
    }
    assert!(filecoin_support::window_verifies(&rand, &all, &merged), "filecoin-proofs refuses cuzk's WindowPoSt");
    let swapped = [&merged[192..], &merged[..192]].concat();
    assert!(!filecoin_support::window_verifies(&rand, &all, &swapped), "partitions swapped, still accepted");
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

#[test]
fn bad_inputs_exit_nonzero_name_the_problem_and_write_nothing() {
    let rand = randomness(1);
    let sector = winning_sector(&rand, sectors());
    let good = vanilla(WINNING, &rand, &[sector]);
    let good_json = write_vanilla_json("good.json", &good);
    let bad_b64 = file("bad-base64.json");
    std::fs::write(&bad_b64, br#"["AAAA", "not base64!"]"#).unwrap();
    let not_json = file("not.json");
    std::fs::write(&not_json, b"{\"vanilla\": 1").unwrap();
    let truncated = file("truncated.bin");
    std::fs::write(&truncated, &good[0][..good[0].len() / 2]).unwrap();
    let empty_dir = filecoin_support::scratch().join("no-params");
    std::fs::create_dir_all(&empty_dir).unwrap();
    let missing_dir = filecoin_support::scratch().join("no-such-dir");

    let winning = |vanilla: &[&str]| post_args("winning-post", 0, &rand, vanilla);
    let with_dir = |dir: &Path| {
        let mut args = winning(&["--vanilla", path(&good_json)]);
        args[2] = path(dir).to_string();
        args
    };
    let cases: Vec<(&str, Vec<String>, Vec<&str>)> = vec![
        ("bad base64", winning(&["--vanilla", path(&bad_b64)]), vec!["bad-base64.json", "entry 1", "base64"]),
        ("not JSON", winning(&["--vanilla", path(&not_json)]), vec!["not.json", "JSON array"]),
        (
            "truncated vanilla",
            winning(&["--vanilla-bin", path(&truncated)]),
            vec!["vanilla_proofs[0]", "truncated.bin"],
        ),
        (
            "a WindowPoSt proof number for WinningPoSt",
            post_args("winning-post", 10, &rand, &["--vanilla", path(&good_json)]),
            vec!["StackedDrgWindow2KiBV1_2", "WinningPoSt request"],
        ),
        (
            "no such proof number",
            post_args("winning-post", 99, &rand, &["--vanilla", path(&good_json)]),
            vec!["--registered-proof", "99"],
        ),
        ("missing params dir", with_dir(&missing_dir), vec!["--params-dir", "no-such-dir"]),
        (
            "params dir without the files",
            with_dir(&empty_dir),
            vec!["winning-2k", "no parameter file", "--write-test-params"],
        ),
        (
            "randomness of another challenge",
            post_args("winning-post", 0, &randomness(9), &["--vanilla", path(&good_json)]),
            vec!["vanilla proofs of winning-2k do not verify"],
        ),
        (
            "randomness of 31 bytes",
            {
                let mut args = winning(&["--vanilla", path(&good_json)]);
                args[6] = hex::encode([7u8; 31]);
                args
            },
            vec!["--randomness", "31 bytes"],
        ),
    ];
    // Outputs in a directory of this test's own, where no other test writes.
    let refused_dir = filecoin_support::scratch().join("refused");
    std::fs::create_dir_all(&refused_dir).unwrap();
    for (what, args, names) in cases {
        let out = refused_dir.join("refused.proof");
        let o = run("prove", &args, &["--backend", "cpu", "--out", path(&out)]);
        refused(&o, what, &names);
        assert!(!out.exists(), "{what}: an output was written");
        let leftovers: Vec<_> = std::fs::read_dir(&refused_dir).unwrap().flatten().map(|e| e.file_name()).collect();
        assert!(leftovers.is_empty(), "{what}: files left: {leftovers:?}");
    }
    // Verify refuses the same way, and a proof file of the wrong length is invalid.
    let short = file("short.proof");
    std::fs::write(&short, [0u8; 100]).unwrap();
    let o = run("verify", &winning(&["--vanilla", path(&good_json)]), &["--proof", path(&short)]);
    refused(&o, "a 100-byte proof", &["INVALID", "100 bytes"]);
    let o = run("verify", &winning(&["--vanilla", path(&bad_b64)]), &["--proof", path(&short)]);
    refused(&o, "verify with bad base64", &["bad-base64.json", "base64"]);
}

#[test]
fn params_lists_the_cache_and_refuses_to_replace_files_or_start_hours_of_setup() {
    let dir = params_dir();
    let listed = ["--circuit", "winning-2k", "--circuit", "wpost-8m", "--json"];
    let o = cuzk(&[&["filecoin", "params", "--params-dir", path(dir)][..], &listed].concat());
    assert!(o.status.success(), "{}", text(&o));
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "{}", text(&o));
    assert_eq!(lines[0]["circuit_id"], "winning-2k");
    for what in ["params", "vk", "meta"] {
        let present = &lines[0][what];
        assert_eq!(present["present"], true, "{}", lines[0]);
        let on_disk = std::fs::metadata(dir.join(present["file"].as_str().unwrap())).unwrap().len();
        assert_eq!(present["bytes"], on_disk);
        assert_eq!(lines[1][what]["present"], false, "{}", lines[1]);
    }
    assert!(lines[0]["params"]["file"].as_str().unwrap().starts_with("v28-proof-of-spacetime-fallback-"));

    // Every kind at every size by default, present only what was written.
    let o = cuzk(&["filecoin", "params", "--params-dir", path(dir), "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let all: Vec<serde_json::Value> =
        String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ids: Vec<&str> = all.iter().map(|l| l["circuit_id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 20, "{ids:?}");
    for kind in ["porep", "snap", "wpost", "winning"] {
        for size in ["2k", "8m", "512m", "32g", "64g"] {
            assert!(ids.contains(&format!("{kind}-{size}").as_str()), "{kind}-{size} missing from {ids:?}");
        }
    }
    let present: Vec<&str> =
        all.iter().filter(|l| l["params"]["present"] == true).map(|l| l["circuit_id"].as_str().unwrap()).collect();
    assert_eq!(present, ["wpost-2k", "winning-2k"], "{}", text(&o));

    let o = cuzk(&["filecoin", "params", "--params-dir", path(dir), "--circuit", "wpost-2k"]);
    assert!(o.status.success(), "{}", text(&o));
    let listing = String::from_utf8_lossy(&o.stdout);
    let whole = listing.starts_with("wpost-2k\n") && listing.contains(" bytes  v28-") && !listing.contains("missing");
    assert!(whole, "{listing}");

    let refusals: [(&[&str], &[&str]); 4] = [
        (&["--write-test-params", "winning-2k"], &["exists", "remove it first"]),
        (&["--write-test-params", "porep-32g"], &["porep-32g", "--i-know-this-takes-hours"]),
        (&["--write-test-params", "wpost-64g"], &["hours"]),
        (&["--circuit", "porep-1g"], &["porep-1g"]),
    ];
    for (args, names) in refusals {
        let mut all = vec!["filecoin", "params", "--params-dir", path(dir)];
        all.extend_from_slice(args);
        refused(&cuzk(&all), &args.join(" "), names);
    }
    let missing = filecoin_support::scratch().join("no-such-cache");
    let o = cuzk(&["filecoin", "params", "--params-dir", path(&missing)]);
    refused(&o, "missing dir", &["--params-dir", "no-such-cache"]);
}
