//! The Filecoin parameter cache layout: a directory of
//! `v28-<identifier>.params`, `.vk` and `.meta` files, named exactly as
//! filecoin-proofs names them (the identifier is `<prefix>-<sha256 hex of the
//! public parameters' identifier>`), so cuzk and filecoin-proofs share one
//! cache. Production files come from the Filecoin trusted setup; cuzk writes
//! random ones only for tests and says so.

use std::io::Write;
use std::path::{Path, PathBuf};

use cuzk_groth16::{generate_random_parameters, Parameters, VerifyingKey};
use rand::RngCore;
use storage_proofs_core::parameter_cache::{metadata_id, parameter_id, verifying_key_id, CacheEntryMetadata};

use crate::error::FilecoinError;
use crate::kind::{CircuitId, ProofKind};
use crate::published;
use crate::{porep, snap, window_post, winning_post, FilecoinCircuit};

/// filecoin-proofs' parameter-set identifier of `id` (what sits between
/// `v28-` and the extension).
pub fn cache_identifier(id: CircuitId) -> Result<String, FilecoinError> {
    match id.kind {
        ProofKind::PoRepC2 => porep::cache_identifier(id.sector_size),
        ProofKind::WindowPoSt => window_post::cache_identifier(id.sector_size),
        ProofKind::WinningPoSt => winning_post::cache_identifier(id.sector_size),
        ProofKind::SnapDeals => snap::cache_identifier(id.sector_size),
    }
}

/// The circuit of `id` with no values (for setup and recording).
pub fn blank_circuit(id: CircuitId) -> Result<FilecoinCircuit, FilecoinError> {
    match id.kind {
        ProofKind::PoRepC2 => porep::blank_circuit(id.sector_size),
        ProofKind::WindowPoSt => window_post::blank_circuit(id.sector_size),
        ProofKind::WinningPoSt => winning_post::blank_circuit(id.sector_size),
        ProofKind::SnapDeals => snap::blank_circuit(id.sector_size),
    }
}

/// The three files of one parameter set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamFiles {
    /// Groth16 parameters (`.params`, bellperson's layout; ~47 GB for 32 GiB PoRep).
    pub params: PathBuf,
    /// The verifying key alone (`.vk`), what verifiers read.
    pub vk: PathBuf,
    /// `{"sector_size":N}` (`.meta`), read only by Filecoin's parameter tools.
    pub meta: PathBuf,
}

/// A parameter cache directory.
#[derive(Clone, Debug)]
pub struct ParamCache {
    dir: PathBuf,
}

impl ParamCache {
    /// The cache in `dir` (Filecoin's default is `/var/tmp/filecoin-proof-parameters`).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ParamCache { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the files of `id` are (whether or not they exist).
    pub fn files(&self, id: CircuitId) -> Result<ParamFiles, FilecoinError> {
        let ident = cache_identifier(id)?;
        Ok(ParamFiles {
            params: self.dir.join(parameter_id(&ident)),
            vk: self.dir.join(verifying_key_id(&ident)),
            meta: self.dir.join(metadata_id(&ident)),
        })
    }

    /// The verifying key of `id`, from its `.vk` file; degenerate keys are
    /// refused by the reader. A missing `.vk` is an error: the key at the
    /// head of the `.params` file is the one the proof was made with, so a
    /// parameter file of another setup would pass its own self-check and
    /// give proofs the chain rejects. A `.vk` under a name filecoin-proofs
    /// publishes must have the published digest (published.rs), but in a
    /// directory cuzk wrote test parameters to.
    pub fn verifying_key(&self, id: CircuitId) -> Result<VerifyingKey, FilecoinError> {
        let files = self.files(id)?;
        if !files.vk.exists() {
            let why = format!(
                "no verifying key: a proof checked only against the key in {} would pass even if that file \
                 were from another setup; put the .vk of the Filecoin parameter cache beside it",
                files.params.display()
            );
            return Err(FilecoinError::Io { path: files.vk, source: std::io::Error::new(std::io::ErrorKind::NotFound, why) });
        }
        // Parsed first: the reader refuses anything but a regular file of a
        // key's length before the digest reads its bytes.
        let vk = VerifyingKey::read_file(&files.vk)
            .map_err(|source| FilecoinError::Params { path: files.vk.clone(), source })?;
        let bytes = std::fs::read(&files.vk).map_err(|source| FilecoinError::Io { path: files.vk.clone(), source })?;
        published::check_key(&files.vk, &bytes)?;
        Ok(vk)
    }

