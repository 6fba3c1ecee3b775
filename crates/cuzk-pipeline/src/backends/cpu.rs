use std::sync::Arc;

use blstrs::Scalar;
use cuzk_groth16::Parameters;
use cuzk_synth::{ProvingAssignment, RecordedShape, Witness};

use super::{BackendError, ProveBackend, ProveOutput};

/// The CPU prover (rayon NTTs and multi-exponentiations) as a backend.
#[derive(Clone, Debug, Default)]
pub struct CpuBackend {
    name: String,
}

impl CpuBackend {
    /// The CPU backend, reported as `cpu`.
    pub fn new() -> Self {
        CpuBackend { name: "cpu".into() }
    }

    /// One of several simulated CPU "devices" (for scheduling tests), `cpu:i`.
    pub fn simulated(i: usize) -> Self {
        CpuBackend { name: format!("cpu:{i}") }
    }
}

impl ProveBackend for CpuBackend {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn prove(
        &self,
        params: &Arc<Parameters>,
        assignments: &[ProvingAssignment<Scalar>],
        randomness: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, BackendError> {
        let (proofs, t) = cuzk_groth16::prove_timed(params, assignments, randomness)?;
        let breakdown = vec![
            ("ntt_ms".to_string(), t.ntt_ms),
            ("msm_h_ms".to_string(), t.msm_h_ms),
            ("msm_l_ms".to_string(), t.msm_l_ms),
            ("msm_ab_ms".to_string(), t.msm_ab_ms),
            ("epilogue_ms".to_string(), t.epilogue_ms),
        ];
        Ok(ProveOutput { proofs, breakdown })
    }

    /// The products on the CPU (every row checked), then [`ProveBackend::prove`].
    /// The engine never hands the CPU backend witnesses (it does not
    /// [`ProveBackend::takes_witnesses`]); callers with a recorded shape can.
    fn prove_witnesses(
        &self,
        params: &Arc<Parameters>,
        shape: &Arc<RecordedShape<Scalar>>,
        witnesses: &[Witness<Scalar>],
        randomness: &[(Scalar, Scalar)],
    ) -> Result<ProveOutput, BackendError> {
        let assignments = witnesses.iter().map(|w| shape.evaluate(w.clone())).collect::<Result<Vec<_>, _>>()?;
        self.prove(params, &assignments, randomness)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_synth::workloads::MulChain;

    #[test]
    fn witnesses_prove_as_their_assignments_and_an_unsatisfied_row_is_typed() {
        let circuit = MulChain::<Scalar>::new(4, 1);
        let params = Arc::new(
            cuzk_groth16::generate_random_parameters(circuit.clone(), &mut rand::thread_rng(), None).unwrap(),
        );
        let (shape, pa) = RecordedShape::record(circuit.clone()).unwrap();
        let shape = Arc::new(shape);
        let witness = shape.witness(circuit).unwrap();
        let rs = [(Scalar::from(3u64), Scalar::from(5u64))];
        let cpu = CpuBackend::new();
        let direct = cpu.prove(&params, &[pa], &rs).unwrap().proofs;
        assert_eq!(cpu.prove_witnesses(&params, &shape, std::slice::from_ref(&witness), &rs).unwrap().proofs, direct);

        let mut wrong = witness;
        wrong.aux[1] += Scalar::from(1u64);
        let err = cpu.prove_witnesses(&params, &shape, &[wrong], &rs).unwrap_err();
        assert!(err.unsatisfied_constraint().is_some(), "{err:?}");
    }
}
