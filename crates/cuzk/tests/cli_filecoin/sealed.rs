//! `cuzk filecoin test-data` at 2 KiB, then PoRep and SnapDeals proved and
//! verified through the CLI from its files with the manifest's own argument
//! lists (which tests the manifest), the proofs checked by filecoin-proofs'
//! own verifiers; and the sealed kinds' bad inputs.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use base64::Engine as _;
use cuzk::filecoin::porep::PoRepRequest;
use cuzk::filecoin::reference;
use cuzk::filecoin::snap::SnapRequest;
use serde_json::Value;

use super::common::text;
use super::filecoin_support::{self, timed, MINER};
use super::{check_json, file, path, prove, refused, refused_without_output, verify_accepts};
use super::verify_accepts_and_refuses_a_flipped_byte;

/// The files `test-data` writes.
const FILES: [&str; 6] =
    ["c1.json", "c1-raw.json", "winning-vanilla.json", "window-vanilla.json", "snap-vanilla.json", "manifest.json"];

/// What `cuzk filecoin test-data --sector-size 2KiB` wrote, once per run.
struct TestData {
    dir: PathBuf,
    manifest: Value,
}

impl TestData {
    fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.dir.join(name)).unwrap()
    }
}

fn test_data() -> &'static TestData {
    static DATA: OnceLock<TestData> = OnceLock::new();
    DATA.get_or_init(|| {
        let dir = filecoin_support::scratch().join("test-data");
        let args = ["filecoin", "test-data", "--sector-size", "2KiB", "--out", path(&dir), "--seed", "7"];
        // Without the fixtures' filecoin-proofs settings: the CLI sets its own.
        let mut command = Command::new(env!("CARGO_BIN_EXE_cuzk"));
        command.args(args).env_remove("FIL_PROOFS_PARENT_CACHE").env_remove("FIL_PROOFS_CACHE_DIR");
        let o = timed("cuzk filecoin test-data --sector-size 2KiB", || command.output().unwrap());
        assert!(o.status.success(), "{}", text(&o));
        let stderr = String::from_utf8_lossy(&o.stderr);
        for said in ["sealing sector 1 (2 KiB", "commit phase 1: done in", "SnapDeals update", "manifest.json"] {
            assert!(stderr.contains(said), "`{said}` missing from the progress: {stderr}");
        }
        // Its files and nothing else: the work directory is gone.
        let mut names: Vec<String> =
            std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        let mut want = FILES.map(String::from).to_vec();
        want.sort();
        assert_eq!(names, want, "{}", dir.display());
        let manifest = serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        TestData { dir, manifest }
    })
}

/// The manifest's argument list `key` of `kind` after `filecoin prove`
/// (what `verify` takes too), with the parameters of `circuit` (written first).
fn manifest_args(kind: &str, key: &str, circuit: &str) -> Vec<String> {
    let list = test_data().manifest[kind][key].as_array().unwrap_or_else(|| panic!("no {kind}.{key}"));
    let list: Vec<String> = list.iter().map(|a| a.as_str().unwrap().to_string()).collect();
    assert_eq!(list[..2], ["filecoin", "prove"], "{list:?}");
    let mut args = list[2..].to_vec();
    args.extend(["--params-dir".into(), path(super::params_dir(&[circuit])).into()]);
    args
}

fn hex32(v: &Value) -> [u8; 32] {
    hex::decode(v.as_str().unwrap()).unwrap().try_into().unwrap()
}

