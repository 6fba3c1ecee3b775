//! `cargo xtask gpu-bundle [--only NAME,...] [DIR]`: builds the GPU test and bench binaries in
//! release mode with CUDA and libstdc++ linked statically, and puts them,
//! gzipped, with a `run.sh` into DIR (default target/gpu-bundle), so a
//! machine with a GPU and no Rust toolchain can run them (docs/GPU.md).
//! The binaries are compressed because the bundle travels to the device
//! machine under a 64 MiB limit that the plain binaries (~85 MiB for sm_90
//! alone: each carries the static CUDA runtime and its kernels) exceed;
//! run.sh unpacks them next to themselves before the first run. The commit
//! the bundle was built from (and whether the tree had uncommitted changes)
//! is written into run.sh, which puts it at the head of bundle.log and into
//! every line of results.jsonl, so a figure or a pass can be tied to code.
//! `filecoin.sh` beside it measures one Filecoin proof kind end to end.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What goes into the bundle; adding a binary is one line here.
const ARTIFACTS: &[Artifact] = &[
    Artifact::Tests("cuzk-ffi"),
    Artifact::Tests("cuzk-gpu"),
    Artifact::Test("cuzk-pipeline", "gpu_engine", &[]),
    Artifact::Test("cuzk", "gpu_filecoin", &["filecoin"]),
    Artifact::Bench("cuzk-gpu", "kernels"),
    Artifact::Bench("cuzk-gpu", "groth16_scale"),
    Artifact::Bench("cuzk-gpu", "fixed_base"),
    // `daemon` brings `cuzk daemon` and `cuzk client` for the mixed-load runs.
    Artifact::Bin("cuzk", "cuzk", &["filecoin", "daemon"]),
    Artifact::Bin("cuzk-benches", "compare-cpu", &[]),
    Artifact::Bin("cuzk-benches", "filecoin-synth", &["filecoin"]),
];

/// What one call of the lent device machines carries with the working tree
/// (docs/GPU.md): a larger bundle is built, with a warning saying how to
/// make one that fits, since a provider's own machine has no such limit.
const CARRY_BYTES: u64 = 64 << 20;

/// What to build from a package, and whether run.sh runs it.
enum Artifact {
    /// Every test binary of the package (lib and integration tests), run
    /// without arguments.
    Tests(&'static str),
    /// One integration test binary of a package, built with the given
    /// features and run without arguments (for a package whose other tests
    /// are not for the device).
    Test(&'static str, &'static str, &'static [&'static str]),
    /// One bench target, run with `--bench`.
    Bench(&'static str, &'static str),
    /// A binary target built with the given features, copied but not run by
    /// run.sh: the caller runs it with the arguments the measurement needs
    /// (e.g. `bin/cuzk bench ...`).
    Bin(&'static str, &'static str, &'static [&'static str]),
}

/// `cargo xtask gpu-bundle [--only NAME,...] [DIR]`. `--only` builds just
/// the named artifacts (e.g. `--only cuzk` for a Filecoin measurement,
/// which needs nothing else): a full bundle takes the 2-core build machine
/// most of an hour, the `cuzk` binary alone a third of that.
pub fn run(args: &[String]) -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf();
    let (only, rest) = match args {
        [flag, names, rest @ ..] if flag == "--only" => (Some(names.split(',').collect::<Vec<_>>()), rest),
        [flag, ..] if flag == "--only" => return Err("--only needs a comma-separated list of artifact names".into()),
        _ => (None, args),
    };
    if let Some(names) = &only {
        if let Some(unknown) = names.iter().find(|n| !ARTIFACTS.iter().any(|a| a.name() == **n)) {
            let known: Vec<_> = ARTIFACTS.iter().map(Artifact::name).collect();
            return Err(format!("--only: no artifact `{unknown}` (known: {})", known.join(", ")));
        }
    }
    let dest = rest.first().map(PathBuf::from).unwrap_or_else(|| root.join("target/gpu-bundle"));
    let nvcc = super::cuda::ensure_toolchain()?;
    let commit = source_commit(&root)?;
    let build_dir = root.join("target/gpu-bundle-build");

    if dest.exists() {
        fs::remove_dir_all(&dest).map_err(|e| format!("cannot clear {}: {e}", dest.display()))?;
    }
    fs::create_dir_all(dest.join("bin")).map_err(|e| e.to_string())?;

    let mut runs = Vec::new();
    for artifact in ARTIFACTS.iter().filter(|a| only.as_ref().is_none_or(|names| names.contains(&a.name()))) {
        for (name, exe) in build(&root, &build_dir, &nvcc, artifact)? {
            let copy = dest.join("bin").join(&name);
            fs::copy(&exe, &copy).map_err(|e| format!("copy {}: {e}", exe.display()))?;
            gzip(&copy)?;
            match artifact {
                Artifact::Tests(_) | Artifact::Test(..) => runs.push(format!("run {name}")),
                Artifact::Bench(..) => runs.push(format!("run {name} --bench")),
                Artifact::Bin(..) => {}
            }
            eprintln!("gpu-bundle: added {name}");
        }
    }
    let script = dest.join("run.sh");
    fs::write(&script, run_script(&commit, &runs)).map_err(|e| e.to_string())?;
    make_executable(&script)?;
    let filecoin = dest.join("filecoin.sh");
    fs::write(&filecoin, FILECOIN_SH).map_err(|e| e.to_string())?;
    make_executable(&filecoin)?;

    let size = dir_size(&dest)?;
    println!(
        "gpu-bundle: {} ({:.1} MiB, {} run by run.sh, commit {}{})",
        dest.display(),
        size as f64 / (1 << 20) as f64,
        runs.len(),
        commit.hash,
        if commit.dirty { " with uncommitted changes" } else { "" }
    );
    if size > CARRY_BYTES {
        eprintln!("gpu-bundle: warning: {}", over_carry(size));
    }
    Ok(())
}

