//! One sector sealed by filecoin-proofs (add piece, pre-commit phases 1 and
//! 2) on files in a directory, and what can be made from it.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use filecoin_proofs_api::post::{generate_fallback_sector_challenges, generate_single_vanilla_proof};
use filecoin_proofs_api::seal::{
    add_piece, clear_cache, generate_synth_proofs, seal_commit_phase1, seal_pre_commit_phase1,
    seal_pre_commit_phase2, SealCommitPhase1Output, SealPreCommitPhase2Output,
};
use filecoin_proofs_api::{
    ApiFeature, PieceInfo, PrivateReplicaInfo, RegisteredPoStProof, RegisteredSealProof, SectorId,
    UnpaddedBytesAmount,
};
use rand::RngCore;

use super::{ensure_test_size, seal_proof};
use crate::{prover_id, FilecoinError, SectorSize};

/// A sealed sector: its files and everything a prover is later given about it.
pub struct SealedSector {
    /// The seal proof it was sealed with.
    pub proof: RegisteredSealProof,
    /// The miner's actor id.
    pub miner_id: u64,
    /// The sector number.
    pub number: u64,
    /// The sealing ticket.
    pub ticket: [u8; 32],
    /// The pre-commit output (comm_r, comm_d).
    pub pre_commit: SealPreCommitPhase2Output,
    piece: PieceInfo,
    pub(super) replica: PathBuf,
    pub(super) cache: PathBuf,
}

fn failed(during: &str) -> impl Fn(anyhow::Error) -> FilecoinError + '_ {
    move |e| FilecoinError::filecoin(during, &e)
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> FilecoinError + '_ {
    move |source| FilecoinError::Io { path: path.to_path_buf(), source }
}

impl SealedSector {
    /// Seals sector `number` of miner `miner_id` at `size` (a test size) in
    /// `dir` with the V1_1 seal proof, one random piece filling it.
    pub fn seal(
        dir: &Path,
        size: SectorSize,
        miner_id: u64,
        number: u64,
        rng: &mut impl RngCore,
    ) -> Result<SealedSector, FilecoinError> {
        Self::seal_data(dir, seal_proof(size), miner_id, number, rng, false)
    }

    /// Seals as [`seal`](Self::seal) does, with seal proof `proof` (of a test
    /// size). A Synthetic PoRep sector is sealed as Curio seals one: after
    /// pre-commit phase 2, filecoin-proofs' `generate_synth_proofs` writes the
    /// proofs of every synthetic challenge into the cache directory and
    /// `clear_cache` drops the layers and trees C and D, so its commit phase 1
    /// reads the seed's challenges from the synthetic proofs alone.
    pub fn seal_with(
        dir: &Path,
        proof: RegisteredSealProof,
        miner_id: u64,
        number: u64,
        rng: &mut impl RngCore,
    ) -> Result<SealedSector, FilecoinError> {
        Self::seal_data(dir, proof, miner_id, number, rng, false)
    }

    /// Seals a committed-capacity sector (all zeros), the kind SnapDeals updates.
    pub fn seal_cc(
        dir: &Path,
        size: SectorSize,
        miner_id: u64,
        number: u64,
        rng: &mut impl RngCore,
    ) -> Result<SealedSector, FilecoinError> {
        Self::seal_data(dir, seal_proof(size), miner_id, number, rng, true)
    }

