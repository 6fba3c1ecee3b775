//! Tidy's skip check: a test that does not run its assertions must not be
//! reported as passed.
//!
//! libtest counts a `#[test]` that returns early as passed, and has no way to
//! report it as skipped, so the convention is simple: a `#[test]` function
//! never skips. It may not be `#[ignore]`d, may not pass by panicking
//! (`#[should_panic]`), and may not `return` before its first assertion
//! (`if … { return; }`, `let … else { return }`). A test that depends on the
//! machine asserts in every branch (with a GPU: the device works; without:
//! the typed error), or belongs in the GPU tests' custom harness, the one
//! place that counts skips: it prints "no CUDA device: N GPU tests not run"
//! and fails unless CUZK_ALLOW_NO_GPU=1.
//!
//! The check reads source text with comments and literals blanked, so a
//! `return` in a string or a comment is not one.

use std::path::Path;

/// Macros that count as an assertion: the first one ends the region where a
/// `return` would skip the test.
const ASSERTIONS: &[&str] = &["assert", "assert_eq", "assert_ne", "debug_assert", "prop_assert", "prop_assert_eq",
    "prop_assert_ne", "panic", "unreachable"];

/// Every skip in `files`, as `path:line: what` lines, and the number of
/// `#[test]` functions read (so that a caller can tell a clean tree from one
/// the check did not understand).
pub fn problems(files: &[impl AsRef<Path>]) -> (Vec<String>, usize) {
    let mut out = Vec::new();
    let mut tests = 0;
    for file in files {
        let file = file.as_ref();
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let scan = scan(&text);
        tests += scan.tests;
        out.extend(scan.skips.into_iter().map(|(line, what)| format!("{}:{line}: {what}", file.display())));
    }
    (out, tests)
}

/// What the check found in one file.
pub struct Scan {
    /// The `#[test]` functions whose bodies were read.
    pub tests: usize,
    /// (1-based line, what is wrong) for every skip.
    pub skips: Vec<(usize, String)>,
}

/// The skips in one file's text.
pub fn scan(source: &str) -> Scan {
    let code = blank_comments_and_literals(source);
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut skips = Vec::new();
    let mut tests = 0;
    for attr in ["#[ignore", "#[should_panic"] {
        for (at, _) in code.match_indices(attr) {
            skips.push((line_of(at), format!("`{attr}]`: a skipped or should_panic test")));
        }
    }
    for (at, _) in code.match_indices("#[test]") {
        let Some((name, body)) = test_body(&code, at + "#[test]".len()) else { continue };
        tests += 1;
        let first_assert = ASSERTIONS
            .iter()
            .filter_map(|m| find_word(&code[body.clone()], m, true))
            .min()
            .unwrap_or(usize::MAX);
        if let Some(ret) = find_word(&code[body.clone()], "return", false) {
            if ret < first_assert {
                skips.push((
                    line_of(body.start + ret),
                    format!("test `{name}` returns before its first assertion: it would pass without testing"),
                ));
            }
        }
    }
    skips.sort();
    Scan { tests, skips }
}

/// The name and body (the range inside its braces) of the function that
/// follows a `#[test]` attribute ending at `from`.
fn test_body(code: &str, from: usize) -> Option<(String, std::ops::Range<usize>)> {
    let fn_at = from + find_word(&code[from..], "fn", false)?;
    let name: String = code[fn_at + 2..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let open = fn_at + code[fn_at..].find('{')?;
    let mut depth = 0usize;
    for (i, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((name, open + 1..open + i));
                }
            }
            _ => {}
        }
    }
    None
}

/// The offset of `word` in `code` as a whole identifier (followed by `!` when
/// `bang`, i.e. a macro call).
fn find_word(code: &str, word: &str, bang: bool) -> Option<usize> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(word).map(|(at, _)| at).find(|&at| {
        let before = code[..at].chars().next_back().is_some_and(ident);
        let rest = &code[at + word.len()..];
        let after = rest.chars().next().is_some_and(ident);
        !before && !after && (!bang || rest.trim_start().starts_with('!'))
    })
}

