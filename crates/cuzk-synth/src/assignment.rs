use ff::PrimeField;
use rayon::prelude::*;

use crate::{
    Circuit, ConstraintSystem, DensityTracker, Index, LinearCombination, SynthesisError, Variable,
};

/// The prover's view of a synthesized circuit: per constraint the evaluations
/// of its A, B and C combinations at the witness, the witness itself, and
/// which variables the A and B queries touch.
///
/// Besides the circuit's own constraints it holds one extra constraint per
/// public input, `input_i · 0 = 0`. They make the A polynomials of the inputs
/// linearly independent (the Groth16 soundness argument needs that), which is
/// why inputs have full density in A and no density tracker there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProvingAssignment<S: PrimeField> {
    /// A's evaluation per constraint.
    pub a: Vec<S>,
    /// B's evaluation per constraint.
    pub b: Vec<S>,
    /// C's evaluation per constraint.
    pub c: Vec<S>,
    /// Public inputs; entry 0 is the constant one.
    pub input_assignment: Vec<S>,
    /// Private witness.
    pub aux_assignment: Vec<S>,
    /// Aux variables used by some A combination.
    pub a_aux_density: DensityTracker,
    /// Inputs used by some B combination.
    pub b_input_density: DensityTracker,
    /// Aux variables used by some B combination.
    pub b_aux_density: DensityTracker,
    scratch: [Vec<(Variable, S)>; 3],
}

impl<S: PrimeField> ProvingAssignment<S> {
    /// An empty assignment (not even the constant one yet).
    pub fn new() -> Self {
        ProvingAssignment {
            a: Vec::new(),
            b: Vec::new(),
            c: Vec::new(),
            input_assignment: Vec::new(),
            aux_assignment: Vec::new(),
            a_aux_density: DensityTracker::new(),
            b_input_density: DensityTracker::new(),
            b_aux_density: DensityTracker::new(),
            scratch: Default::default(),
        }
    }

    /// Synthesizes one circuit: the constant one, the circuit, then the
    /// input-independence constraints.
    pub fn synthesize<C: Circuit<S>>(circuit: C) -> Result<Self, SynthesisError> {
        let mut pa = Self::new();
        pa.alloc_input(|| "one", || Ok(S::ONE))?;
        circuit.synthesize(&mut pa)?;
        for i in 0..pa.input_assignment.len() {
            pa.enforce(|| "", |lc| lc + Variable(Index::Input(i)), |lc| lc, |lc| lc);
        }
        pa.release_scratch();
        Ok(pa)
    }

    /// Frees the combination buffers lent to `enforce`, so a finished
    /// assignment holds (and compares equal on) its results only.
    pub(crate) fn release_scratch(&mut self) {
        self.scratch = Default::default();
    }

    /// An assignment assembled from parts computed elsewhere (the recorded path).
    pub(crate) fn from_parts(
        [a, b, c]: [Vec<S>; 3],
        input_assignment: Vec<S>,
        aux_assignment: Vec<S>,
        [a_aux_density, b_input_density, b_aux_density]: [DensityTracker; 3],
    ) -> Self {
        ProvingAssignment {
            a,
            b,
            c,
            input_assignment,
            aux_assignment,
            a_aux_density,
            b_input_density,
            b_aux_density,
            scratch: Default::default(),
        }
    }

    /// Number of constraints, the input-independence ones included.
    pub fn num_constraints(&self) -> usize {
        self.a.len()
    }

    /// Number of public inputs, the constant one included.
    pub fn num_inputs(&self) -> usize {
        self.input_assignment.len()
    }

    /// Number of private variables.
    pub fn num_aux(&self) -> usize {
        self.aux_assignment.len()
    }

    fn eval(
        &mut self,
        slot: usize,
        build: impl FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        mut input_density: Option<&mut DensityTracker>,
        mut aux_density: Option<&mut DensityTracker>,
    ) -> S {
        let lc = build(LinearCombination::from_buffer(std::mem::take(&mut self.scratch[slot])));
        let mut acc = S::ZERO;
        for (var, coeff) in lc.iter() {
            let value = match var.0 {
                Index::Input(i) => {
                    if let Some(d) = input_density.as_deref_mut() {
                        d.inc(i);
                    }
                    self.input_assignment[i]
                }
                Index::Aux(i) => {
                    if let Some(d) = aux_density.as_deref_mut() {
                        d.inc(i);
                    }
                    self.aux_assignment[i]
                }
            };
            if *coeff == S::ONE {
                acc += value;
            } else {
                acc += value * coeff;
            }
        }
        self.scratch[slot] = lc.into_buffer();
        acc
    }
}

