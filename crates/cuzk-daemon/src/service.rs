//! The `cuzk.v1.ProvingEngine` service: each RPC read from its message,
//! done by the core, and answered. A request's own faults are statuses
//! naming the field; they never touch other clients' jobs.
//!
//! A request that came with a bearer token (its [`Caller`] put in the
//! extensions by the token check, `auth.rs`) acts only within its token:
//! proofs of its kinds, jobs it submitted, parameters of its kinds.
//! Status and metrics are open to every token.

use std::sync::Arc;
use std::time::Duration;

use tonic::{Request, Response, Status};

use crate::core::Core;
use crate::jobs::{Entry, Outcome, ProveWaiter};
use crate::kinds;
use crate::proto::{self, await_proof_response::Status as AwaitStatus, proving_engine_server::ProvingEngine};
use crate::tokens::{Caller, Grant};

/// The service, cloned into every listener.
#[derive(Clone)]
pub(crate) struct Service {
    pub(crate) core: Arc<Core>,
}

/// The response for job `id` given its outcome (`None`: the wait timed out).
fn await_response(id: &str, outcome: Option<&Outcome>) -> proto::AwaitProofResponse {
    let mut r = proto::AwaitProofResponse { job_id: id.to_string(), ..Default::default() };
    let status = match outcome {
        None => AwaitStatus::Timeout,
        Some(Outcome::Completed { proof, timings }) => {
            r.proof = proof.clone();
            let ms = |v: f64| v.max(0.0).round() as u64;
            r.queue_wait_ms = ms(timings.queue_ms);
            r.srs_load_ms = ms(timings.srs_ms);
            r.synthesis_ms = ms(timings.synth_ms);
            r.gpu_compute_ms = ms(timings.prove_ms);
            r.total_ms = ms(timings.total_ms);
            AwaitStatus::Completed
        }
        Some(Outcome::Failed(message)) => {
            r.error_message = message.clone();
            AwaitStatus::Failed
        }
        Some(Outcome::Cancelled) => {
            r.error_message = "cancelled".into();
            AwaitStatus::Cancelled
        }
        Some(Outcome::Refused(s)) => {
            r.error_message = s.message().to_string();
            AwaitStatus::Failed
        }
    };
    r.status = status as i32;
    r
}

fn not_found(id: &str) -> Status {
    Status::not_found(format!("job_id {id:?}: no such job (never submitted, or forgotten after its retention time)"))
}

/// The token a request came with; none through a listener that trusts its callers.
fn caller<T>(request: &Request<T>) -> Option<Arc<Grant>> {
    request.extensions().get::<Caller>().map(|c| c.0.clone())
}

impl Service {
    /// The job `id`, if `caller` may see it: a token sees only its own jobs.
    fn job(&self, id: &str, caller: Option<&Grant>) -> Result<Arc<Entry>, Status> {
        let entry = self.core.jobs.get(id).ok_or_else(|| not_found(id))?;
        if !entry.visible_to(caller.map(|g| g.name.as_str())) {
            return Err(Status::permission_denied(format!("job_id {id:?} is another client's job")));
        }
        Ok(entry)
    }
}

/// `PERMISSION_DENIED` unless `caller` may prove the kind of `circuit_id`
/// (a token loads or drops only parameters of its own kinds).
fn may_load(caller: Option<&Grant>, circuit_id: &str) -> Result<(), Status> {
    match caller {
        Some(grant) => grant.allows(kinds::circuit_kind(circuit_id)?),
        None => Ok(()),
    }
}

#[tonic::async_trait]
impl ProvingEngine for Service {
    async fn submit_proof(
        &self,
        request: Request<proto::SubmitProofRequest>,
    ) -> Result<Response<proto::SubmitProofResponse>, Status> {
        let caller = caller(&request);
        let entry = self.core.submit(request.into_inner(), caller.as_deref(), |_| {}).await?;
        let queue_position = u32::try_from(self.core.jobs.ahead_of(&entry)).unwrap_or(u32::MAX);
        let job_id = entry.id.clone();
        Ok(Response::new(proto::SubmitProofResponse { job_id, queue_position, assigned_gpu: String::new() }))
    }

