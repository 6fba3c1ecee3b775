//! A Merkle tree of billions of leaves in which only a few thousand leaves are
//! ever opened: those are set, every other leaf holds one default value, so a
//! whole subtree of default leaves has one precomputed hash per height and
//! the tree costs a few hashes per set leaf and level instead of a hash per node.
//!
//! The shape is storage-proofs': a base tree of arity A, then optionally one
//! level joining sub-trees and one joining top trees. Parents hash their
//! children with the hasher's own `multi_node`, at the height the verifier's
//! inclusion path passes (counted from 0 within the base, sub and top paths).

use std::collections::BTreeMap;

use filecoin_hashers::{Domain, Hasher};
use merkletree::hash::Algorithm;

use crate::FilecoinError;

/// One level above the leaves: how many children each node joins and the
/// height `multi_node` is given for it.
#[derive(Clone, Copy, Debug)]
struct Level {
    arity: usize,
    height: usize,
}

/// A sparse Merkle tree: the set nodes per level, and the default node per level.
pub(crate) struct SparseTree<H: Hasher> {
    levels: Vec<Level>,
    /// Set nodes, by level (0: leaves) and index.
    nodes: Vec<BTreeMap<u64, H::Domain>>,
    /// The value of a node under which every leaf is the default, per level.
    defaults: Vec<H::Domain>,
}

impl<H: Hasher> SparseTree<H> {
    /// A tree over `leaves` leaves of base arity `base`, with a sub-tree level
    /// of arity `sub` and a top level of arity `top` (0: none), where `set`
    /// leaves hold their own value and all others `default_leaf`.
    pub(crate) fn new(
        leaves: u64,
        (base, sub, top): (usize, usize, usize),
        default_leaf: H::Domain,
        set: impl IntoIterator<Item = (u64, H::Domain)>,
    ) -> Result<Self, FilecoinError> {
        let base_leaves = leaves / (sub.max(1) * top.max(1)) as u64;
        let mut levels = Vec::new();
        let mut width = 1u64;
        while width < base_leaves {
            levels.push(Level { arity: base, height: levels.len() });
            width = width.saturating_mul(base as u64);
        }
        if width != base_leaves || base_leaves * (sub.max(1) * top.max(1)) as u64 != leaves {
            let why = format!("{leaves} leaves do not fill a tree of arities {base}/{sub}/{top}");
            return Err(FilecoinError::input("tree shape", why));
        }
        levels.extend([sub, top].into_iter().filter(|&a| a > 0).map(|arity| Level { arity, height: 0 }));

        let mut defaults = vec![default_leaf];
        for level in &levels {
            let below = *defaults.last().expect("starts with the leaf");
            defaults.push(hash_children::<H>(&vec![below; level.arity], level.height));
        }
        let mut leaves_set = BTreeMap::new();
        for (index, value) in set {
            if index >= leaves {
                return Err(FilecoinError::input("tree leaf", format!("leaf {index} of a tree of {leaves}")));
            }
            leaves_set.insert(index, value);
        }
        let mut tree = SparseTree { levels, nodes: vec![leaves_set], defaults };
        for l in 0..tree.levels.len() {
            let arity = tree.levels[l].arity as u64;
            let parents: Vec<u64> = tree.nodes[l].keys().map(|i| i / arity).collect();
            let mut above = BTreeMap::new();
            for parent in parents {
                if above.contains_key(&parent) {
                    continue;
                }
                let children: Vec<H::Domain> = (0..arity).map(|c| tree.node(l, parent * arity + c)).collect();
                above.insert(parent, hash_children::<H>(&children, tree.levels[l].height));
            }
            tree.nodes.push(above);
        }
        Ok(tree)
    }

    /// The node at `index` of `level` (0: the leaves).
    pub(crate) fn node(&self, level: usize, index: u64) -> H::Domain {
        self.nodes[level].get(&index).copied().unwrap_or(self.defaults[level])
    }

    /// The root.
    pub(crate) fn root(&self) -> H::Domain {
        self.node(self.levels.len(), 0)
    }

    /// The leaf at `index`.
    pub(crate) fn leaf(&self, index: u64) -> H::Domain {
        self.node(0, index)
    }

