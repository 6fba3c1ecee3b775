//! The prove threads, one or more per device: each takes a batch of ready
//! partitions of the most urgent job, proves it under the device's lock,
//! optionally verifies the proofs, and completes the job's partitions, or
//! retries them once when the device failed ([`super::devices`]).

use std::sync::Arc;
use std::time::Instant;

use blstrs::Scalar;
use cuzk_groth16::{Parameters, PreparedVerifyingKey, Proof};

use super::devices::Fault;
use super::queue::{take_batch, Batch, Ready, Retry, Taken};
use super::state::{ms_since, Shared};
use crate::backends::{BackendError, ProveBackend, ProveOutput};
use crate::timeline::Event;
use crate::EngineError;

/// The prove thread of device `device`, until the engine shuts down or
/// the device is taken out of service.
pub(super) fn run(s: &Shared, device: usize) {
    let backend = s.backends[device].clone();
    let name = backend.name();
    loop {
        let mut st = s.lock();
        let taken = loop {
            if st.shutdown || st.devices[device].retired.is_some() {
                return;
            }
            // Leave every device a share of what is ready, so one device
            // does not take a whole job while another idles.
            let share = st.ready.len().div_ceil(s.backends.len()).max(1);
            let others = st.devices.iter().enumerate().any(|(i, d)| i != device && d.retired.is_none());
            if let Some(taken) = take_batch(&mut st.ready, s.max_batch.min(share), device, others) {
                break taken;
            }
            st = s.wait(st);
        };
        let Taken { job: job_id, parts, reserved, retries, batch } = taken;
        let Some(path) = st.jobs.get(&job_id).map(|j| j.params.clone()) else {
            s.free_then_release(batch, reserved.iter().sum());
            continue;
        };
        st.devices[device].current_job = Some(job_id);
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

        let mut prove_ms = 0.0;
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
                prove_ms = ms_since(start);
                // Where the call found the bases: what it streamed, per call.
                let placed = backend.placement(params).map(|p| {
                    [
                        ("resident_queries", u64::from(p.resident.bits())),
                        ("resident_bytes", p.resident_bytes),
                        ("streamed_bytes", p.streamed_bytes),
                        ("quotient_layout", u64::from(p.quotient.bits())),
                        ("shape_on_host", u64::from(p.shape_on_host)),
                    ]
                });
                s.record_with(Event::ProveEnd, job_id, &parts, Some(&name), placed.as_ref().map_or(&[], |f| &f[..]));
                let checked = out.and_then(|out| {
                    if s.self_check {
                        self_check(&loaded.pvk, &batch.public_inputs(), &out.proofs)?;
                    }
                    Ok(out)
                });
                checked.map_err(|source| EngineError::Prove { backend: name.clone(), source })
            },
        );

        let dropped = recorded_outcome(s, &batch, &outcome);
        let mut st = s.lock();
        let d = &mut st.devices[device];
        d.current_job = None;
        d.calls += 1;
        d.busy_ms += prove_ms;
        st.release_recording(dropped);
        match outcome {
            Ok(out) => {
                st.devices[device].succeeded();
                // A suspect failure elsewhere that this device proved was
                // that device's after all.
                for r in retries.iter().flatten().filter(|r| r.fault == Fault::Suspect && r.device != device) {
                    let other = s.backends[r.device].name();
                    if st.devices[r.device].blame(&other, &format!("{name} proved what it failed")) {
                        s.retired(&mut st);
                    }
                }
                s.free_then_release(batch, reserved.iter().sum());
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
            Err(e) => {
                let fault = match &e {
                    EngineError::Prove { source, .. } => Fault::of(source),
                    _ => Fault::Work,
                };
                let retired = fault == Fault::Device && st.devices[device].blame(&name, &e.to_string());
                let first_failure = retries.iter().all(Option::is_none);
                match st.jobs.get(&job_id).map(|j| j.priority) {
                    Some(priority) if fault != Fault::Work && first_failure => {
                        tracing::warn!(job = job_id, partitions = ?parts, device = %name, error = %e, "prove call failed; retrying");
                        let retry = Some(Retry { device, fault });
                        for ((part, bytes), assignment) in parts.into_iter().zip(reserved).zip(batch.into_parts()) {
                            st.ready.push(Ready { priority, job: job_id, part, assignment, reserved: bytes, retry });
                        }
                    }
                    _ => {
                        s.free_then_release(batch, reserved.iter().sum());
                        s.fail(&mut st, job_id, e);
                    }
                }
                if retired {
                    s.retired(&mut st);
                }
            }
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
