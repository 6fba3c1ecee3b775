//! The CPU prover backend.
//!
//! For a satisfied R1CS with QAP polynomials uᵢ, vᵢ, wᵢ and witness aᵢ (inputs
//! first, a₀ = 1), the proof is
//!   A = α + Σ aᵢ·uᵢ(τ) + r·δ                       (G1)
//!   B = β + Σ aᵢ·vᵢ(τ) + s·δ                       (G2, and a G1 copy for C)
//!   C = Σ hⱼ·τʲ·Z(τ)/δ + Σ_{i private} aᵢ·Lᵢ + s·A + r·B − r·s·δ
//! where h = (a·b − c)/Z is the quotient polynomial. Every term is a multi-scalar
//! multiplication with a query of the parameters except the last few, which form
//! the epilogue. r and s are passed in so that backends can be compared byte for byte.

use std::time::Instant;

use blstrs::{G1Affine, G1Projective, G2Projective, Scalar};
use cuzk_synth::{Circuit, ProvingAssignment};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::Curve;
use rand_core::RngCore;
use rayon::prelude::*;

use crate::domain::Domain;
use crate::error::Error;
use crate::msm::{msm, msm_with_density};
use crate::params::Parameters;
use crate::proof::Proof;
use crate::sizes::{self, Needs, QueryLengths};

/// Wall-clock milliseconds per phase of one `prove_timed` call (each phase runs
/// for the whole batch at once). Two chains run at the same time, NTT then
/// MSM H beside MSM L then MSM A, B, so the phases add up to more than the
/// call's wall time.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct ProveTimings {
    /// The quotient: a and b to the coset and back as a·b, c interpolated (`quotient`).
    pub ntt_ms: f64,
    /// MSM of the quotient coefficients with the H query.
    pub msm_h_ms: f64,
    /// MSM of the private witness with the L query.
    pub msm_l_ms: f64,
    /// MSMs of the A query and of the B query in G1 and G2.
    pub msm_ab_ms: f64,
    /// Combining the sums with α, β, δ, r and s into proofs.
    pub epilogue_ms: f64,
}

/// A uniformly random non-zero scalar (the blinding factors r and s must not be 0).
pub fn random_nonzero_scalar<R: RngCore + ?Sized>(rng: &mut R) -> Scalar {
    loop {
        let s = Scalar::random(&mut *rng);
        if !bool::from(s.is_zero()) {
            return s;
        }
    }
}

/// Proves each assignment with its (r, s) pair.
pub fn prove(
    params: &Parameters,
    assignments: &[ProvingAssignment<Scalar>],
    randomness: &[(Scalar, Scalar)],
) -> Result<Vec<Proof>, Error> {
    prove_timed(params, assignments, randomness).map(|(proofs, _)| proofs)
}

/// Synthesizes the circuits in parallel and proves them with fresh random non-zero r, s.
pub fn create_random_proofs<C, R>(circuits: Vec<C>, params: &Parameters, rng: &mut R) -> Result<Vec<Proof>, Error>
where
    C: Circuit<Scalar> + Send,
    R: RngCore + ?Sized,
{
    let assignments = cuzk_synth::synthesize_batch(circuits)?;
    let randomness: Vec<_> =
        assignments.iter().map(|_| (random_nonzero_scalar(rng), random_nonzero_scalar(rng))).collect();
    prove(params, &assignments, &randomness)
}

/// [`prove`], also reporting where the time went.
pub fn prove_timed(
    params: &Parameters,
    assignments: &[ProvingAssignment<Scalar>],
    randomness: &[(Scalar, Scalar)],
) -> Result<(Vec<Proof>, ProveTimings), Error> {
    if assignments.len() != randomness.len() {
        return Err(Error::RandomnessCount { assignments: assignments.len(), randomness: randomness.len() });
    }
    params.vk.refuse_degenerate()?;
    let domains = assignments.iter().map(|pa| check_sizes(params, pa)).collect::<Result<Vec<_>, _>>()?;
    let mut timings = ProveTimings::default();

    // The witness MSMs (L, A, B) do not depend on h: they run beside the
    // NTT → H chain, so that each side fills the cores the other leaves idle
    // (the NTT's narrow passes, the tail of blst's tiles and its
    // single-threaded window sum). rayon::join, never a thread that blocks
    // on rayon work: a rayon worker that waits keeps running rayon jobs, so
    // provers called from inside rayon cannot starve the pool.
    let (h_sums, witness) = rayon::join(
        || {
            let hs: Vec<Vec<Scalar>> = timed(&mut timings.ntt_ms, || {
                assignments.par_iter().zip(&domains).map(|(pa, d)| quotient(d, pa)).collect()
            });
            let h_sums: Result<Vec<G1Projective>, Error> =
                timed(&mut timings.msm_h_ms, || hs.par_iter().map(|h| msm(&params.h, h)).collect());
            h_sums
        },
        || witness_sums(params, assignments),
    );
    let h_sums = h_sums?;
    let WitnessSums { l: l_sums, ab: ab_sums, msm_l_ms, msm_ab_ms } = witness?;
    timings.msm_l_ms = msm_l_ms;
    timings.msm_ab_ms = msm_ab_ms;
    let proofs = timed(&mut timings.epilogue_ms, || {
        let parts = h_sums.iter().zip(&l_sums).zip(&ab_sums).zip(randomness);
        parts.map(|(((h, l), ab), rs)| epilogue(params, *h + l, ab, *rs)).collect()
    });
    Ok((proofs, timings))
}

