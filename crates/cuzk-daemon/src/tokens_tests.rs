//! The tokens file: entries read and checked (each mistake named by entry
//! and key), tokens found by their hash, kinds and the priority ceiling.

use super::*;
use cuzk_synth::workloads::Workload;

fn sha(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn entry(name: &str, token: &str, kinds: &str, max_priority: &str) -> String {
    format!(
        "[[tokens]]\nname = {name:?}\nsha256 = {:?}\nkinds = {kinds}\nmax_priority = {max_priority:?}\nmax_jobs = 2\n",
        sha(token)
    )
}

#[test]
fn tokens_are_found_by_their_hash_only() {
    let text = entry("sealer", "s3cret", r#"["porep", "snap"]"#, "normal")
        + &entry("poster", "other", r#"["wpost", "winning", "mul-chain"]"#, "critical");
    let tokens = Tokens::parse(&text).unwrap();
    assert_eq!(tokens.len(), 2);
    let sealer = tokens.find(b"s3cret").unwrap();
    assert_eq!((sealer.name.as_str(), sealer.max_jobs), ("sealer", 2));
    assert_eq!(tokens.find(b"other").unwrap().name, "poster");
    for wrong in ["", "s3cre", "s3cret ", "S3CRET", &sha("s3cret")] {
        assert!(tokens.find(wrong.as_bytes()).is_none(), "{wrong:?}");
    }
    assert_eq!(Tokens::parse("").unwrap().len(), 0, "an empty file admits no one");
}

#[test]
fn kinds_and_the_priority_ceiling_are_enforced() {
    let tokens = Tokens::parse(&entry("sealer", "t", r#"["porep", "mul-chain"]"#, "normal")).unwrap();
    let g = tokens.find(b"t").unwrap();
    assert!(g.admit(Kind::PoRep, Priority::Normal).is_ok());
    assert!(g.admit(Kind::Workload(Workload::MulChain), Priority::Low).is_ok());
    let denied = g.admit(Kind::WinningPoSt, Priority::Low).unwrap_err();
    assert_eq!(denied.code(), tonic::Code::PermissionDenied);
    assert!(denied.message().contains("winning") && denied.message().contains("porep, mul-chain"), "{denied:?}");
    let high = g.admit(Kind::PoRep, Priority::High).unwrap_err();
    assert_eq!(high.code(), tonic::Code::PermissionDenied);
    assert!(high.message().contains("up to priority normal") && high.message().contains("high"), "{high:?}");
    assert!(g.allows(Kind::Snap).is_err());
}

#[test]
fn every_mistake_names_its_entry_and_key() {
    let good = entry("a", "t", r#"["porep"]"#, "low");
    for (text, said) in [
        (entry("b", "t", r#"["porp"]"#, "low"), "tokens entry 1: \"b\": kinds: unknown kind \"porp\""),
        (entry("b", "t", r#"["porep"]"#, "urgent"), "\"b\": max_priority"),
        (entry("b", "t", r#"["porep"]"#, "low").replace(&sha("t"), "abc"), "\"b\": sha256: not 64 hex digits"),
        (entry("", "t", "[]", "low"), "name \"\""),
        (good.clone() + &entry("a", "u", "[]", "low"), "tokens entry 2: name \"a\" is used twice"),
        (good.clone() + &entry("b", "t", "[]", "low"), "tokens entry 2 (\"b\"): the same sha256 as \"a\""),
        (good.replace("max_jobs = 2\n", ""), "max_jobs"),
        (good.clone() + "token = \"plain\"\n", "token"),
        ("[[token]]\nname = \"x\"\n".to_string(), "token"),
    ] {
        let err = Tokens::parse(&text).unwrap_err();
        assert!(err.contains(said), "{text}\n-> {err}\n(expected {said:?})");
    }
}

#[test]
fn a_file_is_read_and_reread_and_a_bad_one_keeps_the_old_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tokens.toml");
    assert!(matches!(TokenStore::load(&path), Err(DaemonError::Tokens { .. })));
    std::fs::write(&path, entry("a", "first", "[]", "low")).unwrap();
    let store = TokenStore::load(&path).unwrap();
    assert!(store.current().find(b"first").is_some());
    std::fs::write(&path, entry("a", "second", "[]", "low")).unwrap();
    assert_eq!(store.reload().unwrap(), 1);
    assert!(store.current().find(b"first").is_none() && store.current().find(b"second").is_some());
    std::fs::write(&path, "[[tokens]]\nname = 3\n").unwrap();
    let err = store.reload().unwrap_err().to_string();
    assert!(err.starts_with("configuration: server.tokens_file: ") && err.contains("tokens.toml"), "{err}");
    assert!(store.current().find(b"second").is_some(), "the tokens in use stay");
    let err = TokenStore::load(dir.path()).err().unwrap().to_string();
    assert!(err.contains("not a regular file"), "{err}");
}
