//! Proving backends behind one trait: the CPU prover ([`cpu`]), one GPU each
//! ([`cuda`]), and the choice between them ([`select`]).
//!
//! A backend's failure stays typed up to the caller ([`BackendError`]), so a
//! GPU out of memory or a witness that fails a constraint can become a
//! precise status rather than a message to parse.

use std::sync::Arc;

use blstrs::Scalar;
use cuzk_gpu::GpuError;
use cuzk_groth16::{Parameters, Proof};
use cuzk_synth::{ProvingAssignment, RecordedShape, SynthesisError, Witness};
use thiserror::Error;

/// The CPU prover as a backend.
pub(crate) mod cpu;
/// One GPU as a backend.
pub(crate) mod cuda;
/// Which backend the user asked for, and what that resolves to here.
pub(crate) mod select;

/// What a backend returns for one call: the proofs in order, and its own
/// per-stage breakdown (stage name, milliseconds) for the timing report.
#[derive(Clone, Debug, Default)]
pub struct ProveOutput {
    /// One proof per assignment.
    pub proofs: Vec<Proof>,
    /// Stage timings inside the call, in the order the stages ran.
    pub breakdown: Vec<(String, f64)>,
}

/// Why a backend could not prove (or prepare to). Each layer's own error is
/// kept whole, so [`BackendError::is_out_of_memory`] and
/// [`BackendError::unsatisfied_constraint`] see through to it.
#[derive(Debug, Error)]
pub enum BackendError {
    /// A GPU call failed: out of device memory, a CUDA error, a witness the
    /// device found unsatisfied, an SRS of the wrong size.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// The CPU prover failed: parameters of the wrong size, released bases.
    #[error(transparent)]
    Groth16(#[from] cuzk_groth16::Error),
    /// Evaluating a recorded shape on the CPU failed: a witness that does not
    /// satisfy a row, or one that does not have the recorded shape.
    #[error(transparent)]
    Synthesis(#[from] SynthesisError),
    /// A proof the backend made does not verify against its inputs (the
    /// engine's self-check): the backend is wrong, or so is the witness.
    #[error("self-check: proof {index} of the batch does not verify")]
    SelfCheck {
        /// The proof's index within its backend call.
        index: usize,
    },
    /// Verifying a proof for the self-check failed outright.
    #[error("self-check: proof {index}: {source}")]
    SelfCheckFailed {
        /// The proof's index within its backend call.
        index: usize,
        /// Why verification failed.
        #[source]
        source: cuzk_groth16::Error,
    },
}

impl BackendError {
    /// Whether a device ran out of memory (the job may fit later, or on a
    /// device with more free memory).
    pub fn is_out_of_memory(&self) -> bool {
        matches!(self, BackendError::Gpu(GpuError::OutOfMemory { .. }))
    }

    /// The row of the first constraint the witness does not satisfy, as the
    /// CPU's evaluation or the device names it.
    pub fn unsatisfied_constraint(&self) -> Option<usize> {
        match self {
            BackendError::Gpu(GpuError::UnsatisfiedConstraint { row }) => Some(*row),
            BackendError::Synthesis(SynthesisError::UnsatisfiedConstraint(row)) => Some(*row),
            _ => None,
        }
    }
}

/// Something that turns synthesized circuits into proofs: the CPU prover, or
/// one GPU. Each instance is one "device" to the scheduler.
pub trait ProveBackend: Send + Sync {
    /// How the backend is reported: `cpu`, `cpu:1`, `cuda:0`.
    fn name(&self) -> String;

    /// The device's memory now, (total, free) bytes; `None` where the
    /// backend has no memory of its own (the CPU).
    fn memory(&self) -> Option<(u64, u64)> {
        None
    }

    /// Proves a batch of assignments against `params` with the given `(r, s)`
    /// per proof. The engine adds the backend's name to the error.
    fn prove(
        &self,
        params: &Arc<Parameters>,
        assignments: &[ProvingAssignment<Scalar>],
        randomness: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, BackendError>;

    /// Whether the backend computes a, b, c itself from a recorded shape and
    /// a witness ([`ProveBackend::prove_witnesses`]). When every backend of
    /// an engine does, recorded synthesis stops at the witness; otherwise the
    /// engine evaluates a, b, c on the CPU and calls [`ProveBackend::prove`].
    fn takes_witnesses(&self) -> bool {
        false
    }

    /// Proves witnesses of one recorded shape: a, b, c are evaluated from
    /// each witness (every row checked) and proved. The CUDA backend does
    /// both on its device; the CPU backend evaluates on the CPU.
    fn prove_witnesses(
        &self,
        params: &Arc<Parameters>,
        shape: &Arc<RecordedShape<Scalar>>,
        witnesses: &[Witness<Scalar>],
        randomness: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, BackendError>;

    /// Makes `params` ready to prove with, once, when the engine loads them
    /// (a GPU uploads its SRS here), so that the cost lands in the jobs'
    /// `srs_ms` instead of inside their first prove call.
    fn prepare(&self, _params: &Arc<Parameters>) -> Result<(), BackendError> {
        Ok(())
    }

    /// Waits for work `prepare` left running in the background for `params`
    /// (a GPU builds MSM tables for its SRS while proofs already run), for
    /// callers that want the steady state before they start timing.
    fn settle(&self, _params: &Arc<Parameters>) {}

    /// Whether this backend proves with `params` without their host bases
    /// (a GPU holding them in device memory). When every backend of an
    /// engine does, the engine keeps only the key and the counts in host
    /// memory, and tells the backends through [`ProveBackend::adopt_slim`].
    fn holds_bases(&self, _params: &Arc<Parameters>) -> bool {
        false
    }

    /// Where the backend keeps the bases of `params` once prepared (a GPU's
    /// resident and streamed queries); `None` where that does not apply.
    fn placement(&self, _params: &Arc<Parameters>) -> Option<cuzk_gpu::Placement> {
        None
    }

    /// Host bytes the backend holds for `params` once prepared (a GPU's
    /// pinned copies of the queries it streams, and a spilled quotient's
    /// c), which the engine's memory
    /// budget keeps counting after it drops its own copy of the bases.
    fn pinned_bytes(&self, _params: &Arc<Parameters>) -> u64 {
        0
    }

    /// From now on `slim` (the same parameters without their bases) stands
    /// for `full` in every call: state kept per parameter set moves over.
    fn adopt_slim(&self, _full: &Arc<Parameters>, _slim: &Arc<Parameters>) {}

    /// Makes a recorded shape ready to prove witnesses of, once, when the
    /// engine's recording of it is ready (a GPU uploads its matrices here),
    /// so that the upload is not inside the first prove call. A backend
    /// with nothing to upload has nothing to do.
    fn prepare_shape(&self, _shape: &Arc<RecordedShape<Scalar>>) -> Result<(), BackendError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_precise_causes_are_seen_through_the_layers() {
        let oom = BackendError::from(GpuError::OutOfMemory { requested: 1 << 40, free: 1 << 30 });
        assert!(oom.is_out_of_memory() && oom.unsatisfied_constraint().is_none());
        let device_row = BackendError::from(GpuError::UnsatisfiedConstraint { row: 7 });
        let cpu_row = BackendError::from(SynthesisError::UnsatisfiedConstraint(9));
        assert_eq!((device_row.unsatisfied_constraint(), cpu_row.unsatisfied_constraint()), (Some(7), Some(9)));
        let cuda = BackendError::from(GpuError::Cuda { code: 2, message: "cudaErrorMemoryAllocation".into() });
        assert!(!cuda.is_out_of_memory() && !cpu_row.is_out_of_memory());
    }
}
