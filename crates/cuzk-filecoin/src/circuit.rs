//! One type for every Filecoin circuit cuzk proves, so the engine (which
//! takes one concrete `Circuit` per partition) can hold any of them.
//!
//! filecoin-proofs' circuits are generic over the sector's Merkle tree shape;
//! the five sector sizes use three shapes (8-0-0 for the test sizes, 8-8-0 for
//! 32 GiB, 8-8-2 for 64 GiB). [`ShapeCircuit`] holds a kind's circuit at one
//! shape and [`FilecoinCircuit`] picks the shape. Synthesis runs the circuit
//! unchanged through cuzk-synth's bellpepper adapter, whole or in parts
//! (see [`crate::split`]), or, for a PoSt, PoRep or SnapDeals partition,
//! replayed from its rows (see [`crate::post_values`], `porep_values` and
//! `snap_values`).

use blstrs::Scalar;
use cuzk_synth::bellpepper::Bellpepper;
use cuzk_synth::{BlockValues, Circuit, ConstraintSystem, Split, SynthesisError};
use filecoin_hashers::poseidon::PoseidonHasher;
use filecoin_hashers::sha256::Sha256Hasher;
use filecoin_proofs::{SectorShapeBase, SectorShapeSub8, SectorShapeTop2};
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_porep::stacked::StackedCircuit;
use storage_proofs_post::fallback::FallbackPoStCircuit;
use storage_proofs_update::EmptySectorUpdateCircuit;

use crate::kind::SectorSize;
use crate::post_values::PoStPartition;
use crate::snap_values::SnapPartition;
use crate::split::{self, PoRepPartition};

/// A kind's circuit at one tree shape.
pub enum ShapeCircuit<Tree: 'static + MerkleTreeTrait<Hasher = PoseidonHasher>> {
    /// A PoRep partition without values, as parameters are made from it.
    PoRep(StackedCircuit<Tree, Sha256Hasher>),
    /// A PoRep partition to prove.
    PoRepPartition(PoRepPartition<Tree>),
    /// A WindowPoSt partition or a WinningPoSt proof without values, as
    /// parameters are made from it (and the parts of one cut).
    PoSt(FallbackPoStCircuit<Tree>),
    /// A WindowPoSt partition or a WinningPoSt proof to prove.
    PoStPartition(PoStPartition<Tree>),
    /// A SnapDeals partition without values, as parameters are made from it.
    Snap(EmptySectorUpdateCircuit<Tree>),
    /// A SnapDeals partition to prove.
    SnapPartition(SnapPartition<Tree>),
}

/// Any Filecoin partition circuit.
pub enum FilecoinCircuit {
    /// 2 KiB, 8 MiB and 512 MiB sectors.
    Base(ShapeCircuit<SectorShapeBase>),
    /// 32 GiB sectors.
    Sub8(ShapeCircuit<SectorShapeSub8>),
    /// 64 GiB sectors.
    Top2(ShapeCircuit<SectorShapeTop2>),
}

/// A tree shape a sector size uses, and how its circuits become a [`FilecoinCircuit`].
pub trait Shape: Sized + 'static + MerkleTreeTrait<Hasher = PoseidonHasher> {
    /// Wraps a circuit of this shape.
    fn wrap(circuit: ShapeCircuit<Self>) -> FilecoinCircuit;
}

impl Shape for SectorShapeBase {
    fn wrap(circuit: ShapeCircuit<Self>) -> FilecoinCircuit {
        FilecoinCircuit::Base(circuit)
    }
}

impl Shape for SectorShapeSub8 {
    fn wrap(circuit: ShapeCircuit<Self>) -> FilecoinCircuit {
        FilecoinCircuit::Sub8(circuit)
    }
}

impl Shape for SectorShapeTop2 {
    fn wrap(circuit: ShapeCircuit<Self>) -> FilecoinCircuit {
        FilecoinCircuit::Top2(circuit)
    }
}

