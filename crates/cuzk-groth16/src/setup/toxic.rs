//! The secrets of a setup ([`ToxicWaste`]), apart from the steps that use
//! them, so that the scalars' module and the setup's entry points both read
//! them without importing each other.

use blstrs::{G1Projective, G2Projective, Scalar};
use group::Group;
use rand_core::RngCore;

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
