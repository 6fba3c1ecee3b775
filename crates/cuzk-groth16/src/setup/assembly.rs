//! The setup's constraint system: records where each variable appears in A, B and C,
//! never computing a witness. Its entries cost 56 bytes each, which is fine
//! for the circuits tests and benchmarks set up; a Filecoin-size setup goes
//! through a recorded shape instead (`columns.rs`).

use blstrs::Scalar;
use cuzk_synth::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use ff::Field;

use super::columns::Columns;

/// One non-zero matrix entry: variable, constraint (row), coefficient.
type Entry = (Index, usize, Scalar);

/// The R1CS matrices A, B, C as entry lists, plus variable counts.
#[derive(Default)]
pub(crate) struct KeypairAssembly {
    pub(crate) num_inputs: usize,
    pub(crate) num_aux: usize,
    pub(crate) num_constraints: usize,
    pub(crate) matrices: [Vec<Entry>; 3],
    buffer: Vec<(Variable, Scalar)>,
}

/// Synthesizes `circuit` for the setup as the prover does: the input one
/// first, then the circuit, then one `input · 0 = 0` constraint per input,
/// which makes the inputs' A polynomials linearly independent, as soundness
/// requires.
pub(crate) fn synthesize<C: Circuit<Scalar>>(circuit: C) -> Result<KeypairAssembly, SynthesisError> {
    let mut cs = KeypairAssembly::default();
    cs.alloc_input(|| "one", || Ok(Scalar::ONE))?;
    circuit.synthesize(&mut cs)?;
    for i in 0..cs.num_inputs {
        cs.enforce(|| "", |lc| lc + Variable::new_unchecked(Index::Input(i)), |lc| lc, |lc| lc);
    }
    Ok(cs)
}

impl KeypairAssembly {
    /// Evaluates each variable's column polynomials at τ, given the Lagrange
    /// basis Lⱼ(τ) of the domain: the column polynomial of variable i in A is
    /// Σⱼ A[j][i]·Lⱼ(x), the one that takes value A[j][i] at ωʲ.
    pub(crate) fn evaluate(&self, lagrange: &[Scalar]) -> Columns {
        let eval = |entries: &[Entry]| {
            let mut at_tau = vec![Scalar::ZERO; self.num_inputs + self.num_aux];
            for (var, row, coeff) in entries {
                let column = match var {
                    Index::Input(i) => *i,
                    Index::Aux(i) => self.num_inputs + i,
                };
                at_tau[column] += lagrange[*row] * coeff;
            }
            at_tau
        };
        Columns { at_tau: self.matrices.each_ref().map(|m| eval(m)), num_inputs: self.num_inputs }
    }

    /// Appends the entries of one combination of the current constraint to matrix `m`.
    fn record(&mut self, m: usize, build: impl FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>) {
        let row = self.num_constraints;
        let lc = build(LinearCombination::from_buffer(std::mem::take(&mut self.buffer)));
        self.matrices[m].extend(lc.iter().map(|(v, coeff)| (v.get_unchecked(), row, *coeff)));
        self.buffer = lc.into_buffer();
    }
}

impl ConstraintSystem<Scalar> for KeypairAssembly {
    type Root = Self;

    /// Setup never needs values, so `f` is not called.
    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.num_aux += 1;
        Ok(Variable::new_unchecked(Index::Aux(self.num_aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.num_inputs += 1;
        Ok(Variable::new_unchecked(Index::Input(self.num_inputs - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        self.record(0, a);
        self.record(1, b);
        self.record(2, c);
        self.num_constraints += 1;
    }


    fn get_root(&mut self) -> &mut Self::Root {
        self
    }

    fn is_witness_generator(&self) -> bool {
        false
    }
}