    /// Writes random **test** parameters for `id` (`.params`, `.vk`, `.meta`),
    /// each to a temporary in the cache directory renamed into place once
    /// whole. They are not Filecoin's production parameters: proofs made with
    /// them verify only under them. `progress` is cuzk-groth16's setup callback.
    pub fn write_test_params(
        &self,
        id: CircuitId,
        rng: &mut impl RngCore,
        progress: cuzk_groth16::setup::SetupProgress<'_>,
    ) -> Result<ParamFiles, FilecoinError> {
        let files = self.files(id)?;
        let params = generate_random_parameters(blank_circuit(id)?, rng, progress)
            .map_err(|source| FilecoinError::Params { path: files.params.clone(), source })?;
        self.write_params(id, &params)
    }

    /// Writes `params` as `id`'s files (.meta, .vk, then .params), each
    /// whole or not at all.
    /// The directory is marked as holding test parameters first
    /// ([`ParamCache::mark_as_test_parameters`]).
    pub fn write_params(&self, id: CircuitId, params: &Parameters) -> Result<ParamFiles, FilecoinError> {
        let files = self.files(id)?;
        self.mark_as_test_parameters()?;
        let meta = serde_json::to_vec(&CacheEntryMetadata { sector_size: id.sector_size.bytes() })
            .map_err(|e| FilecoinError::input("metadata", e))?;
        let params_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| FilecoinError::Params { path, source }
        };
        self.write_atomically(&files.meta, |w| {
            w.write_all(&meta).map_err(|source| FilecoinError::Io { path: files.meta.clone(), source })
        })?;
        self.write_atomically(&files.vk, |w| params.vk.write(w).map_err(params_err(&files.vk)))?;
        self.write_atomically(&files.params, |w| params.write(w).map_err(params_err(&files.params)))?;
        Ok(files)
    }

    /// Marks the directory as holding cuzk's test parameters
    /// ([`published::TEST_MARKER`]): keys under the names filecoin-proofs
    /// publishes are then not required to be the published ones. cuzk
    /// marks every directory it writes parameters to; a directory of test
    /// parameters copied elsewhere needs the marker copied too.
    pub fn mark_as_test_parameters(&self) -> Result<(), FilecoinError> {
        let marker = self.dir.join(published::TEST_MARKER);
        if marker.exists() {
            return Ok(());
        }
        self.write_atomically(&marker, |w| {
            w.write_all(published::TEST_MARKER_TEXT.as_bytes())
                .map_err(|source| FilecoinError::Io { path: marker.clone(), source })
        })
    }

    fn write_atomically(
        &self,
        path: &Path,
        write: impl FnOnce(&mut std::io::BufWriter<&std::fs::File>) -> Result<(), FilecoinError>,
    ) -> Result<(), FilecoinError> {
        let io = |source| FilecoinError::Io { path: path.to_path_buf(), source };
        let tmp = tempfile::Builder::new().prefix(".cuzk-").suffix(".partial").tempfile_in(&self.dir).map_err(io)?;
        let mut w = std::io::BufWriter::new(tmp.as_file());
        write(&mut w)?;
        w.flush().map_err(io)?;
        drop(w);
        tmp.as_file().sync_all().map_err(io)?;
        tmp.persist(path).map_err(|e| io(e.error))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parameter_file_without_its_vk_gives_no_key() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ParamCache::new(dir.path());
        let id: CircuitId = "wpost-2k".parse().unwrap();
        let files = cache.files(id).unwrap();
        std::fs::write(&files.params, b"a parameter file of some setup").unwrap();
        match cache.verifying_key(id) {
            Err(FilecoinError::Io { path, source }) => {
                assert_eq!(path, files.vk);
                assert!(source.to_string().contains("no verifying key"), "{source}");
            }
            other => panic!("expected the missing .vk named, got {other:?}"),
        }
    }
}