/// The L, A and B sums of every assignment, with the wall time of each phase.
struct WitnessSums {
    l: Vec<G1Projective>,
    ab: Vec<QuerySums>,
    msm_l_ms: f64,
    msm_ab_ms: f64,
}

fn witness_sums(params: &Parameters, assignments: &[ProvingAssignment<Scalar>]) -> Result<WitnessSums, Error> {
    let (mut msm_l_ms, mut msm_ab_ms) = (0.0, 0.0);
    let (l, ab) = rayon::join(
        || {
            timed(&mut msm_l_ms, || {
                assignments.par_iter().map(|pa| msm(&params.l, &pa.aux_assignment)).collect::<Result<Vec<_>, _>>()
            })
        },
        || {
            timed(&mut msm_ab_ms, || {
                assignments.par_iter().map(|pa| query_sums(params, pa)).collect::<Result<Vec<_>, _>>()
            })
        },
    );
    Ok(WitnessSums { l: l?, ab: ab?, msm_l_ms, msm_ab_ms })
}

fn timed<T>(slot: &mut f64, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    *slot = start.elapsed().as_secs_f64() * 1e3;
    out
}

/// The assignment's domain, once the parameters hold their bases and every
/// query has the length the assignment needs ([`sizes::check`]).
fn check_sizes(params: &Parameters, pa: &ProvingAssignment<Scalar>) -> Result<Domain, Error> {
    if !params.has_bases() {
        return Err(Error::BasesReleased);
    }
    let lengths = QueryLengths {
        ic: params.vk.ic.len(),
        h: params.h.len(),
        l: params.l.len(),
        a: params.a.len(),
        b_g1: params.b_g1.len(),
        b_g2: params.b_g2.len(),
    };
    Domain::new(sizes::check(&lengths, &Needs::of(pa))?)
}

/// The coefficients h₀..h_{n−2} of h = (a·b − c)/Z (`Domain::quotient`).
/// deg(a·b − c) ≤ 2n − 2, so deg h ≤ n − 2 and the top coefficient is zero:
/// the H query has n − 1 bases.
fn quotient(domain: &Domain, pa: &ProvingAssignment<Scalar>) -> Vec<Scalar> {
    let mut h = domain.quotient(&pa.a, &pa.b, &pa.c);
    h.truncate(domain.size() - 1);
    h
}

/// Σ aᵢ·uᵢ(τ) (G1) and Σ aᵢ·vᵢ(τ) (G1 and G2) over the variables each query holds.
struct QuerySums {
    a: G1Projective,
    b_g1: G1Projective,
    b_g2: G2Projective,
}

/// Inputs have full density in A (each has its own `input · 0 = 0` constraint),
/// so the first `num_inputs` A bases belong to the inputs one to one; the other
/// queries follow the density bitsets.
fn query_sums(params: &Parameters, pa: &ProvingAssignment<Scalar>) -> Result<QuerySums, Error> {
    let (a_in, a_aux) = params.a.split_at(pa.num_inputs());
    let b_in_len = pa.b_input_density.count_ones();
    let (b1_in, b1_aux) = params.b_g1.split_at(b_in_len);
    let (b2_in, b2_aux) = params.b_g2.split_at(b_in_len);
    let inputs = &pa.input_assignment;
    let aux = &pa.aux_assignment;
    // Three independent MSMs at once: blst cuts each into about one tile
    // per core, so several in flight keep its pool busy through each one's
    // last tiles.
    let (a, (b_g1, b_g2)) = rayon::join(
        || -> Result<G1Projective, Error> {
            Ok(msm::<G1Projective>(a_in, inputs)? + msm_with_density::<G1Projective>(a_aux, aux, &pa.a_aux_density)?)
        },
        || {
            rayon::join(
                || -> Result<G1Projective, Error> {
                    Ok(msm_with_density::<G1Projective>(b1_in, inputs, &pa.b_input_density)?
                        + msm_with_density::<G1Projective>(b1_aux, aux, &pa.b_aux_density)?)
                },
                || -> Result<G2Projective, Error> {
                    Ok(msm_with_density::<G2Projective>(b2_in, inputs, &pa.b_input_density)?
                        + msm_with_density::<G2Projective>(b2_aux, aux, &pa.b_aux_density)?)
                },
            )
        },
    );
    Ok(QuerySums { a: a?, b_g1: b_g1?, b_g2: b_g2? })
}