    fn seal_data(
        dir: &Path,
        proof: RegisteredSealProof,
        miner_id: u64,
        number: u64,
        rng: &mut impl RngCore,
        zeros: bool,
    ) -> Result<SealedSector, FilecoinError> {
        let size = SectorSize::from_bytes(u64::from(proof.sector_size()))?;
        ensure_test_size(size)?;
        let base = dir.join(format!("sector-{miner_id}-{number}"));
        let (staged, replica, cache) = (base.with_extension("staged"), base.with_extension("sealed"), base.join("cache"));
        std::fs::create_dir_all(&cache).map_err(io(&cache))?;
        let piece_size = UnpaddedBytesAmount::from(filecoin_proofs_api::PaddedBytesAmount(size.bytes()));
        let mut data = vec![0u8; piece_size.0 as usize];
        if !zeros {
            rng.fill_bytes(&mut data);
        }
        let target = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&staged).map_err(io(&staged))?;
        let (piece, _) = add_piece(proof, data.as_slice(), target, piece_size, &[]).map_err(failed("adding the piece"))?;
        File::create(&replica).map_err(io(&replica))?;
        let mut ticket = [0u8; 32];
        rng.fill_bytes(&mut ticket);
        let id = SectorId::from(number);
        let pieces = [piece.clone()];
        let p1 = seal_pre_commit_phase1(proof, &cache, &staged, &replica, prover_id(miner_id), id, ticket, &pieces)
            .map_err(failed("pre-commit phase 1"))?;
        let pre_commit = seal_pre_commit_phase2(p1, &cache, &replica).map_err(failed("pre-commit phase 2"))?;
        if proof.feature_enabled(ApiFeature::SyntheticPoRep) {
            generate_synth_proofs(&cache, &replica, prover_id(miner_id), id, ticket, pre_commit.clone(), &pieces)
                .map_err(failed("generating the synthetic proofs"))?;
            clear_cache(&cache).map_err(failed("clearing the layers after the synthetic proofs"))?;
        }
        std::fs::remove_file(&staged).map_err(io(&staged))?;
        Ok(SealedSector { proof, miner_id, number, ticket, pre_commit, piece, replica, cache })
    }

    /// The sector's size.
    pub fn size(&self) -> SectorSize {
        SectorSize::from_bytes(u64::from(self.proof.sector_size())).expect("sealed at a supported size")
    }

    /// The replica commitment.
    pub fn comm_r(&self) -> [u8; 32] {
        self.pre_commit.comm_r
    }

    /// Seal commit phase 1 for interactive seed `seed`: the C1 output, as
    /// filecoin-proofs-api's type. A Synthetic PoRep sector's proofs of the
    /// seed's challenges are picked from its synthetic proofs.
    pub fn commit_phase1(&self, seed: [u8; 32]) -> Result<SealCommitPhase1Output, FilecoinError> {
        seal_commit_phase1(
            &self.cache,
            &self.replica,
            prover_id(self.miner_id),
            SectorId::from(self.number),
            self.ticket,
            seed,
            self.pre_commit.clone(),
            std::slice::from_ref(&self.piece),
        )
        .map_err(failed("commit phase 1"))
    }

    /// The C1 output as filecoin-ffi hands it to Curio: serde_json bytes.
    pub fn c1_json(&self, seed: [u8; 32]) -> Result<Vec<u8>, FilecoinError> {
        serde_json::to_vec(&self.commit_phase1(seed)?).map_err(|e| FilecoinError::input("c1", e))
    }

    /// Vanilla PoSt proofs of `sectors` (one bincode `FallbackPoStSectorProof`
    /// per sector, as filecoin-proofs-api serializes them), challenged as one
    /// deadline's list (WindowPoSt) or as the winning sector (WinningPoSt).
    pub fn post_vanilla(
        proof: RegisteredPoStProof,
        randomness: &[u8; 32],
        sectors: &[&SealedSector],
    ) -> Result<Vec<Vec<u8>>, FilecoinError> {
        let Some(first) = sectors.first() else {
            return Err(FilecoinError::input("sectors", "no sectors to prove"));
        };
        let ids: Vec<SectorId> = sectors.iter().map(|s| SectorId::from(s.number)).collect();
        let challenges = generate_fallback_sector_challenges(proof, randomness, &ids, prover_id(first.miner_id))
            .map_err(failed("deriving the PoSt challenges"))?;
        sectors
            .iter()
            .map(|s| {
                let id = SectorId::from(s.number);
                let replica = PrivateReplicaInfo::new(proof, s.comm_r(), s.cache.clone(), s.replica.clone());
                let of_sector = challenges.get(&id).map(Vec::as_slice).unwrap_or_default();
                generate_single_vanilla_proof(proof, id, &replica, of_sector).map_err(failed("a PoSt vanilla proof"))
            })
            .collect()
    }
}

/// Curio's `c1.json`: `{"SectorNum", "Phase1Out" (standard base64 of the C1
/// JSON), "SectorSize"}`, as its `wrapC1Output` builds it with Go's
/// `encoding/json`.
pub fn curio_c1_wrapper(c1_json: &[u8], sector_number: u64, size: SectorSize) -> Vec<u8> {
    let phase1 = base64::engine::general_purpose::STANDARD.encode(c1_json);
    serde_json::json!({ "SectorNum": sector_number, "Phase1Out": phase1, "SectorSize": size.bytes() })
        .to_string()
        .into_bytes()
}