#[test]
fn test_data_manifest_describes_the_sector() {
    let data = test_data();
    let m = &data.manifest;
    let head = (m["miner_id"].as_u64(), m["sector_size_bytes"].as_u64(), m["seed"].as_u64());
    assert_eq!(head, (Some(MINER), Some(2048), Some(7)));
    let c1 = PoRepRequest::from_curio_wrapper(&data.read("c1.json"), MINER).unwrap();
    let raw = PoRepRequest::from_c1_json(&data.read("c1-raw.json"), 1, MINER).unwrap();
    assert_eq!(c1.c1().comm_r, raw.c1().comm_r);
    let porep = &m["porep"];
    assert_eq!((porep["sector_number"].as_u64(), porep["registered_proof"].as_u64()), (Some(1), Some(5)));
    assert_eq!(hex32(&porep["comm_r"]), c1.c1().comm_r);
    assert_eq!(hex32(&porep["comm_d"]), c1.c1().comm_d);
    assert_eq!(hex32(&porep["ticket"]), c1.c1().ticket);
    assert_eq!(hex32(&porep["seed"]), c1.c1().seed);
    let numbers = |k: &str| (m[k]["registered_proof"].as_u64(), m[k]["circuit"].as_str());
    assert_eq!(numbers("winning_post"), (Some(0), Some("winning-2k")));
    assert_eq!(numbers("window_post"), (Some(10), Some("wpost-2k")));
    assert_eq!(numbers("snap"), (Some(0), Some("snap-2k")));
    for k in ["winning_post", "window_post"] {
        assert_eq!(m[k]["prove_args"][6], m["randomness"], "{k}");
    }
}

/// `--no-snap` writes the same sector's files (same seed) without the
/// SnapDeals ones, and a manifest without its entry.
#[test]
fn test_data_without_snap_leaves_out_the_second_sector() {
    let full = test_data();
    let dir = filecoin_support::scratch().join("test-data-no-snap");
    let args = ["filecoin", "test-data", "--sector-size", "2KiB", "--out", path(&dir), "--seed", "7", "--no-snap"];
    let o = super::common::cuzk(&args);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("sealing sector 2"), "{}", text(&o));
    let mut names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    let mut want: Vec<String> = FILES.iter().filter(|f| **f != "snap-vanilla.json").map(|f| f.to_string()).collect();
    want.sort();
    assert_eq!(names, want, "{}", dir.display());
    let manifest: Value = serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert!(manifest.get("snap").is_none(), "{manifest}");
    for key in ["comm_d", "comm_r", "ticket", "seed", "sector_number", "registered_proof"] {
        assert_eq!(manifest["porep"][key], full.manifest["porep"][key], "porep.{key}");
    }
    assert_eq!(std::fs::read(dir.join("c1.json")).unwrap(), full.read("c1.json"));
}

#[test]
fn porep_from_test_data_proves_through_the_manifest_and_filecoin_proofs_accepts_it() {
    let args = manifest_args("porep", "prove_args", "porep-2k");
    let out = file("porep.proof");
    check_json(&prove(&args, &out), "porep-2k");
    let proof = std::fs::read(&out).unwrap();
    let request = PoRepRequest::from_curio_wrapper(&test_data().read("c1.json"), MINER).unwrap();
    assert!(reference::porep(&request, &proof).unwrap(), "filecoin-proofs refuses cuzk's PoRep");
    verify_accepts_and_refuses_a_flipped_byte(&args, &out);
    // The raw C1 with its sector number is the same request.
    verify_accepts(&manifest_args("porep", "prove_args_c1_json", "porep-2k"), &out);
}

#[test]
fn snap_from_test_data_proves_through_the_manifest_and_filecoin_proofs_accepts_it() {
    let data = test_data();
    let args = manifest_args("snap", "prove_args", "snap-2k");
    let out = file("snap.proof");
    check_json(&prove(&args, &out), "snap-2k");
    let proof = std::fs::read(&out).unwrap();
    let m = &data.manifest["snap"];
    let b64: Vec<String> = serde_json::from_slice(&data.read("snap-vanilla.json")).unwrap();
    let vanilla = b64.iter().map(|s| base64::engine::general_purpose::STANDARD.decode(s).unwrap()).collect();
    let (old, new, d) = (hex32(&m["comm_r_old"]), hex32(&m["comm_r_new"]), hex32(&m["comm_d_new"]));
    let request = SnapRequest::from_curio(0, vanilla, &old, &new, &d).unwrap();
    assert!(reference::snap(&request, &proof).unwrap(), "filecoin-proofs refuses cuzk's SnapDeals proof");
    verify_accepts_and_refuses_a_flipped_byte(&args, &out);
    // The commitments as CID strings, as Lotus and Curio print them.
    let with_cids: Vec<String> = args
        .iter()
        .map(|a| match ["comm_r_old", "comm_r_new", "comm_d_new"].into_iter().find(|k| m[*k] == a.as_str()) {
            Some(k) => m[format!("{k}_cid")].as_str().unwrap().to_string(),
            None => a.clone(),
        })
        .collect();
    assert!(with_cids.iter().any(|a| a.starts_with("bagboea4b5abc")), "{with_cids:?}");
    verify_accepts(&with_cids, &out);
}

