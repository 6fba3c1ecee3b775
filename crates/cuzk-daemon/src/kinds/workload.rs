//! The built-in benchmark workloads (cuzk extension `WORKLOAD_*`): a size,
//! a number of partitions, and parameters `<param_dir>/<name>-<size>.params`
//! as `cuzk setup` writes them.

use std::path::{Path, PathBuf};

use blstrs::Scalar;
use cuzk_groth16::Domain;
use cuzk_pipeline::{Job, Priority};
use cuzk_synth::workloads::Workload;
use tonic::Status;

use super::{invalid, require_params, Check, Prepared};
use crate::proto;

/// Most partitions of one workload request.
const MAX_WORKLOAD_PARTITIONS: u32 = 64;

/// A workload request, decoded.
pub(crate) struct WorkloadJob {
    workload: Workload,
    size: usize,
    partitions: usize,
    params: PathBuf,
}

/// The workload request of `req`, its parameters looked for in `dir`.
pub(super) fn decode(req: &proto::SubmitProofRequest, workload: Workload, dir: &Path) -> Result<WorkloadJob, Status> {
    let size = usize::try_from(req.workload_size).ok().filter(|s| (1..=workload.max_size()).contains(s));
    let size = size.ok_or_else(|| {
        invalid("workload_size", format!("{} is outside 1..={} for {workload}", req.workload_size, workload.max_size()))
    })?;
    let partitions = req.workload_partitions.max(1);
    if partitions > MAX_WORKLOAD_PARTITIONS {
        return Err(invalid("workload_partitions", format!("{partitions} is above {MAX_WORKLOAD_PARTITIONS}")));
    }
    let params = dir.join(format!("{workload}-{size}.params"));
    Ok(WorkloadJob { workload, size, partitions: partitions as usize, params })
}

impl WorkloadJob {
    /// The job: fresh random circuits, once the parameter file's header is
    /// known to fit them.
    pub(super) fn prepare(self, priority: Priority) -> Result<Prepared, Status> {
        let WorkloadJob { workload, size, partitions, params } = self;
        let circuit = format!("{workload}-{size}");
        require_params(&params, &circuit)?;
        // The file's header must fit the workload before any circuit is built.
        let summary =
            cuzk_groth16::inspect(&params).map_err(|e| Status::failed_precondition(format!("{circuit}: {e}")))?;
        let inputs =
            workload.public_inputs::<Scalar>(size, 0).map_err(|e| invalid("workload_size", e))?.len() as u64 + 1;
        let domain = Domain::size_for(workload.expected_constraints(size) + inputs as usize)
            .map_err(|e| invalid("workload_size", e))?;
        if summary.h + 1 != domain as u64 || summary.ic != inputs {
            return Err(invalid("workload_size", format!("{size} does not fit {}", params.display())));
        }
        let mut job = Job::new(&params).priority(priority);
        let mut all_inputs = Vec::with_capacity(partitions);
        for _ in 0..partitions {
            let c = workload.circuit::<Scalar>(size, rand::random()).map_err(|e| invalid("workload_size", e))?;
            all_inputs.push(c.public_inputs());
            job = job.partition(c);
        }
        let check = Check { circuit, filecoin: None, vk: params.clone(), inputs: all_inputs };
        Ok(Prepared { job, params, check })
    }
}
