//! The SDR labels a PoRep's vanilla proofs show, for a sector that was never
//! sealed.
//!
//! A challenge proof shows the columns (one label per layer) of the
//! challenged node and of its 14 parents, and the circuit recomputes the
//! challenged node's label in every layer from its parents' labels: 6 DRG
//! parents in the same layer, 8 expander parents in the layer below (layer 1
//! has only the DRG parents). Nothing checks how a parent's own label came
//! about unless that parent is itself challenged. So a challenged node's
//! labels are computed exactly as sealing computes them, and every other
//! node's labels are drawn from a hash of its place: deterministic, so one
//! node shows one column in every proof that opens it.

use std::collections::{BTreeSet, HashMap};

use filecoin_hashers::poseidon::{PoseidonDomain, PoseidonHasher};
use sha2::{Digest, Sha256};
use storage_proofs_core::drgraph::Graph;
use storage_proofs_porep::stacked::{StackedBucketGraph, TOTAL_PARENTS};

use super::sparse_tree::domain_from_digest;
use crate::FilecoinError;

/// Labels of one synthetic sector, computed on demand and kept.
pub(crate) struct Labels<'g> {
    graph: &'g StackedBucketGraph<PoseidonHasher>,
    replica_id: PoseidonDomain,
    layers: usize,
    challenged: BTreeSet<u32>,
    known: HashMap<(usize, u32), PoseidonDomain>,
    /// Labels being computed: a label that needs itself is a graph error, not a stack overflow.
    pending: BTreeSet<(usize, u32)>,
}

impl<'g> Labels<'g> {
    /// The labels of a sector of `layers` layers over `graph`, whose
    /// `challenged` nodes are labelled as sealing labels them.
    pub(crate) fn new(
        graph: &'g StackedBucketGraph<PoseidonHasher>,
        replica_id: PoseidonDomain,
        layers: usize,
        challenged: BTreeSet<u32>,
    ) -> Self {
        Labels { graph, replica_id, layers, challenged, known: HashMap::new(), pending: BTreeSet::new() }
    }

    /// The graph's parents of `node`: DRG parents first, then expander parents.
    pub(crate) fn parents(&self, node: u32) -> Result<Vec<u32>, FilecoinError> {
        let mut parents = vec![0u32; self.graph.degree()];
        self.graph
            .parents(node as usize, &mut parents)
            .map_err(|e| FilecoinError::filecoin(format!("the parents of node {node}"), &e))?;
        Ok(parents)
    }

    /// The number of DRG parents, which come first in [`parents`](Self::parents).
    pub(crate) fn drg_degree(&self) -> usize {
        self.graph.base_graph().degree()
    }

    /// Node `node`'s labels in layers 1 to `layers`.
    pub(crate) fn column(&mut self, node: u32) -> Result<Vec<PoseidonDomain>, FilecoinError> {
        (1..=self.layers).map(|layer| self.label(layer, node)).collect()
    }

    /// The parent labels the label of `node` in `layer` hashes, in
    /// storage-proofs' order: DRG parents in `layer`, then (above layer 1)
    /// expander parents in the layer below, repeated to [`TOTAL_PARENTS`].
    pub(crate) fn parent_labels(&mut self, layer: usize, node: u32) -> Result<Vec<PoseidonDomain>, FilecoinError> {
        let parents = self.parents(node)?;
        let drg = self.drg_degree();
        let shown = if layer == 1 { drg } else { parents.len() };
        let mut labels = Vec::with_capacity(shown);
        for (i, &p) in parents[..shown].iter().enumerate() {
            labels.push(self.label(if i < drg { layer } else { layer - 1 }, p)?);
        }
        Ok(labels.iter().copied().cycle().take(TOTAL_PARENTS).collect())
    }

    /// Node `node`'s label in `layer` (1-based).
    pub(crate) fn label(&mut self, layer: usize, node: u32) -> Result<PoseidonDomain, FilecoinError> {
        if let Some(label) = self.known.get(&(layer, node)) {
            return Ok(*label);
        }
        let label = if self.challenged.contains(&node) {
            if !self.pending.insert((layer, node)) {
                let why = format!("the label of node {node} in layer {layer} depends on itself");
                return Err(FilecoinError::input("challenges", why));
            }
            let parents = self.parent_labels(layer, node)?;
            self.pending.remove(&(layer, node));
            sdr_label(&self.replica_id, layer, node, &parents)
        } else {
            let replica_id = AsRef::<[u8]>::as_ref(&self.replica_id);
            super::filler("label", &[replica_id, &(layer as u32).to_be_bytes(), &node.to_be_bytes()])
        };
        self.known.insert((layer, node), label);
        Ok(label)
    }
}

/// SDR's label: SHA-256 of the replica id, the layer (u32, big-endian) and
/// the node (u64, big-endian) in a 64-byte block, then the parents' labels,
/// made a field element. storage-proofs' `LabelingProof::verify` recomputes it.
pub(crate) fn sdr_label(replica_id: &PoseidonDomain, layer: usize, node: u32, parents: &[PoseidonDomain]) -> PoseidonDomain {
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(AsRef::<[u8]>::as_ref(replica_id));
    block[32..36].copy_from_slice(&(layer as u32).to_be_bytes());
    block[36..44].copy_from_slice(&u64::from(node).to_be_bytes());
    let mut h = Sha256::new();
    h.update(block);
    for p in parents {
        h.update(AsRef::<[u8]>::as_ref(p));
    }
    domain_from_digest(h.finalize().into())
}
