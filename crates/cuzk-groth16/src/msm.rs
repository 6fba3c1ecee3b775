//! CPU multi-scalar multiplication Σ sᵢ·Pᵢ for G1 and G2.
//!
//! Scalars are first split three ways: zero (skipped), one (the base is added
//! directly, no buckets) and other. Filecoin witnesses are mostly bits, so the
//! split removes most of the work; the rest goes through Pippenger's bucket
//! method: for each c-bit window, every base is added (mixed addition, bucket +=
//! affine) into the bucket of its digit, and Σ d·B_d is formed by a running sum.

use blstrs::Scalar;
use cuzk_synth::DensityTracker;
use ff::Field;
use group::prime::PrimeCurve;

use rayon::prelude::*;

use crate::error::Error;

/// Bits of an Fr scalar (r < 2²⁵⁵).
const SCALAR_BITS: usize = 255;
/// Scalars classified per parallel task; a multiple of 64 so that chunks align with density words.
const SPLIT_CHUNK: usize = 64 * 64;

/// A projective group the MSM runs in (G1 or G2 of BLS12-381).
pub trait MsmGroup: PrimeCurve<Scalar = Scalar> {}
impl<G: PrimeCurve<Scalar = Scalar>> MsmGroup for G {}

/// A scalar that is neither 0 nor 1: the index of its base and its canonical little-endian limbs.
type Term = (usize, [u64; 4]);

/// Σ scalars[i]·bases[i]. The slices must have equal length.
pub fn msm<G: MsmGroup>(bases: &[G::Affine], scalars: &[Scalar]) -> Result<G, Error> {
    if bases.len() != scalars.len() {
        return Err(Error::Mismatch { what: "MSM bases", have: bases.len(), need: scalars.len() });
    }
    Ok(msm_split(bases, scalars, None))
}

/// Σ scalars[i]·base(i) over the variables whose density bit is set, where the
/// k-th set bit owns `bases[k]`: parameter files store A and B bases only for
/// the variables a query uses.
pub fn msm_with_density<G: MsmGroup>(
    bases: &[G::Affine],
    scalars: &[Scalar],
    density: &DensityTracker,
) -> Result<G, Error> {
    if density.len() != scalars.len() {
        return Err(Error::Mismatch { what: "density bits", have: density.len(), need: scalars.len() });
    }
    if bases.len() != density.count_ones() {
        return Err(Error::Mismatch { what: "MSM bases", have: bases.len(), need: density.count_ones() });
    }
    Ok(msm_split(bases, scalars, Some(density)))
}

fn msm_split<G: MsmGroup>(bases: &[G::Affine], scalars: &[Scalar], density: Option<&DensityTracker>) -> G {
    let (ones, others) = split::<G>(bases, scalars, density);
    ones + pippenger::<G>(bases, &others)
}

/// Sums the bases of scalars equal to one and collects the other non-zero scalars.
fn split<G: MsmGroup>(bases: &[G::Affine], scalars: &[Scalar], density: Option<&DensityTracker>) -> (G, Vec<Term>) {
    let chunk_base_starts: Vec<usize> = match density {
        None => (0..scalars.len()).step_by(SPLIT_CHUNK).collect(),
        Some(d) => d
            .words()
            .chunks(SPLIT_CHUNK / 64)
            .scan(0usize, |acc, words| {
                let start = *acc;
                *acc += words.iter().map(|w| w.count_ones() as usize).sum::<usize>();
                Some(start)
            })
            .collect(),
    };
    let parts: Vec<(G, Vec<Term>)> = scalars
        .par_chunks(SPLIT_CHUNK)
        .zip(chunk_base_starts)
        .enumerate()
        .map(|(c, (part, mut base))| {
            let mut ones = G::identity();
            let mut others = Vec::new();
            for (k, s) in part.iter().enumerate() {
                if density.is_some_and(|d| !d.get(c * SPLIT_CHUNK + k)) {
                    continue;
                }
                if *s == Scalar::ONE {
                    ones += &bases[base];
                } else if !bool::from(s.is_zero()) {
                    others.push((base, limbs(s)));
                }
                base += 1;
            }
            (ones, others)
        })
        .collect();
    let mut ones = G::identity();
    let mut others = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
    for (o, t) in parts {
        ones += o;
        others.extend(t);
    }
    (ones, others)
}

pub(crate) fn limbs(s: &Scalar) -> [u64; 4] {
    let bytes = s.to_bytes_le();
    std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes")))
}

/// Window width for n terms: ~ln n balances n additions per window against 2ᶜ bucket additions.
fn window_bits(n: usize) -> usize {
    ((n as f64).ln().ceil() as usize).clamp(2, 20)
}

/// The c-bit digit of `limbs` starting at bit `shift`.
pub(crate) fn digit(limbs: &[u64; 4], shift: usize, c: usize) -> usize {
    let (word, bit) = (shift / 64, shift % 64);
    let mut v = limbs[word] >> bit;
    if bit + c > 64 && word + 1 < 4 {
        v |= limbs[word + 1] << (64 - bit);
    }
    (v & ((1u64 << c) - 1)) as usize
}

