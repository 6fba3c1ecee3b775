//! SnapDeals inputs: a committed-capacity sector updated with new data
//! (filecoin-proofs-api's `empty_sector_update_encode_into`), and the
//! vanilla partition proofs Curio sends (bincode, one per partition).

use std::fs::OpenOptions;
use std::path::Path;

use filecoin_proofs_api::seal::add_piece;
use filecoin_proofs_api::update::{empty_sector_update_encode_into, generate_partition_proofs};
use filecoin_proofs_api::{Commitment, PaddedBytesAmount, RegisteredUpdateProof, UnpaddedBytesAmount};
use rand::RngCore;

use super::{seal_proof, SealedSector};
use crate::{FilecoinError, SectorSize};

/// A SnapDeals request's inputs.
pub struct SnapInputs {
    /// The update proof type.
    pub proof: RegisteredUpdateProof,
    /// One bincode `PartitionProof` per partition.
    pub vanilla: Vec<Vec<u8>>,
    /// CommR of the CC sector (the sector key).
    pub comm_r_old: Commitment,
    /// CommR of the updated replica.
    pub comm_r_new: Commitment,
    /// CommD of the new data.
    pub comm_d_new: Commitment,
}

/// The update proof of a sector size.
pub fn update_proof(size: SectorSize) -> RegisteredUpdateProof {
    use RegisteredUpdateProof::*;
    match size {
        SectorSize::Kib2 => StackedDrg2KiBV1,
        SectorSize::Mib8 => StackedDrg8MiBV1,
        SectorSize::Mib512 => StackedDrg512MiBV1,
        SectorSize::Gib32 => StackedDrg32GiBV1,
        SectorSize::Gib64 => StackedDrg64GiBV1,
    }
}

fn failed(during: &str) -> impl Fn(anyhow::Error) -> FilecoinError + '_ {
    move |e| FilecoinError::filecoin(during, &e)
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> FilecoinError + '_ {
    move |source| FilecoinError::Io { path: path.to_path_buf(), source }
}

/// Updates `cc` (sealed by [`SealedSector::seal_cc`]) with random data in
/// files under `dir`, and makes the vanilla partition proofs of the update.
pub fn update(cc: &SealedSector, dir: &Path, rng: &mut impl RngCore) -> Result<SnapInputs, FilecoinError> {
    let size = cc.size();
    let proof = update_proof(size);
    let base = dir.join(format!("update-{}-{}", cc.miner_id, cc.number));
    let (staged, replica, cache) = (base.with_extension("staged"), base.with_extension("replica"), base.join("cache"));
    std::fs::create_dir_all(&cache).map_err(io(&cache))?;
    let piece_size = UnpaddedBytesAmount::from(PaddedBytesAmount(size.bytes()));
    let mut data = vec![0u8; piece_size.0 as usize];
    rng.fill_bytes(&mut data);
    let target = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&staged).map_err(io(&staged))?;
    let (piece, _) = add_piece(seal_proof(size), data.as_slice(), target, piece_size, &[])
        .map_err(failed("adding the new data"))?;
    let sealed_len = std::fs::metadata(&cc.replica).map_err(io(&cc.replica))?.len();
    let out = OpenOptions::new().create(true).truncate(true).write(true).open(&replica).map_err(io(&replica))?;
    out.set_len(sealed_len).map_err(io(&replica))?;
    let encoded = empty_sector_update_encode_into(proof, &replica, &cache, &cc.replica, &cc.cache, &staged, &[piece])
        .map_err(failed("encoding the update"))?;
    let vanilla = generate_partition_proofs(
        proof,
        cc.comm_r(),
        encoded.comm_r_new,
        encoded.comm_d_new,
        &cc.replica,
        &cc.cache,
        &replica,
        &cache,
    )
    .map_err(failed("the update's vanilla partition proofs"))?;
    std::fs::remove_file(&staged).map_err(io(&staged))?;
    Ok(SnapInputs {
        proof,
        vanilla: vanilla.into_iter().map(|p| p.0).collect(),
        comm_r_old: cc.comm_r(),
        comm_r_new: encoded.comm_r_new,
        comm_d_new: encoded.comm_d_new,
    })
}
