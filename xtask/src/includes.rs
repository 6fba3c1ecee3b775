//! The include-order check of the native code (cpp/, cuda/), run by tidy.
//!
//! The kernels are layered like the crates: `cuda/util` (errors, CUDA
//! helpers, timers, the r1cs view) below everything, then
//! `ff → ec → msm | ntt | spmv → api`; msm, ntt and spmv are siblings and do
//! not include each other. Host code in cpp/ sits above all of cuda/, so it
//! may include any of it, and nothing under cuda/ may include cpp/. Each
//! library file opens with a `//!` comment saying what it is for, and a
//! comment that names a path under cpp/ or cuda/ names one that exists, so
//! moving a file cannot leave its readers pointing at nothing.

use std::fs;
use std::path::Path;

use crate::shell;

/// The folders under cuda/, lowest first; folders of one rank are siblings.
const CUDA_LAYERS: &[(&str, u32)] =
    &[("util", 0), ("ff", 1), ("ec", 2), ("msm", 3), ("ntt", 3), ("spmv", 3), ("api", 4)];

/// The rank of cpp/, above every cuda/ folder.
const CPP_RANK: u32 = 5;

/// Extensions of the library files the check reads.
const EXTENSIONS: &[&str] = &["hpp", "cuh", "cu", "cpp", "h"];

/// One native source file: its path from the repository root ('/'-separated)
/// and its text.
pub struct Source {
    pub path: String,
    pub text: String,
}

/// Every problem of the native tree on disk.
pub fn problems() -> Vec<String> {
    let root = shell::root();
    let mut sources = Vec::new();
    for top in ["cpp", "cuda"] {
        collect(&root, &root.join(top), &mut sources);
    }
    check(&sources, &|path| root.join(path).exists())
}

/// Every problem of `sources`; `exists` says whether a path from the root
/// names a file or folder.
pub fn check(sources: &[Source], exists: &dyn Fn(&str) -> bool) -> Vec<String> {
    let known: Vec<&str> = sources.iter().map(|s| s.path.as_str()).collect();
    let mut out = Vec::new();
    for s in sources {
        if !s.text.starts_with("//!") {
            out.push(format!("{}: does not open with a `//!` comment saying what it is for", s.path));
        }
        for (n, line) in s.text.lines().enumerate() {
            let at = format!("{}:{}", s.path, n + 1);
            if let Some(target) = included(line).map(|inc| resolve(&s.path, inc)) {
                if known.contains(&target.as_str()) && !allowed(&s.path, &target) {
                    out.push(format!("{at}: includes {target}, which is not below it (util → ff → ec → msm | ntt | spmv → api → cpp)"));
                }
            }
            if let Some((_, comment)) = line.split_once("//") {
                for path in named_paths(comment) {
                    if !exists(path) {
                        out.push(format!("{at}: the comment names {path}, which does not exist"));
                    }
                }
            }
        }
    }
    out
}

/// The quoted path of an `#include "…"` line.
fn included(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("#include")?.trim_start().strip_prefix('"')?;
    rest.split_once('"').map(|(path, _)| path)
}

