//! [`RecordedShape`]: the matrices, densities and fingerprint of one
//! circuit shape, and the two halves of recorded synthesis.

use std::fmt;
use std::sync::{Arc, OnceLock};

use ff::{PrimeField, PrimeFieldBits};

use super::matrix::Csr;
use super::witness::{Trace, Witness, WitnessCs};
use super::blocks::PlanCache;
use super::{parts, record, spmv};
use crate::{Circuit, DensityTracker, ProvingAssignment, SynthesisError};

/// The constraint matrices of one circuit shape, recorded once, so that each
/// proof of that shape needs only its witness and three sparse products.
///
/// A recording applies to every circuit whose constraints do not depend on
/// its witness (true of every circuit that has Groth16 parameters). What
/// guards against using it with a circuit of another shape:
/// - the witness pass compares the counts of inputs, aux variables and
///   constraints, and a [`Trace`] of where the allocations fall between the
///   constraints: this catches any change of size or of gadget order;
/// - the evaluation checks a_i · b_i = c_i on every row: a changed term or
///   coefficient is caught as soon as the witness violates the recorded row
///   (as the correct witness of a changed circuit does, unless the change
///   happens to be satisfied by it too).
///
/// A wrong witness is reported the same way, with the index of the row.
pub struct RecordedShape<S: PrimeField> {
    pub(crate) num_inputs: usize,
    pub(crate) num_aux: usize,
    /// Circuit constraints (without the input-independence rows) and their trace.
    pub(crate) trace: Trace,
    /// Distinct coefficients; entries 0 and 1 are one and minus one.
    pub(crate) coeffs: Vec<S>,
    pub(crate) matrices: [Csr; 3],
    /// a_aux, b_input, b_aux, as `ProvingAssignment` holds them.
    pub(crate) densities: [DensityTracker; 3],
    pub(crate) digest: OnceLock<[u8; 32]>,
    /// The plan of one block, for circuits that give their block values
    /// (see the `blocks` module); made on first use.
    pub(crate) block_plan: PlanCache<S>,
}

/// How a witness was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WitnessPass {
    /// By the circuit's own gadgets, without building linear combinations.
    Gadgets,
    /// From the rows, block by block, from the circuit's block values.
    Replay,
}

impl<S: PrimeField> RecordedShape<S> {
    /// Records `circuit`'s shape (in parts on the current rayon pool when
    /// it splits) and evaluates its witness through the recorded rows, each
    /// checked: the assignment is the one `ProvingAssignment::synthesize`
    /// would return, and a witness that violates a row is an error
    /// ([`SynthesisError::UnsatisfiedConstraint`]) rather than a recording.
    pub fn record<C: Circuit<S> + Send>(circuit: C) -> Result<(Self, ProvingAssignment<S>), SynthesisError> {
        let (shape, witness) = Self::recorded(circuit)?;
        let assignment = shape.evaluate(witness)?;
        Ok((shape, assignment))
    }

    /// Records `circuit`'s shape only, without evaluating its witness: what
    /// a setup needs, which fixes the matrices whatever the values (they
    /// need not satisfy the rows).
    pub fn record_shape<C: Circuit<S> + Send>(circuit: C) -> Result<Self, SynthesisError> {
        Ok(Self::recorded(circuit)?.0)
    }

    fn recorded<C: Circuit<S> + Send>(circuit: C) -> Result<(Self, Witness<S>), SynthesisError> {
        let rec = record::record(circuit)?;
        let shape = RecordedShape {
            num_inputs: rec.witness.inputs.len(),
            num_aux: rec.witness.aux.len(),
            trace: rec.trace,
            coeffs: rec.coeffs,
            matrices: rec.matrices,
            densities: rec.densities,
            digest: OnceLock::new(),
            block_plan: PlanCache::default(),
        };
        Ok((shape, rec.witness))
    }

}

impl<S: PrimeField + PrimeFieldBits> RecordedShape<S> {
    /// Witness-only synthesis, then the products: equal to
    /// `ProvingAssignment::synthesize(circuit)` (a, b, c, inputs, aux,
    /// densities) for a circuit of this shape with a satisfying witness.
    pub fn synthesize<C: Circuit<S> + Send>(&self, circuit: C) -> Result<ProvingAssignment<S>, SynthesisError> {
        self.evaluate(self.witness(circuit)?)
    }

    /// The first half: [`RecordedShape::witness_pass`] without saying how.
    pub fn witness<C: Circuit<S> + Send>(&self, circuit: C) -> Result<Witness<S>, SynthesisError> {
        self.witness_pass(circuit).map(|(w, _)| w)
    }

    /// The first half. A circuit that gives its block values
    /// ([`Circuit::take_block_values`]) has its witness replayed from the rows,
    /// block by block on the current rayon pool. Any other runs without
    /// building any linear combination, its counts and trace checked
    /// against the recording; one that splits runs in parts on the pool.
    pub fn witness_pass<C: Circuit<S> + Send>(&self, circuit: C) -> Result<(Witness<S>, WitnessPass), SynthesisError> {
        self.pass(circuit, None)
    }

