//! Recorded constraint systems, one per parameter file.
//!
//! A parameter file fixes the shape of the circuit it proves, so the engine
//! keys recordings by the file: the first partition proved against it
//! synthesizes the classic way while recording A, B and C
//! ([`RecordedShape::record`]); later partitions run witness-only synthesis
//! and the sparse products ([`RecordedShape::witness`],
//! [`RecordedShape::evaluate`]), which check every row, so a circuit that
//! does not match its parameters fails instead of producing a wrong proof.
//! When every backend computes the products itself (the CUDA backend, from
//! the shape resident on its device), recorded partitions stop at the
//! witness and the CPU never evaluates them; the device checks the rows.
//! While one partition records, the others synthesize the classic way rather
//! than wait. With a directory configured, recordings persist there as
//! `<params file name>.<verifying key digest>.r1cs` and are loaded on first
//! use; a file that does not load, or that does not fit the parameters, is
//! recorded again and overwritten. So is one that loads and has the
//! parameters' counts but is another circuit's (hand-made, or of a circuit
//! with equal counts): until a partition succeeds against a loaded
//! recording, a partition whose witness does not fit it (a trace that
//! differs, an unsatisfied row, found on the CPU or on the device) drops it,
//! and the next partition records again and replaces the file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use blstrs::Scalar;
use cuzk_groth16::Parameters;
use cuzk_synth::RecordedShape;
use sha2::{Digest, Sha256};

use crate::synthesis::{Admission, OnReady, Reserve, Saves, Slot, SynthesisMode, Synthesizer};

/// Where the recording of one parameter file stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordingStatus {
    /// The parameter file.
    pub params: PathBuf,
    /// Where the recording persists, when the engine has a directory for them.
    pub file: Option<PathBuf>,
    /// What happened last: recorded, loaded, saved, or why not.
    pub outcome: String,
}

/// The engine's memory budget as recordings see it.
pub(crate) struct RecordingBudget {
    /// Reserves a recording's bytes (see [`Reserve`]).
    pub(crate) reserve: Reserve,
    /// The bytes of one partition of a parameter file.
    pub(crate) partition_bytes: fn(&Parameters) -> u64,
}

/// The recordings of one engine.
pub(crate) struct Recordings {
    mode: SynthesisMode,
    dir: Option<PathBuf>,
    /// Set when the backends compute a, b, c from a witness: recorded
    /// partitions stop there, and the hook gives the backends each
    /// recording as it becomes ready (not inside a prove call).
    witness_only: Option<Arc<OnReady>>,
    /// A recording is published only once the budget holds it.
    budget: RecordingBudget,
    slots: Mutex<HashMap<PathBuf, Arc<Slot>>>,
    saves: Saves,
}

impl Recordings {
    pub(crate) fn new(
        mode: SynthesisMode,
        dir: Option<PathBuf>,
        witness_only: Option<OnReady>,
        budget: RecordingBudget,
    ) -> Self {
        let witness_only = witness_only.map(Arc::new);
        Recordings { mode, dir, witness_only, budget, slots: Mutex::new(HashMap::new()), saves: Arc::default() }
    }

    /// Waits until every recording being written to its file is written.
    pub(crate) fn finish_saves(&self) {
        let saves = std::mem::take(&mut *self.saves.lock().unwrap_or_else(|p| p.into_inner()));
        for save in saves {
            let _ = save.join();
        }
    }

    /// What synthesizes a partition proved against `params` (loaded from `path`).
    pub(crate) fn synthesizer(&self, path: &Path, params: &Arc<Parameters>) -> Synthesizer {
        let slot = match self.mode {
            SynthesisMode::Classic => None,
            SynthesisMode::Recorded => {
                let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
                let slot = slots.entry(path.to_path_buf()).or_insert_with(|| Arc::new(Slot::new(self.file_for(path, params))));
                Some(slot.clone())
            }
        };
        let admission =
            Admission { reserve: self.budget.reserve.clone(), partition: (self.budget.partition_bytes)(params) };
        Synthesizer::new(slot, self.saves.clone(), params, self.witness_only.clone(), admission)
    }

    /// Every parameter file's recording, in no particular order.
    pub(crate) fn status(&self) -> Vec<RecordingStatus> {
        let slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        slots
            .iter()
            .map(|(params, slot)| RecordingStatus {
                params: params.clone(),
                file: slot.file.clone(),
                outcome: slot.outcome(),
            })
            .collect()
    }

    /// A backend found a row of `shape` that a witness does not satisfy
    /// (the device checks rows when it computes a, b, c): when `shape` is a
    /// loaded recording still on trial it is dropped and recorded again
    /// (`Slot::reject_misfit`); returns the bytes it held, for the budget.
    pub(crate) fn reject_misfit(&self, shape: &Arc<RecordedShape<Scalar>>, error: &dyn std::fmt::Display) -> Option<u64> {
        let slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        slots.values().any(|slot| slot.reject_misfit(shape, error)).then(|| shape.heap_bytes() as u64)
    }

    /// A backend proved a batch of `shape`'s witnesses: a loaded recording
    /// on trial is trusted from now on.
    pub(crate) fn confirm(&self, shape: &Arc<RecordedShape<Scalar>>) {
        let slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        slots.values().for_each(|slot| slot.confirm(shape));
    }

    fn file_for(&self, path: &Path, params: &Parameters) -> Option<PathBuf> {
        recording_file(self.dir.as_ref()?, path, params)
    }
}

/// Where the engine keeps the recording of parameter file `params_file`
/// (holding `params`) in recordings directory `dir`:
/// `<params file name>.<verifying key digest>.r1cs`. `None` when the
/// verifying key does not serialize.
pub fn recording_file(dir: &Path, params_file: &Path, params: &Parameters) -> Option<PathBuf> {
    let mut vk = Vec::new();
    params.vk.write(&mut vk).ok()?;
    let digest = Sha256::digest(&vk);
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let name = params_file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "params".into());
    Some(dir.join(format!("{name}.{hex}.r1cs")))
}