impl<S: PrimeField> ConstraintSystem<S> for ProvingAssignment<S> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.aux_assignment.push(f()?);
        self.a_aux_density.add_element();
        self.b_aux_density.add_element();
        Ok(Variable(Index::Aux(self.aux_assignment.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.input_assignment.push(f()?);
        self.b_input_density.add_element();
        Ok(Variable(Index::Input(self.input_assignment.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LB: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LC: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
    {
        let mut a_aux = std::mem::take(&mut self.a_aux_density);
        let va = self.eval(0, a, None, Some(&mut a_aux));
        self.a_aux_density = a_aux;

        let mut b_in = std::mem::take(&mut self.b_input_density);
        let mut b_aux = std::mem::take(&mut self.b_aux_density);
        let vb = self.eval(1, b, Some(&mut b_in), Some(&mut b_aux));
        self.b_input_density = b_in;
        self.b_aux_density = b_aux;

        let vc = self.eval(2, c, None, None);
        self.a.push(va);
        self.b.push(vb);
        self.c.push(vc);
    }


    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}

/// Synthesizes circuits in parallel (one rayon task per circuit), in order.
pub fn synthesize_batch<S, C>(circuits: Vec<C>) -> Result<Vec<ProvingAssignment<S>>, SynthesisError>
where
    S: PrimeField,
    C: Circuit<S> + Send,
{
    circuits.into_par_iter().map(ProvingAssignment::synthesize).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::Scalar;

    /// x · y = z with x, y private and z public.
    struct Product(u64, u64);

    impl Circuit<Scalar> for Product {
        fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
            let x = cs.alloc(|| "x", || Ok(Scalar::from(self.0)))?;
            let y = cs.alloc(|| "y", || Ok(Scalar::from(self.1)))?;
            let z = cs.alloc_input(|| "z", || Ok(Scalar::from(self.0 * self.1)))?;
            let mut ns = cs.namespace(|| "product");
            ns.enforce(|| "x*y=z", |lc| lc + x, |lc| lc + y, |lc| lc + z);
            Ok(())
        }
    }

    #[test]
    fn records_evaluations_densities_and_input_constraints() {
        let pa = ProvingAssignment::synthesize(Product(6, 7)).unwrap();
        let s = |v: u64| Scalar::from(v);
        assert_eq!(pa.input_assignment, vec![s(1), s(42)]);
        assert_eq!(pa.aux_assignment, vec![s(6), s(7)]);
        assert_eq!(pa.a, vec![s(6), s(1), s(42)]);
        assert_eq!(pa.b, vec![s(7), s(0), s(0)]);
        assert_eq!(pa.c, vec![s(42), s(0), s(0)]);
        assert_eq!(pa.a_aux_density.iter().collect::<Vec<_>>(), vec![true, false]);
        assert_eq!(pa.b_aux_density.iter().collect::<Vec<_>>(), vec![false, true]);
        assert_eq!(pa.b_input_density.iter().collect::<Vec<_>>(), vec![false, false]);
    }

    #[test]
    fn batch_keeps_order_and_reports_errors() {
        let out = synthesize_batch(vec![Product(2, 3), Product(4, 5)]).unwrap();
        assert_eq!(out[0].input_assignment[1], Scalar::from(6));
        assert_eq!(out[1].input_assignment[1], Scalar::from(20));

        struct Failing;
        impl Circuit<Scalar> for Failing {
            fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
                cs.alloc(|| "missing", || Err(SynthesisError::AssignmentMissing))?;
                Ok(())
            }
        }
        assert_eq!(
            ProvingAssignment::<Scalar>::synthesize(Failing).unwrap_err(),
            SynthesisError::AssignmentMissing
        );
    }
}
