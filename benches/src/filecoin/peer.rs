//! A cuzk-filecoin circuit handed to bellperson: the enum is unwrapped to
//! filecoin-proofs' own bellpepper circuit, which bellperson synthesizes
//! directly, so both libraries run the same circuit code on the same values.

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use cuzk_filecoin::{FilecoinCircuit, Shape, ShapeCircuit};

/// A Filecoin partition circuit as bellperson's prover takes it.
pub struct PeerFilecoin(pub FilecoinCircuit);

impl Circuit<Scalar> for PeerFilecoin {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self.0 {
            FilecoinCircuit::Base(c) => at_shape(c, cs),
            FilecoinCircuit::Sub8(c) => at_shape(c, cs),
            FilecoinCircuit::Top2(c) => at_shape(c, cs),
        }
    }
}

fn at_shape<Tree: Shape, CS: ConstraintSystem<Scalar>>(
    circuit: ShapeCircuit<Tree>,
    cs: &mut CS,
) -> Result<(), SynthesisError> {
    match circuit {
        ShapeCircuit::PoRep(c) => c.synthesize(cs),
        ShapeCircuit::PoRepPartition(c) => c.synthesize(cs),
        ShapeCircuit::PoSt(c) => c.synthesize(cs),
        ShapeCircuit::PoStPartition(p) => p.circuit.synthesize(cs),
        ShapeCircuit::Snap(c) => c.synthesize(cs),
        ShapeCircuit::SnapPartition(p) => p.circuit.synthesize(cs),
    }
}
