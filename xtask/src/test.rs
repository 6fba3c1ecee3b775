//! `cargo xtask test`: checks the machine, installs what the tests need, then
//! runs every test, and the GPU-facing crates' tests once more in the form
//! built without CUDA.
//!
//! CUDA code is compiled on every run, GPU or not (the pinned compiler is
//! installed under target/cuda when none is found), so a kernel that stops
//! compiling fails CI even though CI has no GPU. The device tests themselves
//! run only where a GPU is; elsewhere this says so instead of passing quietly.
//!
//! Without a GPU the kernels are compiled for one architecture (sm_90) only:
//! that catches every compile error, and the three-architecture build of the
//! MSM kernels alone costs over 20 minutes of nvcc on CI's two cores. Release
//! builds and `cargo xtask gpu-bundle` build sm_80, sm_89 and sm_90.
//!
//! The README promises a build without CUDA (`CUZK_NO_CUDA=1`, or no nvcc)
//! whose GPU calls fail with a typed `NoGpu` and whose CLI proves on the CPU;
//! the second run keeps that promise compiled and tested. It builds in a
//! target directory of its own (target/no-cuda): sharing the main one would
//! make cuzk-ffi, and the kernels with it, rebuild on every switch between
//! the two forms.

use crate::{cuda, preflight, shell};

/// The crates whose behaviour differs without CUDA: the bridge's no-GPU
/// entry points, the typed errors over them, the engine's backend selection
/// and the CLI proving on the CPU. The crates below them never see CUDA.
const NO_CUDA_PACKAGES: [&str; 4] = ["cuzk-ffi", "cuzk-gpu", "cuzk-pipeline", "cuzk"];

/// `cargo xtask test [cargo test args]`: the arguments go to both runs.
pub fn run(args: &[String]) -> Result<(), String> {
    preflight::check(preflight::Job::Test)?;
    let nvcc = cuda::ensure_toolchain()?;
    let gpu = shell::gpu_present();
    let mut cmd = shell::cargo();
    cmd.args(["test", "--workspace", "--all-features", "--locked"]).args(args);
    cmd.env("NVCC", &nvcc);
    if !gpu {
        eprintln!(
            "xtask test: no GPU on this machine: device tests are compiled but not run \
             (run `cargo xtask gpu-bundle` and its run.sh on a GPU machine)"
        );
        cmd.env("CUZK_ALLOW_NO_GPU", "1");
        if std::env::var_os("CUZK_CUDA_ARCHS").is_none() {
            cmd.env("CUZK_CUDA_ARCHS", "90");
        }
    }
    shell::run(&mut cmd)?;
    without_cuda(args)
}

/// The second run: [`NO_CUDA_PACKAGES`] built with `CUZK_NO_CUDA=1`.
fn without_cuda(args: &[String]) -> Result<(), String> {
    let target = shell::target_dir().join("no-cuda");
    eprintln!("xtask test: the build without CUDA (CUZK_NO_CUDA=1, in {})", target.display());
    let mut cmd = shell::cargo();
    cmd.args(["test", "--all-features", "--locked"]);
    for package in NO_CUDA_PACKAGES {
        cmd.args(["-p", package]);
    }
    cmd.args(args);
    cmd.env("CUZK_NO_CUDA", "1").env("CARGO_TARGET_DIR", &target);
    // A build without CUDA cannot use a GPU even where one is: its device
    // tests report that they did not run (the main run ran them).
    cmd.env("CUZK_ALLOW_NO_GPU", "1");
    shell::run(&mut cmd)
}
