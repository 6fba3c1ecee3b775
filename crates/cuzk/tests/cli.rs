//! The `cuzk` binary end to end: setup, prove (batch 1 and 3, both workload
//! families), verify, inspect, and every kind of bad input a user can hand it.

mod common;

use common::{auto_backends, cache, cuzk, dir, gpus, inputs_of, params, prove_json, text, verify};

#[test]
fn both_families_prove_and_verify_at_batch_1_and_3() {
    for (circuit, size) in [("sha256", "1"), ("mul-chain", "300")] {
        for batch in ["1", "3"] {
            let out = dir().join(format!("{circuit}-{batch}.proofs"));
            let j = prove_json(circuit, size, batch, &out);
            assert_eq!(j["verified"], true, "{j}");
            assert_eq!(j["batch"].as_u64().unwrap().to_string(), batch);
            let backend = j["backend"].as_str().unwrap_or_default().to_string();
            assert!(auto_backends().contains(&backend), "auto proves on {:?}: {j}", auto_backends());
            for key in ["constraints", "queue_ms", "srs_ms", "synth_ms", "prove_ms", "total_ms"] {
                assert!(j[key].is_number(), "{key} missing in {j}");
            }
            let bytes = std::fs::metadata(&out).unwrap().len();
            assert_eq!(bytes, 192 * batch.parse::<u64>().unwrap());
            let o = verify(circuit, size, &out, &inputs_of(&out));
            assert!(o.status.success(), "verify failed: {}", text(&o));
        }
    }
}

#[test]
fn the_timings_line_names_every_phase_and_the_backend() {
    let p = params("mul-chain", "300");
    let o = cuzk(&["prove", "--circuit", "mul-chain", "--size", "300", "--params", p.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let line = String::from_utf8(o.stdout).unwrap();
    for part in ["timings: total=", "queue=", "srs=", "synth=", "gpu=", "backend="] {
        assert!(line.contains(part), "`{part}` missing from {line}");
    }
    let shown = line.split_once("backend=").map(|(_, b)| b.split_whitespace().next().unwrap_or_default());
    assert!(shown.is_some_and(|b| auto_backends().iter().any(|a| a == b)), "auto means {:?}: {line}", auto_backends());
}

/// The CLI tests run the binary as shipped, on mimalloc: `--features
/// system-allocator` (or `--all-features`) swaps the allocator for
/// measurements, and `cargo xtask test` only compiles that form. mimalloc
/// announces itself on stderr when MIMALLOC_VERBOSE=1.
#[test]
fn the_binary_under_test_allocates_with_mimalloc_as_shipped() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .arg("--version")
        .env("MIMALLOC_VERBOSE", "1")
        .output()
        .expect("running cuzk");
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("mimalloc: "),
        "the binary under test does not allocate with mimalloc (built with --features system-allocator?): {}",
        text(&o)
    );
}

