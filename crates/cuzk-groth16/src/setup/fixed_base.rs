//! Fixed-base scalar multiplication for the setup, which multiplies one generator
//! by millions of scalars.
//!
//! Precompute, for every c-bit window w and digit d, the point d·2ʷᶜ·G. Then
//! s·G = Σ_w table[w][digit_w(s)]: about 255/c mixed additions and no doublings,
//! against ~255 doublings + additions for a plain double-and-add.
//!
//! [`FixedBaseMul`] is what the setup asks of a backend; [`CpuFixedBase`]
//! answers it with these tables on rayon's pool, and cuzk-gpu's
//! `GpuFixedBase` on a device.

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::Field;
use group::prime::PrimeCurveAffine;
use rayon::prelude::*;

use crate::error::Error;
use crate::msm::{digit, limbs, MsmGroup};

/// Many scalars times one generator: all the points of a setup are such
/// products, and they are nearly all of its time (~450 M in G1 and ~60 M in
/// G2 for a Filecoin PoRep partition), so a setup takes them from whatever
/// implements this. Results are affine, in the order of the scalars, the
/// identity for a zero scalar.
pub trait FixedBaseMul {
    /// What a failed multiplication reports; the setup's own errors convert into it.
    type Error: From<Error>;

    /// sᵢ·g for every scalar, reporting `(done, total)` as it goes.
    fn g1(
        &self,
        g: G1Projective,
        scalars: &[Scalar],
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Vec<G1Affine>, Self::Error>;

    /// sᵢ·g in G2.
    fn g2(
        &self,
        g: G2Projective,
        scalars: &[Scalar],
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Vec<G2Affine>, Self::Error>;
}

/// [`FixedBaseMul`] on the CPU: a window table sized for each call, then
/// the multiplications on rayon's pool.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuFixedBase;

impl FixedBaseMul for CpuFixedBase {
    type Error = Error;

    fn g1(&self, g: G1Projective, scalars: &[Scalar], progress: &mut dyn FnMut(u64, u64)) -> Result<Vec<G1Affine>, Error> {
        Ok(FixedBase::new(g, scalars.len()).mul_many(scalars, progress))
    }

    fn g2(&self, g: G2Projective, scalars: &[Scalar], progress: &mut dyn FnMut(u64, u64)) -> Result<Vec<G2Affine>, Error> {
        Ok(FixedBase::new(g, scalars.len()).mul_many(scalars, progress))
    }
}

/// Widest window: 22 rows of 4096 points stay cache-friendly (about 8 MiB in G1).
const MAX_WINDOW: usize = 12;
/// Scalars multiplied per progress report.
const PROGRESS_CHUNK: usize = 1 << 16;

/// The window table of one generator.
pub(crate) struct FixedBase<G: MsmGroup> {
    c: usize,
    windows: usize,
    table: Vec<G::Affine>,
}

impl<G: MsmGroup> FixedBase<G> {
    /// A table for `g` sized for about `count` multiplications: the window minimises
    /// table building (2ᶜ additions per window) plus use (one addition per window and scalar).
    pub(crate) fn new(g: G, count: usize) -> Self {
        let cost = |c: usize| (255usize.div_ceil(c) as u128) * ((1u128 << c) + count as u128);
        let c = (1..=MAX_WINDOW).min_by_key(|&c| cost(c)).expect("non-empty range");
        let windows = 255usize.div_ceil(c);
        // Each window's row is normalized straight into its place in the
        // table: collecting rows and joining them would hold the table twice.
        let mut table = vec![G::Affine::identity(); windows << c];
        table.par_chunks_mut(1 << c).enumerate().for_each(|(w, affine)| {
            let base = g * Scalar::from(2u64).pow_vartime([(w * c) as u64]);
            let mut row = vec![G::identity(); 1 << c];
            for d in 1..row.len() {
                row[d] = row[d - 1] + base;
            }
            G::batch_normalize(&row, affine);
        });
        FixedBase { c, windows, table }
    }

    /// s·G.
    pub(crate) fn mul(&self, s: &Scalar) -> G {
        let l = limbs(s);
        let mut acc = G::identity();
        for w in 0..self.windows {
            let d = digit(&l, w * self.c, self.c);
            if d != 0 {
                acc += &self.table[(w << self.c) + d];
            }
        }
        acc
    }

    /// sᵢ·G for every scalar, in affine form, reporting `(done, total)` between chunks.
    pub(crate) fn mul_many(&self, scalars: &[Scalar], progress: &mut dyn FnMut(u64, u64)) -> Vec<G::Affine> {
        let mut out = vec![G::Affine::identity(); scalars.len()];
        for (i, (dst, src)) in out.chunks_mut(PROGRESS_CHUNK).zip(scalars.chunks(PROGRESS_CHUNK)).enumerate() {
            dst.par_chunks_mut(1024).zip(src.par_chunks(1024)).for_each(|(dst, src)| {
                let proj: Vec<G> = src.iter().map(|s| self.mul(s)).collect();
                G::batch_normalize(&proj, dst);
            });
            progress((i * PROGRESS_CHUNK + dst.len()) as u64, scalars.len() as u64);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::{G1Projective, G2Projective};

    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn check<G: MsmGroup>(count: usize) {
        let mut rng = ChaCha8Rng::seed_from_u64(count as u64);
        let g = G::random(&mut rng);
        let table = FixedBase::new(g, count);
        let mut scalars: Vec<Scalar> = (0..count).map(|_| Scalar::random(&mut rng)).collect();
        scalars.extend([Scalar::ZERO, Scalar::ONE, -Scalar::ONE]);
        let got = table.mul_many(&scalars, &mut |_, _| {});
        for (s, p) in scalars.iter().zip(&got) {
            assert_eq!(*p, (g * s).to_affine());
        }
    }

    #[test]
    fn matches_double_and_add() {
        for count in [1, 10, 300] {
            check::<G1Projective>(count);
        }
        check::<G2Projective>(40);
    }
}