/// Why a bundle of `size` bytes cannot travel in one device call, and the
/// command whose bundle can.
fn over_carry(size: u64) -> String {
    format!(
        "the bundle is {size} bytes, over the {CARRY_BYTES} bytes one device call carries; for the lent \
         H100/H200 build `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle --only cuzk-gpu,cuzk,kernels` (one \
         architecture, the binaries a measurement runs), or copy this one by other means"
    )
}

impl Artifact {
    /// The name `--only` selects it by: the package for `Tests`, else the
    /// test, bench or binary target.
    fn name(&self) -> &'static str {
        match self {
            Artifact::Tests(p) => p,
            Artifact::Test(_, t, _) | Artifact::Bench(_, t) | Artifact::Bin(_, t, _) => t,
        }
    }
}

/// Builds one artifact and returns (bundle name, executable) pairs read from
/// cargo's JSON messages.
fn build(root: &Path, build_dir: &Path, nvcc: &Path, artifact: &Artifact) -> Result<Vec<(String, PathBuf)>, String> {
    let mut cmd = Command::new(env!("CARGO"));
    let package = match artifact {
        Artifact::Tests(p) => {
            cmd.args(["test", "--release", "--no-run", "-p", p]);
            p
        }
        Artifact::Test(p, test, features) => {
            cmd.args(["test", "--release", "--no-run", "-p", p, "--test", test]);
            if !features.is_empty() {
                cmd.args(["--features", &features.join(",")]);
            }
            p
        }
        Artifact::Bench(p, bench) => {
            cmd.args(["bench", "--no-run", "-p", p, "--bench", bench]);
            p
        }
        Artifact::Bin(p, bin, features) => {
            cmd.args(["build", "--release", "-p", p, "--bin", bin]);
            if !features.is_empty() {
                cmd.args(["--features", &features.join(",")]);
            }
            p
        }
    };
    cmd.arg("--message-format=json")
        .current_dir(root)
        .env("CARGO_TARGET_DIR", build_dir)
        .env("NVCC", nvcc)
        .env("CUZK_STATIC_CXX", "1")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "0")
        .env("CARGO_PROFILE_RELEASE_STRIP", "debuginfo")
        .env("CARGO_PROFILE_BENCH_DEBUG", "0")
        .env("CARGO_PROFILE_BENCH_STRIP", "debuginfo")
        .stderr(Stdio::inherit());
    eprintln!("gpu-bundle: building {package} ...");
    let out = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!("building {package} failed ({})", out.status));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let bin = matches!(artifact, Artifact::Bin(..));
    let found: Vec<(String, PathBuf)> = stdout.lines().filter_map(|line| executable(line, bin)).collect();
    if found.is_empty() {
        return Err(format!("cargo built no executable for {package}"));
    }
    Ok(found)
}

/// The commit a bundle is built from.
struct Commit {
    /// `git rev-parse HEAD`.
    hash: String,
    /// Whether tracked or untracked files differed from it (`git status --porcelain`).
    dirty: bool,
}

