//! The bearer tokens file (`server.tokens_file`): who may call the TCP
//! listeners that require a token, and what each caller may ask for.
//!
//! ```toml
//! [[tokens]]
//! name = "curio-sealing"     # in logs and refusals; unique
//! sha256 = "9f86d081…"       # hex SHA-256 of the token: `printf %s "$TOKEN" | sha256sum`
//! kinds = ["porep", "snap"]  # porep, snap, wpost, winning, sha256, mul-chain
//! max_priority = "normal"    # low, normal, high, critical
//! max_jobs = 8               # unfinished jobs at once
//! ```
//!
//! The file holds hashes, never tokens, so reading it (a backup, a
//! configuration repository) gives no one a token. A token is looked up by
//! its hash, compared with every entry's in constant time.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use cuzk_pipeline::Priority;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tonic::Status;

use crate::error::DaemonError;
use crate::kinds::Kind;

/// The largest tokens file read: an entry is about 200 bytes.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// The file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    tokens: Vec<Entry>,
}

/// One `[[tokens]]` entry as written; every key is required.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: String,
    sha256: String,
    kinds: Vec<String>,
    max_priority: String,
    max_jobs: usize,
}

/// What the holder of one token may do.
#[derive(Debug, PartialEq)]
pub(crate) struct Grant {
    /// The entry's name: the owner of the jobs it submits.
    pub(crate) name: String,
    sha256: [u8; 32],
    kinds: Vec<Kind>,
    max_priority: Priority,
    /// Unfinished jobs it may have at once.
    pub(crate) max_jobs: usize,
}

/// The caller of a request that came with a valid token, put in the
/// request's extensions by the token check; a request without one came
/// through a listener that trusts its callers (the unix socket).
#[derive(Clone, Debug)]
pub(crate) struct Caller(pub(crate) Arc<Grant>);

impl Grant {
    /// `PERMISSION_DENIED` unless the token may prove `kind`.
    pub(crate) fn allows(&self, kind: Kind) -> Result<(), Status> {
        if self.kinds.contains(&kind) {
            return Ok(());
        }
        let allowed: Vec<&str> = self.kinds.iter().map(|k| k.label()).collect();
        Err(Status::permission_denied(format!(
            "token {:?} may not prove {} (its kinds: {})",
            self.name,
            kind.label(),
            if allowed.is_empty() { "none".to_string() } else { allowed.join(", ") }
        )))
    }

    /// `PERMISSION_DENIED` unless the token may submit a job of `kind` at
    /// `priority` (the request's, or the kind's default when it leaves it
    /// unspecified). A priority above the ceiling is refused, not lowered:
    /// a client that asked for CRITICAL and got NORMAL would learn it only
    /// when its proof came late.
    pub(crate) fn admit(&self, kind: Kind, priority: Priority) -> Result<(), Status> {
        self.allows(kind)?;
        if priority > self.max_priority {
            return Err(Status::permission_denied(format!(
                "token {:?} may submit up to priority {}, and this {} request is {}",
                self.name,
                priority_name(self.max_priority),
                kind.label(),
                priority_name(priority)
            )));
        }
        Ok(())
    }
}

/// Every entry of a tokens file.
#[derive(Debug)]
pub(crate) struct Tokens {
    grants: Vec<Arc<Grant>>,
}

impl Tokens {
    /// Parses a tokens file's text; the error names the entry and its key.
    pub(crate) fn parse(text: &str) -> Result<Tokens, String> {
        let file: File = toml::from_str(text).map_err(|e| e.to_string())?;
        let mut grants: Vec<Arc<Grant>> = Vec::with_capacity(file.tokens.len());
        for (i, entry) in file.tokens.into_iter().enumerate() {
            let grant = grant(entry).map_err(|why| format!("tokens entry {}: {why}", i + 1))?;
            if let Some(other) = grants.iter().find(|g| g.name == grant.name) {
                return Err(format!("tokens entry {}: name {:?} is used twice", i + 1, other.name));
            }
            if let Some(other) = grants.iter().find(|g| g.sha256 == grant.sha256) {
                return Err(format!("tokens entry {} ({:?}): the same sha256 as {:?}", i + 1, grant.name, other.name));
            }
            grants.push(Arc::new(grant));
        }
        Ok(Tokens { grants })
    }

