//! A PoRep C1 output for a committed-capacity sector that was never sealed:
//! the challenged nodes are labelled as sealing labels them, every other node
//! gets a filler label, and trees D, C and R_last are sparse trees whose
//! untouched subtrees are default hashes. The vanilla proofs are assembled
//! with storage-proofs' own constructors and checked by its own
//! `verify_all_partitions` before they are returned.
//!
//! Why this is valid input: interactive PoRep's challenges depend only on the
//! replica id, the seed and the partition, and the replica id only on the
//! prover, sector number, ticket, comm_d and porep id; so they are known
//! before any label is, and only the nodes a proof opens need values.

use std::collections::{BTreeMap, BTreeSet};

use filecoin_hashers::poseidon::{PoseidonDomain, PoseidonHasher};
use filecoin_hashers::sha256::{Sha256Domain, Sha256Hasher};
use filecoin_hashers::{HashFunction, Hasher};
use filecoin_proofs::parameters::public_params;
use filecoin_proofs::PoRepConfig;
use storage_proofs_core::drgraph::Graph;
use storage_proofs_core::merkle::{MerkleProof, MerkleTreeTrait};
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_porep::stacked::{
    generate_replica_id, Column, ColumnProof, EncodingProof, LabelingProof, Proof, PublicInputs, PublicParams,
    ReplicaColumnProof, StackedDrg, Tau,
};
use typenum::Unsigned;

use super::labels::Labels;
use super::sparse_tree::SparseTree;
use crate::FilecoinError;

/// Who and what a synthetic sector is: the values its replica id and challenges come from.
#[derive(Clone, Copy, Debug)]
pub struct SectorIds {
    /// The miner's prover id (see [`crate::prover_id`]).
    pub prover_id: [u8; 32],
    /// The sector number.
    pub sector_number: u64,
    /// The sealing ticket.
    pub ticket: [u8; 32],
    /// The interactive seed.
    pub seed: [u8; 32],
}

/// A synthetic sector's commitments and vanilla proofs, one list per partition.
pub struct SyntheticPoRep<Tree: MerkleTreeTrait> {
    /// comm_d: the all-zero data of a committed-capacity sector.
    pub comm_d: Sha256Domain,
    /// comm_r = Poseidon(comm_c, comm_r_last).
    pub comm_r: PoseidonDomain,
    /// The replica id verify_seal derives.
    pub replica_id: PoseidonDomain,
    /// The challenge proofs of each partition, in partition order.
    pub proofs: Vec<Vec<Proof<Tree, Sha256Hasher>>>,
}

/// Challenge proofs for every partition of `config` at tree shape `Tree`,
/// accepted by `StackedDrg::verify_all_partitions`.
pub fn vanilla_proofs<Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>>(
    config: &PoRepConfig,
    ids: &SectorIds,
) -> Result<SyntheticPoRep<Tree>, FilecoinError> {
    let pp = public_params::<Tree>(config).map_err(|e| FilecoinError::filecoin("setting up the PoRep", &e))?;
    let nodes = pp.graph.size() as u64;
    let tree_d = SparseTree::<Sha256Hasher>::new(nodes, (2, 0, 0), Sha256Domain::default(), [])?;
    let comm_d = tree_d.root();
    let replica_id =
        generate_replica_id::<PoseidonHasher, _>(&ids.prover_id, ids.sector_number, &ids.ticket, comm_d, &config.porep_id);
    let mut pub_in = PublicInputs { replica_id, seed: Some(ids.seed), tau: None, k: None };
    let challenges: Vec<Vec<u32>> = (0..usize::from(config.partitions))
        .map(|k| pub_in.challenges(&pp.challenges, nodes as usize, Some(k)).into_iter().map(|c| c as u32).collect())
        .collect();
    let challenged: BTreeSet<u32> = challenges.iter().flatten().copied().collect();

    let mut labels = Labels::new(&pp.graph, replica_id, pp.num_layers, challenged.clone());
    let mut columns = BTreeMap::new();
    for &c in &challenged {
        for node in std::iter::once(c).chain(labels.parents(c)?) {
            if let std::collections::btree_map::Entry::Vacant(slot) = columns.entry(node) {
                slot.insert(labels.column(node)?);
            }
        }
    }
    let shape = (Tree::Arity::to_usize(), Tree::SubTreeArity::to_usize(), Tree::TopTreeArity::to_usize());
    let column_leaves = columns.iter().map(|(&n, rows)| (u64::from(n), column_hash(n, rows)));
    let tree_c = SparseTree::<PoseidonHasher>::new(nodes, shape, PoseidonDomain::default(), column_leaves)?;
    // The replica node is the data (zero) plus the last layer's label: the label itself.
    let last = pp.num_layers;
    let replica = challenged.iter().map(|&c| Ok((u64::from(c), labels.label(last, c)?))).collect::<Result<Vec<_>, FilecoinError>>()?;
    let tree_r = SparseTree::<PoseidonHasher>::new(nodes, shape, PoseidonDomain::default(), replica)?;
    let comm_r = <PoseidonHasher as Hasher>::Function::hash2(&tree_c.root(), &tree_r.root());

    let trees = Trees { d: &tree_d, c: &tree_c, r: &tree_r };
    let proofs = challenges
        .iter()
        .map(|of_partition| of_partition.iter().map(|&c| challenge_proof::<Tree>(c, &mut labels, &columns, &trees, last)).collect())
        .collect::<Result<Vec<Vec<_>>, FilecoinError>>()?;

    pub_in.tau = Some(Tau { comm_d, comm_r });
    self_check(&pp, &pub_in, &proofs)?;
    Ok(SyntheticPoRep { comm_d, comm_r, replica_id, proofs })
}

