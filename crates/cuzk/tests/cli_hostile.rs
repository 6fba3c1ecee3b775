//! The `cuzk` binary against hostile and careless input: degenerate keys,
//! sizes that would exhaust the machine, outputs that would destroy inputs,
//! files that are not files. Each case once went wrong (docs/RELIABILITY.md).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{cuzk, dir, inputs_of, params, prove_json, text, verify};
use cuzk::groth16::{Parameters, PointChecks, Proof};

/// Fails unless `o` failed cleanly: exit code 1 with an `error:` line, never
/// a panic (exit code 101) or a signal.
fn refused(o: &Output, what: &str) -> String {
    let t = text(o);
    assert_eq!(o.status.code(), Some(1), "{what}: {t}");
    assert!(t.contains("error:") && !t.contains("panicked"), "{what}: {t}");
    t
}

fn prove_mul_chain(extra: &[&str]) -> Output {
    let p = params("mul-chain", "300");
    let mut args = vec!["prove", "--circuit", "mul-chain", "--size", "300", "--params", p.to_str().unwrap()];
    args.extend_from_slice(extra);
    cuzk(&args)
}

#[test]
fn a_proof_forged_under_a_degenerate_key_is_refused() {
    let good = params("mul-chain", "300");
    let mut bytes = std::fs::read(&good).unwrap();
    // γ₂ (bytes 384..576) and δ₂ (672..864) at infinity: flag 0x40, then zeros.
    for range in [384..576, 672..864] {
        bytes[range.clone()].fill(0);
        bytes[range.start] = 0x40;
    }
    let forged_params = dir().join("degenerate.params");
    std::fs::write(&forged_params, &bytes).unwrap();
    let vk = Parameters::read(&good, PointChecks::Subgroup).unwrap().vk;
    let forged = Proof { a: vk.alpha_g1, b: vk.beta_g2, c: vk.alpha_g1 };
    let proofs = dir().join("forged.proofs");
    std::fs::write(&proofs, forged.to_bytes()).unwrap();
    let inputs = dir().join("forged.inputs.json");
    std::fs::write(&inputs, format!("[[\"{}7\"]]", "0".repeat(63))).unwrap();
    let o = cuzk(&[
        "verify", "--params", forged_params.to_str().unwrap(), "--proofs", proofs.to_str().unwrap(),
        "--inputs", inputs.to_str().unwrap(),
    ]);
    let t = refused(&o, "verify under a degenerate key");
    assert!(t.contains("degenerate") && t.contains("vk.gamma_g2") && t.contains("degenerate.params"), "{t}");
}

#[test]
fn sizes_and_counts_are_bounded_before_any_work() {
    let p = params("mul-chain", "300");
    let p = p.to_str().unwrap();
    for size in ["1099511627776", "1152921504606846976"] {
        for cmd in [
            vec!["prove", "--circuit", "sha256", "--size", size, "--params", p],
            vec!["setup", "--circuit", "sha256", "--size", size, "--out", "/dev/null/x"],
        ] {
            let start = Instant::now();
            let t = refused(&cuzk(&cmd), size);
            assert!(t.contains("--size"), "{t}");
            assert!(start.elapsed() < Duration::from_secs(20), "refused only after {:?}", start.elapsed());
        }
    }
    // A size the workload builds but the parameters do not fit: refused from
    // the file's header, before any circuit is built.
    let t = refused(&cuzk(&["prove", "--circuit", "mul-chain", "--size", "700", "--params", p]), "size 700");
    assert!(t.contains("--size or --params is wrong") && !t.contains("timings:"), "{t}");
    for (flag, value) in [
        ("--batch", "0"),
        ("--batch", "1099511627776"),
        ("--memory-gib", "NaN"),
        ("--memory-gib", "-1"),
        ("--memory-gib", "1e-300"),
        ("--memory-gib", "inf"),
        ("--synth-workers", "0"),
        ("--synth-workers", "100000"),
    ] {
        let o = prove_mul_chain(&[&format!("{flag}={value}")]);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: clap refuses it: {}", text(&o));
        assert!(text(&o).contains(flag), "{flag} {value}: {}", text(&o));
    }
    for (flag, value) in [("--jobs", "0"), ("--partitions", "1099511627776")] {
        let o = cuzk(&["bench", "--circuit", "mul-chain", "--size", "300", flag, value]);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {}", text(&o));
    }
}