/// `source` with every comment, string and character literal replaced by
/// spaces (newlines kept, so offsets and line numbers stay true).
fn blank_comments_and_literals(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(&chars, i) {
            // r"…", r#"…"#, br#"…"#: ends at a quote followed by as many hashes.
            let open = i + chars[i..].iter().position(|&c| c == '"').unwrap_or(0) + 1;
            let close = (open..chars.len())
                .find(|&j| chars[j] == '"' && chars[j + 1..].iter().take(hashes).filter(|&&h| h == '#').count() == hashes)
                .map_or(chars.len(), |j| j + 1 + hashes);
            for &ch in &chars[i..close] {
                blank(&mut out, ch);
            }
            i = close;
        } else if c == '"' {
            blank(&mut out, c);
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                let step = if chars[i] == '\\' { 2 } else { 1 };
                for &ch in chars.iter().skip(i).take(step) {
                    blank(&mut out, ch);
                }
                i += step;
            }
            if i < chars.len() {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '\'' && char_literal_len(&chars[i..]).is_some() {
            let len = char_literal_len(&chars[i..]).unwrap_or(1);
            for &ch in &chars[i..i + len] {
                blank(&mut out, ch);
            }
            i += len;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The number of `#`s of a raw string literal starting at `i`, if one does.
fn raw_string_start(chars: &[char], i: usize) -> Option<usize> {
    let prev_ident = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    let start = match (chars.get(i), chars.get(i + 1)) {
        (Some('r'), _) => i + 1,
        (Some('b'), Some('r')) => i + 2,
        _ => return None,
    };
    let hashes = chars[start..].iter().take_while(|&&c| c == '#').count();
    (!prev_ident && chars.get(start + hashes) == Some(&'"')).then_some(hashes)
}

/// The length of a character literal at the start of `chars` (`'a'`,
/// `'\n'`, `'\u{1F600}'`), or `None` for a lifetime or label.
fn char_literal_len(chars: &[char]) -> Option<usize> {
    match chars.get(1)? {
        '\\' => chars.iter().skip(3).position(|&c| c == '\'').map(|p| p + 4),
        _ => (chars.get(2) == Some(&'\'')).then_some(3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines flagged in `source`, and that each message says `what`.
    fn flagged(source: &str, what: &str) -> Vec<usize> {
        let found = scan(source).skips;
        for (_, message) in &found {
            assert!(message.contains(what), "{message:?} should say {what:?}");
        }
        found.into_iter().map(|(line, _)| line).collect()
    }

    #[test]
    fn an_early_return_before_any_assertion_is_a_skip() {
        let planted = "#[test]\nfn needs_gpu() {\n    if gpu().is_err() {\n        return;\n    }\n    assert!(run());\n}\n";
        assert_eq!(flagged(planted, "`needs_gpu` returns before its first assertion"), vec![4]);
        let let_else = "#[test]\nfn t() {\n    let Ok(d) = open() else { return };\n    assert_eq!(d.n(), 1);\n}\n";
        assert_eq!(flagged(let_else, "`t` returns"), vec![3]);
        let no_assertion = "#[test]\nfn quiet() {\n    if skip() { return }\n    work();\n}\n";
        assert_eq!(flagged(no_assertion, "`quiet`"), vec![3]);
        let in_proptest = "proptest! {\n    #[test]\n    fn p(x in 0..9u8) {\n        if x == 0 { return Ok(()); }\n        \
                           prop_assert!(x > 0);\n    }\n}\n";
        assert_eq!(flagged(in_proptest, "`p` returns"), vec![4]);
        assert_eq!(scan(&[planted, let_else, no_assertion, in_proptest].concat()).tests, 4);
    }

    #[test]
    fn a_return_after_an_assertion_or_in_another_function_is_not() {
        let after = "#[test]\nfn t() -> Result<(), E> {\n    assert_eq!(f()?, 1);\n    return Ok(());\n}\n";
        assert_eq!(flagged(after, ""), Vec::<usize>::new());
        let helper = "fn helper() -> u8 {\n    return 1;\n}\n#[test]\nfn t() {\n    assert_eq!(helper(), 1);\n}\n";
        assert_eq!(flagged(helper, ""), Vec::<usize>::new());
        let both_branches = "#[test]\nfn t() {\n    match devices() {\n        Ok(d) => assert!(d.works()),\n        \
                             Err(e) => assert!(e.is_typed()),\n    }\n}\n";
        assert_eq!(flagged(both_branches, ""), Vec::<usize>::new());
    }

    #[test]
    fn returns_in_comments_and_literals_are_not_code() {
        let source = "#[test]\nfn t() {\n    // return early? no\n    /* return; /* nested */ return; */\n    \
                      let s = \"return;\";\n    let r = r#\"say \"return\"\"#;\n    let c = '\"';\n    \
                      let q = '\\'';\n    assert!(s.len() + r.len() > 0 && c != q);\n}\n";
        assert_eq!(flagged(source, ""), Vec::<usize>::new());
        assert_eq!(blank_comments_and_literals(source).lines().count(), source.lines().count());
    }

    #[test]
    fn ignore_and_should_panic_are_skips() {
        let source = "#[test]\n#[ignore = \"slow\"]\nfn a() { assert!(true) }\n#[test]\n#[should_panic]\nfn b() { f() }\n";
        assert_eq!(flagged(source, "skipped or should_panic"), vec![2, 5]);
        // Named in a string (as this file does), they are not attributes.
        assert_eq!(flagged("const S: &str = \"#[ignore]\";\n", ""), Vec::<usize>::new());
    }
}
