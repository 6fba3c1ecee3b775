//! Verifying keys checked against the digests filecoin-proofs publishes for
//! its production parameter files (storage-proofs-core's parameters.json:
//! the first 32 hex digits of each file's BLAKE2b-512). A proof is
//! self-verified under the `.vk`, so a genuine `.vk` is what keeps a
//! `.params` of another setup from giving proofs that cuzk calls verified
//! and the chain rejects; checking the `.vk` (tens of kilobytes) protects
//! as well as hashing the 47 GB `.params` would, at no cost.
//!
//! Test parameters carry the production file names (filecoin-proofs reads
//! them from the same cache) but not the production keys. cuzk writes a
//! marker file, [`TEST_MARKER`], into a directory it writes test
//! parameters to; there, a key that is not the published one is expected.

use std::path::Path;

use storage_proofs_core::parameter_cache::{ParameterMap, PARAMETERS};

use crate::error::FilecoinError;

/// The file that marks a directory as holding cuzk's test parameters.
pub const TEST_MARKER: &str = "cuzk-test-parameters";

/// What the marker says to a person who finds it.
pub(crate) const TEST_MARKER_TEXT: &str = "This directory holds random test parameters written by cuzk \
(cuzk filecoin params --write-test-params). Their keys are not Filecoin's published ones: proofs made \
with them verify only under them. Remove this file and the parameters before using the directory for \
production proofs.\n";

/// The digest filecoin-proofs computes for a parameter file's bytes.
fn digest(bytes: &[u8]) -> String {
    let hash = blake2b_simd::Params::new().to_state().update(bytes).finalize();
    hash.to_hex()[..32].to_string()
}

/// Checks the verifying key in `bytes`, read from `path`, against the
/// digest `published` holds for its file name. A name it does not hold is
/// not checked (no published key to compare with); a different digest is
/// an error unless `path`'s directory holds [`TEST_MARKER`].
pub(crate) fn check_key_against(published: &ParameterMap, path: &Path, bytes: &[u8]) -> Result<(), FilecoinError> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return Ok(()) };
    let Some(entry) = published.get(name) else { return Ok(()) };
    let found = digest(bytes);
    if found == entry.digest {
        return Ok(());
    }
    if path.parent().is_some_and(|dir| dir.join(TEST_MARKER).exists()) {
        return Ok(());
    }
    let why = format!(
        "its BLAKE2b digest {found} is not the {} that filecoin-proofs publishes for this file name \
         (parameters.json): the key is not Filecoin's, and neither would the proofs checked with it be; \
         fetch the production parameters (or, for test parameters, keep the {TEST_MARKER} file cuzk writes \
         beside them)",
        entry.digest
    );
    Err(FilecoinError::Io { path: path.to_path_buf(), source: std::io::Error::new(std::io::ErrorKind::InvalidData, why) })
}

/// [`check_key_against`] filecoin-proofs' own parameters.json.
pub(crate) fn check_key(path: &Path, bytes: &[u8]) -> Result<(), FilecoinError> {
    check_key_against(&PARAMETERS, path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use storage_proofs_core::parameter_cache::ParameterData;

    fn published(name: &str, digest: &str) -> ParameterMap {
        let entry = ParameterData { cid: "Qm".into(), digest: digest.into(), sector_size: 2048 };
        [(name.to_string(), entry)].into_iter().collect()
    }

    #[test]
    fn the_digest_is_filecoin_proofs_blake2b_512_prefix() {
        // BLAKE2b-512 of the empty string, as RFC 7693's reference gives it.
        assert_eq!(digest(b""), "786a02f742015903c6c6fd852552d272");
        assert_eq!(digest(b"abc"), "ba80a53f981c4d0d6a2797b69f12f6e9");
    }

    #[test]
    fn a_key_under_a_published_name_must_have_the_published_digest() {
        let dir = tempfile::tempdir().unwrap();
        let name = "v28-stacked-proof-of-replication-test.vk";
        let path = dir.path().join(name);
        let key = b"a verifying key";
        let genuine = published(name, &digest(key));
        check_key_against(&genuine, &path, key).unwrap();
        let err = check_key_against(&genuine, &path, b"another setup's key").unwrap_err().to_string();
        assert!(err.contains(name) && err.contains("parameters.json") && err.contains(&digest(key)), "{err}");
        // A name filecoin-proofs does not publish is not checked.
        check_key_against(&genuine, &dir.path().join("v28-other.vk"), b"anything").unwrap();
        // cuzk's test parameters: the marker beside them.
        std::fs::write(dir.path().join(TEST_MARKER), TEST_MARKER_TEXT).unwrap();
        check_key_against(&genuine, &path, b"another setup's key").unwrap();
    }

    #[test]
    fn filecoin_proofs_publishes_the_32_gib_porep_key() {
        let name = crate::cache::ParamCache::new("/nowhere")
            .files(crate::CircuitId::new(crate::ProofKind::PoRepC2, crate::SectorSize::Gib32))
            .unwrap()
            .vk;
        let name = name.file_name().unwrap().to_str().unwrap();
        assert!(PARAMETERS.contains_key(name), "{name} is not in parameters.json");
        let err = check_key(&std::path::Path::new("/nowhere").join(name), b"not the key").unwrap_err().to_string();
        assert!(err.contains("parameters.json"), "{err}");
    }
}
