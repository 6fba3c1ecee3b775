//! PoSt test fixtures: the 2 KiB sectors every PoSt test proves (sealed once
//! per test binary by `cuzk_filecoin::testdata`, i.e. filecoin-proofs-api; no
//! commit proof is needed for PoSt), their vanilla proofs as Curio sends
//! them, and what a verifier knows of them.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use blstrs::Scalar;
use cuzk_filecoin::post::RegisteredPoStProof;
use cuzk_filecoin::testdata::SealedSector;
use cuzk_filecoin::SectorSize;
use ff::{Field, PrimeField};
use filecoin_proofs::{PublicReplicaInfo, SectorShapeBase};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::sector::SectorId;

/// The tree shape of 2 KiB sectors.
pub type Tree = SectorShapeBase;

/// The miner every fixture uses.
pub const MINER: u64 = 1000;

/// Sectors sealed once per test binary (each takes well under a second).
pub struct Sealed {
    _dir: tempfile::TempDir,
    /// Three sectors: one more than a 2 KiB WindowPoSt partition holds.
    pub sectors: Vec<SealedSector>,
}

/// The shared sealed sectors.
pub fn sealed() -> &'static Sealed {
    static SEALED: OnceLock<Sealed> = OnceLock::new();
    SEALED.get_or_init(|| {
        crate::common::init_filecoin_env();
        let dir = tempfile::tempdir().expect("temp dir");
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let sectors = (0..3)
            .map(|i| SealedSector::seal(dir.path(), SectorSize::Kib2, MINER, 100 + i, &mut rng).expect("seal 2 KiB"))
            .collect();
        Sealed { _dir: dir, sectors }
    })
}

/// A sector's number as filecoin-proofs types it.
pub fn id(sector: &SealedSector) -> SectorId {
    SectorId::from(sector.number)
}

/// Randomness that is a field element, as the chain's is after hashing.
pub fn randomness(seed: u64) -> [u8; 32] {
    Scalar::random(ChaCha20Rng::seed_from_u64(seed)).to_repr()
}

/// Vanilla proofs for `sectors`, challenged as the whole list of a deadline
/// (WindowPoSt) or as the winning sector, serialized as filecoin-proofs-api does.
pub fn vanilla(proof: RegisteredPoStProof, randomness: &[u8; 32], sectors: &[&SealedSector]) -> Vec<Vec<u8>> {
    SealedSector::post_vanilla(proof, randomness, sectors).expect("vanilla proofs")
}

/// What a verifier knows of `sectors`.
pub fn public_replicas(sectors: &[&SealedSector]) -> BTreeMap<SectorId, PublicReplicaInfo> {
    sectors.iter().map(|s| (id(s), PublicReplicaInfo::new(s.comm_r()).expect("comm_r"))).collect()
}

/// A test's wall time, printed so a run shows where the time goes.
pub fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let started = std::time::Instant::now();
    let out = f();
    eprintln!("{what}: {:.2} s", started.elapsed().as_secs_f64());
    out
}
