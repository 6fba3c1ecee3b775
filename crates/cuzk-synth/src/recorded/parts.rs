//! The witness pass on several threads: a circuit that [`Circuit::split`]s
//! runs its prefix and its parts as rayon tasks on the current pool, and
//! their witnesses and traces are joined into exactly what the whole circuit
//! synthesized in one piece produces, so the recording's checks apply
//! unchanged.

use ff::PrimeField;
use rayon::prelude::*;

use super::witness::WitnessCs;
use crate::{Circuit, ConstraintSystem, Split, SynthesisError};
use SynthesisError::SplitMismatch;

/// The witness-only pass over `circuit`, the constant one first, sized for
/// `inputs` and `aux` variables.
pub(crate) fn run<S: PrimeField, C: Circuit<S>>(circuit: C, inputs: usize, aux: usize) -> Result<WitnessCs<S>, SynthesisError> {
    let mut cs = WitnessCs::with_capacity(inputs, aux);
    cs.alloc_input(|| "one", || Ok(S::ONE))?;
    circuit.synthesize(&mut cs)?;
    Ok(cs)
}

/// The witness pass over `circuit` (expected to have `inputs` and `aux`
/// variables), cut into as many parts as the current rayon pool has
/// threads when the circuit can be cut, else in one piece.
pub(crate) fn witness<S: PrimeField, C: Circuit<S> + Send>(
    circuit: C,
    inputs: usize,
    aux: usize,
) -> Result<WitnessCs<S>, SynthesisError> {
    let threads = rayon::current_num_threads();
    if threads < 2 {
        return run(circuit, inputs, aux);
    }
    match circuit.split(threads) {
        Ok(split) => join(split, inputs, aux),
        Err(whole) => run(whole, inputs, aux),
    }
}

/// Runs the prefix, then the parts in parallel, and joins them: the
/// prefix's variables and constraints once, then each part's own, with its
/// trace shifted to where its variables land in the whole.
fn join<S: PrimeField, C: Circuit<S> + Send>(split: Split<C>, inputs: usize, aux: usize) -> Result<WitnessCs<S>, SynthesisError> {
    let Split { prefix, parts } = split;
    let prefix = run(prefix, 1, 0)?;
    let (pi, pa) = (prefix.witness.inputs.len(), prefix.witness.aux.len());
    let n = parts.len().max(1);
    let share = |total: usize, fixed: usize| fixed + total.saturating_sub(fixed).div_ceil(n);
    let (part_inputs, part_aux) = (share(inputs, pi), share(aux, pa));
    let parts = parts.into_par_iter().map(|p| run(p, part_inputs, part_aux)).collect::<Result<Vec<_>, _>>()?;

    // The first part already begins with the prefix: it grows into the
    // whole, and each other part is dropped once its tail is copied.
    let mut whole: Option<WitnessCs<S>> = None;
    for (k, part) in parts.into_iter().enumerate() {
        let w = &part.witness;
        let starts = w.inputs.get(..pi) == Some(&prefix.witness.inputs[..]) && w.aux.get(..pa) == Some(&prefix.witness.aux[..]);
        let block = part.trace.after(prefix.trace).filter(|_| starts).ok_or(SplitMismatch { part: k })?;
        let Some(whole) = whole.as_mut() else {
            let mut first = part;
            first.witness.inputs.reserve(inputs.saturating_sub(first.witness.inputs.len()));
            first.witness.aux.reserve(aux.saturating_sub(first.witness.aux.len()));
            whole = Some(first);
            continue;
        };
        let (shift_inputs, shift_aux) = (whole.witness.inputs.len() - pi, whole.witness.aux.len() - pa);
        whole.trace = whole.trace.then(block, shift_inputs, shift_aux);
        whole.witness.inputs.extend_from_slice(&w.inputs[pi..]);
        whole.witness.aux.extend_from_slice(&w.aux[pa..]);
    }
    let whole = whole.unwrap_or(prefix);
    Ok(whole)
}
