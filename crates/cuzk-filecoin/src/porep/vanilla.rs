//! The vanilla proofs inside filecoin-proofs-api's C1 output: one variant per
//! sector size, each holding the proofs at that size's tree shape.

use std::any::Any;

use filecoin_proofs::types::VanillaSealProof;
use filecoin_proofs_api::seal::VanillaSealProof as ApiVanilla;
use storage_proofs_core::merkle::MerkleTreeTrait;

use crate::kind::SectorSize;

/// The sector size a variant is for, and the number of challenge proofs in
/// each partition.
pub(crate) fn layout(v: &ApiVanilla) -> (SectorSize, Vec<usize>) {
    fn lens<T>(partitions: &[Vec<T>]) -> Vec<usize> {
        partitions.iter().map(Vec::len).collect()
    }
    match v {
        ApiVanilla::StackedDrg2KiBV1(p) => (SectorSize::Kib2, lens(p)),
        ApiVanilla::StackedDrg8MiBV1(p) => (SectorSize::Mib8, lens(p)),
        ApiVanilla::StackedDrg512MiBV1(p) => (SectorSize::Mib512, lens(p)),
        ApiVanilla::StackedDrg32GiBV1(p) => (SectorSize::Gib32, lens(p)),
        ApiVanilla::StackedDrg64GiBV1(p) => (SectorSize::Gib64, lens(p)),
    }
}

/// The partitions' proofs at tree shape `Tree`, borrowed (a 32 GiB C1 holds
/// ~50 MB of them; filecoin-proofs-api's own conversion clones them), or
/// `None` when the variant is of another shape.
pub(crate) fn typed<Tree: 'static + MerkleTreeTrait>(v: &ApiVanilla) -> Option<&[Vec<VanillaSealProof<Tree>>]> {
    let any: &dyn Any = match v {
        ApiVanilla::StackedDrg2KiBV1(p) => p,
        ApiVanilla::StackedDrg8MiBV1(p) => p,
        ApiVanilla::StackedDrg512MiBV1(p) => p,
        ApiVanilla::StackedDrg32GiBV1(p) => p,
        ApiVanilla::StackedDrg64GiBV1(p) => p,
    };
    any.downcast_ref::<Vec<Vec<VanillaSealProof<Tree>>>>().map(Vec::as_slice)
}
