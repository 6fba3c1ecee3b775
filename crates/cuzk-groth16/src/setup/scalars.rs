//! The scalars of a setup: everything but the fixed-base multiplications
//! that turn them into points, so that those can run elsewhere (a GPU).
//!
//! Both sources, a circuit and a recorded shape, go through the same steps:
//! the powers of τ give h; their inverse NTT is the Lagrange basis Lⱼ(τ) of
//! the domain, from which each variable's uᵢ(τ), vᵢ(τ), wᵢ(τ) follow as
//! column sums of A, B and C; those combine with α, β, γ, δ into ic and l,
//! and the non-zero ones of u and v are a and b. Field arithmetic is exact,
//! so the two sources give the same scalars whenever they describe the same
//! matrices, whatever the order of their terms.

use blstrs::Scalar;
use cuzk_synth::recorded::RecordedShape;
use cuzk_synth::{Circuit, SynthesisError};
use ff::Field;
use rayon::prelude::*;

use super::assembly;
use super::columns::{self, Columns};
use super::toxic::ToxicWaste;
use crate::domain::Domain;
use crate::error::Error;

/// Powers of τ computed per parallel task from one exponentiation.
const POWERS_CHUNK: usize = 1024;

/// What a setup multiplies its generators by: each query's scalars, in the
/// order of its points in the parameter file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetupScalars {
    /// τʲ·Z(τ)/δ for j < n − 1, n the domain size.
    pub h: Vec<Scalar>,
    /// (β·uᵢ(τ) + α·vᵢ(τ) + wᵢ(τ))/γ per public input, the one first: the verifying key's ic.
    pub ic: Vec<Scalar>,
    /// (β·uᵢ(τ) + α·vᵢ(τ) + wᵢ(τ))/δ per private variable.
    pub l: Vec<Scalar>,
    /// uᵢ(τ) of the variables (inputs, then private ones) whose A polynomial is not zero.
    pub a: Vec<Scalar>,
    /// vᵢ(τ) of the variables whose B polynomial is not zero, in G1 and in G2.
    pub b: Vec<Scalar>,
}

impl SetupScalars {
    /// The scalars of `circuit`'s parameters (synthesized without a witness).
    pub fn from_circuit<C: Circuit<Scalar>>(circuit: C, toxic: &ToxicWaste) -> Result<Self, Error> {
        let cs = assembly::synthesize(circuit)?;
        Self::build(cs.num_constraints, toxic, |lagrange| cs.evaluate(lagrange))
    }

    /// The scalars of the parameters of the circuit `shape` was recorded
    /// from: equal to [`SetupScalars::from_circuit`]'s for that circuit. The
    /// shape's rows already end with the `input · 0 = 0` rows the prover
    /// appends, and its columns are inputs then private variables, so the
    /// domain and the variable order are the circuit's. Memory: the
    /// transposes of `columns.rs`, one matrix at a time, besides the basis.
    pub fn from_shape(shape: &RecordedShape<Scalar>, toxic: &ToxicWaste) -> Result<Self, Error> {
        let rows = shape.num_constraints();
        if let Some(m) = [shape.a(), shape.b(), shape.c()].into_iter().find(|m| m.rows() != rows) {
            return Err(Error::Mismatch { what: "matrix rows", have: m.rows(), need: rows });
        }
        Self::build(rows, toxic, |lagrange| columns::evaluate(shape, lagrange))
    }

    /// Total number of G1 multiplications (G2: `b.len()`).
    pub fn g1_count(&self) -> usize {
        self.h.len() + self.ic.len() + self.l.len() + self.a.len() + self.b.len()
    }

    fn build(
        num_constraints: usize,
        toxic: &ToxicWaste,
        evaluate: impl FnOnce(&[Scalar]) -> Columns,
    ) -> Result<Self, Error> {
        let no_identity = || Error::Synthesis(SynthesisError::UnexpectedIdentity);
        let gamma_inv: Scalar = Option::from(toxic.gamma.invert()).ok_or_else(no_identity)?;
        let delta_inv: Scalar = Option::from(toxic.delta.invert()).ok_or_else(no_identity)?;
        let domain = Domain::new(num_constraints)?;
        let z_tau = domain.z_at(toxic.tau);
        if bool::from(z_tau.is_zero()) {
            return Err(no_identity());
        }

        let n = domain.size();
        let mut powers = vec![Scalar::ZERO; n];
        powers.par_chunks_mut(POWERS_CHUNK).enumerate().for_each(|(i, part)| {
            let mut t = toxic.tau.pow_vartime([(i * POWERS_CHUNK) as u64]);
            for p in part {
                *p = t;
                t *= toxic.tau;
            }
        });
        let h_coeff = z_tau * delta_inv;
        let h: Vec<Scalar> = powers[..n - 1].par_iter().map(|p| *p * h_coeff).collect();
        // The inverse transform of the powers of τ is the Lagrange basis at τ.
        domain.intt(&mut powers);
        let columns = evaluate(&powers);
        drop(powers);

        let [u, v, w] = &columns.at_tau;
        let (alpha, beta) = (toxic.alpha, toxic.beta);
        let combine = |range: std::ops::Range<usize>, inv: Scalar| -> Vec<Scalar> {
            range.into_par_iter().map(|i| (beta * u[i] + alpha * v[i] + w[i]) * inv).collect()
        };
        let ic = combine(0..columns.num_inputs, gamma_inv);
        let l = combine(columns.num_inputs..u.len(), delta_inv);
        if l.par_iter().any(|s| bool::from(s.is_zero())) {
            return Err(SynthesisError::UnconstrainedVariable.into());
        }
        let nonzero = |column: &[Scalar]| -> Vec<Scalar> {
            column.par_iter().copied().filter(|s| !bool::from(s.is_zero())).collect()
        };
        let (a, b) = (nonzero(u), nonzero(v));
        Ok(SetupScalars { h, ic, l, a, b })
    }
}