/// Pippenger's bucket method over the given terms, windows and base ranges in parallel.
fn pippenger<G: MsmGroup>(bases: &[G::Affine], terms: &[Term]) -> G {
    if terms.is_empty() {
        return G::identity();
    }
    let c = window_bits(terms.len());
    let windows = SCALAR_BITS.div_ceil(c);
    // Enough tasks to occupy every thread, but each still large next to its 2ᶜ buckets.
    let tasks_per_window = (4 * rayon::current_num_threads()).div_ceil(windows);
    let chunk = terms.len().div_ceil(tasks_per_window).max(1 << (c + 2));
    let sums: Vec<G> = (0..windows)
        .into_par_iter()
        .map(|w| {
            terms
                .par_chunks(chunk)
                .map(|part| window_sum::<G>(bases, part, w * c, c))
                .reduce(G::identity, |a, b| a + b)
        })
        .collect();
    let mut acc = G::identity();
    for s in sums.iter().rev() {
        for _ in 0..c {
            acc = acc.double();
        }
        acc += s;
    }
    acc
}

/// Σ digit·base for one window: bucket the bases by digit, then Σ_d d·B_d as the sum
/// of the running suffix sums B_top + (B_top + B_top−1) + ….
fn window_sum<G: MsmGroup>(bases: &[G::Affine], terms: &[Term], shift: usize, c: usize) -> G {
    let mut buckets = vec![G::identity(); (1 << c) - 1];
    for (idx, l) in terms {
        let d = digit(l, shift, c);
        if d != 0 {
            buckets[d - 1] += &bases[*idx];
        }
    }
    let mut running = G::identity();
    let mut acc = G::identity();
    for b in buckets.iter().rev() {
        running += b;
        acc += &running;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective};
    use group::prime::PrimeCurveAffine;

    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn naive<G: MsmGroup>(bases: &[G::Affine], scalars: &[Scalar]) -> G {
        bases.iter().zip(scalars).map(|(b, s)| b.to_curve() * s).fold(G::identity(), |a, b| a + b)
    }

    /// Scalars mixing zeros, ones, small and full-width values.
    fn scalar(rng: &mut ChaCha8Rng) -> Scalar {
        match rng.gen_range(0..4) {
            0 => Scalar::ZERO,
            1 => Scalar::ONE,
            2 => Scalar::from(rng.gen::<u64>()),
            _ => Scalar::random(&mut *rng),
        }
    }

    /// Bases with identities and repeats among random points.
    fn bases<G: MsmGroup>(rng: &mut ChaCha8Rng, n: usize) -> Vec<G::Affine> {
        let mut out: Vec<G::Affine> = Vec::with_capacity(n);
        for i in 0..n {
            let p = match rng.gen_range(0..5) {
                0 => G::Affine::identity(),
                1 if i > 0 => out[rng.gen_range(0..i)],
                _ => G::random(&mut *rng).to_affine(),
            };
            out.push(p);
        }
        out
    }

    fn check<G: MsmGroup>(seed: u64, n: usize) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let b = bases::<G>(&mut rng, n);
        let s: Vec<Scalar> = (0..n).map(|_| scalar(&mut rng)).collect();
        assert_eq!(msm::<G>(&b, &s).unwrap(), naive::<G>(&b, &s), "seed {seed}, n {n}");

        let mut density = DensityTracker::new();
        let mut used = Vec::new();
        let mut dense_scalars = Vec::new();
        let mut sparse_scalars = Vec::new();
        for (i, sc) in s.iter().enumerate() {
            density.add_element();
            sparse_scalars.push(*sc);
            if i % 3 != 1 {
                density.inc(i);
                used.push(b[i]);
                dense_scalars.push(*sc);
            }
        }
        assert_eq!(
            msm_with_density::<G>(&used, &sparse_scalars, &density).unwrap(),
            naive::<G>(&used, &dense_scalars),
            "density, seed {seed}, n {n}"
        );
    }

    #[test]
    fn edge_sizes_match_naive() {
        for n in [0, 1, 2, 3, 4, 5, 8, 9, 64, 65, 300, 4097, 4200] {
            check::<G1Projective>(n as u64, n);
        }
        for n in [0, 1, 2, 3, 16, 17, 130] {
            check::<G2Projective>(n as u64, n);
        }
    }

    #[test]
    fn all_ones_all_zeros_and_max_scalars() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let b = bases::<G1Projective>(&mut rng, 100);
        for s in [Scalar::ZERO, Scalar::ONE, -Scalar::ONE] {
            let s = vec![s; 100];
            assert_eq!(msm::<G1Projective>(&b, &s).unwrap(), naive::<G1Projective>(&b, &s));
        }
    }

    #[test]
    fn digits_cover_every_bit_once() {
        let l = [u64::MAX, 0x0123_4567_89ab_cdef, u64::MAX, 0x7fff_ffff_ffff_ffff];
        for c in 2..=20 {
            let mut rebuilt = [0u64; 4];
            for w in 0..SCALAR_BITS.div_ceil(c) {
                let d = digit(&l, w * c, c) as u128;
                for bit in 0..c {
                    let pos = w * c + bit;
                    if pos < 256 && d >> bit & 1 == 1 {
                        rebuilt[pos / 64] |= 1 << (pos % 64);
                    }
                }
            }
            assert_eq!(rebuilt, l, "c = {c}");
        }
    }

    #[test]
    fn mismatched_lengths_are_errors() {
        let b = vec![G1Affine::generator(); 3];
        assert!(matches!(msm::<G1Projective>(&b, &[Scalar::ONE; 2]), Err(Error::Mismatch { have: 3, need: 2, .. })));
        let mut d = DensityTracker::new();
        d.add_element();
        d.add_element();
        d.inc(0);
        let g2 = vec![G2Affine::generator(); 2];
        assert!(matches!(
            msm_with_density::<G2Projective>(&g2, &[Scalar::ONE; 2], &d),
            Err(Error::Mismatch { have: 2, need: 1, .. })
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn random_g1_matches_naive(seed in any::<u64>(), n in 0usize..200) {
            check::<G1Projective>(seed, n);
        }
    }
}
