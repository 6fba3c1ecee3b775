//! The import-circle check of the Rust sources, run by tidy: within a
//! crate, no file may reach itself through `use` paths (`crate::`, `super::`,
//! `self::`) to other files. Files that import each other have no order to
//! read them in, and neither can be moved or split without the other; the
//! shared piece belongs in a file below both.
//!
//! A `use` path names the file of its longest prefix that is a module of the
//! crate (`crate::a::b::C` is `a/b.rs` or `a/b/mod.rs` when that exists,
//! else `a.rs`). Test code (from a file's first `#[cfg(test)]` on) is left
//! out: a test module may import whatever it tests.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::shell;

/// Every circle of every crate under crates/ and benches/.
pub fn problems() -> Vec<String> {
    let root = shell::root();
    let mut dirs: Vec<PathBuf> =
        fs::read_dir(root.join("crates")).map(|e| e.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    dirs.push(root.join("benches"));
    dirs.sort();
    let mut out = Vec::new();
    for src in dirs.iter().map(|d| d.join("src")).filter(|s| s.is_dir()) {
        let mut paths = Vec::new();
        rust_files(&src, &mut paths);
        let files: Vec<(String, String)> = paths
            .into_iter()
            .map(|f| {
                let rel = f.strip_prefix(&src).unwrap_or(&f).to_string_lossy().replace('\\', "/");
                (rel, fs::read_to_string(&f).unwrap_or_default())
            })
            .collect();
        for circle in circles(&files) {
            out.push(format!("{}: files import each other: {}", src.display(), circle.join(" -> ")));
        }
    }
    out
}

/// The .rs files under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir).map(|e| e.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The circles among `files` ((path under src/, text) pairs), each as its
/// files in a cycle order, first file repeated last.
pub fn circles(files: &[(String, String)]) -> Vec<Vec<String>> {
    let modules: BTreeMap<Vec<String>, usize> = files.iter().enumerate().map(|(i, (p, _))| (module_of(p), i)).collect();
    let edges: Vec<BTreeSet<usize>> = files
        .iter()
        .enumerate()
        .map(|(i, (path, text))| {
            let here = module_of(path);
            imports(text)
                .iter()
                .filter_map(|u| resolve(&here, u))
                .filter_map(|full| (0..=full.len()).rev().find_map(|n| modules.get(&full[..n]).copied()))
                .filter(|&j| j != i)
                .collect()
        })
        .collect();
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    for start in 0..files.len() {
        if seen.contains(&start) {
            continue;
        }
        if let Some(cycle) = cycle_through(start, &edges) {
            seen.extend(cycle.iter().copied());
            let mut names: Vec<String> = cycle.iter().map(|&i| files[i].0.clone()).collect();
            names.push(names[0].clone());
            found.push(names);
        }
    }
    found
}

/// A path of edges from `start` back to it, if any (breadth first, so the
/// shortest).
fn cycle_through(start: usize, edges: &[BTreeSet<usize>]) -> Option<Vec<usize>> {
    let mut parent: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &edges[v] {
            if w == start {
                let mut path = vec![v];
                while let Some(&p) = parent.get(path.last().unwrap()) {
                    path.push(p);
                }
                path.reverse();
                return Some(path);
            }
            if !parent.contains_key(&w) {
                parent.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    None
}

/// The module path of a file under src/: `lib.rs` and `main.rs` are the
/// root, `a/mod.rs` is `a`, `a/b.rs` is `a::b`.
fn module_of(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        return Vec::new();
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The `use` paths of a file's non-test code, braces expanded.
fn imports(text: &str) -> Vec<String> {
    let code = text.find("#[cfg(test)]").map_or(text, |k| &text[..k]);
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = find_use(rest) {
        let tail = &rest[at..];
        let Some(end) = tail.find(';') else { break };
        out.extend(expand(tail[..end].trim()));
        rest = &tail[end..];
    }
    out
}

/// Where the next `use` statement's path starts: after `use ` at the start
/// of a line (after any `pub`, `pub(crate)`, `pub(super)`).
fn find_use(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let after_vis = if trimmed.starts_with("pub") {
            let rest = trimmed.trim_start_matches("pub");
            let rest = if rest.starts_with('(') { rest.find(')').map_or(rest, |c| &rest[c + 1..]) } else { rest };
            rest.trim_start()
        } else {
            trimmed
        };
        if let Some(path) = after_vis.strip_prefix("use ") {
            return Some(offset + (line.len() - path.len()));
        }
        offset += line.len();
    }
    None
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e` (aliases dropped).
fn expand(path: &str) -> Vec<String> {
    let path: String = path.split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(open) = path.find('{') else {
        return vec![path.split(" as ").next().unwrap_or("").trim().to_string()];
    };
    let close = path.rfind('}').unwrap_or(path.len());
    let prefix = &path[..open];
    let inner = &path[open + 1..close];
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, ch) in inner.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).flat_map(|p| expand(&format!("{prefix}{}", p.trim()))).collect()
}

/// The crate-absolute module path a `use` path names from module `here`,
/// or None for paths into other crates.
fn resolve(here: &[String], path: &str) -> Option<Vec<String>> {
    let segs: Vec<&str> = path.split("::").map(str::trim).collect();
    let (mut base, rest): (Vec<String>, &[&str]) = match segs.first()? {
        &"crate" => (Vec::new(), &segs[1..]),
        &"self" => (here.to_vec(), &segs[1..]),
        &"super" => (here.to_vec(), &segs[..]),
        _ => return None,
    };
    let mut rest = rest;
    while rest.first() == Some(&"super") {
        base.pop();
        rest = &rest[1..];
    }
    base.extend(rest.iter().map(|s| s.to_string()));
    Some(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect()
    }

    #[test]
    fn the_workspace_has_no_import_circle() {
        assert_eq!(problems(), Vec::<String>::new());
    }

    #[test]
    fn a_planted_circle_is_found_and_test_code_is_not_counted() {
        let planted = files(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "use crate::b::B;\npub struct A;\n"),
            ("b.rs", "pub(crate) use super::a::{self, A as Alias};\npub struct B;\n"),
        ]);
        assert_eq!(circles(&planted), vec![vec!["a.rs", "b.rs", "a.rs"]]);
        let through_mod = files(&[
            ("s/mod.rs", "mod x;\npub use self::x::X;\npub struct T;\n"),
            ("s/x.rs", "use super::{T, y::{Y}};\n"),
            ("s/y.rs", "pub struct Y;\n"),
        ]);
        assert_eq!(circles(&through_mod), vec![vec!["s/mod.rs", "s/x.rs", "s/mod.rs"]]);
        let tests_only = files(&[
            ("a.rs", "use crate::b::B;\n#[cfg(test)]\nmod tests { use crate::b::*; }\n"),
            ("b.rs", "pub struct B;\n#[cfg(test)]\nmod tests {\n    use crate::a::*;\n}\n"),
        ]);
        assert_eq!(circles(&tests_only), Vec::<Vec<String>>::new());
        // Other crates' paths are not this crate's files.
        assert_eq!(circles(&files(&[("a.rs", "use b::B;\n"), ("b.rs", "use a::A;\n")])), Vec::<Vec<String>>::new());
    }

    #[test]
    fn use_paths_expand_and_resolve() {
        assert_eq!(expand("crate::a::{b, c::{d, e as f}}"), ["crate::a::b", "crate::a::c::d", "crate::a::c::e"]);
        assert_eq!(resolve(&["x".into(), "y".into()], "super::super::z::W"), Some(vec!["z".into(), "W".into()]));
        assert_eq!(resolve(&[], "std::fmt"), None);
        assert_eq!(module_of("a/mod.rs"), ["a"]);
        assert_eq!(module_of("main.rs"), Vec::<String>::new());
    }
}
