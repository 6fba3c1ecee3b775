//! `filecoin-synth` end to end, and the recorded-versus-classic check on
//! Filecoin circuits. CI runs the 2 KiB WinningPoSt circuit (about 90 k
//! constraints): it goes through the same code path as a PoRep partition
//! (seal, cache, parameters, the three syntheses, bellperson's verified
//! proof), while a 2 KiB PoRep partition (2.7 M constraints) would cost CI
//! minutes of setup and a bellperson proof of over a minute.
//!
//! Parameters live in the Filecoin test cache every test binary of the
//! workspace shares (`<target>/tmp/filecoin-params`), so they are generated
//! at most once per target directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Once;

use cuzk_benches::filecoin::inputs::{inputs, partition};
use cuzk_benches::filecoin::{Data, Kind};
use cuzk_benches::recorded::{run_checked, same_assignment};
use cuzk_benches::BenchError;
use cuzk_filecoin::SectorSize;
use cuzk_synth::RecordedShape;

const BIN: &str = env!("CARGO_BIN_EXE_filecoin-synth");

fn params_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filecoin-params")
}

/// filecoin-proofs' settings for the in-process test, set before its first use.
fn init_filecoin_env() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let root = params_dir();
        for sub in ["", "parents", "cache"] {
            std::fs::create_dir_all(root.join(sub)).expect("create the shared test cache");
        }
        std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &root);
        std::env::set_var("FIL_PROOFS_PARENT_CACHE", root.join("parents"));
        std::env::set_var("FIL_PROOFS_CACHE_DIR", root.join("cache"));
        std::env::set_var("FIL_PROOFS_VERIFY_PRODUCTION_PARAMS", "0");
    });
}

fn filecoin_synth(args: &[&str]) -> Output {
    let started = std::time::Instant::now();
    let out = Command::new(BIN).args(args).output().expect("run filecoin-synth");
    eprintln!("filecoin-synth {args:?}: {:.1} s", started.elapsed().as_secs_f64());
    out
}

fn winning_2kib(work: &Path, json: &Path) -> Output {
    let params = params_dir();
    let mut args = vec!["--kind", "winning", "--sector-size", "2KiB", "--reps", "1"];
    args.extend(["--params-dir", params.to_str().unwrap(), "--work-dir", work.to_str().unwrap()]);
    args.extend(["--json", json.to_str().unwrap()]);
    filecoin_synth(&args)
}

fn report_of(out: &Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}\n{stderr}", out.status);
    let line = stdout.lines().next().expect("a JSON line first");
    let report: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert!(stdout.contains("winning-2k") && stdout.contains("peak RSS"), "no table: {stdout}");
    report
}

#[test]
fn winning_2kib_runs_end_to_end() {
    let work = tempfile::tempdir().unwrap();
    let json = work.path().join("out.jsonl");
    let first = report_of(&winning_2kib(work.path(), &json));

    assert_eq!(first["circuit_id"], "winning-2k");
    assert_eq!(first["kind"], "winning");
    assert_eq!(first["sector_bytes"], 2048);
    assert_eq!(first["reps"], 1);
    let count = |key: &str| first[key].as_u64().unwrap_or_else(|| panic!("{key}: {first}"));
    assert!(count("constraints") > 10_000, "{first}");
    assert_eq!(count("prover_constraints"), count("constraints") + count("inputs"));
    assert!(first["inputs_ms"].as_f64().is_some(), "this run sealed: {first}");
    for path in [["cuzk", "synth_ms"], ["recorded", "synth_ms"], ["recorded", "record_ms"]] {
        let v = first[path[0]][path[1]].as_f64().unwrap_or(-1.0);
        assert!(v > 0.0, "{path:?}: {first}");
    }
    for key in ["classic_speedup", "recorded_speedup"] {
        assert!(first[key].as_f64().is_some_and(|x| x.is_finite() && x > 0.0), "{key}: {first}");
    }
    assert!(first["bellperson"]["synth_ms"].as_f64().unwrap_or(-1.0) > 0.0, "{first}");
    assert_eq!(first["bellperson"]["synth_ms_all"].as_array().map(Vec::len), Some(1));
    assert!(first["recorded"]["nnz"].as_u64().unwrap_or(0) > count("constraints"));
    // The file gets the line stdout got.
    let appended = std::fs::read_to_string(&json).unwrap();
    let from_file: serde_json::Value = serde_json::from_str(appended.trim()).unwrap();
    assert_eq!(from_file, first);
}

#[test]
fn bad_arguments_fail_before_any_work() {
    let work = tempfile::tempdir().unwrap();
    let params = work.path().join("params");
    for (option, value, expected) in [
        ("--sector-size", "32GiB", "sector size"),
        ("--reps", "0", "reps"),
        ("--kind", "window", "kind"),
        ("--data", "zeros", "data"),
    ] {
        let mut args = vec!["--params-dir", params.to_str().unwrap(), "--work-dir", work.path().to_str().unwrap()];
        args.extend([option, value]);
        for (name, good) in [("--kind", "winning"), ("--sector-size", "2KiB")] {
            if name != option {
                args.extend([name, good]);
            }
        }
        let out = filecoin_synth(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{option} {value} was accepted");
        assert!(stderr.contains(expected), "{option} {value}: {stderr}");
        let wrote = std::fs::read_dir(&params).map_or(0, |d| d.count());
        assert_eq!(wrote, 0, "{option} {value}: parameters were written");
    }
}

/// A satisfying witness of another instance of the same circuit (another
/// sector, proved for another randomness) passes every row check of the
/// recorded shape; the comparison with classic synthesis must catch it.
/// On the way: a second run's inputs come from the work directory's cache.
#[test]
fn a_witness_of_another_sector_fails_the_recorded_check() {
    init_filecoin_env();
    let work = tempfile::tempdir().unwrap();
    let note = |line: &str| eprintln!("{line}");
    let made = |seed| inputs(work.path(), Kind::Winning, SectorSize::Kib2, Data::Random, seed, &note).unwrap();
    let (first, other) = (made(1), made(2).request);
    assert!(first.made_ms.is_some() && first.file.exists());
    // A rerun reads the cached vanilla proof: nothing is sealed.
    let again = made(1);
    assert!(again.made_ms.is_none() && again.file == first.file);
    let ours = again.request;

    let (circuit, _) = partition(&ours).unwrap();
    let (shape, classic) = RecordedShape::record(circuit).unwrap();
    let (circuit, _) = partition(&ours).unwrap();
    run_checked(&shape, circuit, &classic).expect("the same circuit passes");

    let (circuit, _) = partition(&other).unwrap();
    let other_classic = shape.synthesize(circuit).expect("the other sector's witness satisfies every row");
    assert!(same_assignment(&classic, &other_classic).is_err());
    let (circuit, _) = partition(&other).unwrap();
    match run_checked(&shape, circuit, &classic) {
        Err(BenchError::RecordedMismatch { field, index }) => eprintln!("caught at {field}[{index}]"),
        other => panic!("a wrong witness passed the check: {other:?}"),
    }
}