/// Calls `$f::<Tree>($args…)` with the tree shape of sector size `$size`
/// (a [`SectorSize`]), as filecoin-proofs' `with_shape!` does for byte counts.
#[macro_export]
#[doc(hidden)]
macro_rules! with_tree {
    ($size:expr, $f:ident $(, $args:expr)* $(,)?) => {
        match $size {
            $crate::SectorSize::Kib2 | $crate::SectorSize::Mib8 | $crate::SectorSize::Mib512 => {
                $f::<filecoin_proofs::SectorShapeBase>($($args),*)
            }
            $crate::SectorSize::Gib32 => $f::<filecoin_proofs::SectorShapeSub8>($($args),*),
            $crate::SectorSize::Gib64 => $f::<filecoin_proofs::SectorShapeTop2>($($args),*),
        }
    };
}

impl<Tree: Shape> Circuit<Scalar> for ShapeCircuit<Tree> {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self {
            ShapeCircuit::PoRep(c) => Bellpepper(c).synthesize(cs),
            ShapeCircuit::PoRepPartition(c) => Bellpepper(c).synthesize(cs),
            ShapeCircuit::PoSt(c) => Bellpepper(c).synthesize(cs),
            ShapeCircuit::PoStPartition(p) => Bellpepper(p.circuit).synthesize(cs),
            ShapeCircuit::Snap(c) => Bellpepper(c).synthesize(cs),
            ShapeCircuit::SnapPartition(p) => Bellpepper(p.circuit).synthesize(cs),
        }
    }

    fn split(self, parts: usize) -> Result<Split<Self>, Self> {
        match self {
            ShapeCircuit::PoRepPartition(c) => Ok(c.split(parts).map(ShapeCircuit::PoRepPartition)),
            ShapeCircuit::PoSt(c) => Ok(split::post(c, parts).map(ShapeCircuit::PoSt)),
            ShapeCircuit::PoStPartition(p) => Ok(split::post(p.circuit, parts).map(ShapeCircuit::PoSt)),
            whole => Err(whole),
        }
    }

    fn take_block_values(&mut self) -> Option<Vec<BlockValues<Scalar>>> {
        match self {
            ShapeCircuit::PoStPartition(p) => p.take_blocks(),
            ShapeCircuit::PoRepPartition(p) => p.take_blocks(),
            ShapeCircuit::SnapPartition(p) => p.take_blocks(),
            _ => None,
        }
    }
}

impl Circuit<Scalar> for FilecoinCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self {
            FilecoinCircuit::Base(c) => c.synthesize(cs),
            FilecoinCircuit::Sub8(c) => c.synthesize(cs),
            FilecoinCircuit::Top2(c) => c.synthesize(cs),
        }
    }

    fn split(self, parts: usize) -> Result<Split<Self>, Self> {
        match self {
            FilecoinCircuit::Base(c) => c.split(parts).map(|s| s.map(FilecoinCircuit::Base)).map_err(FilecoinCircuit::Base),
            FilecoinCircuit::Sub8(c) => c.split(parts).map(|s| s.map(FilecoinCircuit::Sub8)).map_err(FilecoinCircuit::Sub8),
            FilecoinCircuit::Top2(c) => c.split(parts).map(|s| s.map(FilecoinCircuit::Top2)).map_err(FilecoinCircuit::Top2),
        }
    }

    fn take_block_values(&mut self) -> Option<Vec<BlockValues<Scalar>>> {
        match self {
            FilecoinCircuit::Base(c) => c.take_block_values(),
            FilecoinCircuit::Sub8(c) => c.take_block_values(),
            FilecoinCircuit::Top2(c) => c.take_block_values(),
        }
    }
}

/// The tree shape's name as filecoin-proofs writes it in parameter names
/// (`merkletree-poseidon_hasher-8-8-0`), for messages.
pub fn shape_name(size: SectorSize) -> &'static str {
    match size {
        SectorSize::Kib2 | SectorSize::Mib8 | SectorSize::Mib512 => "merkletree-poseidon_hasher-8-0-0",
        SectorSize::Gib32 => "merkletree-poseidon_hasher-8-8-0",
        SectorSize::Gib64 => "merkletree-poseidon_hasher-8-8-2",
    }
}
