//! How one partition is synthesized, and what synthesis hands the prove
//! workers: a full assignment (classic synthesis, or a recording's sparse
//! products on the CPU) or a witness of a recorded shape (for backends that
//! compute a, b, c themselves). The [`Synthesizer`] of a parameter file
//! decides which, from the state of that file's recording ([`Slot`]);
//! `recordings.rs` keeps one slot per file.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use blstrs::Scalar;
use cuzk_groth16::Parameters;
use cuzk_synth::recorded::RecordedShape;
use cuzk_synth::{Circuit, ProvingAssignment, SynthesisError, Witness, WitnessPass};

/// How partitions are synthesized.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum SynthesisMode {
    /// Every linear combination of every constraint, every time.
    Classic,
    /// Record the matrices once per parameter file, then witness-only
    /// synthesis and sparse products.
    #[default]
    Recorded,
}

impl std::str::FromStr for SynthesisMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "classic" => Ok(SynthesisMode::Classic),
            "recorded" => Ok(SynthesisMode::Recorded),
            _ => Err(format!("unknown synthesis mode `{s}` (classic, recorded)")),
        }
    }
}

impl std::fmt::Display for SynthesisMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SynthesisMode::Classic => "classic",
            SynthesisMode::Recorded => "recorded",
        })
    }
}

/// What synthesis hands the prove workers for one partition.
pub(crate) enum Synthesized {
    /// a, b, c evaluated on the CPU, with the witness and the densities
    /// (boxed: the assignment's many vectors make it the larger variant).
    Assignment(Box<ProvingAssignment<Scalar>>),
    /// The witness of a recorded shape, for backends that compute a, b, c
    /// themselves (the CUDA backend, on the device where the shape lives).
    Witness(Witness<Scalar>, Arc<RecordedShape<Scalar>>),
}

impl Synthesized {
    /// The partition's public inputs, the constant one left out.
    pub(crate) fn public_inputs(&self) -> &[Scalar] {
        let inputs = match self {
            Synthesized::Assignment(pa) => &pa.input_assignment,
            Synthesized::Witness(w, _) => &w.inputs,
        };
        inputs.get(1..).unwrap_or_default()
    }

    /// The first index at which the public inputs differ from `expected`
    /// (a length difference counts at the shorter one's end); `None` when equal.
    pub(crate) fn first_input_mismatch(&self, expected: &[Scalar]) -> Option<usize> {
        let found = self.public_inputs();
        let differing = found.iter().zip(expected).position(|(a, b)| a != b);
        differing.or_else(|| (found.len() != expected.len()).then(|| found.len().min(expected.len())))
    }
}

/// Synthesis of one partition, deferred until a worker runs it with the
/// synthesizer of the job's parameter file (classic or recorded).
pub(crate) type Synthesize = Box<dyn FnOnce(&Synthesizer) -> Result<Synthesized, SynthesisError> + Send>;

/// What the engine does with a recording that just became ready.
pub(crate) type OnReady = Box<dyn Fn(&Arc<RecordedShape<Scalar>>) + Send + Sync>;

/// The threads writing fresh recordings to their files, joined by
/// `Recordings::finish_saves`.
pub(crate) type Saves = Arc<Mutex<Vec<JoinHandle<()>>>>;

/// Where a parameter file's recording stands.
enum State {
    /// Nobody has looked for a recording yet.
    Unknown,
    /// One partition is loading the recording's file, or giving a recording
    /// to the backends; others wait for it (a load takes a fraction of one
    /// classic synthesis, an upload less).
    Loading,
    /// One partition is recording; others synthesize the classic way rather
    /// than wait.
    Recording,
    Ready(Arc<RecordedShape<Scalar>>),
    /// The memory budget had no room for it: classic synthesis from now on.
    Disabled,
}

/// What a partition does, given the slot's state.
enum Claim {
    Use(Arc<RecordedShape<Scalar>>),
    Record,
    Classic,
}