    /// Reads and parses the tokens file `path`.
    pub(crate) fn read(path: &Path) -> Result<Tokens, DaemonError> {
        let fail = |reason: String| DaemonError::Tokens { path: path.to_path_buf(), reason };
        let meta = std::fs::metadata(path).map_err(|e| fail(format!("cannot read it: {e}")))?;
        if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
            return Err(fail(format!("not a regular file of at most {MAX_FILE_BYTES} bytes")));
        }
        let text = std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read it: {e}")))?;
        Tokens::parse(&text).map_err(fail)
    }

    /// The grant of `token`. Its SHA-256 is compared with every entry's,
    /// each comparison in constant time, and no comparison stops the
    /// search early: how long the lookup takes tells nothing of how close
    /// a guess came.
    pub(crate) fn find(&self, token: &[u8]) -> Option<Arc<Grant>> {
        let hash: [u8; 32] = Sha256::digest(token).into();
        let mut found = None;
        for grant in &self.grants {
            if bool::from(grant.sha256.ct_eq(&hash)) {
                found = Some(grant.clone());
            }
        }
        found
    }

    /// How many tokens the file holds.
    pub(crate) fn len(&self) -> usize {
        self.grants.len()
    }
}

/// The tokens file as last read; SIGHUP reads it again.
pub(crate) struct TokenStore {
    path: PathBuf,
    current: RwLock<Arc<Tokens>>,
}

impl TokenStore {
    /// Reads `path`.
    pub(crate) fn load(path: &Path) -> Result<TokenStore, DaemonError> {
        let tokens = Tokens::read(path)?;
        Ok(TokenStore { path: path.to_path_buf(), current: RwLock::new(Arc::new(tokens)) })
    }

    /// Reads the file again; requests checked from now on see it (a token
    /// removed is refused at its next request). On an error the tokens in
    /// use stay. Returns how many tokens the file holds.
    pub(crate) fn reload(&self) -> Result<usize, DaemonError> {
        let tokens = Arc::new(Tokens::read(&self.path)?);
        let count = tokens.len();
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = tokens;
        Ok(count)
    }

    /// The tokens in use.
    pub(crate) fn current(&self) -> Arc<Tokens> {
        self.current.read().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// One entry checked: a name, 64 hex digits, known kinds, a priority.
fn grant(e: Entry) -> Result<Grant, String> {
    if e.name.is_empty() || e.name.chars().any(char::is_control) {
        return Err(format!("name {:?}: empty or with a control character", e.name));
    }
    let at = |key: &str| format!("{:?}: {key}", e.name);
    let mut sha256 = [0u8; 32];
    hex::decode_to_slice(&e.sha256, &mut sha256).map_err(|_| {
        format!("{}: not 64 hex digits (the token's SHA-256: printf %s \"$TOKEN\" | sha256sum)", at("sha256"))
    })?;
    let mut kinds = Vec::with_capacity(e.kinds.len());
    for name in &e.kinds {
        let kind = Kind::ALL.into_iter().find(|k| k.label() == name).ok_or_else(|| {
            let known: Vec<&str> = Kind::ALL.iter().map(|k| k.label()).collect();
            format!("{}: unknown kind {name:?} (known: {})", at("kinds"), known.join(", "))
        })?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    let max_priority = parse_priority(&e.max_priority)
        .ok_or_else(|| format!("{}: {:?} is not low, normal, high or critical", at("max_priority"), e.max_priority))?;
    Ok(Grant { name: e.name, sha256, kinds, max_priority, max_jobs: e.max_jobs })
}

fn parse_priority(name: &str) -> Option<Priority> {
    [Priority::Low, Priority::Normal, Priority::High, Priority::Critical]
        .into_iter()
        .find(|p| priority_name(*p) == name)
}

fn priority_name(p: Priority) -> &'static str {
    match p {
        Priority::Low => "low",
        Priority::Normal => "normal",
        Priority::High => "high",
        Priority::Critical => "critical",
    }
}

#[cfg(test)]
#[path = "tokens_tests.rs"]
mod tests;
