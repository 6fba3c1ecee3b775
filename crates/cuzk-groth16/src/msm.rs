//! CPU multi-scalar multiplication Σ sᵢ·Pᵢ for G1 and G2.
//!
//! Scalars are first split three ways: zero (skipped), one and other.
//! Filecoin witnesses are mostly bits, so the split removes most of the work.
//! The bases of the ones are summed with blst's batch-affine addition (one
//! shared inversion per batch instead of a projective addition per point); the
//! others go through blst's multi-threaded Pippenger (signed digits, XYZZ
//! buckets, bucket prefetch), which costs about 1.5× less core time per point than a
//! plain unsigned-digit Pippenger over projective buckets on the same core.
//! Both blst routines take their bases as one contiguous affine slice, so the
//! split gathers copies of the bases it keeps (96 B per G1 point, 192 B per G2).
//! blst runs them on its own pool of one thread per core, not on rayon's; the
//! calling thread waits, and concurrent calls share that pool.

use blst::MultiPoint;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cuzk_synth::DensityTracker;
use ff::Field;
use group::prime::{PrimeCurve, PrimeCurveAffine};
use group::Group;

use rayon::prelude::*;

use crate::error::Error;

/// Scalars classified per parallel task; a multiple of 64 so that chunks align with density words.
const SPLIT_CHUNK: usize = 64 * 64;

/// A projective group the MSM runs in: G1 or G2 of BLS12-381, each backed by
/// blst's own affine type for the batch routines.
pub trait MsmGroup: PrimeCurve<Scalar = Scalar> + sealed::Sealed {}
impl MsmGroup for G1Projective {}
impl MsmGroup for G2Projective {}

mod sealed {
    use super::*;

    /// The blst side of a group: its affine type and the two batch routines.
    pub trait Sealed: PrimeCurve {
        /// blst's affine point, the element type of its batch routines.
        type Raw: Copy + Default + Send + Sync;
        /// The blst form of an affine point.
        fn raw(p: &Self::Affine) -> Self::Raw;
        /// Σ points (batch-affine addition).
        fn sum_all(points: &[Self::Raw]) -> Self;
        /// Σ scalars[i]·points[i], scalars as 32 little-endian bytes each.
        fn pippenger(points: &[Self::Raw], scalars: &[[u8; 32]]) -> Self;
    }

    /// Both groups wrap blst's types the same way; only the names differ.
    macro_rules! blst_group {
        ($proj:ty, $affine:ty, $raw:ty) => {
            impl Sealed for $proj {
                type Raw = $raw;
                fn raw(p: &$affine) -> $raw {
                    *p.as_ref()
                }
                fn sum_all(points: &[$raw]) -> Self {
                    let mut out = Self::identity();
                    if !points.is_empty() {
                        *out.as_mut() = points.add();
                    }
                    out
                }
                fn pippenger(points: &[$raw], scalars: &[[u8; 32]]) -> Self {
                    let mut out = Self::identity();
                    if !points.is_empty() {
                        *out.as_mut() = points.mult(scalars.as_flattened(), SCALAR_BITS);
                    }
                    out
                }
            }
        };
    }
    blst_group!(G1Projective, G1Affine, blst::blst_p1_affine);
    blst_group!(G2Projective, G2Affine, blst::blst_p2_affine);
}

/// Bits of an Fr scalar (r < 2²⁵⁵).
const SCALAR_BITS: usize = 255;

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
    let split = split::<G>(bases, scalars, density);
    G::sum_all(&split.ones) + G::pippenger(&split.other_bases, &split.other_scalars)
}

/// The non-trivial terms of an MSM, with copies of their bases in blst's form.
struct Split<G: MsmGroup> {
    ones: Vec<G::Raw>,
    other_bases: Vec<G::Raw>,
    other_scalars: Vec<[u8; 32]>,
}

/// How many terms of each kind one chunk of scalars holds.
#[derive(Copy, Clone, Default)]
struct Counts {
    ones: usize,
    others: usize,
}