/// The recording of one parameter file: where it stands, where it persists,
/// and what happened to it last.
pub(crate) struct Slot {
    state: Mutex<State>,
    changed: Condvar,
    pub(crate) file: Option<PathBuf>,
    /// What happened to the recording last, for `RecordingStatus`.
    outcome: Mutex<String>,
    /// A recording loaded from `file` that no partition has proved right
    /// yet. Its checksum only says the file is what was written, not that
    /// it is this circuit's: until a partition succeeds against it, a
    /// partition that fails against it blames the file ([`Slot::reject_misfit`]).
    on_trial: Mutex<Option<Arc<RecordedShape<Scalar>>>>,
    /// Set once the file's recording did not fit the circuit: the next
    /// partition records again instead of loading it, and replaces the file.
    distrust_file: AtomicBool,
}

impl Slot {
    /// A slot nobody has looked into yet, persisting in `file` if given.
    pub(crate) fn new(file: Option<PathBuf>) -> Self {
        Slot {
            state: Mutex::new(State::Unknown),
            changed: Condvar::new(),
            file,
            outcome: Mutex::new("not recorded yet".into()),
            on_trial: Mutex::new(None),
            distrust_file: AtomicBool::new(false),
        }
    }

    /// A partition succeeded against `shape`: if it is the loaded recording
    /// on trial, it is trusted from now on.
    pub(crate) fn confirm(&self, shape: &Arc<RecordedShape<Scalar>>) {
        let mut on_trial = self.on_trial.lock().unwrap_or_else(|p| p.into_inner());
        if on_trial.as_ref().is_some_and(|s| Arc::ptr_eq(s, shape)) {
            *on_trial = None;
        }
    }

    /// A partition failed against `shape` with `error`, an unsatisfied row
    /// or a trace that differs. When `shape` is the loaded recording still
    /// on trial, the file is the likelier culprit (a hand-made file, or one
    /// of another circuit with equal counts, passes its checksum): the
    /// recording is dropped, and the next partition records again and
    /// overwrites the file. Returns whether it was dropped.
    pub(crate) fn reject_misfit(&self, shape: &Arc<RecordedShape<Scalar>>, error: &dyn std::fmt::Display) -> bool {
        {
            let mut on_trial = self.on_trial.lock().unwrap_or_else(|p| p.into_inner());
            if !on_trial.as_ref().is_some_and(|s| Arc::ptr_eq(s, shape)) {
                return false;
            }
            *on_trial = None;
        }
        self.distrust_file.store(true, Ordering::SeqCst);
        {
            let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            if matches!(&*state, State::Ready(s) if Arc::ptr_eq(s, shape)) {
                *state = State::Unknown;
            }
        }
        self.changed.notify_all();
        let file = self.file.as_ref().map(|f| f.display().to_string()).unwrap_or_else(|| "the recording".into());
        let text = format!("{file} does not fit the circuit ({error}): dropped, recording again to replace it");
        tracing::warn!(recording = %file, error = %error, "recording does not fit its circuit; recording again");
        set(&self.outcome, text);
        true
    }

    /// What happened to the recording last.
    pub(crate) fn outcome(&self) -> String {
        self.outcome.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set_state(&self, state: State) {
        *self.state.lock().unwrap_or_else(|p| p.into_inner()) = state;
        self.changed.notify_all();
    }
}

/// Where one partition's synthesis time went, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SynthReport {
    /// Classic synthesis (nothing recorded yet, or someone else recording).
    pub classic_ms: f64,
    /// Classic synthesis that also recorded the matrices.
    pub record_ms: f64,
    /// Loading a recording from its file.
    pub load_ms: f64,
    /// Witness-only synthesis by the circuit's gadgets.
    pub witness_ms: f64,
    /// The witness replayed from the recording's rows (a circuit that
    /// gives its block values: WindowPoSt, WinningPoSt).
    pub replay_ms: f64,
    /// The sparse products a = A·w, b = B·w, c = C·w and the row checks on
    /// the CPU (none when the backend computes them).
    pub spmv_ms: f64,
    /// Bytes of a loaded recording this partition found not to fit its
    /// circuit and dropped (the engine gives them back to its budget).
    pub dropped_recording_bytes: u64,
}

