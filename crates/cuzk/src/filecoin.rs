//! Filecoin's proof kinds on the engine (feature `filecoin`): everything of
//! [`cuzk_filecoin`] (requests, circuit ids, the parameter cache, proof
//! bytes), and [`prove`], which turns one request into one engine job and
//! returns proof bytes only once cuzk-filecoin has verified them.
//!
//! A request's partitions carry the public inputs filecoin-proofs' verifier
//! computes, so the engine compares each partition's synthesized inputs with
//! them before a device proves it: a request built from wrong data fails
//! typed ([`crate::EngineError::PublicInputs`]) before the GPU runs.

pub use cuzk_filecoin::*;

use crate::{Engine, Error, Job, JobId, Priority, Timings};

/// A request proved and verified.
#[derive(Clone, Debug)]
pub struct Proved {
    /// The circuit (kind and sector size) the proof is for.
    pub circuit_id: CircuitId,
    /// The proof in filecoin-proofs' layout: 192 bytes per partition,
    /// concatenated in partition order.
    pub bytes: Vec<u8>,
    /// The engine's job.
    pub job: JobId,
    /// Where the job's time went.
    pub timings: Timings,
    /// The backend that proved it (`cpu`, `cuda:0`, ...).
    pub backend: String,
}

/// The priority a kind gets unless its caller says otherwise: WinningPoSt
/// misses its block if late, WindowPoSt its deadline; sealing can wait.
pub fn default_priority(kind: ProofKind) -> Priority {
    match kind {
        ProofKind::WinningPoSt => Priority::Critical,
        ProofKind::WindowPoSt => Priority::High,
        ProofKind::PoRepC2 | ProofKind::SnapDeals => Priority::Normal,
    }
}

/// Proves `request` on `engine` against the parameters in `cache`: one job
/// of one partition per circuit, each expecting the verifier's public
/// inputs; then the proofs joined in filecoin-proofs' layout and verified
/// with the verifying key in `cache`. A proof that does not verify is an
/// error ([`FilecoinError::ProofInvalid`]), never returned.
pub fn prove(engine: &Engine, cache: &ParamCache, request: &Request, priority: Priority) -> Result<Proved, Error> {
    let circuit_id = request.circuit_id()?;
    let params = cache.files(circuit_id)?.params;
    // Before any circuit is built: a missing file names itself now, not
    // after the vanilla checks and the circuit construction.
    std::fs::metadata(&params).map_err(|source| FilecoinError::Io { path: params.clone(), source })?;
    let partitions = request.prepare()?;
    let mut job = Job::new(params).priority(priority);
    for (circuit, inputs) in partitions.circuits.into_iter().zip(partitions.public_inputs) {
        job = job.partition_expecting(circuit, inputs);
    }
    let result = engine.submit(job)?.wait()?;
    let bytes = proofs::join(&result.proofs);
    request.verify(cache, &bytes)?;
    Ok(Proved { circuit_id, bytes, job: result.id, timings: result.timings, backend: result.backend })
}