    async fn await_proof(
        &self,
        request: Request<proto::AwaitProofRequest>,
    ) -> Result<Response<proto::AwaitProofResponse>, Status> {
        let caller = caller(&request);
        let req = request.into_inner();
        let entry = self.job(&req.job_id, caller.as_deref())?;
        let timeout = (req.timeout_ms > 0).then(|| Duration::from_millis(req.timeout_ms));
        let outcome = entry.wait(timeout).await;
        if outcome.is_some() {
            entry.deliver();
        }
        Ok(Response::new(await_response(&entry.id, outcome.as_deref())))
    }

    async fn prove(&self, request: Request<proto::ProveRequest>) -> Result<Response<proto::ProveResponse>, Status> {
        let caller = caller(&request);
        let submit = request.into_inner().submit.ok_or_else(|| Status::invalid_argument("submit: missing"))?;
        // Dropped with this call when the client goes away (during
        // preparation too): the last caller to leave an unfinished job
        // cancels it, when so configured.
        let mut waiter = None;
        let watch = |entry: &Arc<crate::jobs::Entry>| {
            let (core, abandoned) = (self.core.clone(), entry.clone());
            let cancel = core.config.server.cancel_on_disconnect;
            waiter = Some(ProveWaiter::new(entry.clone(), move || {
                if cancel {
                    core.cancel(&abandoned, "its Prove client disconnected");
                }
            }));
        };
        let entry = self.core.submit(submit, caller.as_deref(), watch).await?;
        let outcome = entry.wait(None).await;
        entry.deliver();
        drop(waiter);
        Ok(Response::new(proto::ProveResponse { result: Some(await_response(&entry.id, outcome.as_deref())) }))
    }

    async fn cancel_proof(
        &self,
        request: Request<proto::CancelProofRequest>,
    ) -> Result<Response<proto::CancelProofResponse>, Status> {
        let caller = caller(&request);
        let id = request.into_inner().job_id;
        let entry = self.job(&id, caller.as_deref())?;
        let was_running = self.core.cancel(&entry, "CancelProof");
        Ok(Response::new(proto::CancelProofResponse { was_running }))
    }

    async fn get_status(
        &self,
        _: Request<proto::GetStatusRequest>,
    ) -> Result<Response<proto::GetStatusResponse>, Status> {
        Ok(Response::new(self.core.status()))
    }

    async fn get_metrics(
        &self,
        _: Request<proto::GetMetricsRequest>,
    ) -> Result<Response<proto::GetMetricsResponse>, Status> {
        Ok(Response::new(proto::GetMetricsResponse { prometheus_text: self.core.metrics_text() }))
    }

    async fn preload_srs(
        &self,
        request: Request<proto::PreloadSrsRequest>,
    ) -> Result<Response<proto::PreloadSrsResponse>, Status> {
        let caller = caller(&request);
        let id = request.into_inner().circuit_id;
        may_load(caller.as_deref(), &id)?;
        let (already_loaded, load_time_ms) = self.core.preload(&id).await?;
        Ok(Response::new(proto::PreloadSrsResponse { already_loaded, load_time_ms }))
    }

    async fn evict_srs(
        &self,
        request: Request<proto::EvictSrsRequest>,
    ) -> Result<Response<proto::EvictSrsResponse>, Status> {
        let caller = caller(&request);
        let id = request.into_inner().circuit_id;
        may_load(caller.as_deref(), &id)?;
        let (was_loaded, freed_bytes) = self.core.evict(&id).await?;
        Ok(Response::new(proto::EvictSrsResponse { was_loaded, freed_bytes }))
    }
}
