//! `cargo xtask test`: checks the machine, installs what the tests need, then
//! runs every test.
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

use crate::{cuda, preflight, shell};

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
    shell::run(&mut cmd)
}