impl SynthReport {
    /// The report as named stages for [`crate::Timings::stages`]; zero stages left out.
    pub(crate) fn stages(&self) -> Vec<(String, f64)> {
        [
            ("synth_classic_ms", self.classic_ms),
            ("synth_record_ms", self.record_ms),
            ("synth_load_ms", self.load_ms),
            ("synth_witness_ms", self.witness_ms),
            ("synth_replay_ms", self.replay_ms),
            ("synth_spmv_ms", self.spmv_ms),
        ]
        .into_iter()
        .filter(|(_, ms)| *ms > 0.0)
        .map(|(n, ms)| (n.to_string(), ms))
        .collect()
    }
}

/// Synthesizes the partitions of one parameter file by the engine's mode.
pub struct Synthesizer {
    slot: Option<Arc<Slot>>,
    saves: Saves,
    inputs: usize,
    aux: usize,
    witness_only: Option<Arc<OnReady>>,
    admission: Admission,
    on_witness_claim: Mutex<Option<ClaimHook>>,
    report: Mutex<SynthReport>,
}

/// What the engine runs once a partition has claimed a ready recording and
/// will stop at its witness, before its witness pass.
pub(crate) type ClaimHook = Box<dyn FnOnce() + Send>;

/// How the engine takes a recording into its memory budget: reserves
/// `recording` bytes if a partition of `partition` bytes still fits beside
/// them and the parameters, else says the budget's total.
pub(crate) type Reserve = Arc<dyn Fn(u64, u64) -> Result<(), u64> + Send + Sync>;

/// A synthesizer's way into the budget: the engine's [`Reserve`] and the
/// bytes of one partition of its parameter file.
pub(crate) struct Admission {
    pub(crate) reserve: Reserve,
    pub(crate) partition: u64,
}

