//! The 192-byte proof encoding shared with bellperson: A (G1, 48 B) ‖ B (G2, 96 B) ‖ C (G1, 48 B),
//! each point compressed.

use blstrs::{G1Affine, G2Affine};
use group::prime::PrimeCurveAffine;
use rayon::prelude::*;

use crate::error::{Error, PointDefect, ProofPoint};

/// A Groth16 proof.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// A = α + Σ aᵢ·uᵢ(τ) + r·δ, in G1.
    pub a: G1Affine,
    /// B = β + Σ aᵢ·vᵢ(τ) + s·δ, in G2.
    pub b: G2Affine,
    /// C = (Σ private terms + H·Z)/δ + s·A + r·B − r·s·δ, in G1.
    pub c: G1Affine,
}

impl Proof {
    /// Encoded length of one proof.
    pub const SIZE: usize = 192;

    /// Compressed A ‖ B ‖ C.
    pub fn to_bytes(&self) -> [u8; 192] {
        let mut out = [0u8; 192];
        out[..48].copy_from_slice(&self.a.to_compressed());
        out[48..144].copy_from_slice(&self.b.to_compressed());
        out[144..].copy_from_slice(&self.c.to_compressed());
        out
    }

    /// Decodes one proof; every point must be on the curve, in the subgroup and
    /// not the identity (as bellperson requires).
    pub fn from_bytes(bytes: &[u8]) -> Result<Proof, Error> {
        if bytes.len() != Self::SIZE {
            return Err(Error::ProofLength { expected: Self::SIZE, got: bytes.len() });
        }
        decode(bytes, 0)
    }

    /// Decodes concatenated proofs in parallel.
    pub fn read_many(bytes: &[u8]) -> Result<Vec<Proof>, Error> {
        if bytes.len() % Self::SIZE != 0 {
            return Err(Error::ProofBatchLength { got: bytes.len() });
        }
        bytes.par_chunks_exact(Self::SIZE).enumerate().map(|(i, chunk)| decode(chunk, i)).collect()
    }
}

fn decode(bytes: &[u8], proof: usize) -> Result<Proof, Error> {
    let fail = |point, defect| Error::InvalidProofPoint { proof, point, defect };
    let a = g1(&bytes[..48]).map_err(|d| fail(ProofPoint::A, d))?;
    let b = g2(&bytes[48..144]).map_err(|d| fail(ProofPoint::B, d))?;
    let c = g1(&bytes[144..]).map_err(|d| fail(ProofPoint::C, d))?;
    Ok(Proof { a, b, c })
}

fn g1(bytes: &[u8]) -> Result<G1Affine, PointDefect> {
    let repr: &[u8; 48] = bytes.try_into().expect("48-byte slice");
    let p: Option<G1Affine> = Option::from(G1Affine::from_compressed_unchecked(repr));
    checked(p, || diagnose(bytes))
}

fn g2(bytes: &[u8]) -> Result<G2Affine, PointDefect> {
    let repr: &[u8; 96] = bytes.try_into().expect("96-byte slice");
    let p: Option<G2Affine> = Option::from(G2Affine::from_compressed_unchecked(repr));
    checked(p, || diagnose(bytes))
}

fn checked<P: PrimeCurveAffine + SubgroupCheck>(p: Option<P>, why: impl Fn() -> PointDefect) -> Result<P, PointDefect> {
    let p = p.ok_or_else(why)?;
    if bool::from(p.is_identity()) {
        return Err(PointDefect::Identity);
    }
    if !p.torsion_free() {
        return Err(PointDefect::NotInSubgroup);
    }
    Ok(p)
}

/// Splits blst's single "cannot decompress" answer: malformed flags are an
/// encoding error, anything else (x without a curve point, or not reduced mod p)
/// is reported as not on the curve.
fn diagnose(bytes: &[u8]) -> PointDefect {
    let flags = bytes[0] & 0xe0;
    if flags & 0x80 == 0 || flags & 0x40 != 0 {
        PointDefect::Encoding
    } else {
        PointDefect::NotOnCurve
    }
}

trait SubgroupCheck {
    fn torsion_free(&self) -> bool;
}

impl SubgroupCheck for G1Affine {
    fn torsion_free(&self) -> bool {
        self.is_torsion_free().into()
    }
}

impl SubgroupCheck for G2Affine {
    fn torsion_free(&self) -> bool {
        self.is_torsion_free().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::{G1Projective, G2Projective};
    use group::{Curve, Group};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn random_proof(rng: &mut ChaCha8Rng) -> Proof {
        Proof {
            a: G1Projective::random(&mut *rng).to_affine(),
            b: G2Projective::random(&mut *rng).to_affine(),
            c: G1Projective::random(&mut *rng).to_affine(),
        }
    }

    #[test]
    fn round_trips_one_and_many() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let proofs: Vec<Proof> = (0..4).map(|_| random_proof(&mut rng)).collect();
        let bytes: Vec<u8> = proofs.iter().flat_map(|p| p.to_bytes()).collect();
        assert_eq!(Proof::from_bytes(&bytes[..192]).unwrap(), proofs[0]);
        assert_eq!(Proof::read_many(&bytes).unwrap(), proofs);
        assert_eq!(Proof::read_many(&[]).unwrap(), vec![]);
    }

    #[test]
    fn bad_bytes_give_typed_errors() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let bytes = random_proof(&mut rng).to_bytes();
        assert!(matches!(Proof::from_bytes(&bytes[..191]), Err(Error::ProofLength { expected: 192, got: 191 })));
        assert!(matches!(Proof::read_many(&bytes[..191]), Err(Error::ProofBatchLength { got: 191 })));

        // Bump C's x until no curve point has it (about every other x).
        let mut off_curve = bytes;
        loop {
            off_curve[191] = off_curve[191].wrapping_add(1);
            let c: &[u8; 48] = off_curve[144..].try_into().unwrap();
            if G1Affine::from_compressed_unchecked(c).is_none().into() {
                break;
            }
        }
        assert!(matches!(
            Proof::from_bytes(&off_curve),
            Err(Error::InvalidProofPoint { proof: 0, point: ProofPoint::C, defect: PointDefect::NotOnCurve })
        ));

        let mut uncompressed_flag = bytes;
        uncompressed_flag[48] &= 0x7f;
        assert!(matches!(
            Proof::from_bytes(&uncompressed_flag),
            Err(Error::InvalidProofPoint { point: ProofPoint::B, defect: PointDefect::Encoding, .. })
        ));

        let mut identity_a = bytes;
        identity_a[..48].copy_from_slice(&G1Affine::identity().to_compressed());
        assert!(matches!(
            Proof::from_bytes(&identity_a),
            Err(Error::InvalidProofPoint { point: ProofPoint::A, defect: PointDefect::Identity, .. })
        ));

        let mut batch = bytes.to_vec();
        batch.extend_from_slice(&off_curve);
        assert!(matches!(Proof::read_many(&batch), Err(Error::InvalidProofPoint { proof: 1, .. })));
    }
}
