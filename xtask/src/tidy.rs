//! The project's standing checks, run as tests (`cargo xtask tidy` or any
//! `cargo test`), so a violation fails CI like a broken test would.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{circles, includes, shell, skips};

/// The workspace crates each crate may depend on (in any dependency table).
/// Crates named here but absent from the tree are simply not checked; a
/// crate in the tree but not named here fails the check.
const ALLOWED: &[(&str, &[&str])] = &[
    // Circuits, then the maths of Groth16: no GPU, engine or RPC words.
    ("cuzk-synth", &[]),
    ("cuzk-groth16", &["cuzk-synth"]),
    // The bridge sits under the safe GPU API because only it may hold `unsafe`.
    ("cuzk-ffi", &["cuzk-synth", "cuzk-groth16"]),
    ("cuzk-gpu", &["cuzk-synth", "cuzk-groth16", "cuzk-ffi"]),
    ("cuzk-pipeline", &["cuzk-synth", "cuzk-groth16", "cuzk-ffi", "cuzk-gpu"]),
    // Filecoin's proof kinds are circuits and parameters: they know no GPU,
    // no engine and no gRPC, so they stay usable (and testable) anywhere.
    ("cuzk-filecoin", &["cuzk-synth", "cuzk-groth16"]),
    // The facade and the binary; `cuzk daemon` comes from cuzk-daemon (which
    // must not depend on cuzk in turn).
    ("cuzk", &["cuzk-synth", "cuzk-groth16", "cuzk-ffi", "cuzk-gpu", "cuzk-pipeline", "cuzk-filecoin", "cuzk-daemon"]),
    // The daemon drives the engine; it reaches devices only through it.
    ("cuzk-daemon", &["cuzk-synth", "cuzk-groth16", "cuzk-pipeline", "cuzk-filecoin"]),
    ("cuzk-benches", &["cuzk-synth", "cuzk-groth16", "cuzk-ffi", "cuzk-gpu", "cuzk-pipeline", "cuzk-filecoin", "cuzk"]),
];

/// Third-party crates (and their `name-*` companions) that one crate alone
/// may depend on: an async runtime and gRPC only in the daemon, so that
/// every other crate stays free of any runtime; the C++ bridge and native
/// builds only in the bridge crate.
const RESERVED: &[(&str, &[&str])] = &[
    ("cuzk-daemon", &["tokio", "tonic", "prost", "futures", "async-std", "smol"]),
    ("cuzk-ffi", &["cxx", "cc"]),
];

/// The workspace crates `name` may depend on, per [`ALLOWED`] (none for a
/// crate the table does not name).
pub fn allowed_dependencies(name: &str) -> &'static [&'static str] {
    ALLOWED.iter().find(|(k, _)| *k == name).map_or(&[], |(_, deps)| deps)
}

/// The one crate allowed to contain `unsafe`.
const UNSAFE_CRATE: &str = "cuzk-ffi";

