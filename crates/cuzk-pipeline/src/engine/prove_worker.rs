//! The prove threads, one or more per device: each takes a batch of ready
//! partitions of the most urgent job, proves it under the device's lock,
//! optionally verifies the proofs, and completes or fails the job.

use std::sync::Arc;
use std::time::Instant;

use blstrs::Scalar;
use cuzk_groth16::{Parameters, PreparedVerifyingKey, Proof};

use super::queue::{take_batch, Batch, Taken};
use super::state::{ms_since, Shared};
use crate::backends::{BackendError, ProveBackend, ProveOutput};
use crate::timeline::Event;
use crate::EngineError;

/// The prove thread of device `device`, until the engine shuts down.
pub(super) fn run(s: &Shared, device: usize) {
    let backend = s.backends[device].clone();
    let name = backend.name();
    loop {
        let mut st = s.lock();
        let batch = loop {
            if st.shutdown {
                return;
            }
            // Leave every device a share of what is ready, so one device
            // does not take a whole job while another idles.
            let share = st.ready.len().div_ceil(s.backends.len()).max(1);
            if let Some(taken) = take_batch(&mut st.ready, s.max_batch.min(share)) {
                break taken;
            }
            st = s.wait(st);
        };
        let Taken { job: job_id, parts, reserved, batch } = batch;
        let Some(path) = st.jobs.get(&job_id).map(|j| j.params.clone()) else {
            s.free_then_release(batch, reserved);
            continue;
        };
        let randomness: Vec<(Scalar, Scalar)> = parts
            .iter()
            .map(|_| {
                (
                    cuzk_groth16::random_nonzero_scalar(&mut st.rng),
                    cuzk_groth16::random_nonzero_scalar(&mut st.rng),
                )
            })
            .collect();
        drop(st);

        let outcome = s.srs.get(&path).map_err(|message| EngineError::Params { path, message }).and_then(
            |(loaded, _)| {
                let params = &loaded.params;
                let _span = tracing::info_span!("prove", job = job_id, partitions = ?parts, device = %name).entered();
                s.record(Event::ProveStart, job_id, &parts, Some(&name));
                let start = Instant::now();
                let out = {
                    let _device = s.device_locks[device].lock().unwrap_or_else(|p| p.into_inner());
                    prove(&batch, &*backend, params, &randomness)
                };
                let prove_ms = ms_since(start);
                s.record(Event::ProveEnd, job_id, &parts, Some(&name));
                let checked = out.and_then(|out| {
                    if s.self_check {
                        self_check(&loaded.pvk, &batch.public_inputs(), &out.proofs)?;
                    }
                    Ok(out)
                });
                let out = checked.map_err(|source| EngineError::Prove { backend: name.clone(), source })?;
                Ok((out, prove_ms))
            },
        );

        let dropped = recorded_outcome(s, &batch, &outcome);
        s.free_then_release(batch, reserved);
        let mut st = s.lock();
        st.release_recording(dropped);
        match outcome {
            Ok((out, prove_ms)) => {
                if let Some(job) = st.jobs.get_mut(&job_id) {
                    job.timings.prove_ms += prove_ms;
                    job.timings.add_call(&out.breakdown, prove_ms);
                    let proofs = out.proofs;
                    job.backends.insert(name.clone());
                    for (part, proof) in parts.iter().zip(proofs) {
                        job.proofs[*part] = Some(proof);
                    }
                    if job.proofs.iter().all(Option::is_some) {
                        s.finish(&mut st, job_id);
                    }
                }
            }
            Err(e) => s.fail(&mut st, job_id, e),
        }
        drop(st);
        s.wake.notify_all();
    }
}

/// What a batch of a recorded shape's witnesses tells of the shape: a proof
/// confirms a loaded recording, a row the device found unsatisfied may show
/// it is another circuit's (`Recordings::reject_misfit`). Returns the bytes
/// of a recording so dropped.
fn recorded_outcome<T>(s: &Shared, batch: &Batch, outcome: &Result<T, EngineError>) -> u64 {
    let Batch::Witnesses(shape, _) = batch else { return 0 };
    match outcome {
        Ok(_) => {
            s.recordings.confirm(shape);
            0
        }
        Err(e) if e.unsatisfied_constraint().is_some() => s.recordings.reject_misfit(shape, e).unwrap_or(0),
        Err(_) => 0,
    }
}

/// One backend call for the batch, by its kind.
fn prove(
    batch: &Batch,
    backend: &dyn ProveBackend,
    params: &Arc<Parameters>,
    randomness: &[(Scalar, Scalar)],
) -> Result<ProveOutput, BackendError> {
    match batch {
        Batch::Assignments(v) => backend.prove(params, v, randomness),
        Batch::Witnesses(shape, v) => backend.prove_witnesses(params, shape, v, randomness),
    }
}

/// Verifies a batch's proofs against the inputs they were made for, under
/// the key the parameter cache prepared once at load.
fn self_check(pvk: &PreparedVerifyingKey, inputs: &[&[Scalar]], proofs: &[Proof]) -> Result<(), BackendError> {
    for (index, (inputs, p)) in inputs.iter().zip(proofs).enumerate() {
        match cuzk_groth16::verify_proof(pvk, p, inputs) {
            Ok(true) => {}
            Ok(false) => return Err(BackendError::SelfCheck { index }),
            Err(source) => return Err(BackendError::SelfCheckFailed { index, source }),
        }
    }
    Ok(())
}
