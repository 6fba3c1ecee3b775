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
//! the two forms. It leaves out the features whose code knows no GPU
//! ([`GPU_BLIND_FEATURES`]: `cuzk/filecoin`, `cuzk/daemon`,
//! `cuzk-benches/filecoin`): the main run tests them already, and compiling
//! the Filecoin tree (which all bring) a second time would cost CI minutes
//! for nothing that differs without CUDA.
//!
//! Both runs test what ships: every feature that adds code to test is on
//! ([`TESTED_FEATURES`]), but not `cuzk/system-allocator`, which would swap
//! the binary's allocator (mimalloc) for the system's under the CLI tests; a
//! build with every feature on ([`ALTERNATE_FEATURES`] too) keeps that
//! variant compiling. The main run
//! first compiles every target, benches included, so a bench that stops
//! compiling fails CI although CI never runs one.

use std::path::Path;
use std::process::Command;

use crate::{cuda, preflight, shell, tidy};

/// The features the tests turn on: each adds code (and tests) that CI must
/// compile and run.
const TESTED_FEATURES: &[&str] = &[
    "cuzk-synth/bellpepper",
    "cuzk/bellpepper",
    "cuzk-ffi/mimalloc-defaults",
    "cuzk/filecoin",
    "cuzk/daemon",
    "cuzk-benches/filecoin",
];

/// Tested features whose code is the same with and without CUDA (cuzk-filecoin
/// knows no GPU, and its CLI proves through the engine's backend choice,
/// which the no-CUDA run tests without them; `cuzk daemon` reaches devices
/// only through that same engine, and `cuzk client` none at all; the
/// Filecoin synthesis comparison runs on the CPU): the run without CUDA
/// leaves them out.
const GPU_BLIND_FEATURES: &[&str] = &["cuzk/filecoin", "cuzk/daemon", "cuzk-benches/filecoin"];

/// Features CI compiles but does not test with: alternatives to what ships,
/// kept for measurements.
const ALTERNATE_FEATURES: &[&str] = &["cuzk/system-allocator"];

/// The crates whose behaviour differs without CUDA: the bridge's no-GPU
/// entry points, the typed errors over them, the engine's backend selection
/// and the CLI proving on the CPU. The crates below them never see CUDA.
const NO_CUDA_PACKAGES: [&str; 4] = ["cuzk-ffi", "cuzk-gpu", "cuzk-pipeline", "cuzk"];

/// `cargo xtask test [cargo test args]`: the arguments go to both runs (the
/// builds that run nothing get the cargo options alone, those before `--`).
pub fn run(args: &[String]) -> Result<(), String> {
    preflight::check(preflight::Job::Test)?;
    let nvcc = cuda::ensure_toolchain()?;
    let gpu = shell::gpu_present();
    if !gpu {
        eprintln!(
            "xtask test: no GPU on this machine: device tests are compiled but not run \
             (run `cargo xtask gpu-bundle` and its run.sh on a GPU machine)"
        );
    }
    for (what, mut cmd) in commands(&nvcc, gpu, args) {
        eprintln!("xtask test: {what}");
        shell::run(&mut cmd)?;
    }
    Ok(())
}

/// The cargo commands of a run, in order, each with what it is for.
fn commands(nvcc: &Path, gpu: bool, args: &[String]) -> Vec<(&'static str, Command)> {
    let cargo_args: Vec<&String> = args.iter().take_while(|a| *a != "--").collect();
    let tested = TESTED_FEATURES.join(",");
    let with_cuda = |cargo_test: &[&str]| {
        let mut cmd = shell::cargo();
        cmd.args(["test", "--locked"]).args(cargo_test).env("NVCC", nvcc);
        if !gpu {
            cmd.env("CUZK_ALLOW_NO_GPU", "1");
            if std::env::var_os("CUZK_CUDA_ARCHS").is_none() {
                cmd.env("CUZK_CUDA_ARCHS", "90");
            }
        }
        cmd
    };
    let mut all_targets = with_cuda(&["--workspace", "--all-targets", "--no-run", "--features", &tested]);
    all_targets.args(&cargo_args);
    // The library and binary alone: the alternates change only them, and the
    // integration tests would build (and put in place) the binary they run.
    let every = cli_features().join(",");
    let mut all_features = with_cuda(&["-p", "cuzk", "--features", &every, "--no-run", "--lib", "--bins"]);
    all_features.args(&cargo_args);
    let mut tests = with_cuda(&["--workspace", "--features", &tested]);
    tests.args(args);
    vec![
        ("compiling every target, benches included", all_targets),
        ("compiling the CLI with every feature on (the alternatives to what ships)", all_features),
        ("every test, with CUDA compiled in", tests),
        ("the GPU-facing crates' tests built without CUDA", without_cuda(args)),
    ]
}

/// Every tested and alternate feature of the crates the `cuzk` package
/// builds (itself and the workspace crates it may depend on): cargo refuses
/// `-p cuzk --features` naming a crate outside its tree, such as
/// `cuzk-benches/filecoin`.
fn cli_features() -> Vec<&'static str> {
    let builds = |f: &&str| {
        let package = f.split('/').next().unwrap_or_default();
        package == "cuzk" || tidy::allowed_dependencies("cuzk").contains(&package)
    };
    TESTED_FEATURES.iter().chain(ALTERNATE_FEATURES).copied().filter(builds).collect()
}

