//! Uncompressed point codec shared by G1 and G2, with three levels of checking.

use blstrs::{Fp, Fp2, G1Affine, G2Affine};
use ff::Field;
use group::prime::PrimeCurveAffine;

use crate::error::PointDefect;

/// How much to verify about each point read from a parameter file.
///
/// blst's decoder always verifies the encoding and the curve equation (a few
/// field multiplications, small next to converting the coordinates), so `None`
/// and `OnCurve` accept the same points; only the subgroup check is optional work.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PointChecks {
    /// Trust the file: decode only (blst still rejects bytes that are not a curve point).
    None,
    /// Require points on the curve.
    OnCurve,
    /// Also require membership in the prime-order subgroup (slowest, safest).
    Subgroup,
}

const FLAG_COMPRESSED: u8 = 0x80;
const FLAG_INFINITY: u8 = 0x40;
const FLAG_SORT: u8 = 0x20;

/// An affine point with a fixed-size uncompressed big-endian encoding (zcash/bellperson layout).
pub trait UncompressedPoint: PrimeCurveAffine + Send + Sync {
    /// Bytes of one encoded point.
    const SIZE: usize;

    /// Writes the encoding into `out` (exactly `SIZE` bytes).
    fn encode_into(&self, out: &mut [u8]);

    /// blst's decoder: encoding and curve equation checked; `None` on failure.
    fn decode_on_curve(bytes: &[u8]) -> Option<Self>;

    /// True when the point lies in the prime-order subgroup.
    fn in_subgroup(&self) -> bool;

    /// Whether the encoded y satisfies the curve equation at x = 0 (y² = b).
    fn y_squared_is_b(y: &[u8]) -> bool;

    /// Decodes `bytes` at the given level; identity is returned as such (callers decide).
    fn decode(bytes: &[u8], checks: PointChecks) -> Result<Self, PointDefect> {
        // blst would read a set compression flag as "compressed point in the first
        // half"; in an uncompressed slot that is a malformed file.
        if bytes[0] & (FLAG_COMPRESSED | FLAG_SORT) != 0 {
            return Err(PointDefect::Encoding);
        }
        let point = Self::decode_on_curve(bytes).ok_or_else(|| diagnose::<Self>(bytes))?;
        if checks == PointChecks::Subgroup && !point.in_subgroup() {
            return Err(PointDefect::NotInSubgroup);
        }
        Ok(point)
    }
}

/// Names the defect of bytes blst rejected: a malformed infinity, a curve
/// point with x = 0 (blst refuses those as outside the subgroup: with y² = b
/// they have order 3), or coordinates that are not a curve point (unreduced
/// ones, and x = 0 with a y that does not fit, such as all-zero bytes).
fn diagnose<P: UncompressedPoint>(bytes: &[u8]) -> PointDefect {
    let rest_zero = bytes[0] & 0x1f == 0 && bytes[1..].iter().all(|&b| b == 0);
    if bytes[0] & FLAG_INFINITY != 0 && !rest_zero {
        return PointDefect::Encoding;
    }
    let x_len = bytes.len() / 2;
    if bytes[0] & 0x1f == 0 && bytes[1..x_len].iter().all(|&b| b == 0) && P::y_squared_is_b(&bytes[x_len..]) {
        return PointDefect::NotInSubgroup;
    }
    PointDefect::NotOnCurve
}

/// The big-endian field element in `bytes`, if reduced.
fn fp(bytes: &[u8]) -> Option<Fp> {
    Option::from(Fp::from_bytes_be(bytes.try_into().ok()?))
}

impl UncompressedPoint for G1Affine {
    const SIZE: usize = 96;

    fn encode_into(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_uncompressed());
    }

    fn decode_on_curve(bytes: &[u8]) -> Option<Self> {
        let repr: &[u8; 96] = bytes.try_into().ok()?;
        Option::from(G1Affine::from_uncompressed_unchecked(repr))
    }

    fn in_subgroup(&self) -> bool {
        self.is_torsion_free().into()
    }

    fn y_squared_is_b(y: &[u8]) -> bool {
        fp(y).is_some_and(|y| y.square() == Fp::from(4))
    }
}

impl UncompressedPoint for G2Affine {
    const SIZE: usize = 192;