pub fn run(_: &[String]) -> Result<(), String> {
    let problems: Vec<String> =
        [layering(), unsafe_fenced(), readme_commands(), no_skipped_tests(), includes::problems(), circles::problems()]
            .concat();
    if problems.is_empty() {
        eprintln!("tidy: all checks pass");
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// Dependencies the tables above forbid, over every crate's manifest.
fn layering() -> Vec<String> {
    let root = shell::root();
    let mut dirs: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.push(root.join("benches"));
    let manifests: Vec<(String, String)> = dirs
        .iter()
        .map(|d| d.join("Cargo.toml"))
        .filter(|m| m.is_file())
        .map(|m| (m.display().to_string(), fs::read_to_string(&m).unwrap_or_default()))
        .collect();
    if manifests.len() < 2 {
        return vec![format!("found {} manifests under crates/ and benches/: the check would pass unread", manifests.len())];
    }
    dependency_problems(&manifests)
}

/// The check itself, over (path, text) pairs so that a test can plant a
/// violation.
fn dependency_problems(manifests: &[(String, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (path, text) in manifests {
        let Some(name) = package_name(text) else {
            problems.push(format!("{path}: no [package] name"));
            continue;
        };
        let Some((_, allowed)) = ALLOWED.iter().find(|(k, _)| *k == name) else {
            problems.push(format!("{path}: crate {name} is not in tidy's dependency table (xtask/src/tidy.rs ALLOWED)"));
            continue;
        };
        for dep in dependencies(text) {
            let workspace_crate = dep.starts_with("cuzk") || ALLOWED.iter().any(|(k, _)| *k == dep);
            if workspace_crate && !allowed.contains(&dep.as_str()) {
                problems.push(format!("{path}: {name} depends on {dep}; it may depend on {allowed:?}"));
            }
            for (owner, reserved) in RESERVED {
                let is_reserved = reserved.iter().any(|r| dep == *r || dep.starts_with(&format!("{r}-")));
                if is_reserved && name != *owner {
                    problems.push(format!("{path}: {name} depends on {dep}, which only {owner} may"));
                }
            }
        }
    }
    problems
}

/// The `name` of a manifest's `[package]`.
pub fn package_name(manifest: &str) -> Option<String> {
    let mut in_package = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if let Some(value) = line.strip_prefix("name").and_then(|r| r.trim_start().strip_prefix('=')) {
            if in_package {
                return Some(value.trim().trim_matches('"').to_string());
            }
        }
    }
    None
}

/// Names of every dependency a manifest declares, in `[dependencies]`,
/// `[dev-dependencies]`, `[build-dependencies]` (target-specific ones too)
/// and the `[dependencies.NAME]` form.
fn dependencies(manifest: &str) -> Vec<String> {
    const TABLES: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    let mut out = Vec::new();
    let mut in_table = false;
    for line in manifest.lines().map(str::trim) {
        if let Some(header) = line.strip_prefix('[') {
            let parts: Vec<&str> = header.trim_end_matches(']').split('.').map(str::trim).collect();
            in_table = parts.last().is_some_and(|p| TABLES.contains(p));
            if let [.., table, name] = parts.as_slice() {
                if TABLES.contains(table) {
                    out.push(name.trim_matches('"').to_string());
                }
            }
        } else if in_table && line.contains('=') && !line.starts_with('#') {
            let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
            out.push(name.trim_matches('"').to_string());
        }
    }
    out
}

/// `unsafe` outside the bridge crate.
fn unsafe_fenced() -> Vec<String> {
    let mut problems = Vec::new();
    for file in rust_files(&shell::root().join("crates")) {
        if file.components().any(|c| c.as_os_str() == UNSAFE_CRATE) {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("unsafe ") || code.contains("unsafe{") {
                problems.push(format!("{}:{}: unsafe outside {UNSAFE_CRATE}", file.display(), n + 1));
            }
        }
    }
    problems
}

/// Tests that are skipped, pass by panicking or return before asserting
/// hide failures (the convention is in `skips.rs`).
fn no_skipped_tests() -> Vec<String> {
    let root = shell::root();
    let files: Vec<PathBuf> =
        [root.join("crates"), root.join("xtask"), root.join("benches")].iter().flat_map(|d| rust_files(d)).collect();
    if files.len() < 10 {
        return vec![format!("found {} Rust files under crates/, xtask/ and benches/: the check would pass unread", files.len())];
    }
    let (problems, tests) = skips::problems(&files);
    if tests < 100 {
        return vec![format!("read only {tests} #[test] functions: the skip check would pass unread")];
    }
    problems
}

/// The README must open with the two commands a new user runs.
fn readme_commands() -> Vec<String> {
    let text = fs::read_to_string(shell::root().join("README.md")).unwrap_or_default();
    ["cargo xtask bench", "cargo xtask test"]
        .iter()
        .filter(|c| !text.contains(*c))
        .map(|c| format!("README.md does not show `{c}`"))
        .collect()
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else { return out };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                out.extend(rust_files(&path));
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crates_depend_only_on_what_the_table_allows() {
        assert_eq!(layering(), Vec::<String>::new());
    }

    #[test]
    fn unsafe_code_lives_only_in_the_bridge() {
        assert_eq!(unsafe_fenced(), Vec::<String>::new());
    }

    #[test]
    fn no_test_is_skipped() {
        assert_eq!(no_skipped_tests(), Vec::<String>::new());
    }

    #[test]
    fn readme_shows_the_two_commands() {
        assert_eq!(readme_commands(), Vec::<String>::new());
    }

    #[test]
    fn dependency_names_are_parsed_from_every_table_form() {
        let manifest = "[package]\nname = \"cuzk-x\"\n[features]\ncuzk-gpu = []\n[dependencies]\n\
                        cuzk-synth.workspace = true\ncuzk-gpu = { path = \"x\" }\n# tokio = \"1\"\nrayon = \"1\"\n\
                        [target.'cfg(unix)'.dev-dependencies]\nlibc = \"0.2\"\n[build-dependencies.cc]\nversion = \"1\"\n";
        assert_eq!(dependencies(manifest), vec!["cuzk-synth", "cuzk-gpu", "rayon", "libc", "cc"]);
        assert_eq!(package_name(manifest).as_deref(), Some("cuzk-x"));
    }

    /// A manifest for crate `name` with these dependency lines.
    fn manifest(name: &str, deps: &[&str]) -> (String, String) {
        (format!("crates/{name}/Cargo.toml"), format!("[package]\nname = \"{name}\"\n\n[dependencies]\n{}\n", deps.join("\n")))
    }

    fn check(manifests: &[(String, String)], expected: &[&str]) {
        let problems = dependency_problems(manifests);
        assert_eq!(problems.len(), expected.len(), "{problems:?}");
        for (p, e) in problems.iter().zip(expected) {
            assert!(p.contains(e), "{p:?} should say {e:?}");
        }
    }

    #[test]
    fn a_planted_violation_fails_the_check() {
        check(&[manifest("cuzk-filecoin", &["cuzk-synth.workspace = true", "cuzk-groth16.workspace = true"])], &[]);
        check(&[manifest("cuzk-filecoin", &["cuzk-gpu.workspace = true"])], &["cuzk-filecoin depends on cuzk-gpu"]);
        check(&[manifest("cuzk-filecoin", &["cuzk-pipeline = { path = \"../p\" }"])], &["depends on cuzk-pipeline"]);
        check(&[manifest("cuzk-synth", &["cuzk-groth16.workspace = true"])], &["cuzk-synth depends on cuzk-groth16"]);
        check(&[manifest("cuzk-daemon", &["cuzk-gpu.workspace = true"])], &["cuzk-daemon depends on cuzk-gpu"]);
        check(&[manifest("cuzk-daemon", &["cuzk.workspace = true"])], &["cuzk-daemon depends on cuzk;"]);
        check(&[manifest("cuzk", &["cuzk-daemon = { path = \"../cuzk-daemon\", optional = true }"])], &[]);
        check(&[manifest("cuzk-new", &[])], &["cuzk-new is not in tidy's dependency table"]);
    }

    #[test]
    fn async_runtimes_and_grpc_belong_to_the_daemon_and_cxx_to_the_bridge() {
        let daemon = ["tokio = \"1\"", "tonic = \"0.12\"", "prost = \"0.13\"", "futures-util = \"0.3\"", "cuzk-pipeline.workspace = true"];
        check(&[manifest("cuzk-daemon", &daemon)], &[]);
        check(&[manifest("cuzk-pipeline", &["tokio = \"1\""])], &["cuzk-pipeline depends on tokio, which only cuzk-daemon may"]);
        check(&[manifest("cuzk-filecoin", &["async-std = \"1\""])], &["only cuzk-daemon"]);
        check(&[manifest("cuzk", &["futures-executor = \"0.3\""])], &["only cuzk-daemon"]);
        check(&[manifest("cuzk-gpu", &["cxx.workspace = true"])], &["cuzk-gpu depends on cxx, which only cuzk-ffi may"]);
        check(&[manifest("cuzk-ffi", &["cxx.workspace = true", "cxx-build.workspace = true", "cc = \"1\""])], &[]);
        check(&[manifest("cuzk-gpu", &["ccache-lookalike = \"1\""])], &[]);
    }

    #[test]
    fn the_table_allows_only_crates_it_names() {
        for (krate, allowed) in ALLOWED {
            for dep in *allowed {
                assert!(ALLOWED.iter().any(|(k, _)| k == dep), "{krate} may use {dep}, which has no row");
                assert_ne!(krate, dep);
            }
        }
    }
}
