//! The evaluation domain H = {ωⁱ} of size n = 2ᵏ that the QAP lives on.
//!
//! Constraint j is "a(ωʲ)·b(ωʲ) = c(ωʲ)", so a·b − c vanishes on H and is a
//! multiple of Z(x) = xⁿ − 1. The prover finds the quotient h = (a·b − c)/Z by
//! evaluating on the coset g·H (g the multiplicative generator of Fr, as
//! bellperson does), where Z is the non-zero constant gⁿ − 1.

use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

use crate::error::Error;
use crate::ntt;

/// A radix-2 domain with its roots and twiddle tables.
#[derive(Clone, Debug)]
pub struct Domain {
    log2: u32,
    omega: Scalar,
    size_inv: Scalar,
    /// ωⁱ for i < n/2.
    table: Vec<Scalar>,
    /// ω⁻ⁱ for i < n/2.
    inv_table: Vec<Scalar>,
}

impl Domain {
    /// The smallest power-of-two domain with at least `min_size` points.
    pub fn new(min_size: usize) -> Result<Domain, Error> {
        let log2 = Self::size_for(min_size)?.trailing_zeros();
        let mut omega = Scalar::ROOT_OF_UNITY;
        for _ in log2..Scalar::S {
            omega = omega.square();
        }
        let size = 1usize << log2;
        let size_inv = Scalar::from(size as u64).invert().expect("domain size is below the field characteristic");
        let table = ntt::twiddles(omega, size);
        let inv_table = ntt::inverse_twiddles(&table);
        Ok(Domain { log2, omega, size_inv, table, inv_table })
    }

    /// The size of the domain [`Domain::new`] would build for `min_size`
    /// points, without building its twiddle table (which costs a field
    /// multiplication per point: too much for a size check).
    pub fn size_for(min_size: usize) -> Result<usize, Error> {
        if min_size == 0 {
            return Err(Error::EmptyDomain);
        }
        let log2 = min_size.next_power_of_two().trailing_zeros();
        if log2 > Scalar::S || min_size as u128 > 1u128 << Scalar::S {
            return Err(Error::DomainTooLarge { needed: min_size as u64, max_log2: Scalar::S });
        }
        Ok(1 << log2)
    }

    /// Number of points n.
    pub fn size(&self) -> usize {
        1 << self.log2
    }

    /// log₂ n.
    pub fn log2(&self) -> u32 {
        self.log2
    }

    /// The primitive n-th root of unity ω.
    pub fn omega(&self) -> Scalar {
        self.omega
    }

    /// Coefficients → evaluations on H. `a.len()` must be n.
    pub fn ntt(&self, a: &mut [Scalar]) {
        assert_eq!(a.len(), self.size(), "vector length must equal the domain size");
        ntt::dif(a, &self.table);
        ntt::bit_reverse(a);
    }

    /// Evaluations on H → coefficients.
    pub fn intt(&self, a: &mut [Scalar]) {
        assert_eq!(a.len(), self.size(), "vector length must equal the domain size");
        ntt::dif(a, &self.inv_table);
        ntt::bit_reverse(a);
        ntt::scale(a, self.size_inv);
    }

    /// Coefficients → evaluations on g·H.
    pub fn coset_ntt(&self, a: &mut [Scalar]) {
        ntt::distribute_powers(a, Scalar::MULTIPLICATIVE_GENERATOR, Scalar::ONE);
        self.ntt(a);
    }

    /// Evaluations on g·H → coefficients.
    pub fn icoset_ntt(&self, a: &mut [Scalar]) {
        self.intt(a);
        ntt::distribute_powers(a, self.generator_inv(), Scalar::ONE);
    }