fn set(outcome: &Mutex<String>, text: String) {
    *outcome.lock().unwrap_or_else(|p| p.into_inner()) = text;
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

impl Synthesizer {
    /// The synthesizer of partitions proved against `params`: classic without
    /// a slot, else by the slot's recording; with `witness_only`, recorded
    /// partitions stop at their witness and the hook gets each recording as
    /// it becomes ready.
    /// A recording is published only once `admission` holds its bytes.
    pub(crate) fn new(
        slot: Option<Arc<Slot>>,
        saves: Saves,
        params: &Parameters,
        witness_only: Option<Arc<OnReady>>,
        admission: Admission,
    ) -> Self {
        Synthesizer {
            slot,
            saves,
            inputs: params.vk.ic.len(),
            aux: params.counts().l,
            witness_only,
            admission,
            on_witness_claim: Mutex::new(None),
            report: Mutex::new(SynthReport::default()),
        }
    }

    /// Synthesizes `circuit`: recorded when a recording exists, recording it
    /// when none does and nobody else is, the classic way otherwise.
    pub fn synthesize<C: Circuit<Scalar> + Send>(&self, circuit: C) -> Result<ProvingAssignment<Scalar>, SynthesisError> {
        match self.claimed(circuit)? {
            Synthesized::Assignment(pa) => Ok(*pa),
            Synthesized::Witness(w, shape) => self.evaluate(&shape, w),
        }
    }

    /// As [`Synthesizer::synthesize`] for the engine: when its backends
    /// compute a, b, c themselves, a recorded partition stops at its witness.
    pub(crate) fn partition<C: Circuit<Scalar> + Send>(&self, circuit: C) -> Result<Synthesized, SynthesisError> {
        match self.claimed(circuit)? {
            Synthesized::Witness(w, shape) if self.witness_only.is_none() => {
                self.evaluate(&shape, w).map(|pa| Synthesized::Assignment(Box::new(pa)))
            }
            done => Ok(done),
        }
    }

    /// Whether a partition synthesized now stops at its witness: its
    /// backends compute a, b, c and the recording is ready.
    pub(crate) fn stops_at_witness(&self) -> bool {
        self.witness_only.is_some()
            && self.slot.as_ref().is_some_and(|slot| {
                matches!(*slot.state.lock().unwrap_or_else(|p| p.into_inner()), State::Ready(_))
            })
    }

    /// Runs `hook` when this synthesizer's partition claims a ready
    /// recording and will stop at its witness (never otherwise): the engine
    /// gives back then the bytes of a, b, c that a partition admitted before
    /// the recording was ready had to reserve, instead of holding them
    /// through the whole witness pass.
    pub(crate) fn on_witness_claim(&self, hook: ClaimHook) {
        *self.on_witness_claim.lock().unwrap_or_else(|p| p.into_inner()) = Some(hook);
    }

    /// Classic synthesis, or recording, to an assignment; with a recording
    /// only the witness pass.
    fn claimed<C: Circuit<Scalar> + Send>(&self, circuit: C) -> Result<Synthesized, SynthesisError> {
        let assignment = |pa| Synthesized::Assignment(Box::new(pa));
        let Some(slot) = &self.slot else { return self.classic(circuit).map(assignment) };
        let claim = self.claim(slot, true);
        if matches!(claim, Claim::Use(_)) && self.witness_only.is_some() {
            if let Some(hook) = self.on_witness_claim.lock().unwrap_or_else(|p| p.into_inner()).take() {
                hook();
            }
        }
        match claim {
            Claim::Use(shape) => match self.witness(&shape, circuit) {
                Ok(w) => Ok(Synthesized::Witness(w, shape)),
                Err(e) => Err(self.blame(&shape, e)),
            },
            Claim::Classic => self.classic(circuit).map(assignment),
            Claim::Record => self.record(slot, circuit).map(assignment),
        }
    }

    /// Loads the recording's file now if there is one and nobody has (for
    /// [`crate::Engine::preload`]), so the first partitions find it ready;
    /// without a usable file the slot stays for the first partition to record.
    /// Returns the milliseconds spent loading (0 when nothing was loaded).
    pub(crate) fn warm(&self) -> f64 {
        if let Some(slot) = &self.slot {
            if let Claim::Record = self.claim(slot, false) {
                slot.set_state(State::Unknown);
            }
        }
        self.report().load_ms
    }

    /// Decides what this partition does: use a ready recording, wait for
    /// one being loaded, load it from its file, or (with `may_record`)
    /// record it; classic synthesis while someone else records.
    fn claim(&self, slot: &Arc<Slot>, may_record: bool) -> Claim {
        let mut state = slot.state.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            match &*state {
                State::Ready(shape) => return Claim::Use(shape.clone()),
                State::Loading => state = slot.changed.wait(state).unwrap_or_else(|p| p.into_inner()),
                State::Recording | State::Disabled => return Claim::Classic,
                State::Unknown => {
                    *state = State::Loading;
                    drop(state);
                    if let Some(shape) = self.load(slot) {
                        return match self.publish(slot, shape.clone(), false) {
                            true => Claim::Use(shape),
                            false => Claim::Classic,
                        };
                    }
                    if may_record {
                        slot.set_state(State::Recording);
                    }
                    return Claim::Record;
                }
            }
        }
    }

    /// Records the circuit (in parts on the current pool when it splits) and
    /// evaluates its witness through the rows; the slot's recording when it fits.
    fn record<C: Circuit<Scalar> + Send>(&self, slot: &Arc<Slot>, circuit: C) -> Result<ProvingAssignment<Scalar>, SynthesisError> {
        let start = Instant::now();
        match RecordedShape::record(circuit) {
            Ok((shape, pa)) => {
                self.report.lock().unwrap_or_else(|p| p.into_inner()).record_ms = ms_since(start);
                if self.fits(&shape) {
                    // Kept or dropped, this partition has its assignment.
                    let _kept = self.publish(slot, Arc::new(shape), true);
                } else {
                    // A circuit that does not fit its parameters must not
                    // become the recording the right circuits are held to;
                    // its own proof fails on the sizes.
                    slot.set_state(State::Unknown);
                    set(&slot.outcome, self.misfit(&shape, "a partition's circuit"));
                }
                Ok(pa)
            }
            Err(e) => {
                slot.set_state(State::Unknown);
                Err(e)
            }
        }
    }

    fn classic<C: Circuit<Scalar>>(&self, circuit: C) -> Result<ProvingAssignment<Scalar>, SynthesisError> {
        let start = Instant::now();
        let pa = ProvingAssignment::synthesize(circuit);
        self.report.lock().unwrap_or_else(|p| p.into_inner()).classic_ms = ms_since(start);
        pa
    }

    fn witness<C: Circuit<Scalar> + Send>(&self, shape: &Arc<RecordedShape<Scalar>>, circuit: C) -> Result<Witness<Scalar>, SynthesisError> {
        let start = Instant::now();
        let (witness, pass) = shape.shared_witness_pass(circuit)?;
        let mut report = self.report.lock().unwrap_or_else(|p| p.into_inner());
        match pass {
            WitnessPass::Gadgets => report.witness_ms = ms_since(start),
            WitnessPass::Replay => report.replay_ms = ms_since(start),
        }
        Ok(witness)
    }

    /// The sparse products on the CPU; every row satisfied proves a loaded
    /// recording right, a row that is not may prove it wrong.
    fn evaluate(&self, shape: &Arc<RecordedShape<Scalar>>, w: Witness<Scalar>) -> Result<ProvingAssignment<Scalar>, SynthesisError> {
        let start = Instant::now();
        let pa = shape.evaluate(w).map_err(|e| self.blame(shape, e))?;
        self.report.lock().unwrap_or_else(|p| p.into_inner()).spmv_ms = ms_since(start);
        if let Some(slot) = &self.slot {
            slot.confirm(shape);
        }
        Ok(pa)
    }

    /// Passes on a partition's error against `shape`; an error a recording
    /// of another circuit causes drops a loaded recording still on trial
    /// ([`Slot::reject_misfit`]), and the report says how many bytes it held.
    fn blame(&self, shape: &Arc<RecordedShape<Scalar>>, e: SynthesisError) -> SynthesisError {
        let telling = matches!(e, SynthesisError::ShapeMismatch { .. } | SynthesisError::UnsatisfiedConstraint(_));
        if telling && self.slot.as_ref().is_some_and(|slot| slot.reject_misfit(shape, &e)) {
            self.report.lock().unwrap_or_else(|p| p.into_inner()).dropped_recording_bytes = shape.heap_bytes() as u64;
        }
        e
    }

    /// The recording in the slot's file, if there is one that fits the
    /// parameters; why not goes into the slot's outcome.
    fn load(&self, slot: &Slot) -> Option<Arc<RecordedShape<Scalar>>> {
        if slot.distrust_file.load(Ordering::SeqCst) {
            return None;
        }
        let file = slot.file.as_ref().filter(|f| f.exists())?;
        let start = Instant::now();
        let loaded = RecordedShape::<Scalar>::load(file);
        self.report.lock().unwrap_or_else(|p| p.into_inner()).load_ms = ms_since(start);
        let outcome = match loaded {
            Ok(shape) if self.fits(&shape) => {
                set(&slot.outcome, format!("loaded from {}", file.display()));
                return Some(Arc::new(shape));
            }
            Ok(shape) => format!("{}: recording again", self.misfit(&shape, &file.display().to_string())),
            Err(e) => format!("{} did not load ({e}): recording again", file.display()),
        };
        set(&slot.outcome, outcome);
        None
    }

    /// Whether a shape has the parameters' numbers of inputs and aux variables.
    fn fits(&self, shape: &RecordedShape<Scalar>) -> bool {
        shape.num_inputs() == self.inputs && shape.num_aux() == self.aux
    }

    fn misfit(&self, shape: &RecordedShape<Scalar>, what: &str) -> String {
        format!(
            "not recorded: {what} has {} inputs and {} aux variables, the parameters {} and {}",
            shape.num_inputs(),
            shape.num_aux(),
            self.inputs,
            self.aux
        )
    }

    /// Makes the shape the slot's recording, once the backends that take
    /// witnesses have it: until then the other partitions wait, so none
    /// reaches a device with a shape it was never given. A fresh one is
    /// also written to the slot's file, on a thread of its own (the
    /// partition goes on to prove), and the slot's outcome says whether
    /// that worked.
    ///
    /// The budget reserves the recording's bytes first, before any other
    /// partition can see it ready and reserve its own: reserved after this
    /// partition's synthesis, it lost to the partitions that started
    /// meanwhile (on the H200 a 32 GiB PoRep recording was dropped that
    /// way and the first proof fell back to classic synthesis, 290 s). With
    /// no room it is dropped here: false, the slot disabled, and the
    /// parameter file's partitions synthesize the classic way.
    fn publish(&self, slot: &Arc<Slot>, shape: Arc<RecordedShape<Scalar>>, fresh: bool) -> bool {
        let Admission { reserve, partition } = &self.admission;
        if let Err(budget) = reserve(shape.heap_bytes() as u64, *partition) {
            slot.set_state(State::Disabled);
            *slot.on_trial.lock().unwrap_or_else(|p| p.into_inner()) = None;
            set(
                &slot.outcome,
                format!("dropped: the memory budget ({budget} bytes) has no room for it; synthesizing the classic way"),
            );
            return false;
        }
        *slot.on_trial.lock().unwrap_or_else(|p| p.into_inner()) = (!fresh).then(|| shape.clone());
        if let Some(ready) = &self.witness_only {
            slot.set_state(State::Loading);
            ready(&shape);
        }
        slot.set_state(State::Ready(shape.clone()));
        if !fresh {
            return true;
        }
        let Some(file) = slot.file.clone() else {
            set(&slot.outcome, format!("recorded ({} constraints), kept in memory", shape.num_constraints()));
            return true;
        };
        // After a misfit the file is overwritten: say so, naming it.
        let verb = if slot.distrust_file.load(Ordering::SeqCst) { "replaced" } else { "saved to" };
        set(&slot.outcome, format!("recorded ({} constraints), saving to {}", shape.num_constraints(), file.display()));
        let saver = slot.clone();
        let spawned = std::thread::Builder::new().name("cuzk-record-save".into()).spawn(move || {
            let saved = match file.parent() {
                Some(dir) => std::fs::create_dir_all(dir).map_err(|e| e.to_string()),
                None => Ok(()),
            }
            .and_then(|()| shape.save(&file).map_err(|e| e.to_string()));
            set(
                &saver.outcome,
                match saved {
                    Ok(()) => format!("recorded ({} constraints), {verb} {}", shape.num_constraints(), file.display()),
                    Err(e) => format!("recorded, kept in memory; saving to {} failed: {e}", file.display()),
                },
            );
        });
        match spawned {
            Ok(handle) => self.saves.lock().unwrap_or_else(|p| p.into_inner()).push(handle),
            Err(e) => set(&slot.outcome, format!("recorded, kept in memory; no thread to save it: {e}")),
        }
        true
    }

    /// Where this synthesizer's time went.
    pub(crate) fn report(&self) -> SynthReport {
        self.report.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}
