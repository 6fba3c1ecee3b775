//! A real 2 KiB SnapDeals input, made with filecoin-proofs-api as a storage
//! provider makes it: a committed-capacity sector sealed (add piece of
//! zeros, pre-commit phases 1 and 2), new data encoded into it, and the
//! vanilla partition proofs Curio would send (bincode, one per partition).
//! No parameters are needed for any of it; it takes about a second.

use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::path::Path;

use filecoin_proofs_api::seal::{add_piece, seal_pre_commit_phase1, seal_pre_commit_phase2};
use filecoin_proofs_api::update::{empty_sector_update_encode_into, generate_partition_proofs};
use filecoin_proofs_api::{
    Commitment, PaddedBytesAmount, PieceInfo, RegisteredSealProof, RegisteredUpdateProof, SectorId,
    UnpaddedBytesAmount,
};
use rand::{RngCore, SeedableRng};

/// The update proof every 2 KiB test uses.
pub const UPDATE_2K: RegisteredUpdateProof = RegisteredUpdateProof::StackedDrg2KiBV1;
const SEAL_2K: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;
const SECTOR_BYTES: u64 = 2048;

/// An updated 2 KiB sector's SnapDeals inputs.
pub struct Updated {
    /// One bincode `PartitionProof` per partition, as filecoin-proofs-api returns them.
    pub vanilla: Vec<Vec<u8>>,
    /// CommR of the sealed CC sector (the sector key).
    pub comm_r_old: Commitment,
    /// CommR of the updated replica.
    pub comm_r_new: Commitment,
    /// CommD of the new data.
    pub comm_d_new: Commitment,
}

/// Seals a CC sector and updates it with pseudo-random data from `seed`.
pub fn updated_2k(seed: u64) -> Updated {
    crate::common::init_filecoin_env();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |name: &str| dir.path().join(name);
    for sub in ["cache", "new-cache"] {
        std::fs::create_dir(path(sub)).expect("cache dirs");
    }
    let unpadded = UnpaddedBytesAmount::from(PaddedBytesAmount(SECTOR_BYTES));

    // The committed-capacity sector: one piece of zeros, sealed.
    let zeros = std::io::repeat(0).take(unpadded.0);
    let cc_piece = staged(&path("staged"), zeros, unpadded);
    let sealed = path("sealed");
    std::fs::File::create(&sealed).expect("create the sealed file");
    let (prover_id, sector_id, ticket) = ([9u8; 32], SectorId::from(1), [5u8; 32]);
    let phase1 = seal_pre_commit_phase1(
        SEAL_2K,
        path("cache"),
        path("staged"),
        &sealed,
        prover_id,
        sector_id,
        ticket,
        &[cc_piece],
    )
    .expect("pre-commit phase 1");
    let comm_r_old = seal_pre_commit_phase2(phase1, path("cache"), &sealed).expect("pre-commit phase 2").comm_r;

    // The update: new pseudo-random data encoded into a copy-sized replica.
    let mut data = vec![0u8; unpadded.0 as usize];
    rand_chacha::ChaCha20Rng::seed_from_u64(seed).fill_bytes(&mut data);
    let new_piece = staged(&path("new-staged"), &data[..], unpadded);
    let replica = path("replica");
    let len = std::fs::metadata(&sealed).expect("sealed file").len();
    let file = OpenOptions::new().create(true).truncate(true).write(true).open(&replica);
    file.and_then(|f| f.set_len(len)).expect("size the replica file");
    let encoded = empty_sector_update_encode_into(
        UPDATE_2K,
        &replica,
        path("new-cache"),
        &sealed,
        path("cache"),
        path("new-staged"),
        &[new_piece],
    )
    .expect("encode the update");
    let vanilla = generate_partition_proofs(
        UPDATE_2K,
        comm_r_old,
        encoded.comm_r_new,
        encoded.comm_d_new,
        &sealed,
        path("cache"),
        &replica,
        path("new-cache"),
    )
    .expect("vanilla partition proofs");
    Updated {
        vanilla: vanilla.into_iter().map(|p| p.0).collect(),
        comm_r_old,
        comm_r_new: encoded.comm_r_new,
        comm_d_new: encoded.comm_d_new,
    }
}

/// Writes `source` as the sector's one piece into a new staged file at `path`.
fn staged(path: &Path, source: impl Read, size: UnpaddedBytesAmount) -> PieceInfo {
    let mut file =
        OpenOptions::new().create(true).truncate(true).read(true).write(true).open(path).expect("staged file");
    let (piece, written) = add_piece(SEAL_2K, source, &mut file, size, &[]).expect("add piece");
    assert_eq!(written, size);
    file.flush().expect("flush the staged file");
    piece
}
