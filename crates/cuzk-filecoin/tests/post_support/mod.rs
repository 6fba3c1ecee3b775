//! PoSt test fixtures: 2 KiB sectors sealed by filecoin-proofs itself (add
//! piece, pre-commit phases 1 and 2; no commit proof is needed for PoSt), the
//! vanilla proofs Curio would send for them, and a constraint system that
//! hashes a circuit's shape without computing values.

pub mod shape;

use std::collections::BTreeMap;
use std::fs::File;
use std::path::PathBuf;
use std::sync::OnceLock;

use blstrs::Scalar;
use ff::{Field, PrimeField};
use filecoin_proofs::{
    add_piece, generate_fallback_sector_challenges, generate_piece_commitment, generate_single_vanilla_proof,
    seal_pre_commit_phase1, seal_pre_commit_phase2, PaddedBytesAmount, PoRepConfig, PoStConfig, PrivateReplicaInfo,
    PublicReplicaInfo, SectorShapeBase, UnpaddedBytesAmount,
};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::sector::SectorId;

/// The tree shape of 2 KiB sectors.
pub type Tree = SectorShapeBase;

/// The miner every fixture uses.
pub const MINER: u64 = 1000;

/// One sealed 2 KiB sector.
pub struct Sector {
    /// Its number.
    pub id: SectorId,
    /// Its replica commitment.
    pub comm_r: [u8; 32],
    replica: PathBuf,
    cache: PathBuf,
}

/// Sectors sealed once per test binary (each takes well under a second).
pub struct Sealed {
    _dir: tempfile::TempDir,
    /// Three sectors: one more than a 2 KiB WindowPoSt partition holds.
    pub sectors: Vec<Sector>,
}

/// The shared sealed sectors.
pub fn sealed() -> &'static Sealed {
    static SEALED: OnceLock<Sealed> = OnceLock::new();
    SEALED.get_or_init(|| {
        crate::common::init_filecoin_env();
        let dir = tempfile::tempdir().expect("temp dir");
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let sectors = (0..3).map(|i| seal(&dir, &mut rng, 100 + i)).collect();
        Sealed { _dir: dir, sectors }
    })
}

fn seal(dir: &tempfile::TempDir, rng: &mut ChaCha20Rng, number: u64) -> Sector {
    let porep_id = {
        let mut id = [0u8; 32];
        id[..8].copy_from_slice(&5u64.to_le_bytes()); // StackedDrg2KiBV1_1
        id
    };
    let cfg = PoRepConfig::new_groth16(2048, porep_id, ApiVersion::V1_1_0);
    let piece_size = UnpaddedBytesAmount::from(PaddedBytesAmount(2048));
    let mut piece = vec![0u8; piece_size.0 as usize];
    rng.fill_bytes(&mut piece);
    let piece_info = generate_piece_commitment(piece.as_slice(), piece_size).expect("piece commitment");
    let base = dir.path().join(format!("s{number}"));
    let (staged, replica, cache) = (base.with_extension("staged"), base.with_extension("sealed"), base.join("cache"));
    std::fs::create_dir_all(&cache).expect("cache dir");
    add_piece(piece.as_slice(), File::create(&staged).expect("staged"), piece_size, &[]).expect("add piece");
    File::create(&replica).expect("replica");
    let mut ticket = [0u8; 32];
    rng.fill_bytes(&mut ticket);
    let prover_id = cuzk_filecoin::prover_id(MINER);
    let id = SectorId::from(number);
    let p1 = seal_pre_commit_phase1::<_, _, _, Tree>(&cfg, &cache, &staged, &replica, prover_id, id, ticket, &[piece_info])
        .expect("pre-commit phase 1");
    let out = seal_pre_commit_phase2(&cfg, p1, &cache, &replica).expect("pre-commit phase 2");
    Sector { id, comm_r: out.comm_r, replica, cache }
}

/// Randomness that is a field element, as the chain's is after hashing.
pub fn randomness(seed: u64) -> [u8; 32] {
    Scalar::random(ChaCha20Rng::seed_from_u64(seed)).to_repr()
}

/// Vanilla proofs for `sectors`, challenged as the whole list of a deadline
/// (WindowPoSt) or as the winning sector, serialized as filecoin-proofs-api does.
pub fn vanilla(cfg: &PoStConfig, randomness: &[u8; 32], sectors: &[&Sector]) -> Vec<Vec<u8>> {
    let ids: Vec<SectorId> = sectors.iter().map(|s| s.id).collect();
    let prover_id = cuzk_filecoin::prover_id(MINER);
    let challenges =
        generate_fallback_sector_challenges::<Tree>(cfg, randomness, &ids, prover_id).expect("sector challenges");
    sectors
        .iter()
        .map(|s| {
            let replica = PrivateReplicaInfo::<Tree>::new(s.replica.clone(), s.comm_r, s.cache.clone()).expect("replica");
            let proof = generate_single_vanilla_proof::<Tree>(cfg, s.id, &replica, &challenges[&s.id]).expect("vanilla");
            bincode::serialize(&proof).expect("serialize vanilla proof")
        })
        .collect()
}

/// What a verifier knows of `sectors`.
pub fn public_replicas(sectors: &[&Sector]) -> BTreeMap<SectorId, PublicReplicaInfo> {
    sectors.iter().map(|s| (s.id, PublicReplicaInfo::new(s.comm_r).expect("comm_r"))).collect()
}

/// A test's wall time, printed so a run shows where the time goes.
pub fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let started = std::time::Instant::now();
    let out = f();
    eprintln!("{what}: {:.2} s", started.elapsed().as_secs_f64());
    out
}