/// `args` with the value after `flag` replaced by `value`.
fn with(args: &[String], flag: &str, value: &str) -> Vec<String> {
    let mut args = args.to_vec();
    let at = args.iter().position(|a| a == flag).unwrap_or_else(|| panic!("no {flag} in {args:?}"));
    args[at + 1] = value.to_string();
    args
}

fn write(name: &str, bytes: &[u8]) -> String {
    let f = file(name);
    std::fs::write(&f, bytes).unwrap();
    path(&f).to_string()
}

#[test]
fn bad_porep_and_snap_inputs_exit_nonzero_name_the_problem_and_write_nothing() {
    let data = test_data();
    // PoRep inputs are refused before the parameters are looked for.
    let empty = filecoin_support::scratch().join("empty-params");
    std::fs::create_dir_all(&empty).unwrap();
    let c1 = path(&data.dir.join("c1.json")).to_string();
    let porep = |rest: &[&str]| {
        let head = ["porep", "--params-dir", path(&empty), "--miner-id", "1000"];
        head.iter().chain(rest).map(|s| s.to_string()).collect::<Vec<String>>()
    };
    let c1_bytes = data.read("c1.json");
    let raw_bytes = data.read("c1-raw.json");
    let truncated = write("truncated-c1.json", &c1_bytes[..c1_bytes.len() / 2]);
    let truncated_raw = write("truncated-c1-raw.json", &raw_bytes[..raw_bytes.len() / 2]);
    let bad_b64 = write("bad-base64-c1.json", br#"{"SectorNum":1,"Phase1Out":"not base64!","SectorSize":2048}"#);
    let raw = path(&data.dir.join("c1-raw.json")).to_string();

    let snap = manifest_args("snap", "prove_args", "snap-2k");
    let m = &data.manifest["snap"];
    let comm_d_cid = m["comm_d_new_cid"].as_str().unwrap();
    let undecodable = write("snap-undecodable.json", br#"["AAAA"]"#);
    let two = write("snap-two.json", br#"["AAAA", "AAAA"]"#);
    let (old, new) = (m["comm_r_old"].as_str().unwrap(), m["comm_r_new"].as_str().unwrap());
    let swapped = with(&with(&snap, "--comm-r-old", new), "--comm-r-new", old);

    let cases: Vec<(&str, Vec<String>, Vec<&str>)> = vec![
        ("another miner's C1", with(&porep(&["--c1", &c1]), "--miner-id", "1001"), vec!["replica_id", "miner 1001"]),
        (
            "the raw C1 of another sector",
            porep(&["--c1-json", &raw, "--sector-number", "2"]),
            vec!["replica_id", "sector 2"],
        ),
        ("a truncated c1.json", porep(&["--c1", &truncated]), vec!["truncated-c1.json", "invalid c1.json"]),
        (
            "a truncated raw C1",
            porep(&["--c1-json", &truncated_raw, "--sector-number", "1"]),
            vec!["truncated-c1-raw.json", "not a C1 output"],
        ),
        ("bad base64 in the wrapper", porep(&["--c1", &bad_b64]), vec!["bad-base64-c1.json", "Phase1Out", "base64"]),
        ("a raw C1 without its sector number", porep(&["--c1-json", &raw]), vec!["--sector-number"]),
        (
            "a CommD CID for CommR",
            with(&snap, "--comm-r-old", comm_d_cid),
            vec!["--comm-r-old", "fil-commitment-unsealed"],
        ),
        ("a commitment that is neither", with(&snap, "--comm-d-new", "xyz"), vec!["--comm-d-new", "64 hex characters"]),
        (
            "an unregistered update proof",
            with(&snap, "--registered-proof", "9"),
            vec!["--registered-proof", "RegisteredUpdateProof(9)"],
        ),
        (
            "a partition proof that does not decode",
            with(&snap, "--vanilla", &undecodable),
            vec!["vanilla_proofs[0]", "entry 0 of", "snap-undecodable.json"],
        ),
        ("two partition proofs for one partition", with(&snap, "--vanilla", &two), vec!["2 partition proofs"]),
        ("CommR old and new swapped", swapped, vec!["snap-2k", "do not verify"]),
    ];
    refused_without_output("refused-sealed", cases);

    // test-data refuses production sizes and unknown ones before it creates anything.
    let out = filecoin_support::scratch().join("no-test-data");
    for (size, said) in [("32GiB", "32 GiB sectors cannot be sealed"), ("4KiB", "not a sector size")] {
        let o = super::common::cuzk(&["filecoin", "test-data", "--sector-size", size, "--out", path(&out)]);
        refused(&o, size, &[said]);
        assert!(!out.exists(), "{size}: {} was created", out.display());
    }
}

/// `test-data --synthetic` writes every kind's inputs for sectors never
/// sealed (a whole WindowPoSt partition), which filecoin-proofs' vanilla
/// checks accept; the PoRep proves through the manifest's arguments
/// into what filecoin-proofs accepts; at 32 GiB it takes seconds.
#[test]
fn synthetic_test_data_proves_through_the_manifest_and_filecoin_proofs_accepts_it() {
    for size in ["2KiB", "32GiB"] {
        let dir = filecoin_support::scratch().join(format!("test-data-synthetic-{size}"));
        let args = ["filecoin", "test-data", "--synthetic", "--sector-size", size, "--out", path(&dir), "--seed", "3"];
        let o = timed(&format!("cuzk filecoin test-data --synthetic --sector-size {size}"), || super::common::cuzk(&args));
        assert!(o.status.success(), "{}", text(&o));
        let mut names: Vec<String> =
            std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        let mut want = FILES.to_vec();
        want.sort();
        assert_eq!(names, want, "{}", dir.display());
        let manifest: Value = serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(manifest["synthetic"], true, "{manifest}");
        let request = PoRepRequest::from_curio_wrapper(&std::fs::read(dir.join("c1.json")).unwrap(), MINER).unwrap();
        request.check_vanilla().unwrap();
        // The PoSt vanilla proofs pass filecoin-proofs' vanilla checks; WindowPoSt's fill a partition.
        let vanilla = |name: &str| -> Vec<Vec<u8>> {
            let b64: Vec<String> = serde_json::from_slice(&std::fs::read(dir.join(name)).unwrap()).unwrap();
            b64.iter().map(|s| base64::engine::general_purpose::STANDARD.decode(s).unwrap()).collect()
        };
        let randomness: [u8; 32] = hex32(&manifest["randomness"]);
        let window = cuzk::filecoin::window_post::WindowPoStRequest {
            proof: cuzk::filecoin::testdata::window_proof(request.circuit_id().sector_size),
            randomness,
            miner_id: MINER,
            partition_index: 0,
            vanilla: vanilla("window-vanilla.json"),
        };
        assert_eq!(window.vanilla.len(), window.proof.sector_count());
        window.check_vanilla().unwrap();
        let winning = cuzk::filecoin::winning_post::WinningPoStRequest {
            proof: cuzk::filecoin::testdata::winning_proof(request.circuit_id().sector_size),
            randomness,
            miner_id: MINER,
            vanilla: vanilla("winning-vanilla.json"),
        };
        winning.check_vanilla().unwrap();
        let snap = &manifest["snap"];
        let digest = |key: &str| hex32(&snap[key]);
        let update = SnapRequest::from_curio(
            snap["registered_proof"].as_u64().unwrap(),
            vanilla("snap-vanilla.json"),
            &digest("comm_r_old"),
            &digest("comm_r_new"),
            &digest("comm_d_new"),
        )
        .unwrap();
        update.check_vanilla().unwrap();
        if size != "2KiB" {
            continue;
        }
        let list = manifest["porep"]["prove_args"].as_array().unwrap();
        let mut args: Vec<String> = list[2..].iter().map(|a| a.as_str().unwrap().to_string()).collect();
        args.extend(["--params-dir".into(), path(super::params_dir(&["porep-2k"])).into()]);
        let out = file("synthetic-porep.proof");
        check_json(&prove(&args, &out), "porep-2k");
        assert!(reference::porep(&request, &std::fs::read(&out).unwrap()).unwrap(), "filecoin-proofs refuses it");
    }
}