/// run.sh for these `run NAME [ARGS]` lines, stamped with `commit`.
fn run_script(commit: &Commit, runs: &[String]) -> String {
    RUN_SH
        .replace("@COMMIT@", &commit.hash)
        .replace("@DIRTY@", if commit.dirty { "true" } else { "false" })
        .replace("@RUNS@", &runs.join("\n"))
}

fn source_commit(root: &Path) -> Result<Commit, String> {
    let git = |args: &[&str]| -> Result<String, String> {
        let out = Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .map_err(|e| format!("cannot run git to record the bundle's commit: {e}"))?;
        if !out.status.success() {
            return Err(format!("git {} failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let hash = git(&["rev-parse", "HEAD"])?;
    if hash.len() != 40 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("git rev-parse HEAD printed `{hash}`, not a commit"));
    }
    let dirty = !git(&["status", "--porcelain"])?.is_empty();
    Ok(Commit { hash, dirty })
}

/// The value of `"key":"value"` in one line of cargo's JSON (paths need no unescaping here).
/// The (bundle name, path) of the executable one line of cargo's JSON
/// messages announces, if it is one the artifact asked for: for a binary
/// target, any; for tests and benches, only those built as a test harness,
/// since `cargo test --test T -p cuzk` also builds the package's `cuzk`
/// binary for the test to run, and that binary, taken as a test named
/// `cuzk`, replaced the CLI in the bundle and was run by run.sh.
fn executable(line: &str, bin: bool) -> Option<(String, PathBuf)> {
    if !line.contains("\"reason\":\"compiler-artifact\"") || (!bin && !line.contains("\"test\":true")) {
        return None;
    }
    let exe = PathBuf::from(json_string(line, "executable")?);
    let stem = exe.file_name()?.to_string_lossy().into_owned();
    // cargo names test and bench executables <target>-<16 hex digit hash>.
    let name = if bin { stem } else { stem.rsplit_once('-').map_or(stem.clone(), |(n, _)| n.to_string()) };
    Some((name, exe))
}

fn json_string<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(&format!("\"{key}\":\""))? + key.len() + 4;
    let len = line[start..].find('"')?;
    Some(&line[start..start + len])
}

/// Replaces `path` with `path.gz` (gzip -9, no name or time stamp stored).
fn gzip(path: &Path) -> Result<(), String> {
    let status = Command::new("gzip")
        .args(["-9", "-n", "-f"])
        .arg(path)
        .status()
        .map_err(|e| format!("cannot run gzip: {e}"))?;
    if !status.success() {
        return Err(format!("gzip {} failed ({status})", path.display()));
    }
    Ok(())
}

fn dir_size(dir: &Path) -> Result<u64, String> {
    let mut total = 0;
    for entry in fs::read_dir(dir).map_err(|e| e.to_string())? {
        let entry = entry.map_err(|e| e.to_string())?;
        let meta = entry.metadata().map_err(|e| e.to_string())?;
        total += if meta.is_dir() { dir_size(&entry.path())? } else { meta.len() };
    }
    Ok(total)
}

fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).map_err(|e| format!("chmod {}: {e}", path.display()))
}

/// The bundle's `filecoin.sh`: one Filecoin kind and size end to end with
/// `bin/cuzk` (synthetic inputs, parameters on the GPU, first proof, steady
/// state, filecoin-proofs' verifier), the issue-22 measurements of
/// docs/PERF.md. Not run by run.sh: a 32 GiB kind takes most of a call.
const FILECOIN_SH: &str = include_str!("filecoin.sh");

