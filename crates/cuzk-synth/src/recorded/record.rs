//! The recording pass: classic synthesis through a [`ProvingAssignment`],
//! with each combination the circuit builds copied into the matrices on its
//! way to being evaluated.

use ff::PrimeField;

use super::matrix::{staged_column, CoeffTable, CsrBuilder};
use super::witness::Trace;
use crate::{
    Circuit, ConstraintSystem, Index, LinearCombination, ProvingAssignment, SynthesisError,
    Variable,
};

/// What one recording produces before it becomes a `RecordedShape`.
pub(crate) struct Recording<S: PrimeField> {
    pub(crate) assignment: ProvingAssignment<S>,
    pub(crate) trace: Trace,
    pub(crate) coeffs: Vec<S>,
    pub(crate) matrices: [super::matrix::Csr; 3],
}

struct Recorder<S: PrimeField> {
    pa: ProvingAssignment<S>,
    staged: [Vec<(Variable, S)>; 3],
    terms: Vec<(u32, S)>,
    table: CoeffTable<S>,
    matrices: [CsrBuilder; 3],
    trace: Trace,
    /// `enforce` cannot fail, so the first recording error waits here.
    error: Option<SynthesisError>,
}

impl<S: PrimeField> Recorder<S> {
    fn push_rows(&mut self) -> Result<(), SynthesisError> {
        for (staged, matrix) in self.staged.iter().zip(&mut self.matrices) {
            self.terms.clear();
            for &(var, coeff) in staged {
                self.terms.push((staged_column(var)?, coeff));
            }
            matrix.push_row(&mut self.terms, &mut self.table)?;
        }
        Ok(())
    }
}

/// Runs `circuit` exactly as `ProvingAssignment::synthesize` does (the one,
/// the circuit, the input-independence constraints) while recording.
pub(crate) fn record<S: PrimeField, C: Circuit<S>>(circuit: C) -> Result<Recording<S>, SynthesisError> {
    let mut rec = Recorder {
        pa: ProvingAssignment::new(),
        staged: Default::default(),
        terms: Vec::new(),
        table: CoeffTable::new(),
        matrices: [CsrBuilder::new(), CsrBuilder::new(), CsrBuilder::new()],
        trace: Trace::default(),
        error: None,
    };
    rec.alloc_input(|| "one", || Ok(S::ONE))?;
    circuit.synthesize(&mut rec)?;
    let trace = rec.trace;
    for i in 0..rec.pa.num_inputs() {
        rec.enforce(|| "", |lc| lc + Variable(Index::Input(i)), |lc| lc, |lc| lc);
    }
    if let Some(e) = rec.error {
        return Err(e);
    }
    let (inputs, aux) = (rec.pa.num_inputs(), rec.pa.num_aux());
    let num_inputs = u32::try_from(inputs)
        .ok()
        .filter(|_| (inputs as u64 + aux as u64) <= u64::from(u32::MAX) + 1)
        .ok_or_else(|| {
            SynthesisError::RecordingTooLarge(format!(
                "{inputs} inputs and {aux} aux variables do not fit 32-bit columns"
            ))
        })?;
    rec.pa.release_scratch();
    let coeffs = rec.table.into_values();
    let matrices = rec.matrices.map(|m| m.finish(num_inputs, coeffs.len()));
    Ok(Recording { assignment: rec.pa, trace, coeffs, matrices })
}

impl<S: PrimeField> ConstraintSystem<S> for Recorder<S> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.pa.alloc(annotation, f)
    }

    fn alloc_input<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.pa.alloc_input(annotation, f)
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, annotation: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LB: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LC: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
    {
        self.trace.fold(self.pa.num_inputs(), self.pa.num_aux());
        let [sa, sb, sc] = &mut self.staged;
        let copy = |staged: &mut Vec<(Variable, S)>, lc: LinearCombination<S>| {
            staged.clear();
            staged.extend_from_slice(lc.terms());
            lc
        };
        self.pa.enforce(annotation, |lc| copy(sa, a(lc)), |lc| copy(sb, b(lc)), |lc| copy(sc, c(lc)));
        if self.error.is_none() {
            self.error = self.push_rows().err();
        }
    }


    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}