fn epilogue(params: &Parameters, h_plus_l: G1Projective, sums: &QuerySums, (r, s): (Scalar, Scalar)) -> Proof {
    let vk = &params.vk;
    let a = sums.a + vk.alpha_g1 + vk.delta_g1 * r;
    let b_g1 = sums.b_g1 + vk.beta_g1 + vk.delta_g1 * s;
    let b_g2 = sums.b_g2 + vk.beta_g2 + vk.delta_g2 * s;
    let c = h_plus_l + a * s + b_g1 * r - vk.delta_g1 * (r * s);
    let mut g1 = [G1Affine::identity(); 2];
    G1Projective::batch_normalize(&[a, c], &mut g1);
    Proof { a: g1[0], b: b_g2.to_affine(), c: g1[1] }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_synth::DensityTracker;

    fn assignment_with_sizes(constraints: usize, inputs: usize, aux: usize) -> ProvingAssignment<Scalar> {
        let mut pa = ProvingAssignment::new();
        pa.a = vec![Scalar::ZERO; constraints];
        pa.b = pa.a.clone();
        pa.c = pa.a.clone();
        pa.input_assignment = vec![Scalar::ONE; inputs];
        pa.aux_assignment = vec![Scalar::ONE; aux];
        let tracker = |n| {
            let mut d = DensityTracker::new();
            (0..n).for_each(|_| d.add_element());
            d
        };
        pa.a_aux_density = tracker(aux);
        pa.b_aux_density = tracker(aux);
        pa.b_input_density = tracker(inputs);
        pa
    }

    #[test]
    fn parameters_without_bases_keep_counts_and_refuse_to_prove_or_write() {
        let params = params_with_sizes(2, 7, 5, 4, 3);
        let slim = params.without_bases();
        assert!(params.has_bases() && !slim.has_bases());
        assert_eq!(slim.counts(), params.counts());
        assert_eq!(slim.counts(), crate::BaseCounts { h: 7, l: 5, a: 4, b: 3 });
        assert_eq!(slim.vk, params.vk);
        assert!(matches!(slim.write(Vec::new()), Err(Error::BasesReleased)));
        let pa = ProvingAssignment::<Scalar>::default();
        assert!(matches!(check_sizes(&slim, &pa), Err(Error::BasesReleased)));
    }

    fn params_with_sizes(ic: usize, h: usize, l: usize, a: usize, b: usize) -> Parameters {
        use crate::params::VerifyingKey;
        use blstrs::G2Affine;
        use std::sync::Arc;
        let g1 = G1Affine::generator();
        let g2 = G2Affine::generator();
        let vk = VerifyingKey {
            alpha_g1: g1,
            beta_g1: g1,
            beta_g2: g2,
            gamma_g2: g2,
            delta_g1: g1,
            delta_g2: g2,
            ic: vec![g1; ic],
        };
        Parameters::new(
            vk,
            Arc::new(vec![g1; h]),
            Arc::new(vec![g1; l]),
            Arc::new(vec![g1; a]),
            Arc::new(vec![g1; b]),
            Arc::new(vec![g2; b]),
        )
    }

    #[test]
    fn size_mismatches_name_both_sizes() {
        let pa = assignment_with_sizes(5, 2, 3);
        let one = [(Scalar::ONE, Scalar::ONE)];
        let ok = params_with_sizes(2, 7, 3, 2, 0);
        assert_eq!(check_sizes(&ok, &pa).unwrap().size(), 8);
        let cases = [
            (params_with_sizes(3, 7, 3, 2, 0), "IC", 3, 2),
            (params_with_sizes(2, 8, 3, 2, 0), "h bases", 8, 7),
            (params_with_sizes(2, 7, 4, 2, 0), "l bases", 4, 3),
            (params_with_sizes(2, 7, 3, 1, 0), "a bases", 1, 2),
            (params_with_sizes(2, 7, 3, 2, 1), "b_g1", 1, 0),
        ];
        for (params, what_prefix, have_want, need_want) in cases {
            match prove(&params, std::slice::from_ref(&pa), &one) {
                Err(Error::Mismatch { what, have, need }) => {
                    assert!(what.starts_with(what_prefix), "{what}");
                    assert_eq!((have, need), (have_want, need_want));
                }
                other => panic!("expected a mismatch for {what_prefix}, got {other:?}"),
            }
        }
        assert!(matches!(prove(&ok, &[pa], &[]), Err(Error::RandomnessCount { assignments: 1, randomness: 0 })));
    }
}