    /// [`RecordedShape::witness_pass`] for a shape the partitions share: a
    /// circuit that does not split and gives its values (one block, the
    /// whole circuit), whose plan is not made yet, runs its gadgets while
    /// the plan is made on a thread of its own (once per shape); the
    /// witnesses after it replay. Why: a whole 32 GiB SnapDeals partition
    /// is planned in about a minute of one core, which held back every
    /// partition of the first proof.
    pub fn shared_witness_pass<C: Circuit<S> + Send>(self: &Arc<Self>, circuit: C) -> Result<(Witness<S>, WitnessPass), SynthesisError> {
        self.pass(circuit, Some(self))
    }

    fn pass<C: Circuit<S> + Send>(&self, circuit: C, shared: Option<&Arc<Self>>) -> Result<(Witness<S>, WitnessPass), SynthesisError> {
        let circuit = match self.replay_blocks(circuit, shared)? {
            Ok(w) => return Ok((w, WitnessPass::Replay)),
            Err(circuit) => circuit,
        };
        let cs: WitnessCs<S> = parts::pieces(circuit, self.num_inputs, self.num_aux)?;
        let checks = [
            ("the number of public inputs", self.num_inputs as u64, cs.witness.inputs.len() as u64),
            ("the number of aux variables", self.num_aux as u64, cs.witness.aux.len() as u64),
            ("the number of constraints", self.trace.constraints as u64, cs.trace.constraints as u64),
            ("the allocation trace", self.trace.hash, cs.trace.hash),
        ];
        match checks.into_iter().find(|(_, recorded, found)| recorded != found) {
            Some((what, recorded, found)) => Err(SynthesisError::ShapeMismatch { what, recorded, found }),
            None => Ok((cs.witness, WitnessPass::Gadgets)),
        }
    }
}

impl<S: PrimeField> RecordedShape<S> {
    /// The second half: a = A·w, b = B·w, c = C·w in parallel, every row
    /// checked, and the recorded densities.
    pub fn evaluate(&self, w: Witness<S>) -> Result<ProvingAssignment<S>, SynthesisError> {
        let lengths = [
            ("the number of public inputs", self.num_inputs, w.inputs.len()),
            ("the number of aux variables", self.num_aux, w.aux.len()),
        ];
        if let Some((what, recorded, found)) = lengths.into_iter().find(|(_, r, f)| r != f) {
            return Err(SynthesisError::ShapeMismatch { what, recorded: recorded as u64, found: found as u64 });
        }
        let columns = spmv::Columns { inputs: &w.inputs, aux: &w.aux };
        let abc = spmv::evaluate(&self.matrices, &self.coeffs, columns)?;
        Ok(ProvingAssignment::from_parts(abc, w.inputs, w.aux, self.densities.clone()))
    }

    /// Constraints as the prover sees them: the circuit's plus one per public input.
    pub fn num_constraints(&self) -> usize {
        self.trace.constraints + self.num_inputs
    }

    /// Public inputs, the constant one included.
    pub fn num_inputs(&self) -> usize {
        self.num_inputs
    }

    /// Private variables.
    pub fn num_aux(&self) -> usize {
        self.num_aux
    }

    /// Bytes held on the heap (matrices, coefficient table, densities), for memory budgets.
    pub fn heap_bytes(&self) -> usize {
        self.coeffs.capacity() * std::mem::size_of::<S>()
            + self.matrices.iter().map(Csr::heap_bytes).sum::<usize>()
            + self.densities.iter().map(|d| d.words().len() * 8).sum::<usize>()
    }

    /// SHA-256 of the shape's file form (counts, coefficients, matrices,
    /// densities, trace): equal digests mean interchangeable recordings.
    /// Computed once.
    pub fn digest(&self) -> [u8; 32] {
        *self.digest.get_or_init(|| super::file::digest(self))
    }

    /// Matrix A. Columns: inputs first (column 0 is the one), then aux.
    pub fn a(&self) -> &Csr {
        &self.matrices[0]
    }

    /// Matrix B, in A's column space.
    pub fn b(&self) -> &Csr {
        &self.matrices[1]
    }

    /// Matrix C, in A's column space.
    pub fn c(&self) -> &Csr {
        &self.matrices[2]
    }

    /// The coefficient table the matrices index; entries 0 and 1 are one and minus one.
    pub fn coefficients(&self) -> &[S] {
        &self.coeffs
    }

    /// The densities every assignment of this shape has: aux variables used
    /// in A, inputs used in B, aux variables used in B (as
    /// `ProvingAssignment` holds them), for provers that take the witness
    /// and compute a, b, c themselves.
    pub fn densities(&self) -> &[DensityTracker; 3] {
        &self.densities
    }

    /// Nonzeros of A, B and C together.
    pub fn nnz(&self) -> usize {
        self.matrices.iter().map(Csr::nnz).sum()
    }
}

impl<S: PrimeField> fmt::Debug for RecordedShape<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordedShape")
            .field("constraints", &self.num_constraints())
            .field("inputs", &self.num_inputs)
            .field("aux", &self.num_aux)
            .field("nnz", &self.matrices.each_ref().map(Csr::nnz))
            .field("coefficients", &self.coeffs.len())
            .finish_non_exhaustive()
    }
}