#[test]
fn inspect_reports_counts_and_rejects_truncation() {
    let p = params("mul-chain", "300");
    let o = cuzk(&["params", "inspect", p.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["valid"], true);
    assert_eq!(j["ic"], 2);
    assert_eq!(j["h"], 511, "domain 512 for 300 + 2 constraints");

    let bytes = std::fs::read(&p).unwrap();
    let cut = dir().join("truncated.params");
    std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
    let o = cuzk(&["params", "inspect", cut.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(text(&o).contains("error:"), "{}", text(&o));
}

#[test]
fn bad_input_is_a_clear_error_with_a_nonzero_exit() {
    let out = dir().join("good.proofs");
    prove_json("mul-chain", "300", "1", &out);
    let inputs = inputs_of(&out);
    let proof = std::fs::read(&out).unwrap();

    // A truncated parameter file.
    let good = params("mul-chain", "300");
    let bytes = std::fs::read(&good).unwrap();
    let cut = dir().join("cut.params");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let o = cuzk(&[
        "prove", "--circuit", "mul-chain", "--size", "300", "--params", cut.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("error:"), "{}", text(&o));

    // Parameters for another circuit.
    let o = cuzk(&[
        "prove", "--circuit", "mul-chain", "--size", "301", "--params", good.to_str().unwrap(),
    ]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("error:"), "{}", text(&o));

    // A proof file of the wrong length.
    let short = dir().join("short.proofs");
    std::fs::write(&short, &proof[..191]).unwrap();
    let o = verify("mul-chain", "300", &short, &inputs);
    assert!(!o.status.success());
    assert!(text(&o).contains("192"), "{}", text(&o));

    // A point that is not on the curve (flip bits in A's x coordinate).
    let mut bent = proof.clone();
    bent[20] ^= 0x55;
    let bad = dir().join("bent.proofs");
    std::fs::write(&bad, &bent).unwrap();
    let o = verify("mul-chain", "300", &bad, &inputs);
    assert!(!o.status.success());
    assert!(text(&o).contains("error:") || text(&o).contains("INVALID"), "{}", text(&o));

    // Malformed inputs JSON, and inputs that do not pair with the proofs.
    let junk = dir().join("junk.json");
    std::fs::write(&junk, "[[\"zz\"]]").unwrap();
    let o = verify("mul-chain", "300", &out, &junk);
    assert!(!o.status.success());
    assert!(text(&o).contains("entry 0, input 0"), "{}", text(&o));
    std::fs::write(&junk, "[]").unwrap();
    let o = verify("mul-chain", "300", &out, &junk);
    assert!(!o.status.success());
    assert!(text(&o).contains("1 proof(s) but 0 input vector(s)"), "{}", text(&o));
}

#[test]
fn a_wrong_public_input_fails_verification() {
    let out = dir().join("wrong-input.proofs");
    prove_json("mul-chain", "300", "1", &out);
    let wrong = dir().join("wrong.json");
    std::fs::write(&wrong, format!("[[\"{}1\"]]", "0".repeat(63))).unwrap();
    let o = verify("mul-chain", "300", &out, &wrong);
    assert!(!o.status.success());
    assert!(text(&o).contains("INVALID"), "{}", text(&o));
}

/// `cuda:N` for a device that is absent fails, never falls back to the CPU;
/// one that is present proves on it. Without a GPU, `cuda:0` is the absent one.
#[test]
fn asking_for_an_absent_gpu_is_an_error_not_a_fallback() {
    let p = params("mul-chain", "300");
    let prove_on = |backend: &str| {
        let out = dir().join(format!("on-{}.proofs", backend.replace(':', "-")));
        cuzk(&[
            "prove", "--circuit", "mul-chain", "--size", "300", "--params", p.to_str().unwrap(),
            "--backend", backend, "--json", "--out", out.to_str().unwrap(),
        ])
    };
    let gpus = gpus();
    let absent = format!("cuda:{}", gpus.len());
    let o = prove_on(&absent);
    assert_eq!(o.status.code(), Some(1), "{absent} with {} GPU(s) visible: {}", gpus.len(), text(&o));
    assert!(text(&o).contains("backend unavailable") && !text(&o).contains("timings:"), "{}", text(&o));
    match gpus.first() {
        Some(id) => {
            let present = format!("cuda:{id}");
            let o = prove_on(&present);
            assert!(o.status.success(), "{present} is visible, yet: {}", text(&o));
            let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(j["backend"].as_str(), Some(present.as_str()), "{j}");
            assert_eq!(j["verified"], true, "{j}");
        }
        None => {
            let o = prove_on("cuda");
            assert_eq!(o.status.code(), Some(1), "`cuda` without a GPU: {}", text(&o));
            assert!(text(&o).contains("backend unavailable"), "{}", text(&o));
        }
    }
}

/// Whether `dir` holds a recording of mul-chain-200's parameters.
fn has_recording(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir).into_iter().flatten().filter_map(|e| e.ok()).any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        name.starts_with("mul-chain-200.params.") && name.ends_with(".r1cs")
    })
}

#[test]
fn recorded_synthesis_saves_in_the_user_cache_and_classic_still_works() {
    let p = params("mul-chain", "200");
    let prove_with = |synthesis: &str, extra: &[&str]| {
        let mut args = vec![
            "prove", "--circuit", "mul-chain", "--size", "200", "--params", p.to_str().unwrap(),
            "--batch", "2", "--json", "--synth-workers", "1", "--synthesis", synthesis,
        ];
        args.extend_from_slice(extra);
        let o = cuzk(&args);
        assert!(o.status.success(), "prove failed: {}", text(&o));
        let j: serde_json::Value = serde_json::from_str(String::from_utf8_lossy(&o.stdout).trim()).unwrap();
        assert_eq!(j["verified"], true, "{j}");
        assert_eq!(j["synthesis"], synthesis, "{j}");
        (j, text(&o))
    };
    let prove = |synthesis: &str| prove_with(synthesis, &[]);
    let (j, log) = prove("recorded");
    assert!(j["stages"]["synth_record_ms"].is_number() || j["stages"]["synth_load_ms"].is_number(), "{j}");
    assert!(j["stages"]["synth_witness_ms"].is_number(), "{j}");
    assert!(log.contains("recording for"), "{log}");
    // The parameter directory is the provider's: nothing is written there.
    assert!(has_recording(&cache().join("cuzk").join("recordings")), "the recording is in the user cache: {log}");
    assert!(!has_recording(dir()), "nothing is saved beside the parameters: {log}");
    let (_, log) = prove_with("recorded", &["--recordings-beside-params"]);
    assert!(has_recording(dir()), "beside the parameters when asked: {log}");
    let (j, _) = prove("recorded");
    assert!(j["stages"]["synth_load_ms"].is_number(), "a second run loads the recording: {j}");
    let (j, _) = prove("classic");
    assert!(j["stages"]["synth_classic_ms"].is_number() && j["stages"]["synth_witness_ms"].is_null(), "{j}");
    let o = cuzk(&["prove", "--circuit", "mul-chain", "--size", "200", "--params", p.to_str().unwrap(), "--synthesis", "fast"]);
    assert!(!o.status.success() && text(&o).contains("classic, recorded"), "{}", text(&o));
}

#[test]
fn a_bench_timeline_is_drawn_and_a_malformed_one_is_named() {
    let p = params("mul-chain", "300");
    let timeline = dir().join("bench.timeline.jsonl");
    let o = cuzk(&[
        "bench", "--circuit", "mul-chain", "--size", "300", "--jobs", "2", "--partitions", "3", "--backend", "cpu",
        "--params-dir", p.parent().unwrap().to_str().unwrap(), "--timeline", timeline.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let svg = dir().join("bench.svg");
    let o = cuzk(&["timeline", "plot", timeline.to_str().unwrap(), "--out", svg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg") && picture.contains("<rect"), "{}", &picture[..picture.len().min(400)]);
    for label in ["prove cpu", "synthesis 0", "bench.timeline.jsonl: 2 jobs", "prove call"] {
        assert!(picture.contains(label), "`{label}` missing from the picture");
    }
    // Six partitions' synthesis bars at least, and the two jobs' calls.
    assert!(picture.matches("<rect").count() >= 8, "{}", picture.matches("<rect").count());

    let bad = dir().join("bad.timeline.jsonl");
    std::fs::write(&bad, "{\"t_ms\":1,\"event\":\"submit\",\"job\":1}\n{oops\n").unwrap();
    let never = dir().join("never.svg");
    let o = cuzk(&["timeline", "plot", bad.to_str().unwrap(), "--out", never.to_str().unwrap()]);
    assert!(!o.status.success() && text(&o).contains("bad.timeline.jsonl: line 2:"), "{}", text(&o));
    assert!(!never.exists(), "no picture for a malformed timeline");
}