    /// The inclusion path of leaf `index` as storage-proofs' `MerkleProof::from_parts` takes it:
    /// per level, the siblings in order and the position of the node among them.
    pub(crate) fn path(&self, index: u64) -> Vec<(Vec<H::Domain>, usize)> {
        let mut at = index;
        self.levels
            .iter()
            .enumerate()
            .map(|(l, level)| {
                let arity = level.arity as u64;
                let (first, position) = (at - at % arity, (at % arity) as usize);
                let siblings = (0..arity).filter(|&c| c as usize != position).map(|c| self.node(l, first + c)).collect();
                at /= arity;
                (siblings, position)
            })
            .collect()
    }
}

/// A parent of `children`, as the verifier's inclusion path hashes it.
fn hash_children<H: Hasher>(children: &[H::Domain], height: usize) -> H::Domain {
    let mut f = H::Function::default();
    f.multi_node(children, height)
}

/// A field element of Filecoin's hashers from 32 bytes: the two top bits of
/// the last (most significant) byte are cleared, as filecoin-proofs' `fr32`
/// does, so the value is below 2²⁵⁴ and therefore below the field's modulus.
pub(crate) fn domain_from_digest<D: Domain>(mut bytes: [u8; 32]) -> D {
    bytes[31] &= 0b0011_1111;
    D::try_from_bytes(&bytes).expect("a value below 2^254 is a field element")
}

#[cfg(test)]
mod tests {
    use super::*;
    use filecoin_hashers::poseidon::{PoseidonDomain, PoseidonHasher};
    use filecoin_hashers::sha256::{Sha256Domain, Sha256Hasher};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The dense tree: every node hashed.
    fn dense_root<H: Hasher>(leaves: &[H::Domain], arities: &[(usize, usize)]) -> H::Domain {
        let mut level = leaves.to_vec();
        for &(arity, height) in arities {
            level = level.chunks(arity).map(|c| hash_children::<H>(c, height)).collect();
        }
        assert_eq!(level.len(), 1);
        level[0]
    }

    fn check<H: Hasher>(leaves: u64, shape: (usize, usize, usize), arities: &[(usize, usize)], seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let default = H::Domain::random(&mut rng);
        let set: Vec<(u64, H::Domain)> =
            (0..5).map(|_| (rng.gen_range(0..leaves), H::Domain::random(&mut rng))).collect();
        let tree = SparseTree::<H>::new(leaves, shape, default, set.clone()).unwrap();
        let mut dense = vec![default; leaves as usize];
        for &(i, v) in &set {
            dense[i as usize] = v;
        }
        assert_eq!(tree.root(), dense_root::<H>(&dense, arities));
        for i in set.iter().map(|s| s.0).chain([0, leaves - 1]) {
            assert_eq!(tree.leaf(i), dense[i as usize]);
            let mut node = dense[i as usize];
            for (l, (siblings, position)) in tree.path(i).into_iter().enumerate() {
                let mut children = siblings;
                children.insert(position, node);
                node = hash_children::<H>(&children, arities[l].1);
            }
            assert_eq!(node, tree.root(), "path of leaf {i}");
        }
    }

    #[test]
    fn sparse_equals_dense() {
        for seed in 0..4 {
            check::<Sha256Hasher>(64, (2, 0, 0), &[(2, 0), (2, 1), (2, 2), (2, 3), (2, 4), (2, 5)], seed);
            check::<PoseidonHasher>(64, (8, 0, 0), &[(8, 0), (8, 1)], seed);
            check::<PoseidonHasher>(128, (8, 2, 0), &[(8, 0), (8, 1), (2, 0)], seed);
            check::<PoseidonHasher>(1024, (8, 8, 2), &[(8, 0), (8, 1), (8, 0), (2, 0)], seed);
        }
    }

    #[test]
    fn refuses_shapes_that_do_not_fit() {
        let zero = PoseidonDomain::default();
        assert!(SparseTree::<PoseidonHasher>::new(100, (8, 0, 0), zero, []).is_err());
        assert!(SparseTree::<PoseidonHasher>::new(64, (8, 0, 0), zero, [(64, zero)]).is_err());
        assert!(SparseTree::<Sha256Hasher>::new(64, (2, 0, 0), Sha256Domain::default(), []).is_ok());
    }

    #[test]
    fn digests_become_field_elements() {
        let d: PoseidonDomain = domain_from_digest([0xff; 32]);
        assert_eq!(d.into_bytes()[31], 0x3f);
    }
}
