//! The recording pass: the circuit allocates and computes its witness as in
//! the witness-only pass, and each combination it builds is copied into the
//! matrices (and the densities) instead of being evaluated. The evaluations
//! come afterwards from the matrices, in parallel, every row checked.
//!
//! A circuit that splits ([`crate::Circuit::split`]) is recorded in parts on
//! the current rayon pool: each part's rows are appended to the whole with
//! its variables shifted to where they land, so the recording equals the one
//! taken in one piece (see `parts`).

use ff::PrimeField;

use super::matrix::{staged_column, CoeffTable, Csr, CsrBuilder, Tail};
use super::parts::{self, Piece, PrefixCounts};
use super::witness::{Trace, Witness, WitnessCs};
use crate::{Circuit, ConstraintSystem, DensityTracker, Index, LinearCombination, SynthesisError, Variable};

/// What one recording produces before it becomes a `RecordedShape`.
pub(crate) struct Recording<S: PrimeField> {
    pub(crate) witness: Witness<S>,
    pub(crate) trace: Trace,
    pub(crate) coeffs: Vec<S>,
    pub(crate) matrices: [Csr; 3],
    /// a_aux, b_input, b_aux, as `ProvingAssignment` tracks them.
    pub(crate) densities: [DensityTracker; 3],
}

/// The constraint system of the recording pass.
pub(crate) struct Recorder<S: PrimeField> {
    cs: WitnessCs<S>,
    /// Term buffers lent to the circuit's combinations (A, B, C).
    scratch: [Vec<(Variable, S)>; 3],
    terms: Vec<(u32, S)>,
    table: CoeffTable<S>,
    matrices: [CsrBuilder; 3],
    /// a_aux, b_input, b_aux.
    densities: [DensityTracker; 3],
    /// `enforce` cannot fail, so the first recording error waits here.
    error: Option<SynthesisError>,
}

/// Records `circuit` (in parts when it splits), then appends the
/// input-independence rows `ProvingAssignment::synthesize` adds.
pub(crate) fn record<S: PrimeField, C: Circuit<S> + Send>(circuit: C) -> Result<Recording<S>, SynthesisError> {
    let mut rec: Recorder<S> = parts::pieces(circuit, 0, 0)?;
    if let Some(e) = rec.error.take() {
        return Err(e);
    }
    let Recorder { cs, mut table, mut matrices, densities, .. } = rec;
    let (inputs, aux) = (cs.witness.inputs.len(), cs.witness.aux.len());
    let num_inputs = u32::try_from(inputs)
        .ok()
        .filter(|_| (inputs as u64 + aux as u64) <= u64::from(u32::MAX) + 1)
        .ok_or_else(|| {
            SynthesisError::RecordingTooLarge(format!("{inputs} inputs and {aux} aux variables do not fit 32-bit columns"))
        })?;
    let [a, b, c] = &mut matrices;
    for i in 0..inputs {
        a.push_row(&mut vec![(staged_column(Variable(Index::Input(i)))?, S::ONE)], &mut table)?;
        b.push_row(&mut Vec::new(), &mut table)?;
        c.push_row(&mut Vec::new(), &mut table)?;
    }
    let coeffs = table.into_values();
    let matrices = matrices.map(|m| m.finish(num_inputs, coeffs.len()));
    Ok(Recording { witness: cs.witness, trace: cs.trace, coeffs, matrices, densities })
}

impl<S: PrimeField> Recorder<S> {
    /// Copies one combination of the constraint being enforced into matrix
    /// `slot` (0: A, 1: B, 2: C), marking the densities as
    /// `ProvingAssignment` does (aux in A; inputs and aux in B), and keeps
    /// its buffer for the next one.
    fn row(&mut self, slot: usize, lc: LinearCombination<S>) {
        self.terms.clear();
        let (inputs, aux) = (self.cs.witness.inputs.len(), self.cs.witness.aux.len());
        for &(var, coeff) in lc.terms() {
            let (known, density) = match var.get_unchecked() {
                Index::Input(i) => (i < inputs, (slot == 1).then_some((1, i))),
                Index::Aux(i) => (i < aux, (slot < 2).then_some((2 * slot, i))),
            };
            if !known {
                self.error.get_or_insert(SynthesisError::Circuit(format!("a constraint uses {var:?}, which was never allocated")));
                continue;
            }
            if let Some((d, i)) = density {
                self.densities[d].inc(i);
            }
            match staged_column(var) {
                Ok(col) => self.terms.push((col, coeff)),
                Err(e) => drop(self.error.get_or_insert(e)),
            }
        }
        if let Err(e) = self.matrices[slot].push_row(&mut self.terms, &mut self.table) {
            self.error.get_or_insert(e);
        }
        self.scratch[slot] = lc.into_buffer();
    }

    fn lent(&mut self, slot: usize) -> LinearCombination<S> {
        LinearCombination::from_buffer(std::mem::take(&mut self.scratch[slot]))
    }
}

impl<S: PrimeField> Piece<S> for Recorder<S> {
    fn sized(inputs: usize, aux: usize) -> Self {
        Recorder {
            cs: WitnessCs::with_capacity(inputs, aux),
            scratch: Default::default(),
            terms: Vec::new(),
            table: CoeffTable::new(),
            matrices: [CsrBuilder::new(), CsrBuilder::new(), CsrBuilder::new()],
            densities: Default::default(),
            error: None,
        }
    }

    fn cs(&self) -> &WitnessCs<S> {
        &self.cs
    }

    fn cs_mut(&mut self) -> &mut WitnessCs<S> {
        &mut self.cs
    }

    fn reserve_beside(&mut self, rest: &[Self], prefix: &PrefixCounts) {
        for (m, matrix) in self.matrices.iter_mut().enumerate() {
            matrix.reserve(rest.iter().map(|p| p.matrices[m].tail_len(prefix.constraints)));
        }
    }

    fn append_beside(&mut self, part: &Self, prefix: &PrefixCounts, shift: (usize, usize)) -> Result<(), SynthesisError> {
        if let Some(e) = &part.error {
            return Err(e.clone());
        }
        let coeffs: Vec<u32> =
            part.table.values().iter().map(|&v| self.table.intern(v)).collect::<Result<_, _>>()?;
        let tail = Tail { from_row: prefix.constraints, inputs: prefix.inputs, aux: prefix.aux, shift, coeffs: &coeffs };
        for (whole, part) in self.matrices.iter_mut().zip(&part.matrices) {
            whole.append_tail(part, &tail)?;
        }
        let lengths = [prefix.aux, prefix.inputs, prefix.aux];
        for ((whole, part), len) in self.densities.iter_mut().zip(&part.densities).zip(lengths) {
            whole.join_part(part, len);
        }
        Ok(())
    }
}

impl<S: PrimeField> ConstraintSystem<S> for Recorder<S> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        let var = self.cs.alloc(annotation, f)?;
        self.densities[0].add_element();
        self.densities[2].add_element();
        Ok(var)
    }

    fn alloc_input<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        let var = self.cs.alloc_input(annotation, f)?;
        self.densities[1].add_element();
        Ok(var)
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LB: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LC: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
    {
        self.cs.trace.fold(self.cs.witness.inputs.len(), self.cs.witness.aux.len());
        let lc = a(self.lent(0));
        self.row(0, lc);
        let lc = b(self.lent(1));
        self.row(1, lc);
        let lc = c(self.lent(2));
        self.row(2, lc);
    }

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}
