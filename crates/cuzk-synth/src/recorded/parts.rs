//! Passes on several threads: a circuit that [`Circuit::split`]s runs its
//! prefix and its parts as rayon tasks on the current pool, and what they
//! leave (witnesses and traces; for the recording also rows and densities)
//! is joined into exactly what the whole circuit run in one piece leaves,
//! so the recording's checks apply unchanged.

use ff::PrimeField;
use rayon::prelude::*;

use super::witness::WitnessCs;
use crate::{Circuit, ConstraintSystem, Split, SynthesisError};
use SynthesisError::SplitMismatch;

/// What the prefix allocated and enforced: every part begins with it.
pub(crate) struct PrefixCounts {
    pub(crate) inputs: usize,
    pub(crate) aux: usize,
    pub(crate) constraints: usize,
}

/// What one run of a circuit (whole, prefix or part) leaves: the witness
/// pass's [`WitnessCs`], or the recording's `Recorder`, which also holds
/// rows and densities. The join handles the witness and the trace; a piece
/// joins only what it holds beside them.
pub(crate) trait Piece<S: PrimeField>: ConstraintSystem<S> + Send + Sized {
    /// An empty piece with room for `inputs` and `aux` variables.
    fn sized(inputs: usize, aux: usize) -> Self;
    /// Its witness and trace.
    fn cs(&self) -> &WitnessCs<S>;
    /// The same, to append to.
    fn cs_mut(&mut self) -> &mut WitnessCs<S>;
    /// Makes room for what the parts in `rest` hold beside their witness.
    fn reserve_beside(&mut self, _rest: &[Self], _prefix: &PrefixCounts) {}
    /// Appends what `part` holds beside its witness after the prefix, its
    /// own variables moved by `shift` (inputs, aux) to follow this piece's.
    fn append_beside(&mut self, _part: &Self, _prefix: &PrefixCounts, _shift: (usize, usize)) -> Result<(), SynthesisError> {
        Ok(())
    }
}

impl<S: PrimeField> Piece<S> for WitnessCs<S> {
    fn sized(inputs: usize, aux: usize) -> Self {
        WitnessCs::with_capacity(inputs, aux)
    }

    fn cs(&self) -> &WitnessCs<S> {
        self
    }

    fn cs_mut(&mut self) -> &mut WitnessCs<S> {
        self
    }
}

/// One pass over `circuit`, the constant one first, sized for `inputs` and
/// `aux` variables.
pub(crate) fn run<S: PrimeField, C: Circuit<S>, P: Piece<S>>(circuit: C, inputs: usize, aux: usize) -> Result<P, SynthesisError> {
    let mut cs = P::sized(inputs, aux);
    cs.alloc_input(|| "one", || Ok(S::ONE))?;
    circuit.synthesize(&mut cs)?;
    Ok(cs)
}

/// One pass over `circuit`, cut into up to twice as many parts as the
/// current rayon pool has threads when the circuit can be cut, else in one
/// piece. Twice: partitions synthesized at once share the pool, and a cut
/// into exactly as many parts as threads leaves most threads idle while a
/// few finish a longer part (a 32 GiB PoRep partition's 18 challenges on 16
/// threads: two parts of two challenges); finer parts fill those gaps with
/// other partitions' work.
pub(crate) fn pieces<S: PrimeField, C: Circuit<S> + Send, P: Piece<S>>(
    circuit: C,
    inputs: usize,
    aux: usize,
) -> Result<P, SynthesisError> {
    let threads = rayon::current_num_threads();
    if threads < 2 {
        return run(circuit, inputs, aux);
    }
    match circuit.split(2 * threads) {
        Ok(split) => join(split, inputs, aux),
        Err(whole) => run(whole, inputs, aux),
    }
}

