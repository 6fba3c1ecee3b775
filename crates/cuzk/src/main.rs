//! The `cuzk` command: setup, prove, verify, inspect parameters, bench.

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc unless built with `--features system-allocator`, which exists so
/// the two can be compared (docs/PERF.md). cuzk-ffi's `mimalloc-defaults`
/// (see Cargo.toml) sets its options at load so that memory the engine frees
/// leaves the resident set at once and `--memory-gib` bounds the process.
#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            // Not eprintln!, which panics when standard error is closed.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "error: {e}");
            ExitCode::FAILURE
        }
    }
}
