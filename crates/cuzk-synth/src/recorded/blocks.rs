//! Witnesses replayed from the rows, block by block: for a circuit that is
//! a prefix followed by blocks of one shape ([`Circuit::split`]) and gives
//! each block's free values ([`Circuit::take_block_values`]).
//!
//! Why blocks: a plan of a whole partition (a 32 GiB WindowPoSt partition
//! has 125 M constraints) would cost seconds on one thread and gigabytes;
//! a plan of one block (one sector: 53 k constraints) costs milliseconds,
//! serves every block, and the blocks replay on every thread at once.
//!
//! The plan is made on a small standalone shape, the prefix and the first
//! block as the whole circuit records them, with the prefix's aux
//! variables turned into inputs (their values come from running the
//! prefix, which is cheap: a PoSt's is empty or one sector's commitments).
//! Each block replays through that shape with its own inputs and free
//! values; the whole witness is then held to every row of the recording
//! like any other, so blocks that differ in structure (which the circuit
//! promises they do not) fail the proof, never make a wrong one.
//!
//! A circuit that does not cut (a SnapDeals partition derives every
//! challenge's bits before its first challenge) gives one block, itself
//! after the constant one: it is planned once per recording as a whole,
//! on the recorded shape itself (no copy), and replays on one thread.
//! Such a partition's plan costs tens of seconds of one core (a 32 GiB
//! SnapDeals partition: 81 M constraints), so a shared shape makes it on a
//! thread of its own while the first partitions run their gadgets
//! ([`RecordedShape::shared_witness_pass`]); the partitions of a proof
//! replay at once, one per thread.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use ff::{PrimeField, PrimeFieldBits};
use rayon::prelude::*;

use super::matrix::{CoeffIndices, Csr, NARROW_TABLE_LIMIT, ONE};
use super::solve::SolvePlan;
use super::witness::{Trace, WitnessCs};
use super::{parts, RecordedShape, Witness};
use crate::{Circuit, DensityTracker, SynthesisError};

/// How many inputs, aux variables and circuit constraints a piece holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Counts {
    inputs: usize,
    aux: usize,
    constraints: usize,
}

impl Counts {
    /// The prefix of a circuit that is one block: the constant one.
    const ONE_ONLY: Counts = Counts { inputs: 1, aux: 0, constraints: 0 };

    fn plus(self, other: Counts) -> Counts {
        Counts {
            inputs: self.inputs + other.inputs,
            aux: self.aux + other.aux,
            constraints: self.constraints + other.constraints,
        }
    }
}

/// The plan of one block, made once per recording and kept with it.
pub(crate) struct BlockPlan<S: PrimeField> {
    prefix: Counts,
    block: Counts,
    /// The prefix and the first block, the prefix's aux variables as inputs
    /// after the block's own inputs; `None` for a circuit that is one
    /// block, whose shape is the recorded one.
    shape: Option<RecordedShape<S>>,
    plan: SolvePlan,
    /// The inverse of every coefficient (zero for zero), computed once.
    inverses: Vec<S>,
}

/// Where a cached block plan is kept on its shape, and whether a thread
/// of its own was started to make it.
#[derive(Default)]
pub(crate) struct PlanCache<S: PrimeField> {
    plan: OnceLock<Result<Arc<BlockPlan<S>>, String>>,
    started_aside: AtomicBool,
}

