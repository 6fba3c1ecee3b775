//! The device tests' custom harness, shared by every GPU test binary: a
//! machine without a GPU cannot pass by skipping. It prints "no CUDA device: N
//! GPU tests not run" and exits non-zero unless CUZK_ALLOW_NO_GPU=1 (CI builds
//! the binaries but has no GPU). Each test gets its own ChaCha20 stream from a
//! printed seed (CUZK_SEED fixes it); results are JSON lines.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use cuzk_gpu::{Device, GpuError};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// One device test.
pub type Test = fn(&Device, &mut ChaCha20Rng);

/// Runs `tests` on device 0 and exits with the outcome.
pub fn run(suite: &str, tests: &[(&str, Test)]) -> ! {
    let device = match Device::open(0) {
        Ok(d) => d,
        Err(e @ (GpuError::NoGpu(_) | GpuError::NoDevice { .. })) => {
            eprintln!("no CUDA device: {} GPU tests not run ({e})", tests.len());
            let allowed = std::env::var("CUZK_ALLOW_NO_GPU").is_ok_and(|v| v == "1");
            std::process::exit(if allowed { 0 } else { 1 });
        }
        Err(e) => panic!("opening device 0 failed: {e}"),
    };
    let seed = std::env::var("CUZK_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    });
    let info = device.info();
    println!(
        "{{\"device\":\"{}\",\"sm\":\"{}.{}\",\"sms\":{},\"total_mem\":{},\"seed\":{seed}}}",
        info.name, info.sm_major, info.sm_minor, info.sm_count, info.total_mem
    );
    let mut failed = 0;
    for (i, (name, test)) in tests.iter().enumerate() {
        let mut rng = ChaCha20Rng::seed_from_u64(seed.wrapping_add(i as u64));
        let start = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| test(&device, &mut rng)));
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let result = if outcome.is_ok() { "pass" } else { "fail" };
        failed += usize::from(outcome.is_err());
        println!("{{\"test\":\"{name}\",\"result\":\"{result}\",\"ms\":{ms:.1},\"seed\":{seed}}}");
    }
    println!("{} {suite} tests: {} passed, {failed} failed", tests.len(), tests.len() - failed);
    std::process::exit(i32::from(failed > 0));
}