/// The sector's three trees.
struct Trees<'a> {
    d: &'a SparseTree<Sha256Hasher>,
    c: &'a SparseTree<PoseidonHasher>,
    r: &'a SparseTree<PoseidonHasher>,
}

/// Tree C's leaf of a column: storage-proofs' column hash.
fn column_hash(node: u32, rows: &[PoseidonDomain]) -> PoseidonDomain {
    Column::<PoseidonHasher>::new(node, rows.to_vec()).expect("a column of labels").hash().into()
}

type TreeProof<Tree> = MerkleProof<
    PoseidonHasher,
    <Tree as MerkleTreeTrait>::Arity,
    <Tree as MerkleTreeTrait>::SubTreeArity,
    <Tree as MerkleTreeTrait>::TopTreeArity,
>;

/// The proof of one challenge, as `StackedDrg::prove_layers` assembles it.
fn challenge_proof<Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>>(
    c: u32,
    labels: &mut Labels<'_>,
    columns: &BTreeMap<u32, Vec<PoseidonDomain>>,
    trees: &Trees<'_>,
    layers: usize,
) -> Result<Proof<Tree, Sha256Hasher>, FilecoinError> {
    let leaf = u64::from(c);
    let column_proof = |node: u32| {
        let rows = columns[&node].clone();
        let path = TreeProof::<Tree>::from_parts(column_hash(node, &rows), trees.c.root(), trees.c.path(u64::from(node)));
        ColumnProof::new(node, rows, path)
    };
    let parents = labels.parents(c)?;
    let drg = labels.drg_degree();
    let labeling_proofs = (1..=layers)
        .map(|layer| Ok(LabelingProof::new(layer as u32, leaf, labels.parent_labels(layer, c)?)))
        .collect::<Result<Vec<_>, FilecoinError>>()?;
    Ok(Proof {
        comm_d_proofs: MerkleProof::from_parts(trees.d.leaf(leaf), trees.d.root(), trees.d.path(leaf)),
        comm_r_last_proof: TreeProof::<Tree>::from_parts(trees.r.leaf(leaf), trees.r.root(), trees.r.path(leaf)),
        replica_column_proofs: ReplicaColumnProof {
            c_x: column_proof(c),
            drg_parents: parents[..drg].iter().map(|&p| column_proof(p)).collect(),
            exp_parents: parents[drg..].iter().map(|&p| column_proof(p)).collect(),
        },
        labeling_proofs,
        encoding_proof: EncodingProof::new(layers as u32, leaf, labels.parent_labels(layers, c)?),
    })
}

/// storage-proofs' own check of the proofs, as C1 runs it on its output.
fn self_check<Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>>(
    pp: &PublicParams<Tree>,
    pub_in: &PublicInputs<PoseidonDomain, Sha256Domain>,
    proofs: &[Vec<Proof<Tree, Sha256Hasher>>],
) -> Result<(), FilecoinError> {
    match StackedDrg::<Tree, Sha256Hasher>::verify_all_partitions(pp, pub_in, proofs) {
        Ok(true) => Ok(()),
        Ok(false) => Err(FilecoinError::input("synthetic sector", "StackedDrg::verify_all_partitions rejects its proofs")),
        Err(e) => Err(FilecoinError::filecoin("verifying the synthetic sector's proofs", &e)),
    }
}