impl<S: PrimeField + PrimeFieldBits> RecordedShape<S> {
    /// The witness of `circuit` replayed from its block values, or the
    /// circuit back (`Err`) when it gives none. Errors name what does not
    /// fit: an uncut circuit giving more than one block, counts that do
    /// not divide into equal blocks, a block with the wrong number of
    /// inputs or free values, a row of the replay.
    ///
    /// With `shared` (this shape, shared), a circuit that is one block
    /// whose plan is not made yet does not wait for it: the plan is made
    /// on a thread of its own, and the circuit comes back for its gadgets.
    pub(crate) fn replay_blocks<C: Circuit<S> + Send>(
        &self,
        mut circuit: C,
        shared: Option<&Arc<Self>>,
    ) -> Result<Result<Witness<S>, C>, SynthesisError> {
        let Some(values) = circuit.take_block_values() else { return Ok(Err(circuit)) };
        // Two: a circuit may refuse to cut itself into one part.
        let (prefix, prefix_counts, uncut) = match circuit.split(2) {
            Ok(split) => {
                let prefix: WitnessCs<S> = parts::run(split.prefix, 1, 0)?;
                let counts = Counts {
                    inputs: prefix.witness.inputs.len(),
                    aux: prefix.witness.aux.len(),
                    constraints: prefix.trace.constraints,
                };
                (prefix.witness, counts, None)
            }
            // One block, the whole circuit: its prefix is the constant one.
            Err(whole) if values.len() == 1 => {
                (Witness { inputs: vec![S::ONE], aux: Vec::new() }, Counts::ONE_ONLY, Some(whole))
            }
            Err(_) => {
                let n = values.len();
                return Err(replay_error(format!("a circuit that does not cut gives its values as one block, not {n}")));
            }
        };
        let block = self.block_counts(prefix_counts, values.len())?;
        if let (Some(whole), Some(shared)) = (uncut, shared) {
            if self.block_plan.plan.get().is_none() {
                shared.plan_aside(prefix_counts, block);
                return Ok(Err(whole));
            }
        }
        let bp = self.block_plan(prefix_counts, block)?;
        let shape = bp.shape.as_ref().unwrap_or(self);
        let Witness { inputs: prefix_inputs, aux: prefix_aux } = prefix;
        let mut inputs = prefix_inputs.clone();
        for (k, v) in values.iter().enumerate() {
            if v.inputs.len() != block.inputs {
                return Err(replay_error(format!("block {k} gives {} inputs, its rows have {}", v.inputs.len(), block.inputs)));
            }
            inputs.extend_from_slice(&v.inputs);
        }
        // Zeros written on every thread: a 32 GiB WindowPoSt partition's
        // witness is 4 GB, whose pages one thread took ~2 s to fault in.
        let mut aux = Vec::with_capacity(self.num_aux);
        aux.extend_from_slice(&prefix_aux);
        aux.par_extend(rayon::iter::repeat_n(S::ZERO, self.num_aux - prefix_counts.aux).with_min_len(1 << 16));
        aux[prefix_counts.aux..].par_chunks_mut(block.aux).zip(values.par_iter()).enumerate().try_for_each(|(k, (to, v))| {
            let mut own = Vec::with_capacity(shape.num_inputs);
            own.extend_from_slice(&prefix_inputs);
            own.extend_from_slice(&v.inputs);
            own.extend_from_slice(&prefix_aux);
            shape.replay_into(&bp.plan, &bp.inverses, &own, &v.free, to).map_err(|e| in_block(k, e))
        })?;
        Ok(Ok(Witness { inputs, aux }))
    }

    /// Each block's counts: what the whole holds beyond the prefix, split
    /// evenly over `blocks` blocks.
    fn block_counts(&self, prefix: Counts, blocks: usize) -> Result<Counts, SynthesisError> {
        let whole = [self.num_inputs, self.num_aux, self.trace.constraints];
        let fixed = [prefix.inputs, prefix.aux, prefix.constraints];
        let mut each = [0; 3];
        for (i, name) in ["inputs", "aux variables", "constraints"].iter().enumerate() {
            let rest = whole[i].checked_sub(fixed[i]).filter(|&r| blocks > 0 && r % blocks == 0);
            each[i] = rest.map(|r| r / blocks).ok_or_else(|| {
                replay_error(format!("{} {name} after a prefix of {} do not make {blocks} equal blocks", whole[i], fixed[i]))
            })?;
        }
        if each[1] == 0 {
            return Err(replay_error("the blocks allocate no aux variable".into()));
        }
        Ok(Counts { inputs: each[0], aux: each[1], constraints: each[2] })
    }

    /// The cached plan for these counts, made on first use.
    fn block_plan(&self, prefix: Counts, block: Counts) -> Result<Arc<BlockPlan<S>>, SynthesisError> {
        let make = || self.make_block_plan(prefix, block).map(Arc::new);
        let plan = match self.block_plan.plan.get_or_init(make) {
            Ok(bp) if bp.prefix == prefix && bp.block == block => Ok(bp.clone()),
            // A shape is recorded for one circuit, whose blocks do not
            // change; counts that do are planned without being kept.
            Ok(_) => make(),
            Err(e) => Err(e.clone()),
        };
        plan.map_err(replay_error)
    }

