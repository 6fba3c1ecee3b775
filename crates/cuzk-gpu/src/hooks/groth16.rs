use cuzk_ffi::hooks::ffi as hooks;
use crate::GpuError;
use cuzk_ffi::ffi::Groth16Circuit;

/// The split of one query over a batch (cpp/groth16/split.hpp), flattened.
pub use cuzk_ffi::hooks::ffi::Groth16Split;

/// The host function's split of query `query` (0 = L, 1 = A, 2 = B) over
/// `circuits` into zeros, ones and the tail, on `threads` threads, for a
/// device that compacts a dense query's aux scalars itself (`compact`) or
/// not; either way the scalars come back as the device gets them.
pub fn split(circuits: &[Groth16Circuit<'_>], query: u8, threads: u32, compact: bool) -> Result<Groth16Split, GpuError> {
    Ok(hooks::groth16_split_hook(circuits, query, threads, compact)?)
}

/// The split's stepwise release of pages over `buffer[first..first + len]`:
/// whole pages inside it read zero afterwards, every other byte is kept.
pub fn release_pages(buffer: &mut [u8], first: usize, len: usize) -> Result<(), GpuError> {
    Ok(hooks::release_pages_hook(buffer, first, len)?)
}

/// The host function's epilogue: the proof's bytes from the verifying key
/// (alpha_g1, beta_g1, beta_g2, delta_g1, delta_g2 as affine limbs), the
/// sums ΣA, ΣB1 (G1), ΣB2 (G2), ΣL, ΣH (G1) as Jacobian limbs, and r, s.
pub fn epilogue(vk: &[u64], sums: &[u64], rs: &[u64]) -> Result<[u8; 192], GpuError> {
    let mut proof = [0u8; 192];
    hooks::groth16_epilogue_hook(vk, sums, rs, &mut proof)?;
    Ok(proof)
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
    use cuzk_ffi::cast::as_limbs;
    use cuzk_groth16::Proof;
    use ff::Field;
    use group::prime::PrimeCurveAffine;
    use group::{Curve, Group};
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    /// The epilogue of the CPU prover, written with blstrs.
    fn reference_proof(
        vk: &cuzk_groth16::VerifyingKey,
        sums: (G1Projective, G1Projective, G2Projective, G1Projective, G1Projective),
        r: Scalar,
        s: Scalar,
    ) -> [u8; 192] {
        let (sa, sb1, sb2, sl, sh) = sums;
        let a = sa + vk.alpha_g1 + vk.delta_g1 * r;
        let b1 = sb1 + vk.beta_g1 + vk.delta_g1 * s;
        let b2 = sb2 + vk.beta_g2 + vk.delta_g2 * s;
        let c = sl + sh + a * s + b1 * r - vk.delta_g1 * (r * s);
        Proof { a: a.to_affine(), b: b2.to_affine(), c: c.to_affine() }.to_bytes()
    }

    fn host_epilogue(
        vk: &cuzk_groth16::VerifyingKey,
        sums: (G1Projective, G1Projective, G2Projective, G1Projective, G1Projective),
        r: Scalar,
        s: Scalar,
    ) -> [u8; 192] {
        let mut vk_limbs = Vec::new();
        vk_limbs.extend_from_slice(as_limbs::<G1Affine>(&[vk.alpha_g1, vk.beta_g1]));
        vk_limbs.extend_from_slice(as_limbs::<G2Affine>(&[vk.beta_g2]));
        vk_limbs.extend_from_slice(as_limbs::<G1Affine>(&[vk.delta_g1]));
        vk_limbs.extend_from_slice(as_limbs::<G2Affine>(&[vk.delta_g2]));
        let (sa, sb1, sb2, sl, sh) = sums;
        let mut sum_limbs = as_limbs(&[sa, sb1]).to_vec();
        sum_limbs.extend_from_slice(as_limbs(&[sb2]));
        sum_limbs.extend_from_slice(as_limbs(&[sl, sh]));
        let rs = as_limbs(&[r, s]).to_vec();
        epilogue(&vk_limbs, &sum_limbs, &rs).unwrap()
    }

    #[test]
    fn host_epilogue_matches_blstrs_byte_for_byte() {
        let mut rng = ChaCha20Rng::seed_from_u64(0x6e70);
        let g1 = |rng: &mut ChaCha20Rng| G1Projective::random(rng);
        let g2 = |rng: &mut ChaCha20Rng| G2Projective::random(rng);
        for round in 0..24 {
            let vk = cuzk_groth16::VerifyingKey {
                alpha_g1: g1(&mut rng).to_affine(),
                beta_g1: g1(&mut rng).to_affine(),
                beta_g2: g2(&mut rng).to_affine(),
                gamma_g2: G2Affine::generator(),
                delta_g1: g1(&mut rng).to_affine(),
                delta_g2: g2(&mut rng).to_affine(),
                ic: vec![],
            };
            let mut sums = (g1(&mut rng), g1(&mut rng), g2(&mut rng), g1(&mut rng), g1(&mut rng));
            // Empty sums (a circuit with no ones, say) are identities.
            if round % 4 == 1 {
                sums.0 = G1Projective::identity();
                sums.2 = G2Projective::identity();
            }
            if round % 4 == 2 {
                sums.3 = G1Projective::identity();
                sums.4 = G1Projective::identity();
            }
            let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
            assert_eq!(host_epilogue(&vk, sums, r, s), reference_proof(&vk, sums, r, s), "round {round}");
        }
    }

    #[test]
    fn host_epilogue_rejects_malformed_input() {
        let err = epilogue(&[0; 84], &[0; 10], &[0; 8]).unwrap_err();
        assert!(matches!(err, GpuError::InvalidInput(_)), "{err:?}");
    }
}