const RUN_SH: &str = r#"#!/bin/sh
# Runs every binary of this GPU bundle (built by `cargo xtask gpu-bundle`).
# The binaries travel gzipped (bin/NAME.gz); they are unpacked to bin/NAME
# first, so bin/cuzk and the others can also be run by hand afterwards.
# `run.sh --unpack` only unpacks. Output: <dir>/bundle.log (all output) and <dir>/results.jsonl (one line per
# binary, each with the commit the bundle was built from), where <dir> is
# $1, else $OUT, else ./results. Exit status is non-zero if any binary failed.
set -u
commit=@COMMIT@
dirty=@DIRTY@
here=$(cd "$(dirname "$0")" && pwd)
for packed in "$here"/bin/*.gz; do
    [ -e "$packed" ] || continue
    plain=${packed%.gz}
    if [ ! -x "$plain" ] || [ "$packed" -nt "$plain" ]; then
        gunzip -c "$packed" >"$plain.tmp" && chmod +x "$plain.tmp" && mv "$plain.tmp" "$plain" || {
            echo "run.sh: cannot unpack $packed" >&2
            exit 1
        }
    fi
done
[ "${1:-}" = "--unpack" ] && exit 0
out=${1:-${OUT:-$here/results}}
mkdir -p "$out"
: >"$out/results.jsonl"
echo "bundle built from commit $commit (uncommitted changes: $dirty)" | tee "$out/bundle.log"
failed=0

run() {
    name=$1
    shift
    echo "=== $name $*" | tee -a "$out/bundle.log"
    start=$(date +%s.%N)
    "$here/bin/$name" "$@" >"$out/.current.log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    cat "$out/.current.log" | tee -a "$out/bundle.log"
    rm -f "$out/.current.log"
    secs=$(awk "BEGIN { printf \"%.2f\", $end - $start }")
    echo "{\"binary\":\"$name\",\"exit\":$rc,\"seconds\":$secs,\"commit\":\"$commit\",\"dirty\":$dirty}" | tee -a "$out/results.jsonl"
    [ "$rc" -eq 0 ] || failed=1
}

@RUNS@

exit $failed
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_oversized_bundle_names_the_command_whose_bundle_travels() {
        let said = over_carry(115_536_277);
        assert!(said.contains("115536277 bytes") && said.contains(&CARRY_BYTES.to_string()), "{said}");
        assert!(said.contains("CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle --only cuzk-gpu,cuzk,kernels"), "{said}");
        for name in ["cuzk-gpu", "cuzk", "kernels"] {
            assert!(ARTIFACTS.iter().any(|a| a.name() == name), "--only {name} is not an artifact");
        }
    }

    #[test]
    fn only_test_harnesses_are_taken_for_tests() {
        let line = |exe: &str, test: bool| {
            format!(
                r#"{{"reason":"compiler-artifact","profile":{{"opt_level":"3","test":{test}}},"executable":"{exe}","fresh":true}}"#
            )
        };
        let harness = line("/t/release/deps/gpu_filecoin-0123456789abcdef", true);
        let cli = line("/t/release/cuzk", false);
        assert_eq!(executable(&harness, false).map(|(n, _)| n).as_deref(), Some("gpu_filecoin"));
        assert_eq!(executable(&cli, false), None, "the binary built for a test is not a test");
        assert_eq!(executable(&cli, true).map(|(n, _)| n).as_deref(), Some("cuzk"));
        assert_eq!(executable(r#"{"reason":"build-finished","success":true}"#, true), None);
        assert_eq!(executable(&line("/t/release/deps/libx.rlib", true).replace("\"executable\":\"/t/release/deps/libx.rlib\"", "\"executable\":null"), false), None);
    }

    #[test]
    fn the_workspace_commit_is_found() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let commit = source_commit(root).unwrap();
        assert_eq!(commit.hash.len(), 40, "{}", commit.hash);
    }

    /// run.sh runs a stand-in binary and stamps bundle.log and every
    /// results.jsonl line with the commit it was built from.
    #[test]
    fn run_sh_records_the_commit_with_every_result() {
        let dir = std::env::temp_dir().join(format!("cuzk-bundle-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("bin")).unwrap();
        let fake = dir.join("bin/fake");
        fs::write(&fake, "#!/bin/sh\necho fake ran \"$@\"\n").unwrap();
        make_executable(&fake).unwrap();
        let commit = Commit { hash: "0123456789abcdef0123456789abcdef01234567".into(), dirty: true };
        let script = dir.join("run.sh");
        fs::write(&script, run_script(&commit, &["run fake --bench".to_string()])).unwrap();
        make_executable(&script).unwrap();
        let out = dir.join("results");
        let status = Command::new(&script).arg(&out).status().unwrap();
        assert!(status.success());
        let results = fs::read_to_string(out.join("results.jsonl")).unwrap();
        assert_eq!(results.lines().count(), 1, "{results}");
        assert!(
            results.contains("\"binary\":\"fake\"") && results.contains(&format!("\"commit\":\"{}\",\"dirty\":true", commit.hash)),
            "{results}"
        );
        let log = fs::read_to_string(out.join("bundle.log")).unwrap();
        assert!(log.starts_with(&format!("bundle built from commit {} (uncommitted changes: true)", commit.hash)), "{log}");
        assert!(log.contains("fake ran --bench"), "{log}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
