//! `cargo xtask bench`: the main job.
//!
//! Builds the `cuzk` binary in release mode (with CUDA when this machine has a
//! GPU) and runs `cuzk bench`, which makes and caches parameters for the
//! default workload under target/cuzk-bench, proves several jobs through the
//! engine and prints a timings line per job and a summary. Arguments are
//! passed to `cuzk bench` unchanged (`cargo xtask bench -- --help`).

use std::process::Command;

use crate::{cuda, preflight, shell};

pub fn run(args: &[String]) -> Result<(), String> {
    preflight::check(preflight::Job::Bench)?;
    let mut build = shell::cargo();
    build.args(["build", "--release", "--locked", "-p", "cuzk", "--bin", "cuzk"]);
    if shell::gpu_present() {
        build.env("NVCC", cuda::ensure_toolchain()?);
    } else {
        // Without a GPU the kernels would never run: skip nvcc entirely (the
        // three-architecture kernel build takes far longer than the bench).
        eprintln!("xtask bench: no GPU on this machine: building for the CPU backend");
        build.env("CUZK_NO_CUDA", "1");
    }
    shell::run(&mut build)?;

    let target = shell::target_dir();
    let mut bench = Command::new(target.join("release").join("cuzk"));
    bench.arg("bench");
    if !args.iter().any(|a| a.starts_with("--params-dir")) {
        bench.arg("--params-dir").arg(target.join("cuzk-bench"));
    }
    bench.args(args.iter().filter(|a| a.as_str() != "--"));
    shell::run(&mut bench)
}
