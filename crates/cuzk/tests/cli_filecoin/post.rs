//! WinningPoSt and WindowPoSt through the CLI, from vanilla proofs the
//! fixtures make (the forms Curio keeps them in: a JSON array of base64, or
//! one bincode file per sector).

use std::path::{Path, PathBuf};

use base64::Engine as _;

use super::common::text;
use super::filecoin_support::{self, randomness, sectors, vanilla, winning_sector, Sector, MINER, WINDOW, WINNING};
use super::{check_json, file, path, prove, refused, refused_without_output, run};
use super::verify_accepts_and_refuses_a_flipped_byte;

/// The parameter cache, with the PoSt kinds' test parameters.
fn params_dir() -> &'static Path {
    super::params_dir(&["winning-2k", "wpost-2k"])
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

/// `--jobs N --clients C`: a warm-up proof off the clock, then N proofs,
/// each verified, a JSON line each, and the totals (the warm-up proof written).
#[test]
fn winning_post_proved_repeatedly_reports_throughput_and_latency() {
    let rand = randomness(1);
    let sector = winning_sector(&rand, sectors());
    let json = write_vanilla_json("winning-repeat.json", &vanilla(WINNING, &rand, &[sector]));
    let args = post_args("winning-post", 0, &rand, &["--vanilla", path(&json)]);
    let out = file("winning-repeat.proof");
    let o = run("prove", &args, &["--backend", "cpu", "--json", "--out", path(&out), "--jobs", "3", "--clients", "2"]);
    assert!(o.status.success(), "{}", text(&o));
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4, "{}", text(&o));
    for job in &lines[..3] {
        assert_eq!((job["verified"].as_bool(), job["circuit_id"].as_str()), (Some(true), Some("winning-2k")), "{job}");
        assert!(job["total_ms"].as_f64().unwrap() > 0.0, "{job}");
        // The warm-up recorded the circuit: each timed proof's witness is
        // replayed from its rows, not run through the gadgets.
        let stages = &job["stages"];
        assert!(stages["synth_replay_ms"].as_f64().is_some() && stages["synth_witness_ms"].is_null(), "{job}");
    }
    let totals = &lines[3];
    assert_eq!((totals["jobs"].as_u64(), totals["clients"].as_u64()), (Some(3), Some(2)), "{totals}");
    assert!(totals["proofs_per_s"].as_f64().unwrap() > 0.0, "{totals}");
    let latency = &totals["latency_ms"];
    assert!(latency["p50"].as_f64().unwrap() <= latency["max"].as_f64().unwrap(), "{totals}");
    assert!(filecoin_support::winning_verifies(&rand, sector, &std::fs::read(&out).unwrap()));
    // Without --jobs, --clients is refused.
    let o = run("prove", &args, &["--backend", "cpu", "--clients", "2"]);
    assert!(!o.status.success() && text(&o).contains("--jobs"), "{}", text(&o));
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
    refused_without_output("refused-post", cases);
    // Verify refuses the same way, and a proof file of the wrong length is invalid.
    let short = file("short.proof");
    std::fs::write(&short, [0u8; 100]).unwrap();
    let o = run("verify", &winning(&["--vanilla", path(&good_json)]), &["--proof", path(&short)]);
    refused(&o, "a 100-byte proof", &["INVALID", "100 bytes"]);
    let o = run("verify", &winning(&["--vanilla", path(&bad_b64)]), &["--proof", path(&short)]);
    refused(&o, "verify with bad base64", &["bad-base64.json", "base64"]);
}

