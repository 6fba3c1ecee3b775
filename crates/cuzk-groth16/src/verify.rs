//! Proof verification.
//!
//! A proof is valid when e(A, B) = e(α, β)·e(acc, γ)·e(C, δ), where acc = ic₀ + Σ xᵢ·icᵢ₊₁
//! folds the public inputs x. Moving everything to one side lets one multi-Miller
//! loop and one final exponentiation check it: e(A, B)·e(acc, −γ)·e(C, −δ) = e(α, β).

use blstrs::{Bls12, G1Affine, G1Projective, G2Prepared, Gt, Scalar};
use group::prime::PrimeCurveAffine;
use group::Curve;
use pairing::{Engine, MillerLoopResult, MultiMillerLoop};
use rand_core::RngCore;
use rayon::prelude::*;

use crate::error::Error;
use crate::msm::msm;
use crate::params::VerifyingKey;
use crate::proof::Proof;

/// A verifying key with its pairing-side precomputation done once.
pub struct PreparedVerifyingKey {
    alpha_g1_beta_g2: Gt,
    neg_gamma_g2: G2Prepared,
    neg_delta_g2: G2Prepared,
    gamma_g2: G2Prepared,
    delta_g2: G2Prepared,
    ic: Vec<G1Affine>,
}

/// Precomputes e(α, β) and the Miller-loop lines of ±γ and ±δ, after
/// [`VerifyingKey::validate`]: a key that came from a file was checked when it
/// was read, but one built in memory was not, and a verifier that accepted a
/// degenerate key would vouch for forged proofs.
pub fn prepare_verifying_key(vk: &VerifyingKey) -> Result<PreparedVerifyingKey, Error> {
    vk.validate()?;
    Ok(PreparedVerifyingKey {
        alpha_g1_beta_g2: Bls12::pairing(&vk.alpha_g1, &vk.beta_g2),
        neg_gamma_g2: (-vk.gamma_g2).into(),
        neg_delta_g2: (-vk.delta_g2).into(),
        gamma_g2: vk.gamma_g2.into(),
        delta_g2: vk.delta_g2.into(),
        ic: vk.ic.clone(),
    })
}

impl PreparedVerifyingKey {
    /// Public inputs a proof must come with (the constant one excluded).
    pub fn num_public_inputs(&self) -> usize {
        self.ic.len().saturating_sub(1)
    }

    fn check_inputs(&self, inputs: &[Scalar]) -> Result<(), Error> {
        if inputs.len() + 1 != self.ic.len() {
            return Err(Error::PublicInputCount { expected: self.num_public_inputs(), got: inputs.len() });
        }
        Ok(())
    }
}

/// Verifies one proof against its public inputs (without the leading one).
pub fn verify_proof(pvk: &PreparedVerifyingKey, proof: &Proof, public_inputs: &[Scalar]) -> Result<bool, Error> {
    pvk.check_inputs(public_inputs)?;
    let acc = (pvk.ic[0] + msm::<G1Projective>(&pvk.ic[1..], public_inputs)?).to_affine();
    let b = G2Prepared::from(proof.b);
    let ml = Bls12::multi_miller_loop(&[(&proof.a, &b), (&acc, &pvk.neg_gamma_g2), (&proof.c, &pvk.neg_delta_g2)]);
    Ok(ml.final_exponentiation() == pvk.alpha_g1_beta_g2)
}

/// Verifies many proofs at once with a random linear combination.
///
/// With random 128-bit zⱼ, all proofs are valid (except with probability
/// ~2⁻¹²⁸) iff Πⱼ e(zⱼ·Aⱼ, −Bⱼ) · e(Σ zⱼ·accⱼ, γ) · e(Σ zⱼ·Cⱼ, δ) = e(α, β)^(−Σ zⱼ),
/// the zⱼ-weighted product of the single-proof equations with B moved to the right.
/// The γ and δ pairings are shared, so n proofs cost n + 2 Miller loops and one
/// final exponentiation instead of 3n and n. An empty batch is valid.
pub fn verify_proofs_batch<R: RngCore + ?Sized>(
    pvk: &PreparedVerifyingKey,
    rng: &mut R,
    proofs: &[Proof],
    public_inputs: &[Vec<Scalar>],
) -> Result<bool, Error> {
    if proofs.len() != public_inputs.len() {
        return Err(Error::BatchLength { proofs: proofs.len(), inputs: public_inputs.len() });
    }
    for inputs in public_inputs {
        pvk.check_inputs(inputs)?;
    }
    if proofs.is_empty() {
        return Ok(true);
    }
    let z: Vec<Scalar> = proofs
        .iter()
        .map(|_| {
            let mut bytes = [0u8; 32];
            rng.fill_bytes(&mut bytes[..16]);
            Scalar::from_bytes_le(&bytes).expect("a 128-bit value is below r")
        })
        .collect();
    let z_sum: Scalar = z.iter().sum();

    // Σⱼ zⱼ·accⱼ = (Σ zⱼ)·ic₀ + Σᵢ (Σⱼ zⱼ·xⱼᵢ)·icᵢ₊₁
    let input_weights: Vec<Scalar> = (0..pvk.num_public_inputs())
        .into_par_iter()
        .map(|i| z.iter().zip(public_inputs).map(|(zj, x)| *zj * x[i]).sum())
        .collect();
    let acc_gamma = (pvk.ic[0] * z_sum + msm::<G1Projective>(&pvk.ic[1..], &input_weights)?).to_affine();
    let cs: Vec<G1Affine> = proofs.iter().map(|p| p.c).collect();
    let acc_delta = msm::<G1Projective>(&cs, &z)?.to_affine();

    let scaled_a: Vec<G1Projective> = proofs.par_iter().zip(&z).map(|(p, zj)| p.a * zj).collect();
    let mut scaled_a_affine = vec![G1Affine::identity(); proofs.len()];
    G1Projective::batch_normalize(&scaled_a, &mut scaled_a_affine);
    let neg_b: Vec<G2Prepared> = proofs.par_iter().map(|p| G2Prepared::from(-p.b)).collect();

    let mut terms: Vec<(&G1Affine, &G2Prepared)> = scaled_a_affine.iter().zip(&neg_b).collect();
    terms.push((&acc_gamma, &pvk.gamma_g2));
    terms.push((&acc_delta, &pvk.delta_g2));
    let lhs = Bls12::multi_miller_loop(&terms).final_exponentiation();
    let rhs = pvk.alpha_g1_beta_g2 * (-z_sum);
    Ok(lhs == rhs)
}