#[test]
fn an_output_that_is_an_input_or_cannot_be_written_is_refused_first() {
    let p = params("mul-chain", "300");
    let before = std::fs::read(&p).unwrap();
    let t = refused(&prove_mul_chain(&["--out", p.to_str().unwrap()]), "--out = --params");
    assert!(t.contains("refusing to overwrite") && !t.contains("timings:"), "{t}");
    assert_eq!(std::fs::read(&p).unwrap(), before, "the parameter file is intact");

    let missing = dir().join("no-such-dir").join("proofs.bin");
    let t = refused(&prove_mul_chain(&["--out", missing.to_str().unwrap()]), "missing directory");
    assert!(t.contains("no-such-dir") && !t.contains("timings:"), "found before proving: {t}");
}

#[test]
fn outputs_appear_as_a_pair_and_stale_temporaries_are_cleaned() {
    let out = dir().join("pair.proofs");
    let stale = dir().join(format!(".pair.proofs.{}.AbC123.cuzk-partial", u32::MAX - 1));
    std::fs::write(&stale, b"left by a killed run").unwrap();
    let j = prove_json("mul-chain", "300", "2", &out);
    assert_eq!(j["verified"], true);
    assert!(!stale.exists(), "the killed run's temporary is removed");
    assert_eq!(std::fs::metadata(&out).unwrap().len(), 384);
    assert!(verify("mul-chain", "300", &out, &inputs_of(&out)).status.success());
    let partials = std::fs::read_dir(dir())
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".cuzk-partial"))
        .count();
    assert_eq!(partials, 0);
}

#[test]
fn an_output_name_that_is_not_utf8_keeps_its_bytes() {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let mut raw = dir().as_os_str().as_bytes().to_vec();
    raw.extend_from_slice(b"/proofs-\xff.bin");
    let out = PathBuf::from(std::ffi::OsString::from_vec(raw.clone()));
    let p = params("mul-chain", "300");
    let o = Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(["prove", "--circuit", "mul-chain", "--size", "300", "--params", p.to_str().unwrap(), "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    raw.extend_from_slice(b".inputs.json");
    assert!(Path::new(std::ffi::OsStr::from_bytes(&raw)).is_file(), "inputs beside the proofs, name kept");
}

#[test]
fn concurrent_setups_to_neighbouring_outputs_both_end_valid() {
    // `s.v1` and `s.v2` once shared the temporary `s.params.partial`.
    let outs = [dir().join("s.v1"), dir().join("s.v2")];
    let children: Vec<_> = outs
        .iter()
        .map(|out| {
            Command::new(env!("CARGO_BIN_EXE_cuzk"))
                .args(["setup", "--circuit", "mul-chain", "--size", "2000", "--out", out.to_str().unwrap()])
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    for out in &outs {
        let o = cuzk(&["prove", "--circuit", "mul-chain", "--size", "2000", "--params", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}: {}", out.display(), text(&o));
    }
}

#[test]
fn files_that_are_not_files_are_refused_and_named() {
    let fifo = dir().join("params.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let empty = dir().join("empty.params");
    std::fs::write(&empty, b"").unwrap();
    let proofs = dir().join("some.proofs");
    prove_json("mul-chain", "300", "1", &proofs);
    for path in [fifo.clone(), dir().to_path_buf(), empty, PathBuf::from("/dev/zero")] {
        let shown = path.display().to_string();
        let mut child = Command::new(env!("CARGO_BIN_EXE_cuzk"))
            .args(["verify", "--params", &shown, "--proofs", proofs.to_str().unwrap()])
            .arg("--inputs")
            .arg(inputs_of(&proofs))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                child.kill().unwrap();
                panic!("verify --params {shown} blocked");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let t = refused(&child.wait_with_output().unwrap(), &shown);
        assert!(t.contains(&shown), "the error names {shown}: {t}");
    }
    // Proofs and inputs are read only as regular files too, and an empty
    // proofs file is an error, not "0 of 0 proofs verify".
    let none = dir().join("none.proofs");
    std::fs::write(&none, b"").unwrap();
    let t = refused(&verify("mul-chain", "300", &none, &inputs_of(&proofs)), "zero proofs");
    assert!(t.contains("no proof"), "{t}");
    let t = refused(&verify("mul-chain", "300", &fifo, &inputs_of(&proofs)), "FIFO proofs");
    assert!(t.contains("not a regular file"), "{t}");
}