    /// Starts making the plan for these counts on a thread of its own,
    /// once per shape: a whole 32 GiB SnapDeals partition's plan takes
    /// about a minute of one core, which the first proof's partitions
    /// spend running their gadgets instead of waiting. A thread that
    /// cannot be started leaves the plan to the next witness.
    fn plan_aside(self: &Arc<Self>, prefix: Counts, block: Counts) {
        if self.block_plan.started_aside.swap(true, Ordering::AcqRel) {
            return;
        }
        let shape = Arc::clone(self);
        let started = std::thread::Builder::new().name("cuzk-plan".into()).spawn(move || {
            // An error is kept in the cache, and reported by the next replay.
            let _ = shape.block_plan(prefix, block);
        });
        if started.is_err() {
            self.block_plan.started_aside.store(false, Ordering::Release);
        }
    }

    fn make_block_plan(&self, prefix: Counts, block: Counts) -> Result<BlockPlan<S>, String> {
        let whole = Counts { inputs: self.num_inputs, aux: self.num_aux, constraints: self.trace.constraints };
        let shape = match prefix == Counts::ONE_ONLY && block.plus(prefix) == whole {
            true => None,
            false => Some(self.first_block(prefix, block)?),
        };
        let on = shape.as_ref().unwrap_or(self);
        let plan = on.solve_plan();
        let inverses = on.inverses();
        Ok(BlockPlan { prefix, block, shape, plan, inverses })
    }

    /// The prefix and the first block as a shape of their own: the rows
    /// they enforce, the prefix's aux variables moved to inputs after the
    /// block's, the block's aux variables its aux, then one
    /// input-independence row per input as every shape has.
    fn first_block(&self, prefix: Counts, block: Counts) -> Result<RecordedShape<S>, String> {
        let own_inputs = prefix.inputs + block.inputs;
        let num_inputs = own_inputs + prefix.aux;
        let rows = prefix.constraints + block.constraints;
        let last_aux = prefix.aux + block.aux;
        let column = |c: u32| -> Option<u32> {
            let c = c as usize;
            if c < own_inputs {
                return Some(c as u32);
            }
            let j = c.checked_sub(self.num_inputs).filter(|&j| j < last_aux)?;
            u32::try_from(own_inputs + j).ok()
        };
        let matrices: [Result<Csr, String>; 3] = std::array::from_fn(|mi| {
            let m = &self.matrices[mi];
            let (mut row_ptr, mut cols, mut coeffs) = (vec![0u32], Vec::new(), Vec::new());
            for r in 0..rows {
                for (c, k) in m.row(r) {
                    cols.push(column(c).ok_or_else(|| format!("row {r} reaches past the first block (column {c})"))?);
                    coeffs.push(k);
                }
                row_ptr.push(cols.len() as u32);
            }
            for i in 0..num_inputs {
                // Input-independence rows: the input in A, B and C empty.
                if mi == 0 {
                    cols.push(i as u32);
                    coeffs.push(ONE);
                }
                row_ptr.push(cols.len() as u32);
            }
            let coeffs = match self.coeffs.len() <= NARROW_TABLE_LIMIT {
                true => CoeffIndices::Narrow(coeffs.into_iter().map(|k| k as u16).collect()),
                false => CoeffIndices::Wide(coeffs),
            };
            Csr::from_parts(row_ptr, cols, coeffs, num_inputs + block.aux, self.coeffs.len())
        });
        let [a, b, c] = matrices;
        Ok(RecordedShape {
            num_inputs,
            num_aux: block.aux,
            trace: Trace { constraints: rows, hash: 0 },
            coeffs: self.coeffs.clone(),
            matrices: [a?, b?, c?],
            densities: [DensityTracker::new(), DensityTracker::new(), DensityTracker::new()],
            digest: OnceLock::new(),
            block_plan: PlanCache::default(),
        })
    }
}

fn in_block(k: usize, e: SynthesisError) -> SynthesisError {
    match e {
        SynthesisError::Replay(m) => replay_error(format!("block {k}: {m}")),
        e => e,
    }
}

fn replay_error(message: String) -> SynthesisError {
    SynthesisError::Replay(message)
}
