//! Filecoin circuits cut into parts ([`cuzk_synth::Circuit::split`]), so
//! that recorded synthesis computes one partition's witness on every thread
//! of its pool instead of one.
//!
//! Each circuit cut here is filecoin-proofs' own synthesis over a list of
//! blocks that use only what the circuit allocated before them: a PoRep
//! partition's challenge proofs (after replica_id, comm_d, comm_r,
//! comm_r_last, comm_c and the comm_r check), a WindowPoSt partition's
//! sectors, the challenges of WinningPoSt's one sector (after that sector's
//! commitments and their check). A part is the same circuit over a run of
//! the blocks; the prefix is the circuit over none. The recording checks
//! what the parts join into (counts, allocation trace, every row), so a cut
//! that did not hold would fail the partition, never prove something else.
//!
//! SnapDeals is not cut: its update circuit derives every challenge's bits
//! before the first challenge, so its prefix depends on how many there are.

use blstrs::Scalar;
use cuzk_synth::{BlockValues, Split};
use filecoin_hashers::poseidon::{PoseidonDomain, PoseidonHasher};
use filecoin_hashers::sha256::{Sha256Domain, Sha256Hasher};
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_porep::stacked::{self, StackedCircuit, StackedCompound};
use storage_proofs_post::fallback::{FallbackPoStCircuit, Sector};

use crate::porep_values;

/// A PoRep partition's circuit: the values `StackedCompound::circuit` puts
/// into a `StackedCircuit`, kept where a part can take a run of the
/// challenge proofs, and synthesized by `StackedCircuit::synthesize`, the
/// circuit's own code.
pub struct PoRepPartition<Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>> {
    replica_id: PoseidonDomain,
    comm_d: Option<Sha256Domain>,
    comm_r: Option<PoseidonDomain>,
    comm_r_last: PoseidonDomain,
    comm_c: PoseidonDomain,
    /// One per challenge of the partition.
    proofs: Vec<stacked::Proof<Tree, Sha256Hasher>>,
    /// Whether the block values were taken already.
    values_taken: bool,
}

impl<Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>> PoRepPartition<Tree> {
    /// The circuit of partition `k`, whose vanilla proofs are `proofs`.
    /// filecoin-proofs' own `StackedCompound::circuit` is built first and
    /// dropped: its checks (at least one proof, one comm_r_last and one
    /// comm_c among them) and its conversion of every proof (which panics on
    /// a malformed one: the caller catches it) refuse here a partition that
    /// would otherwise fail only during synthesis.
    pub fn new(
        pub_in: &stacked::PublicInputs<PoseidonDomain, Sha256Domain>,
        proofs: &Vec<stacked::Proof<Tree, Sha256Hasher>>,
        pp: &stacked::PublicParams<Tree>,
        k: usize,
    ) -> anyhow::Result<Self> {
        // `&Vec`: the type filecoin-proofs' `circuit` takes.
        drop(StackedCompound::<Tree, Sha256Hasher>::circuit(pub_in, (), proofs, pp, Some(k))?);
        let first = proofs.first().ok_or_else(|| anyhow::anyhow!("a partition without vanilla proofs"))?;
        Ok(PoRepPartition {
            replica_id: pub_in.replica_id,
            comm_d: pub_in.tau.as_ref().map(|t| t.comm_d),
            comm_r: pub_in.tau.as_ref().map(|t| t.comm_r),
            comm_r_last: first.comm_r_last(),
            comm_c: first.comm_c(),
            proofs: proofs.to_vec(),
            values_taken: false,
        })
    }

    /// The same commitments over `proofs`.
    fn with(&self, proofs: Vec<stacked::Proof<Tree, Sha256Hasher>>) -> Self {
        PoRepPartition { proofs, ..*self }
    }

    /// Each challenge's block values (see `crate::porep_values`), once:
    /// taken, as `cuzk_synth::Circuit::take_block_values` says.
    pub(crate) fn take_blocks(&mut self) -> Option<Vec<BlockValues<Scalar>>> {
        if std::mem::replace(&mut self.values_taken, true) {
            return None;
        }
        porep_values::block_values(&self.proofs)
    }

    /// The prefix (no challenge) and at most `parts` runs of the challenges.
    pub(crate) fn split(mut self, parts: usize) -> Split<Self> {
        let proofs = std::mem::take(&mut self.proofs);
        Split { parts: runs(proofs, parts).into_iter().map(|run| self.with(run)).collect(), prefix: self }
    }
}

impl<Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>> bellperson::Circuit<Scalar> for PoRepPartition<Tree> {
    fn synthesize<CS: bellperson::ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), bellperson::SynthesisError> {
        StackedCircuit::<Tree, Sha256Hasher>::synthesize(
            cs,
            Some(self.replica_id),
            self.comm_d,
            self.comm_r,
            Some(self.comm_r_last),
            Some(self.comm_c),
            self.proofs.into_iter().map(Into::into).collect(),
        )
    }
}

/// A PoSt circuit cut by sectors, or, with one sector (WinningPoSt), by
/// that sector's challenges.
pub(crate) fn post<Tree: 'static + MerkleTreeTrait>(circuit: FallbackPoStCircuit<Tree>, parts: usize) -> Split<FallbackPoStCircuit<Tree>> {
    let FallbackPoStCircuit { prover_id, mut sectors } = circuit;
    let with = |sectors| FallbackPoStCircuit { prover_id, sectors };
    if sectors.len() != 1 {
        return Split { prefix: with(Vec::new()), parts: runs(sectors, parts).into_iter().map(with).collect() };
    }
    let Sector { comm_r, comm_c, comm_r_last, leafs, paths, id } = sectors.remove(0);
    let sector = |(leafs, paths)| Sector { comm_r, comm_c, comm_r_last, leafs, paths, id };
    let challenges: Vec<_> = leafs.into_iter().zip(paths).collect();
    Split {
        prefix: with(vec![sector((Vec::new(), Vec::new()))]),
        parts: runs(challenges, parts).into_iter().map(|run| with(vec![sector(run.into_iter().unzip())])).collect(),
    }
}

/// `items` in at most `n` runs of consecutive items whose lengths differ by
/// at most one (one empty run when there are no items).
fn runs<T>(items: Vec<T>, n: usize) -> Vec<Vec<T>> {
    let n = n.clamp(1, items.len().max(1));
    let (base, extra) = (items.len() / n, items.len() % n);
    let mut items = items.into_iter();
    (0..n).map(|k| items.by_ref().take(base + usize::from(k < extra)).collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::runs;

    #[test]
    fn runs_keep_order_and_balance() {
        for len in 0..40 {
            for n in 0..12 {
                let cut = runs((0..len).collect::<Vec<_>>(), n);
                assert_eq!(cut.concat(), (0..len).collect::<Vec<_>>(), "len {len}, n {n}");
                assert_eq!(cut.len(), n.clamp(1, len.max(1)), "len {len}, n {n}");
                let lengths: Vec<usize> = cut.iter().map(Vec::len).collect();
                let (min, max) = (lengths.iter().min().unwrap(), lengths.iter().max().unwrap());
                assert!(max - min <= 1, "len {len}, n {n}: {lengths:?}");
            }
        }
    }
}