/// Sorts the terms into ones and others, keeping base order, in two parallel
/// passes over the chunks: count, then copy each chunk's terms straight into
/// its own share of the outputs (a dense H query copies 2²¹ bases and more,
/// too many to concatenate on one thread).
fn split<G: MsmGroup>(bases: &[G::Affine], scalars: &[Scalar], density: Option<&DensityTracker>) -> Split<G> {
    let starts = chunk_base_starts(scalars.len(), density);
    let chunks = || scalars.par_chunks(SPLIT_CHUNK).zip(starts.par_iter()).enumerate();
    let counts: Vec<Counts> = chunks()
        .map(|(c, (part, &start))| {
            let mut n = Counts::default();
            for_each_term::<G>(bases, part, c, start, density, |_, one| {
                if one {
                    n.ones += 1;
                } else {
                    n.others += 1;
                }
            });
            n
        })
        .collect();
    let others = counts.iter().map(|n| n.others).sum();
    let mut out = Split::<G> {
        ones: filled(counts.iter().map(|n| n.ones).sum()),
        other_bases: filled(others),
        other_scalars: filled(others),
    };
    let mut shares = Vec::with_capacity(counts.len());
    let (mut ones, mut other_bases, mut other_scalars) =
        (&mut out.ones[..], &mut out.other_bases[..], &mut out.other_scalars[..]);
    for n in &counts {
        let (o, rest) = std::mem::take(&mut ones).split_at_mut(n.ones);
        ones = rest;
        let (b, rest) = std::mem::take(&mut other_bases).split_at_mut(n.others);
        other_bases = rest;
        let (s, rest) = std::mem::take(&mut other_scalars).split_at_mut(n.others);
        other_scalars = rest;
        shares.push((o, b, s));
    }
    chunks().zip(shares).for_each(|((c, (part, &start)), (ones, other_bases, other_scalars))| {
        let (mut i, mut j) = (0, 0);
        for_each_term::<G>(bases, part, c, start, density, |(p, s), one| {
            if one {
                ones[i] = G::raw(p);
                i += 1;
            } else {
                other_bases[j] = G::raw(p);
                other_scalars[j] = s.to_bytes_le();
                j += 1;
            }
        });
    });
    out
}

/// n default values, written in parallel (the split overwrites them all).
fn filled<T: Default + Copy + Send + Sync>(n: usize) -> Vec<T> {
    (0..n).into_par_iter().map(|_| T::default()).collect()
}

/// The index of the first base of each chunk: with a density, only the
/// variables whose bit is set own a base.
fn chunk_base_starts(len: usize, density: Option<&DensityTracker>) -> Vec<usize> {
    match density {
        None => (0..len).step_by(SPLIT_CHUNK).collect(),
        Some(d) => d
            .words()
            .chunks(SPLIT_CHUNK / 64)
            .scan(0usize, |acc, words| {
                let start = *acc;
                *acc += words.iter().map(|w| w.count_ones() as usize).sum::<usize>();
                Some(start)
            })
            .collect(),
    }
}

/// Calls `f((base, scalar), is_one)` for each term of chunk `c` that contributes:
/// zero scalars and identity bases (which add nothing) are skipped.
fn for_each_term<G: MsmGroup>(
    bases: &[G::Affine],
    part: &[Scalar],
    c: usize,
    mut base: usize,
    density: Option<&DensityTracker>,
    mut f: impl FnMut((&G::Affine, &Scalar), bool),
) {
    for (k, s) in part.iter().enumerate() {
        if density.is_some_and(|d| !d.get(c * SPLIT_CHUNK + k)) {
            continue;
        }
        let p = &bases[base];
        base += 1;
        if !bool::from(s.is_zero() | p.is_identity()) {
            f((p, s), *s == Scalar::ONE);
        }
    }
}

/// The canonical little-endian limbs of `s`.
pub(crate) fn limbs(s: &Scalar) -> [u64; 4] {
    let bytes = s.to_bytes_le();
    std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes")))
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
        // Opposite bases make the batch additions of the ones meet P + (−P);
        // 1000 terms take blst's multi-threaded paths.
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut b = bases::<G1Projective>(&mut rng, 1000);
        for i in (0..1000).step_by(7) {
            b[i + 1] = -b[i];
        }
        for s in [Scalar::ZERO, Scalar::ONE, -Scalar::ONE] {
            let s = vec![s; b.len()];
            assert_eq!(msm::<G1Projective>(&b, &s).unwrap(), naive::<G1Projective>(&b, &s));
        }
    }

    #[test]
    fn chunks_of_only_ones_only_zeros_or_only_others_match_naive() {
        // Three split chunks with a single kind each, then a mixed tail, so that
        // some chunks own no share of one output or another.
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let n = 3 * SPLIT_CHUNK + 77;
        let b = bases::<G1Projective>(&mut rng, n);
        let s: Vec<Scalar> = (0..n)
            .map(|i| match i / SPLIT_CHUNK {
                0 => Scalar::ONE,
                1 => Scalar::ZERO,
                2 if i % 97 == 0 => Scalar::random(&mut rng),
                2 => Scalar::ZERO,
                _ => scalar(&mut rng),
            })
            .collect();
        assert_eq!(msm::<G1Projective>(&b, &s).unwrap(), naive::<G1Projective>(&b, &s));
        let mut density = DensityTracker::new();
        let mut used = Vec::new();
        let mut dense = Vec::new();
        for (i, sc) in s.iter().enumerate() {
            density.add_element();
            if i % 5 != 0 {
                density.inc(i);
                used.push(b[i]);
                dense.push(*sc);
            }
        }
        assert_eq!(
            msm_with_density::<G1Projective>(&used, &s, &density).unwrap(),
            naive::<G1Projective>(&used, &dense)
        );
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
