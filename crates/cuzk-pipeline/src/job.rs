use std::fmt;
use std::path::PathBuf;

use blstrs::Scalar;
use cuzk_groth16::Proof;
use cuzk_synth::{Circuit, ProvingAssignment, SynthesisError};

use crate::synthesis::{Synthesize, Synthesized, Synthesizer};

/// Identifies a job within one engine.
pub type JobId = u64;

/// Scheduling priority. Work of a higher priority is synthesized and proved
/// before any queued work of a lower one, so a critical job never waits behind
/// another job's queued partitions (only behind work already running).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Priority {
    /// Background work.
    Low,
    /// The default.
    #[default]
    Normal,
    /// Ahead of normal work.
    High,
    /// Ahead of everything queued.
    Critical,
}

/// A proof request: one or more circuits (partitions) proved against one
/// parameter file. The proofs come back in partition order.
///
/// A partition may carry the public inputs its verifier will use
/// ([`Job::partition_expecting`]): the engine compares them with the
/// synthesized input assignment before the partition reaches a device, so a
/// circuit built from wrong data (another partition index, seed, sector or
/// miner) fails its job at once, typed ([`crate::EngineError::PublicInputs`]),
/// instead of costing a GPU call for a proof no verifier accepts.
pub struct Job {
    pub(crate) params: PathBuf,
    pub(crate) priority: Priority,
    pub(crate) partitions: Vec<Synthesize>,
    /// Per partition, the verifier's public inputs, if given (without the leading one).
    pub(crate) expected: Vec<Option<Vec<Scalar>>>,
}

impl Job {
    /// A job against the parameters in `params`.
    pub fn new(params: impl Into<PathBuf>) -> Self {
        Job { params: params.into(), priority: Priority::Normal, partitions: Vec::new(), expected: Vec::new() }
    }

    /// Sets the priority.
    pub fn priority(mut self, priority: Priority) -> Self {
        self.priority = priority;
        self
    }

    /// Adds a partition, synthesized the way the engine's
    /// [`SynthesisMode`](crate::SynthesisMode) says.
    pub fn partition<C: Circuit<Scalar> + Send + 'static>(mut self, circuit: C) -> Self {
        self.partitions.push(Box::new(move |s: &Synthesizer| s.partition(circuit)));
        self.expected.push(None);
        self
    }

    /// Adds a partition whose public inputs must equal `inputs`: the vector
    /// the verifier will check its proof against, without the leading one
    /// (what `cuzk_groth16::verify_proof` takes). Once the partition is
    /// synthesized (classic, recorded or witness-only alike) and before it
    /// is queued for a device, a partition whose input assignment differs
    /// (in a value or in length) fails the job with
    /// [`crate::EngineError::PublicInputs`], naming the first differing index.
    pub fn partition_expecting<C: Circuit<Scalar> + Send + 'static>(mut self, circuit: C, inputs: Vec<Scalar>) -> Self {
        self.partitions.push(Box::new(move |s: &Synthesizer| s.partition(circuit)));
        self.expected.push(Some(inputs));
        self
    }

    /// Adds a partition whose synthesis is an arbitrary closure (used by tests
    /// to inject failures, and by callers with their own synthesis path);
    /// the engine's synthesis mode does not apply to it.
    pub fn partition_with(
        mut self,
        synthesize: impl FnOnce() -> Result<ProvingAssignment<Scalar>, SynthesisError> + Send + 'static,
    ) -> Self {
        self.partitions.push(Box::new(move |_: &Synthesizer| synthesize().map(|pa| Synthesized::Assignment(Box::new(pa)))));
        self.expected.push(None);
        self
    }

    /// Number of partitions.
    pub fn len(&self) -> usize {
        self.partitions.len()
    }

    /// True when the job has no partitions.
    pub fn is_empty(&self) -> bool {
        self.partitions.is_empty()
    }
}

/// Where a job's time went, in milliseconds.
///
/// `total_ms` is wall clock from submission to the last proof. `queue_ms` is
/// the wait before the first partition started synthesizing, `srs_ms` the time
/// this job spent waiting for its parameters to load (0 on a cache hit).
/// `synth_ms` and `prove_ms` add up the job's synthesis and prove intervals
/// over its partitions; with overlap and several workers they can exceed the
/// wall-clock total, which is the point of the engine.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timings {
    /// Submission to first synthesis start.
    pub queue_ms: f64,
    /// Parameter loading this job waited for.
    pub srs_ms: f64,
    /// Sum of the partitions' synthesis times.
    pub synth_ms: f64,
    /// Sum of the backend's prove calls for this job.
    pub prove_ms: f64,
    /// Submission to completion, wall clock.
    pub total_ms: f64,
    /// Stage breakdowns summed over the job's partitions: synthesis
    /// (`synth_classic_ms`, `synth_record_ms`, `synth_load_ms`,
    /// `synth_witness_ms`, `synth_replay_ms`, `synth_spmv_ms`, whichever
    /// ran), the backends' own stages of each prove call (for the GPU: the
    /// host function's `pre_prep_ms` … `pre_destructor_ms`), and `call_ms`, the engine's
    /// timer around those calls: the gap between `call_ms` and
    /// `pre_destructor_ms` is time no stage accounts for.
    pub stages: Vec<(String, f64)>,
}

impl Timings {
    /// Adds one prove call's breakdown and the engine's timer around it.
    pub(crate) fn add_call(&mut self, breakdown: &[(String, f64)], call_ms: f64) {
        self.add_stages(breakdown);
        self.add_stages(&[("call_ms".to_string(), call_ms)]);
    }

    /// Adds named stage times to the totals (a new name goes last).
    pub(crate) fn add_stages(&mut self, stages: &[(String, f64)]) {
        for (name, ms) in stages {
            match self.stages.iter_mut().find(|(n, _)| n == name) {
                Some((_, total)) => *total += ms,
                None => self.stages.push((name.clone(), *ms)),
            }
        }
    }

    /// One stage's total, if the backend reported it.
    pub fn stage(&self, name: &str) -> Option<f64> {
        self.stages.iter().find(|(n, _)| n == name).map(|(_, ms)| *ms)
    }
}

impl fmt::Display for Timings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "timings: total={:.1} ms (queue={:.1} ms, srs={:.1} ms, synth={:.1} ms, gpu={:.1} ms)",
            self.total_ms, self.queue_ms, self.srs_ms, self.synth_ms, self.prove_ms
        )
    }
}

/// A finished job.
#[derive(Clone, Debug)]
pub struct JobResult {
    /// The job.
    pub id: JobId,
    /// One proof per partition, in partition order.
    pub proofs: Vec<Proof>,
    /// Where the time went.
    pub timings: Timings,
    /// The backend that proved it (`cpu`, `cuda:0`, ...; several joined by `+`).
    pub backend: String,
}
