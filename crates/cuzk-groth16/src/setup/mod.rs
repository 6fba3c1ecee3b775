//! Random (insecure, single-party) parameter generation, for tests and benchmarks.
//!
//! With toxic waste α, β, γ, δ, τ and QAP column polynomials uᵢ, vᵢ, wᵢ, the
//! parameters are the points
//!   a: uᵢ(τ)·G1,  b: vᵢ(τ)·G1 and ·G2 (zero polynomials omitted),
//!   ic: (β·uᵢ(τ) + α·vᵢ(τ) + wᵢ(τ))/γ·G1 for inputs, l: the same over δ for private variables,
//!   h: τʲ·Z(τ)/δ·G1 for j < n − 1.
//! The output equals bellperson's generator's for the same toxic waste, byte for byte.

mod assembly;
mod fixed_base;

use std::sync::Arc;

use blstrs::{G1Projective, G2Projective, Scalar};
use cuzk_synth::{Circuit, ConstraintSystem, Index, SynthesisError, Variable};
use ff::Field;
use group::{Curve, Group};
use rand_core::RngCore;
use rayon::prelude::*;

use self::assembly::KeypairAssembly;
use self::fixed_base::FixedBase;
use crate::domain::Domain;
use crate::error::Error;
use crate::params::{Parameters, VerifyingKey};
use crate::prover::random_nonzero_scalar;

/// The secrets of a setup: whoever knows them can forge proofs.
#[derive(Clone, Debug)]
pub struct ToxicWaste {
    /// Generator of G1 the parameters are built on.
    pub g1: G1Projective,
    /// Generator of G2.
    pub g2: G2Projective,
    /// α.
    pub alpha: Scalar,
    /// β.
    pub beta: Scalar,
    /// γ.
    pub gamma: Scalar,
    /// δ.
    pub delta: Scalar,
    /// τ, the secret evaluation point.
    pub tau: Scalar,
}

impl ToxicWaste {
    /// Draws fresh secrets, in the order bellperson's `generate_random_parameters` draws them.
    pub fn random<R: RngCore + ?Sized>(rng: &mut R) -> Self {
        ToxicWaste {
            g1: G1Projective::random(&mut *rng),
            g2: G2Projective::random(&mut *rng),
            alpha: random_nonzero_scalar(rng),
            beta: random_nonzero_scalar(rng),
            gamma: random_nonzero_scalar(rng),
            delta: random_nonzero_scalar(rng),
            tau: random_nonzero_scalar(rng),
        }
    }
}

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

/// Generates parameters for `circuit` from the given toxic waste.
pub fn generate_parameters<C: Circuit<Scalar>>(
    circuit: C,
    toxic: &ToxicWaste,
    progress: SetupProgress<'_>,
) -> Result<Parameters, Error> {
    let mut cs = KeypairAssembly::default();
    cs.alloc_input(|| "one", || Ok(Scalar::ONE))?;
    circuit.synthesize(&mut cs)?;
    // One `input · 0 = 0` constraint per input makes the inputs' A polynomials
    // linearly independent, as soundness requires.
    for i in 0..cs.num_inputs {
        cs.enforce(|| "", |lc| lc + Variable::new_unchecked(Index::Input(i)), |lc| lc, |lc| lc);
    }

    let ToxicWaste { g1, g2, alpha, beta, gamma, delta, tau } = *toxic;
    let no_identity = || Error::Synthesis(SynthesisError::UnexpectedIdentity);
    let gamma_inv: Scalar = Option::from(gamma.invert()).ok_or_else(no_identity)?;
    let delta_inv: Scalar = Option::from(delta.invert()).ok_or_else(no_identity)?;
    let domain = Domain::new(cs.num_constraints)?;
    let z_tau = domain.z_at(tau);
    if bool::from(z_tau.is_zero()) {
        return Err(no_identity());
    }

    let n = domain.size();
    let mut powers = vec![Scalar::ZERO; n];
    powers.par_chunks_mut(1024).enumerate().for_each(|(i, part)| {
        let mut t = tau.pow_vartime([(i * 1024) as u64]);
        for p in part {
            *p = t;
            t *= tau;
        }
    });
    let h_coeff = z_tau * delta_inv;
    let h_scalars: Vec<Scalar> = powers[..n - 1].par_iter().map(|p| *p * h_coeff).collect();
    domain.intt(&mut powers);
    let qap = cs.evaluate(&powers);
    drop(powers);

    let combine = |[u, v, w]: &[Vec<Scalar>; 3], inv: Scalar| -> Vec<Scalar> {
        (0..u.len()).into_par_iter().map(|i| (beta * u[i] + alpha * v[i] + w[i]) * inv).collect()
    };
    let ic_scalars = combine(&qap.inputs, gamma_inv);
    let l_scalars = combine(&qap.aux, delta_inv);
    if l_scalars.iter().any(|s| bool::from(s.is_zero())) {
        return Err(SynthesisError::UnconstrainedVariable.into());
    }
    let nonzero = |m: usize| -> Vec<Scalar> {
        qap.inputs[m].iter().chain(&qap.aux[m]).copied().filter(|s| !bool::from(s.is_zero())).collect()
    };
    let (a_scalars, b_scalars) = (nonzero(0), nonzero(1));

    let g1_count = h_scalars.len() + ic_scalars.len() + l_scalars.len() + a_scalars.len() + b_scalars.len();
    let g1_table = FixedBase::new(g1, g1_count);
    let g2_table = FixedBase::new(g2, b_scalars.len());
    let phase = |name: &'static str| {
        move |done: u64, total: u64| {
            if let Some(report) = progress {
                report(name, done, total)
            }
        }
    };
    let h = g1_table.mul_many(&h_scalars, &mut phase("h"));
    let ic = g1_table.mul_many(&ic_scalars, &mut phase("ic"));
    let l = g1_table.mul_many(&l_scalars, &mut phase("l"));
    let a = g1_table.mul_many(&a_scalars, &mut phase("a"));
    let b_g1 = g1_table.mul_many(&b_scalars, &mut phase("b_g1"));
    let b_g2 = g2_table.mul_many(&b_scalars, &mut phase("b_g2"));

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