    /// Evaluations of p on H (natural order, zero-padded when shorter than n)
    /// → evaluations of p on g·H in bit-reversed order: the first half of the
    /// prover's quotient, with no permutation pass (a gather into bit-reversed
    /// order replaces the copy, then DIT, a fused 1/n·gⁱ pass, DIF).
    pub fn coset_evals_bit_reversed(&self, evals: &[Scalar]) -> Vec<Scalar> {
        assert!(evals.len() <= self.size(), "more evaluations than domain points");
        let mut v = ntt::bit_reversed(evals, self.size());
        ntt::dit(&mut v, &self.inv_table);
        ntt::distribute_powers(&mut v, Scalar::MULTIPLICATIVE_GENERATOR, self.size_inv);
        ntt::dif(&mut v, &self.table);
        v
    }

    /// Evaluations of p on g·H in bit-reversed order → the coefficients of
    /// p / Z (natural order): the second half of the prover's quotient, with
    /// 1/n, g⁻ⁱ and 1/Z in one pass after the DIT.
    pub fn coefficients_over_z(&self, coset_evals: &mut [Scalar]) {
        assert_eq!(coset_evals.len(), self.size(), "vector length must equal the domain size");
        ntt::dit(coset_evals, &self.inv_table);
        let c = self.size_inv * self.z_on_coset_inv();
        ntt::distribute_powers(coset_evals, self.generator_inv(), c);
    }

    /// Evaluations of p on H (natural order, zero-padded when shorter than n)
    /// → p's coefficients (natural order) times 1/Z on g·H: the part the
    /// prover's quotient subtracts for c, which needs no coset evaluations.
    pub fn coefficients_times_z_inv(&self, evals: &[Scalar]) -> Vec<Scalar> {
        assert!(evals.len() <= self.size(), "more evaluations than domain points");
        let mut v = ntt::bit_reversed(evals, self.size());
        ntt::dit(&mut v, &self.inv_table);
        ntt::scale(&mut v, self.size_inv * self.z_on_coset_inv());
        v
    }

    /// The n coefficients of h = (a·b − c)/Z from the evaluations of a, b, c
    /// on H (natural order, zero-padded when shorter than n). a and b go to
    /// the coset g·H, where Z is the non-zero constant gⁿ − 1, to be
    /// multiplied pointwise; the inverse coset transform of a·b gives
    /// r = a·b mod (Xⁿ − gⁿ). h and (r − c)/(gⁿ − 1) agree on the coset and
    /// both have degree below n, so they are equal: c needs only its
    /// interpolation, six transforms instead of seven. The coset evaluations
    /// stay in bit-reversed order; the pointwise step does not care.
    pub fn quotient(&self, a: &[Scalar], b: &[Scalar], c: &[Scalar]) -> Vec<Scalar> {
        let (mut ab, (b, c)) = rayon::join(
            || self.coset_evals_bit_reversed(a),
            || rayon::join(|| self.coset_evals_bit_reversed(b), || self.coefficients_times_z_inv(c)),
        );
        ab.par_iter_mut().zip(b.par_iter()).for_each(|(x, y)| *x *= y);
        drop(b);
        self.coefficients_over_z(&mut ab);
        ab.par_iter_mut().zip(c.par_iter()).for_each(|(x, y)| *x -= y);
        ab
    }

    fn generator_inv(&self) -> Scalar {
        Scalar::MULTIPLICATIVE_GENERATOR.invert().expect("generator is non-zero")
    }

    /// 1/Z on g·H, where Z is the constant gⁿ − 1.
    fn z_on_coset_inv(&self) -> Scalar {
        self.z_at(Scalar::MULTIPLICATIVE_GENERATOR)
            .invert()
            .expect("the generator is not a root of unity of 2-power order")
    }

    /// Z(τ) = τⁿ − 1.
    pub fn z_at(&self, tau: Scalar) -> Scalar {
        tau.pow_vartime([self.size() as u64]) - Scalar::ONE
    }