/// Runs the prefix, then the parts in parallel, and joins them: the
/// prefix's variables and constraints once, then each part's own, with its
/// trace shifted to where its variables land in the whole.
fn join<S: PrimeField, C: Circuit<S> + Send, P: Piece<S>>(
    split: Split<C>,
    inputs: usize,
    aux: usize,
) -> Result<P, SynthesisError> {
    let Split { prefix, parts } = split;
    let prefix: P = run(prefix, 1, 0)?;
    let (pw, ptrace) = (&prefix.cs().witness, prefix.cs().trace);
    let counts = PrefixCounts { inputs: pw.inputs.len(), aux: pw.aux.len(), constraints: ptrace.constraints };
    let n = parts.len().max(1);
    let share = |total: usize, fixed: usize| fixed + total.saturating_sub(fixed).div_ceil(n);
    let (part_inputs, part_aux) = (share(inputs, counts.inputs), share(aux, counts.aux));
    let parts = parts.into_par_iter().map(|p| run::<S, C, P>(p, part_inputs, part_aux)).collect::<Result<Vec<_>, _>>()?;

    // The first part already begins with the prefix: it grows into the
    // whole, and each other part is dropped once its tail is appended.
    let mut parts = parts.into_iter();
    let Some(mut whole) = parts.next() else { return Ok(prefix) };
    let block = |k: usize, part: &P| {
        let w = &part.cs().witness;
        let starts = w.inputs.get(..counts.inputs) == Some(&pw.inputs[..]) && w.aux.get(..counts.aux) == Some(&pw.aux[..]);
        part.cs().trace.after(ptrace).filter(|_| starts).ok_or(SplitMismatch { part: k })
    };
    block(0, &whole)?;
    let rest: Vec<P> = parts.collect();
    whole.reserve_beside(&rest, &counts);
    // The aux values are copied after the loop, all at once: `aux` counts
    // what the whole will hold by then.
    let mut aux = whole.cs().witness.aux.len();
    for (k, part) in rest.iter().enumerate() {
        let block = block(k + 1, part)?;
        let tail = &part.cs().witness;
        let shift = (whole.cs().witness.inputs.len() - counts.inputs, aux - counts.aux);
        whole.append_beside(part, &counts, shift)?;
        let cs = whole.cs_mut();
        cs.trace = cs.trace.then(block, shift.0, shift.1);
        cs.witness.inputs.extend_from_slice(&tail.inputs[counts.inputs..]);
        aux += tail.aux.len() - counts.aux;
    }
    let tails: Vec<&[S]> = rest.iter().map(|p| &p.cs().witness.aux[counts.aux..]).collect();
    append_parallel(&mut whole.cs_mut().witness.aux, &tails);
    rest.into_par_iter().for_each(drop);
    Ok(whole)
}

/// Appends `tails` to `to` in order, on every thread of the pool: a 32 GiB
/// PoRep partition's witness is 4.2 GB, and one thread copying it into
/// fresh pages made every partition wait seconds after its parts ended.
/// The new room is filled with zeros (`Default`) first, in parallel: that
/// is where its pages are faulted in, then each tail is copied into its own slice
/// of it. An element-wise parallel append that looked up each element's
/// tail ran twice as slow as one thread's copy on one thread; this runs
/// about as fast there and 1.5 times faster on two (1 GiB, 2-core machine).
fn append_parallel<S: Copy + Default + Send + Sync>(to: &mut Vec<S>, tails: &[&[S]]) {
    const CHUNK: usize = 1 << 16;
    let total = tails.iter().map(|t| t.len()).sum::<usize>();
    let start = to.len();
    to.reserve_exact(total);
    to.par_extend(rayon::iter::repeat_n(S::default(), total).with_min_len(CHUNK));
    let mut rest = &mut to[start..];
    let mut room = Vec::with_capacity(tails.len());
    for tail in tails {
        let (here, after) = std::mem::take(&mut rest).split_at_mut(tail.len());
        room.push(here);
        rest = after;
    }
    room.into_par_iter().zip(tails).for_each(|(to, from)| {
        to.par_chunks_mut(CHUNK).zip(from.par_chunks(CHUNK)).for_each(|(to, from)| to.copy_from_slice(from));
    });
}

#[cfg(test)]
mod tests {
    use super::append_parallel;

    proptest::proptest! {
        // Tails longer than a copy chunk (2^16) are slow to generate.
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]
        /// The parallel append equals the tails concatenated after what was
        /// there, empty tails and tails over a chunk long included, on pools
        /// of one to four threads; no element is left at the zero it was
        /// filled with (the tails hold no zero).
        #[test]
        fn append_parallel_concatenates(
            start in proptest::collection::vec(0u32..1000, 0..5),
            tails in proptest::collection::vec(proptest::collection::vec(1u32..1000, 0..300_000), 0..6),
            threads in 1usize..5,
        ) {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut got = start.clone();
            let slices: Vec<&[u32]> = tails.iter().map(Vec::as_slice).collect();
            pool.install(|| append_parallel(&mut got, &slices));
            let mut want = start;
            want.extend(tails.concat());
            proptest::prop_assert_eq!(got, want);
        }
    }
}
