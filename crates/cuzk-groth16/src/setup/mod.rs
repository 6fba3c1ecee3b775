//! Random (insecure, single-party) parameter generation, for tests and benchmarks.
//!
//! With toxic waste α, β, γ, δ, τ and QAP column polynomials uᵢ, vᵢ, wᵢ, the
//! parameters are the points
//!   a: uᵢ(τ)·G1,  b: vᵢ(τ)·G1 and ·G2 (zero polynomials omitted),
//!   ic: (β·uᵢ(τ) + α·vᵢ(τ) + wᵢ(τ))/γ·G1 for inputs, l: the same over δ for private variables,
//!   h: τʲ·Z(τ)/δ·G1 for j < n − 1.
//! The output equals bellperson's generator's for the same toxic waste, byte for byte.
//!
//! A setup is two steps: the scalars ([`SetupScalars`], from a circuit or
//! from a recorded shape, on the CPU), then fixed-base multiplications of
//! the generators by them ([`FixedBaseMul`]: [`CpuFixedBase`] here, a GPU in
//! cuzk-gpu), which are nearly all of the time at Filecoin's sizes.

mod assembly;
mod columns;
mod fixed_base;
mod scalars;
mod toxic;

use std::sync::Arc;

use blstrs::Scalar;
use cuzk_synth::recorded::RecordedShape;
use cuzk_synth::Circuit;
use group::Curve;
use rand_core::RngCore;

pub use self::fixed_base::{CpuFixedBase, FixedBaseMul};
pub use self::scalars::SetupScalars;
pub use self::toxic::ToxicWaste;
use crate::error::Error;
use crate::params::{Parameters, VerifyingKey};

/// Progress callback: `(phase, done, total)`.
pub type SetupProgress<'a> = Option<&'a dyn Fn(&str, u64, u64)>;

/// Generates parameters for `circuit` from fresh random toxic waste.
pub fn generate_random_parameters<C: Circuit<Scalar>>(
    circuit: C,
    rng: &mut impl RngCore,
    progress: SetupProgress<'_>,
) -> Result<Parameters, Error> {
    generate_parameters(circuit, &ToxicWaste::random(rng), progress)
}

/// Generates parameters for `circuit` from the given toxic waste, on the CPU.
pub fn generate_parameters<C: Circuit<Scalar>>(
    circuit: C,
    toxic: &ToxicWaste,
    progress: SetupProgress<'_>,
) -> Result<Parameters, Error> {
    SetupScalars::from_circuit(circuit, toxic)?.into_parameters(toxic, &CpuFixedBase, progress)
}

/// Generates parameters for the circuit `shape` was recorded from, with
/// `mul`'s multiplications: byte for byte [`generate_parameters`]' output
/// for that circuit and toxic waste, in far less memory (`columns.rs`).
pub fn generate_parameters_from_shape<M: FixedBaseMul>(
    shape: &RecordedShape<Scalar>,
    toxic: &ToxicWaste,
    mul: &M,
    progress: SetupProgress<'_>,
) -> Result<Parameters, M::Error> {
    SetupScalars::from_shape(shape, toxic)?.into_parameters(toxic, mul, progress)
}

impl SetupScalars {
    /// Multiplies the generators by the scalars, each query's scalars
    /// dropped once its points exist, and adds the verifying key's points.
    pub fn into_parameters<M: FixedBaseMul>(
        mut self,
        toxic: &ToxicWaste,
        mul: &M,
        progress: SetupProgress<'_>,
    ) -> Result<Parameters, M::Error> {
        let ToxicWaste { g1, g2, alpha, beta, gamma, delta, .. } = *toxic;
        let phase = |name: &'static str| {
            move |done: u64, total: u64| {
                if let Some(report) = progress {
                    report(name, done, total)
                }
            }
        };
        let h = mul.g1(g1, &std::mem::take(&mut self.h), &mut phase("h"))?;
        let ic = mul.g1(g1, &std::mem::take(&mut self.ic), &mut phase("ic"))?;
        let l = mul.g1(g1, &std::mem::take(&mut self.l), &mut phase("l"))?;
        let a = mul.g1(g1, &std::mem::take(&mut self.a), &mut phase("a"))?;
        let b_g1 = mul.g1(g1, &self.b, &mut phase("b_g1"))?;
        let b_g2 = mul.g2(g2, &self.b, &mut phase("b_g2"))?;

        let vk = VerifyingKey {
            alpha_g1: (g1 * alpha).to_affine(),
            beta_g1: (g1 * beta).to_affine(),
            beta_g2: (g2 * beta).to_affine(),
            gamma_g2: (g2 * gamma).to_affine(),
            delta_g1: (g1 * delta).to_affine(),
            delta_g2: (g2 * delta).to_affine(),
            ic,
        };
        Ok(Parameters::new(vk, Arc::new(h), Arc::new(l), Arc::new(a), Arc::new(b_g1), Arc::new(b_g2)))
    }
}