    fn encode_into(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_uncompressed());
    }

    fn decode_on_curve(bytes: &[u8]) -> Option<Self> {
        let repr: &[u8; 192] = bytes.try_into().ok()?;
        Option::from(G2Affine::from_uncompressed_unchecked(repr))
    }

    fn in_subgroup(&self) -> bool {
        self.is_torsion_free().into()
    }

    fn y_squared_is_b(y: &[u8]) -> bool {
        // Coordinates are written c1 then c0; b = 4(1 + u).
        match (fp(&y[48..]), fp(&y[..48])) {
            (Some(c0), Some(c1)) => Fp2::new(c0, c1).square() == Fp2::new(Fp::from(4), Fp::from(4)),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::{G1Projective, G2Projective};
    use group::{Curve, Group};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    const ALL: [PointChecks; 3] = [PointChecks::None, PointChecks::OnCurve, PointChecks::Subgroup];

    fn roundtrip<P: UncompressedPoint>(points: &[P]) {
        for p in points {
            let mut buf = vec![0u8; P::SIZE];
            p.encode_into(&mut buf);
            for checks in ALL {
                assert_eq!(P::decode(&buf, checks).unwrap(), *p, "{checks:?}");
            }
        }
    }

    #[test]
    fn every_level_decodes_valid_points_and_identity_alike() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let g1: Vec<G1Affine> = (0..8).map(|_| G1Projective::random(&mut rng).to_affine()).collect();
        let g2: Vec<G2Affine> = (0..8).map(|_| G2Projective::random(&mut rng).to_affine()).collect();
        roundtrip(&g1);
        roundtrip(&[G1Affine::identity(), G1Affine::generator()]);
        roundtrip(&g2);
        roundtrip(&[G2Affine::identity(), G2Affine::generator()]);
    }

    #[test]
    fn defects_are_named() {
        let mut buf = G1Affine::generator().to_uncompressed();
        buf[95] ^= 1;
        for checks in ALL {
            assert_eq!(G1Affine::decode(&buf, checks), Err(PointDefect::NotOnCurve));
        }

        let mut flagged = G1Affine::generator().to_uncompressed();
        flagged[0] |= FLAG_COMPRESSED;
        for checks in ALL {
            assert_eq!(G1Affine::decode(&flagged, checks), Err(PointDefect::Encoding));
        }
        let mut bad_infinity = G1Affine::identity().to_uncompressed();
        bad_infinity[95] = 1;
        assert_eq!(G1Affine::decode(&bad_infinity, PointChecks::None), Err(PointDefect::Encoding));

        // (0, 2) satisfies y² = x³ + 4 but has order 3.
        let mut torsion = [0u8; 96];
        torsion[95] = 2;
        assert_eq!(G1Affine::decode(&torsion, PointChecks::Subgroup), Err(PointDefect::NotInSubgroup));
        assert_eq!(G1Affine::decode(&torsion, PointChecks::OnCurve), Err(PointDefect::NotInSubgroup));
        // All-zero bytes are (0, 0), which is not on the curve at all.
        for checks in ALL {
            assert_eq!(G1Affine::decode(&[0u8; 96], checks), Err(PointDefect::NotOnCurve));
            assert_eq!(G2Affine::decode(&[0u8; 192], checks), Err(PointDefect::NotOnCurve));
        }
        // b = 4(1 + u) is not a square in Fp2, so no G2 point has x = 0.
        assert!(Option::<Fp2>::from(Fp2::new(Fp::from(4), Fp::from(4)).sqrt()).is_none());
        let mut g2_x_zero = [0u8; 192];
        g2_x_zero[191] = 2;
        assert_eq!(G2Affine::decode(&g2_x_zero, PointChecks::Subgroup), Err(PointDefect::NotOnCurve));

        // Decompressing without checks yields curve points outside the subgroup.
        let mut compressed = G1Affine::generator().to_compressed();
        let outside = loop {
            compressed[47] = compressed[47].wrapping_add(1);
            let p: Option<G1Affine> = Option::from(G1Affine::from_compressed_unchecked(&compressed));
            if let Some(p) = p.filter(|p| !bool::from(p.is_torsion_free())) {
                break p.to_uncompressed();
            }
        };
        assert!(G1Affine::decode(&outside, PointChecks::OnCurve).is_ok());
        assert!(G1Affine::decode(&outside, PointChecks::None).is_ok());
        assert_eq!(G1Affine::decode(&outside, PointChecks::Subgroup), Err(PointDefect::NotInSubgroup));

        let mut g2 = G2Affine::generator().to_uncompressed();
        g2[191] ^= 1;
        assert_eq!(G2Affine::decode(&g2, PointChecks::Subgroup), Err(PointDefect::NotOnCurve));
    }
}
