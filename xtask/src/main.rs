//! `cargo xtask`: the project's automation, one module per subcommand.
//!
//! Std-only on purpose: xtask must build in seconds on a fresh clone, before
//! anything else is installed.

mod bench;
mod bundle;
mod circles;
mod cuda;
mod includes;
mod preflight;
mod shell;
mod skips;
mod test;
mod tidy;

use std::process::ExitCode;

const USAGE: &str = "\
cargo xtask <command> [args]

commands:
  test         check the machine, install what the tests need (the CUDA compiler), then run every
               test, and the tests of the GPU-facing crates once more built without CUDA
  bench        the main job: make (and cache) parameters, prove several jobs, print timings
  cuda         install the pinned CUDA 13.0 compiler under target/cuda if no nvcc is found
  gpu-bundle   build release GPU test and bench binaries into target/gpu-bundle with run.sh
               (--only cuzk,...: just those artifacts)
  tidy         the project's standing checks (layering, unsafe fencing, docs)
";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let cmd = args.next().unwrap_or_default();
    let rest: Vec<String> = args.collect();
    let result = match cmd.as_str() {
        "test" => test::run(&rest),
        "bench" => bench::run(&rest),
        "cuda" => cuda::run(&rest),
        "gpu-bundle" => bundle::run(&rest),
        "tidy" => tidy::run(&rest),
        "" | "help" | "-h" | "--help" => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        other => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask {cmd}: error: {e}");
            ExitCode::FAILURE
        }
    }
}