    /// Divides evaluations on g·H by Z, which is the constant gⁿ − 1 there.
    pub fn divide_by_z_on_coset(&self, a: &mut [Scalar]) {
        ntt::scale(a, self.z_on_coset_inv());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn poly(seeds: &[u64]) -> Vec<Scalar> {
        seeds.iter().map(|&s| Scalar::from(s) * Scalar::from(s.rotate_left(17) | 1).square()).collect()
    }

    fn schoolbook(a: &[Scalar], b: &[Scalar]) -> Vec<Scalar> {
        let mut out = vec![Scalar::ZERO; a.len() + b.len() - 1];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                out[i + j] += *x * y;
            }
        }
        out
    }

    /// Multiplies through the domain (on the subgroup or on the coset).
    fn ntt_mul(a: &[Scalar], b: &[Scalar], coset: bool) -> Vec<Scalar> {
        let len = a.len() + b.len() - 1;
        let d = Domain::new(len).unwrap();
        let mut fa = a.to_vec();
        let mut fb = b.to_vec();
        fa.resize(d.size(), Scalar::ZERO);
        fb.resize(d.size(), Scalar::ZERO);
        if coset {
            d.coset_ntt(&mut fa);
            d.coset_ntt(&mut fb);
        } else {
            d.ntt(&mut fa);
            d.ntt(&mut fb);
        }
        for (x, y) in fa.iter_mut().zip(&fb) {
            *x *= y;
        }
        if coset {
            d.icoset_ntt(&mut fa);
        } else {
            d.intt(&mut fa);
        }
        assert!(fa[len..].iter().all(|x| bool::from(x.is_zero())));
        fa.truncate(len);
        fa
    }

    #[test]
    fn multiplication_matches_schoolbook_for_all_small_size_pairs() {
        for la in 1..=16usize {
            for lb in 1..=16usize {
                let a = poly(&(0..la as u64).map(|i| i + 11 * la as u64).collect::<Vec<_>>());
                let b = poly(&(0..lb as u64).map(|i| 3 * i + lb as u64).collect::<Vec<_>>());
                let want = schoolbook(&a, &b);
                assert_eq!(ntt_mul(&a, &b, false), want, "{la} x {lb}");
                assert_eq!(ntt_mul(&a, &b, true), want, "{la} x {lb} on coset");
            }
        }
    }

    #[test]
    fn sizes_round_up_and_limits_are_errors() {
        assert!(matches!(Domain::new(0), Err(Error::EmptyDomain)));
        for (min, size) in [(1, 1), (2, 2), (3, 4), (64, 64), (65, 128)] {
            assert_eq!(Domain::new(min).unwrap().size(), size);
        }
        assert!(matches!(
            Domain::new((1usize << 32) + 1),
            Err(Error::DomainTooLarge { needed, max_log2: 32 }) if needed == (1 << 32) + 1
        ));
    }

    #[test]
    fn quotient_on_coset_satisfies_h_times_z_equals_ab_minus_c() {
        // The prover's H computation: a, b evaluations on H with c = a·b
        // pointwise, so A·B − C is divisible by Z = xⁿ − 1.
        for n in [1usize, 2, 8, 32] {
            let d = Domain::new(n).unwrap();
            let a_e = poly(&(0..n as u64).map(|i| i * 5 + 1).collect::<Vec<_>>());
            let b_e = poly(&(0..n as u64).map(|i| i * 3 + 7).collect::<Vec<_>>());
            let c_e: Vec<Scalar> = a_e.iter().zip(&b_e).map(|(x, y)| *x * y).collect();
            let (mut a, mut b, mut c) = (a_e, b_e, c_e);
            for v in [&mut a, &mut b, &mut c] {
                d.intt(v);
            }
            let (ca, cb, cc) = (a.clone(), b.clone(), c.clone());
            for v in [&mut a, &mut b, &mut c] {
                d.coset_ntt(v);
            }
            let mut h: Vec<Scalar> = a.iter().zip(&b).zip(&c).map(|((x, y), z)| *x * y - z).collect();
            d.divide_by_z_on_coset(&mut h);
            d.icoset_ntt(&mut h);
            assert!(bool::from(h[n - 1].is_zero()), "deg h <= n - 2");

            let mut lhs = schoolbook(&ca, &cb);
            for (x, y) in lhs.iter_mut().zip(&cc) {
                *x -= y;
            }
            let mut z = vec![Scalar::ZERO; n + 1];
            z[0] = -Scalar::ONE;
            z[n] += Scalar::ONE;
            let mut rhs = schoolbook(&h, &z);
            rhs.resize(lhs.len().max(rhs.len()), Scalar::ZERO);
            lhs.resize(rhs.len(), Scalar::ZERO);
            assert_eq!(lhs, rhs, "n = {n}");
        }
    }

    /// The prover's path (`Domain::quotient`: six transforms, bit-reversed
    /// coset evaluations, fused scalings) against the plain one (iNTT and
    /// coset NTT of a, b and c, divide by Z, inverse coset NTT), also where
    /// a·b ≠ c.
    fn check_fast_quotient(n: usize, a_e: &[Scalar], b_e: &[Scalar], c_e: &[Scalar]) {
        let d = Domain::new(n).unwrap();
        let plain = |e: &[Scalar]| {
            let mut v = e.to_vec();
            v.resize(d.size(), Scalar::ZERO);
            d.intt(&mut v);
            d.coset_ntt(&mut v);
            v
        };
        let (pa, pb, pc) = (plain(a_e), plain(b_e), plain(c_e));
        let mut want: Vec<Scalar> = pa.iter().zip(&pb).zip(&pc).map(|((x, y), z)| *x * y - z).collect();
        d.divide_by_z_on_coset(&mut want);
        d.icoset_ntt(&mut want);

        assert_eq!(d.quotient(a_e, b_e, c_e), want, "n = {n}, {} evaluations", a_e.len());
    }

    #[test]
    fn fast_quotient_matches_plain_path() {
        for len in [1usize, 2, 3, 5, 8, 13, 64, 100, 128, 4097, 9000] {
            let a = poly(&(0..len as u64).map(|i| i * 5 + 1).collect::<Vec<_>>());
            let b = poly(&(0..len as u64).map(|i| i * 3 + 7).collect::<Vec<_>>());
            let c: Vec<Scalar> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
            check_fast_quotient(len, &a, &b, &c);
            let zeros = vec![Scalar::ZERO; len];
            let ones = vec![Scalar::ONE; len];
            check_fast_quotient(len, &zeros, &ones, &zeros);
            check_fast_quotient(len, &ones, &ones, &a);
        }
    }

    #[test]
    fn divide_by_z_matches_z_at_each_coset_point() {
        let d = Domain::new(16).unwrap();
        let g = Scalar::MULTIPLICATIVE_GENERATOR;
        let mut v = poly(&(0..16).collect::<Vec<_>>());
        let orig = v.clone();
        d.divide_by_z_on_coset(&mut v);
        for i in 0..16u64 {
            let x = g * d.omega().pow_vartime([i]);
            assert_eq!(v[i as usize] * d.z_at(x), orig[i as usize]);
        }
    }

    proptest! {
        #[test]
        fn random_products_match_schoolbook(
            a in proptest::collection::vec(any::<u64>(), 1..40),
            b in proptest::collection::vec(any::<u64>(), 1..40),
        ) {
            let (a, b) = (poly(&a), poly(&b));
            prop_assert_eq!(ntt_mul(&a, &b, true), schoolbook(&a, &b));
        }

        #[test]
        fn random_quotients_match_plain_path(seeds in proptest::collection::vec(any::<u64>(), 1..200)) {
            let a = poly(&seeds);
            let b: Vec<Scalar> = a.iter().rev().copied().collect();
            let c: Vec<Scalar> = a.iter().map(|x| x.square()).collect();
            check_fast_quotient(seeds.len(), &a, &b, &c);
        }
    }
}
