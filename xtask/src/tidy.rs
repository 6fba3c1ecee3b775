//! The project's standing checks, run as tests (`cargo xtask tidy` or any
//! `cargo test`), so a violation fails CI like a broken test would.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{includes, shell};

/// The layers, lowest first: a crate may depend only on crates before it.
const LAYERS: &[&str] =
    &["cuzk-synth", "cuzk-groth16", "cuzk-ffi", "cuzk-gpu", "cuzk-pipeline", "cuzk"];

/// The one crate allowed to contain `unsafe`.
const UNSAFE_CRATE: &str = "cuzk-ffi";

pub fn run(_: &[String]) -> Result<(), String> {
    let problems: Vec<String> =
        [layering(), unsafe_fenced(), readme_commands(), no_skipped_tests(), includes::problems()].concat();
    if problems.is_empty() {
        eprintln!("tidy: all checks pass");
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// Upward dependencies between workspace crates.
fn layering() -> Vec<String> {
    let mut problems = Vec::new();
    for (rank, krate) in LAYERS.iter().enumerate() {
        let manifest = shell::root().join("crates").join(krate).join("Cargo.toml");
        let text = fs::read_to_string(&manifest).unwrap_or_default();
        for dep in workspace_deps(&text) {
            match LAYERS.iter().position(|l| *l == dep) {
                Some(dep_rank) if dep_rank >= rank => problems.push(format!(
                    "{krate} depends on {dep}, which is not below it in the layering {LAYERS:?}"
                )),
                _ => {}
            }
        }
    }
    problems
}

/// Names of `cuzk*` crates a manifest depends on (any dependency table).
fn workspace_deps(manifest: &str) -> Vec<String> {
    manifest
        .lines()
        .map(str::trim)
        .filter_map(|l| {
            let name = l.split(['=', '.', ' ']).next()?;
            (name.starts_with("cuzk") && l.contains('=')).then(|| name.to_string())
        })
        .collect()
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

/// Tests that are skipped or that pass by panicking hide failures.
fn no_skipped_tests() -> Vec<String> {
    let mut problems = Vec::new();
    let root = shell::root();
    for file in [root.join("crates"), root.join("xtask"), root.join("benches")]
        .iter()
        .flat_map(|d| rust_files(d))
    {
        if file.ends_with("tidy.rs") {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            if line.contains("#[ignore") || line.contains("#[should_panic") {
                problems.push(format!("{}:{}: skipped or should_panic test", file.display(), n + 1));
            }
        }
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
    fn crates_depend_only_on_lower_layers() {
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
        let manifest = "[dependencies]\ncuzk-synth.workspace = true\ncuzk-gpu = { path = \"x\" }\nrayon = \"1\"\n";
        assert_eq!(workspace_deps(manifest), vec!["cuzk-synth", "cuzk-gpu"]);
    }
}