/// The second run: [`NO_CUDA_PACKAGES`] built with `CUZK_NO_CUDA=1`, with
/// their tested features but for [`GPU_BLIND_FEATURES`].
fn without_cuda(args: &[String]) -> Command {
    let target = shell::target_dir().join("no-cuda");
    let mut cmd = shell::cargo();
    // Only the selected packages' features (cuzk's imply the crates' below),
    // and none that CUDA does not change.
    let features: Vec<&str> = TESTED_FEATURES
        .iter()
        .copied()
        .filter(|f| NO_CUDA_PACKAGES.iter().any(|p| f.split('/').next() == Some(*p)))
        .filter(|f| !GPU_BLIND_FEATURES.contains(f))
        .collect();
    cmd.args(["test", "--locked", "--features", &features.join(",")]);
    for package in NO_CUDA_PACKAGES {
        cmd.args(["-p", package]);
    }
    cmd.args(args);
    cmd.env("CUZK_NO_CUDA", "1").env("CARGO_TARGET_DIR", &target);
    // A build without CUDA cannot use a GPU even where one is: its device
    // tests report that they did not run (the main run ran them).
    cmd.env("CUZK_ALLOW_NO_GPU", "1");
    cmd
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    /// Every `crate/feature` the workspace's manifests declare.
    fn declared_features() -> Vec<String> {
        let root = shell::root();
        let mut dirs: Vec<_> = fs::read_dir(root.join("crates")).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
        dirs.push(root.join("benches"));
        let mut out = Vec::new();
        for manifest in dirs.iter().filter_map(|d| fs::read_to_string(d.join("Cargo.toml")).ok()) {
            let Some(name) = tidy::package_name(&manifest) else { continue };
            let mut in_features = false;
            for line in manifest.lines().map(str::trim) {
                if line.starts_with('[') {
                    in_features = line == "[features]";
                } else if in_features && !line.starts_with('#') {
                    if let Some((feature, _)) = line.split_once('=') {
                        out.push(format!("{name}/{}", feature.trim()));
                    }
                }
            }
        }
        out
    }

    fn args(cmd: &Command) -> Vec<String> {
        cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    /// The runs that execute tests run the binary as shipped: no
    /// `--all-features`, no alternate feature; every target and every
    /// feature still compile.
    #[test]
    fn tests_run_what_ships_and_every_target_compiles() {
        let user = ["cli".to_string(), "--".to_string(), "--nocapture".to_string()];
        let plan = commands(Path::new("/nvcc"), false, &user);
        let (running, building): (Vec<_>, Vec<_>) = plan.iter().map(|(_, c)| args(c)).partition(|a| !a.contains(&"--no-run".into()));
        assert_eq!(running.len(), 2, "{running:?}");
        for run in &running {
            assert!(!run.contains(&"--all-features".into()), "{run:?}");
            let features = run.iter().skip_while(|a| *a != "--features").nth(1).cloned().unwrap_or_default();
            assert!(ALTERNATE_FEATURES.iter().all(|f| !features.split(',').any(|g| g == *f)), "{run:?}");
            assert!(features.contains("cuzk/bellpepper") && run.ends_with(&user), "{run:?}");
        }
        assert!(building.iter().any(|b| b.contains(&"--all-targets".into())), "{building:?}");
        // The Filecoin tree is tested once, in the run with CUDA, not again without.
        let features_of = |name: &str| {
            let (_, cmd) = plan.iter().find(|(what, _)| what.contains(name)).expect("the run is planned");
            let run = args(cmd);
            run.iter().skip_while(|a| *a != "--features").nth(1).cloned().unwrap_or_default()
        };
        assert!(features_of("with CUDA compiled in").split(',').any(|f| f == "cuzk/filecoin"));
        let no_cuda = features_of("without CUDA");
        assert!(!no_cuda.split(',').any(|f| GPU_BLIND_FEATURES.contains(&f)), "{no_cuda}");
        assert!(no_cuda.split(',').any(|f| f == "cuzk/bellpepper"), "{no_cuda}");
        // Every alternate compiles, beside every tested feature of the CLI's
        // crates; the benches' features are not the CLI's to name.
        let cli = features_of("every feature on");
        let cli: Vec<&str> = cli.split(',').collect();
        assert!(ALTERNATE_FEATURES.iter().all(|f| cli.contains(f)), "{cli:?}");
        assert!(["cuzk/filecoin", "cuzk/daemon", "cuzk-synth/bellpepper"].iter().all(|f| cli.contains(f)), "{cli:?}");
        assert!(!cli.iter().any(|f| f.starts_with("cuzk-benches/")), "{cli:?}");
        for build in &building {
            assert!(build.ends_with(&user[..1]), "cargo options only, no test-binary options: {build:?}");
        }
    }

    /// A feature nobody placed would be tested by no run (or, under
    /// `--all-features`, change what the tests run against).
    #[test]
    fn every_feature_is_tested_or_named_an_alternate() {
        let declared = declared_features();
        assert!(declared.contains(&"cuzk/system-allocator".to_string()), "features not read: {declared:?}");
        for feature in &declared {
            // `default` is on in every run anyway.
            let placed = TESTED_FEATURES.contains(&feature.as_str()) || ALTERNATE_FEATURES.contains(&feature.as_str());
            assert!(placed || feature.ends_with("/default"), "{feature}: add it to TESTED_FEATURES or ALTERNATE_FEATURES");
        }
        for feature in TESTED_FEATURES.iter().chain(ALTERNATE_FEATURES) {
            assert!(declared.iter().any(|d| d == feature), "{feature} is not declared by any manifest");
            assert!(!(TESTED_FEATURES.contains(feature) && ALTERNATE_FEATURES.contains(feature)), "{feature} in both lists");
        }
    }
}