/// `include` as a path from the root, read from the folder of `from`.
fn resolve(from: &str, include: &str) -> String {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for part in include.split('/') {
        match part {
            ".." => {
                parts.pop();
            }
            "." => {}
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// The layer of a path: its rank and its folder (siblings share a rank).
fn layer(path: &str) -> Option<(u32, &str)> {
    let mut parts = path.split('/');
    match parts.next()? {
        "cpp" => Some((CPP_RANK, "cpp")),
        "cuda" => {
            let folder = parts.next()?;
            CUDA_LAYERS.iter().find(|(name, _)| *name == folder).map(|&(name, rank)| (rank, name))
        }
        _ => None,
    }
}

/// Whether `from` may include `to`: a lower layer, or its own folder.
fn allowed(from: &str, to: &str) -> bool {
    match (layer(from), layer(to)) {
        (Some((from_rank, from_folder)), Some((to_rank, to_folder))) => {
            to_rank < from_rank || to_folder == from_folder
        }
        // A folder outside the table is not layered yet: a new one must be
        // added to CUDA_LAYERS before anything includes it.
        _ => false,
    }
}

/// The paths under cpp/ or cuda/ a comment names.
fn named_paths(comment: &str) -> Vec<&str> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "_./-".contains(c);
    let mut out = Vec::new();
    for top in ["cpp/", "cuda/"] {
        let mut from = 0;
        while let Some(i) = comment[from..].find(top).map(|i| i + from) {
            from = i + top.len();
            let before = comment[..i].chars().next_back();
            if before.is_some_and(|c| is_path_char(c) || c == '<') {
                continue;
            }
            let end = comment[i..].find(|c: char| !is_path_char(c)).map_or(comment.len(), |e| e + i);
            let path = comment[i..end].trim_end_matches(['.', ',', '-']);
            if path.len() > top.len() {
                out.push(path);
            }
        }
    }
    out
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<Source>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            collect(root, &path, out);
        } else if path.extension().is_some_and(|e| EXTENSIONS.iter().any(|x| e == *x)) {
            let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            out.push(Source { path: rel, text: fs::read_to_string(&path).unwrap_or_default() });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(path: &str, text: &str) -> Source {
        Source { path: path.into(), text: text.into() }
    }

    /// A small tree that passes: each file headed, includes going down.
    fn tree() -> Vec<Source> {
        vec![
            source("cuda/util/error.hpp", "//! Errors.\n#pragma once\n"),
            source("cuda/ff/mont.hpp", "//! Fields.\n#include \"../util/error.hpp\"\n"),
            source("cuda/msm/digits.hpp", "//! Digits.\n#include \"../ff/mont.hpp\"\n"),
            source("cuda/msm/kernels.cuh", "//! Kernels (digits.hpp).\n#include \"digits.hpp\"\n"),
            source("cuda/ntt/roots.hpp", "//! Roots.\n#include \"../ff/mont.hpp\"\n"),
            source("cuda/api/msm.cu", "//! Entry points.\n#include \"../msm/kernels.cuh\"\n#include \"cuzk-ffi/src/lib.rs.h\"\n"),
            source("cpp/host.cpp", "//! Host code over cuda/msm/kernels.cuh.\n#include \"../cuda/api/msm.cu\"\n#include \"rust/cxx.h\"\n"),
        ]
    }

    fn exists_in(sources: &[Source]) -> impl Fn(&str) -> bool + '_ {
        |p: &str| sources.iter().any(|s| s.path == p || s.path.starts_with(&format!("{}/", p.trim_end_matches('/'))))
    }

    fn check_tree(sources: &[Source]) -> Vec<String> {
        check(sources, &exists_in(sources))
    }

    #[test]
    fn the_native_tree_passes() {
        assert_eq!(problems(), Vec::<String>::new());
    }

    #[test]
    fn a_well_layered_tree_passes() {
        assert_eq!(check_tree(&tree()), Vec::<String>::new());
    }

    #[test]
    fn a_kernel_including_host_code_fails() {
        let mut t = tree();
        t[1] = source("cuda/ff/mont.hpp", "//! Fields.\n#include \"../../cpp/host.cpp\"\n");
        assert_eq!(check_tree(&t), vec!["cuda/ff/mont.hpp:2: includes cpp/host.cpp, which is not below it (util → ff → ec → msm | ntt | spmv → api → cpp)"]);
    }

    #[test]
    fn an_upward_or_sideways_include_fails() {
        let mut t = tree();
        t[0] = source("cuda/util/error.hpp", "//! Errors.\n#include \"../ff/mont.hpp\"\n");
        t[4] = source("cuda/ntt/roots.hpp", "//! Roots.\n#include \"../msm/digits.hpp\"\n");
        let found = check_tree(&t);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("cuda/util/error.hpp:2: includes cuda/ff/mont.hpp"), "{found:?}");
        assert!(found[1].starts_with("cuda/ntt/roots.hpp:2: includes cuda/msm/digits.hpp"), "{found:?}");
    }

    #[test]
    fn a_file_without_a_header_comment_fails() {
        let mut t = tree();
        t[2] = source("cuda/msm/digits.hpp", "// Digits.\n#include \"../ff/mont.hpp\"\n");
        assert_eq!(check_tree(&t), vec!["cuda/msm/digits.hpp: does not open with a `//!` comment saying what it is for"]);
    }

    #[test]
    fn a_comment_naming_a_missing_path_fails() {
        let mut t = tree();
        t[3] = source("cuda/msm/kernels.cuh", "//! Kernels (see cpp/msm_hooks.cpp, cuda/msm/).\n");
        assert_eq!(check_tree(&t), vec!["cuda/msm/kernels.cuh:1: the comment names cpp/msm_hooks.cpp, which does not exist"]);
    }

    #[test]
    fn paths_are_read_from_comments_and_includes_resolved() {
        assert_eq!(named_paths(" the host (cpp/groth16/prove.cpp), cuda/ff and cuda/ types."), vec!["cpp/groth16/prove.cpp", "cuda/ff"]);
        assert_eq!(named_paths(" ../../cuda/api/x.cu and <cuda/std>"), Vec::<&str>::new());
        assert_eq!(resolve("cpp/groth16/srs.cpp", "../../cuda/api/msm.hpp"), "cuda/api/msm.hpp");
        assert_eq!(included("  #include \"a/b.hpp\"  // why"), Some("a/b.hpp"));
        assert_eq!(included("#include <vector>"), None);
    }
}
