//! What a fresh machine needs before `cargo xtask test` or `bench` can work,
//! checked first: a missing tool is named with the command that installs it,
//! instead of surfacing as a failure deep inside cuzk-ffi's build script.
//!
//! The Rust version is not checked here: cargo refuses to build xtask itself
//! with a rustc older than the workspace's `rust-version`, and says so.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::{cuda, shell};

/// The oldest NVIDIA driver that runs CUDA 13.0 code.
const MIN_DRIVER: u32 = 580;

/// The xtask command about to run, which decides what it needs.
#[derive(Clone, Copy)]
pub enum Job {
    /// `cargo xtask test`: always compiles the kernels, so it needs nvcc.
    Test,
    /// `cargo xtask bench`: compiles the kernels only where a GPU is.
    Bench,
}

/// What was found on this machine.
struct Machine {
    /// Whether `g++` compiles a C++17 probe (`None`: g++ does not run).
    cxx17: Option<bool>,
    /// Whether an nvcc was found (crates/cuzk-ffi/nvcc.rs's search).
    nvcc: bool,
    /// Whether `python3 -m pip` runs (what installs the pinned nvcc).
    pip: bool,
    /// Whether an NVIDIA GPU is visible.
    gpu: bool,
    /// The NVIDIA driver's major version, when nvidia-smi reports one.
    driver: Option<u32>,
}

/// Checks this machine for what `job` needs; the error lists every missing
/// piece with its install command.
pub fn check(job: Job) -> Result<(), String> {
    let problems = missing(job, &Machine::probe());
    if problems.is_empty() {
        return Ok(());
    }
    let name = match job {
        Job::Test => "test",
        Job::Bench => "bench",
    };
    Err(format!("this machine lacks what `cargo xtask {name}` needs:\n  {}", problems.join("\n  ")))
}

/// The decision, apart from probing so that it can be tested: one line per
/// missing piece.
fn missing(job: Job, m: &Machine) -> Vec<String> {
    let mut problems = Vec::new();
    match m.cxx17 {
        None => problems.push("no C++ compiler found: install g++ (Debian/Ubuntu: apt-get install g++)".to_string()),
        Some(false) => problems.push(
            "g++ cannot compile C++17: install g++ 7 or newer (Debian/Ubuntu: apt-get install g++)".to_string(),
        ),
        Some(true) => {}
    }
    let needs_nvcc = match job {
        Job::Test => true,
        Job::Bench => m.gpu,
    };
    if needs_nvcc && !m.nvcc && !m.pip {
        problems.push(
            "no nvcc found, and python3 with pip is needed to install the CUDA compiler: \
             apt-get install python3-pip (or set NVCC to an existing nvcc)"
                .to_string(),
        );
    }
    if let (true, Some(major)) = (m.gpu, m.driver) {
        if major < MIN_DRIVER {
            problems.push(format!(
                "the NVIDIA driver is {major}, CUDA 13.0 needs {MIN_DRIVER} or newer: \
                 install a newer driver (Ubuntu: apt-get install nvidia-driver-{MIN_DRIVER})"
            ));
        }
    }
    problems
}

impl Machine {
    fn probe() -> Machine {
        let nvcc = cuda::nvcc::find(&shell::root()).is_some();
        let gpu = shell::gpu_present();
        Machine {
            cxx17: probe_cxx17(),
            nvcc,
            // pip matters only when there is no nvcc to use.
            pip: nvcc || succeeds(Command::new("python3").args(["-m", "pip", "--version"])),
            gpu,
            driver: if gpu { driver_major() } else { None },
        }
    }
}

/// Compiles a C++17-only snippet with `g++ -fsyntax-only`.
fn probe_cxx17() -> Option<bool> {
    let mut child = Command::new("g++")
        .args(["-std=c++17", "-fsyntax-only", "-x", "c++", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let probe = "#include <optional>\nstd::optional<int> f() { if constexpr (true) { return 1; } else { return std::nullopt; } }\n";
    let written = child.stdin.take().is_some_and(|mut stdin| stdin.write_all(probe.as_bytes()).is_ok());
    Some(child.wait().is_ok_and(|s| s.success()) && written)
}

fn succeeds(cmd: &mut Command) -> bool {
    cmd.stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

fn driver_major() -> Option<u32> {
    let out = Command::new("nvidia-smi").args(["--query-gpu=driver_version", "--format=csv,noheader"]).output().ok()?;
    parse_driver_major(&String::from_utf8_lossy(&out.stdout))
}

/// The major version from nvidia-smi's driver_version query (one line per
/// GPU, all the same driver): "580.65.06" gives 580.
fn parse_driver_major(text: &str) -> Option<u32> {
    text.lines().next()?.trim().split('.').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A machine with everything; each test takes one piece away.
    fn complete() -> Machine {
        Machine { cxx17: Some(true), nvcc: true, pip: true, gpu: true, driver: Some(580) }
    }

    fn check(job: Job, m: Machine, expected: &[&str]) {
        let problems = missing(job, &m);
        assert_eq!(problems.len(), expected.len(), "{problems:?}");
        for (p, e) in problems.iter().zip(expected) {
            assert!(p.contains(e), "{p:?} should name {e:?}");
        }
    }

    #[test]
    fn a_complete_machine_lacks_nothing() {
        check(Job::Test, complete(), &[]);
        check(Job::Bench, complete(), &[]);
    }

    #[test]
    fn a_missing_or_old_cxx_compiler_is_named_with_its_install_command() {
        check(Job::Test, Machine { cxx17: None, ..complete() }, &["apt-get install g++"]);
        check(Job::Bench, Machine { cxx17: Some(false), ..complete() }, &["C++17"]);
    }

    #[test]
    fn pip_is_needed_only_when_nvcc_is_needed_and_absent() {
        let no_nvcc_no_pip = || Machine { nvcc: false, pip: false, ..complete() };
        check(Job::Test, no_nvcc_no_pip(), &["apt-get install python3-pip"]);
        check(Job::Test, Machine { gpu: false, ..no_nvcc_no_pip() }, &["python3-pip"]);
        check(Job::Bench, no_nvcc_no_pip(), &["python3-pip"]);
        check(Job::Bench, Machine { gpu: false, driver: None, ..no_nvcc_no_pip() }, &[]);
        check(Job::Test, Machine { nvcc: false, ..complete() }, &[]);
        check(Job::Test, Machine { pip: false, ..complete() }, &[]);
    }

    #[test]
    fn an_old_driver_matters_only_where_a_gpu_is() {
        check(Job::Test, Machine { driver: Some(575), ..complete() }, &["driver is 575"]);
        check(Job::Bench, Machine { driver: Some(575), ..complete() }, &["580 or newer"]);
        check(Job::Test, Machine { gpu: false, driver: Some(575), ..complete() }, &[]);
    }

    #[test]
    fn every_missing_piece_is_listed() {
        let bare = Machine { cxx17: None, nvcc: false, pip: false, gpu: true, driver: Some(550) };
        check(Job::Test, bare, &["g++", "python3-pip", "driver is 550"]);
    }

    #[test]
    fn the_driver_major_is_read_from_the_first_gpu() {
        assert_eq!(parse_driver_major("580.65.06\n580.65.06\n"), Some(580));
        assert_eq!(parse_driver_major("575.57.08"), Some(575));
        assert_eq!(parse_driver_major(""), None);
        assert_eq!(parse_driver_major("N/A"), None);
    }
}
