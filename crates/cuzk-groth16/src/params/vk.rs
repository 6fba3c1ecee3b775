use std::io::{Read, Write};

use blstrs::{G1Affine, G2Affine};
use group::prime::PrimeCurveAffine;

use super::point::{PointChecks, UncompressedPoint};
use crate::error::{Error, PointDefect, Section};

/// Bytes of the fixed part of a verifying key: α₁, β₁, β₂, γ₂, δ₁, δ₂.
pub(crate) const VK_FIXED_BYTES: u64 = 3 * 96 + 3 * 192;

/// The verifier's part of the parameters.
///
/// `ic[i]` is (β·uᵢ(τ) + α·vᵢ(τ) + wᵢ(τ))/γ for public input i (input 0 is the
/// constant one), so the verifier can fold the public inputs into one point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey {
    /// α in G1.
    pub alpha_g1: G1Affine,
    /// β in G1 (the prover needs it for C).
    pub beta_g1: G1Affine,
    /// β in G2.
    pub beta_g2: G2Affine,
    /// γ in G2.
    pub gamma_g2: G2Affine,
    /// δ in G1 (the prover's blinding base).
    pub delta_g1: G1Affine,
    /// δ in G2.
    pub delta_g2: G2Affine,
    /// One point per public input, the constant one first.
    pub ic: Vec<G1Affine>,
}

impl VerifyingKey {
    /// Writes the key in bellperson's layout: six uncompressed points, a big-endian
    /// u32 count and the IC points.
    pub fn write<W: Write>(&self, mut w: W) -> Result<(), Error> {
        let count = u32::try_from(self.ic.len())
            .map_err(|_| Error::SectionTooLong { section: Section::Ic, count: self.ic.len() })?;
        w.write_all(&self.alpha_g1.to_uncompressed())?;
        w.write_all(&self.beta_g1.to_uncompressed())?;
        w.write_all(&self.beta_g2.to_uncompressed())?;
        w.write_all(&self.gamma_g2.to_uncompressed())?;
        w.write_all(&self.delta_g1.to_uncompressed())?;
        w.write_all(&self.delta_g2.to_uncompressed())?;
        w.write_all(&count.to_be_bytes())?;
        for p in &self.ic {
            w.write_all(&p.to_uncompressed())?;
        }
        Ok(())
    }

    /// Reads a key written by [`VerifyingKey::write`] (or the head of a parameter
    /// file). Every point is fully checked, as bellperson does; IC points may not be
    /// the identity, and neither may α, β, γ or δ ([`VerifyingKey::refuse_degenerate`]:
    /// bellperson reads such keys, we do not). The IC vector grows only as points
    /// actually arrive, so a corrupt count cannot trigger a huge allocation.
    pub fn read<R: Read>(mut r: R) -> Result<Self, Error> {
        let alpha_g1 = read_point(&mut r, Section::AlphaG1, 0, true)?;
        let beta_g1 = read_point(&mut r, Section::BetaG1, 0, true)?;
        let beta_g2 = read_point(&mut r, Section::BetaG2, 0, true)?;
        let gamma_g2 = read_point(&mut r, Section::GammaG2, 0, true)?;
        let delta_g1 = read_point(&mut r, Section::DeltaG1, 0, true)?;
        let delta_g2 = read_point(&mut r, Section::DeltaG2, 0, true)?;
        let mut count = [0u8; 4];
        r.read_exact(&mut count)?;
        let count = u32::from_be_bytes(count) as u64;
        let mut ic = Vec::with_capacity(count.min(1 << 10) as usize);
        for i in 0..count {
            ic.push(read_point(&mut r, Section::Ic, i, false)?);
        }
        let key = VerifyingKey { alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, ic };
        key.refuse_degenerate()?;
        Ok(key)
    }

    /// Refuses a key with α, β, γ or δ at infinity, which no honest setup
    /// makes (each is a generator times a random nonzero scalar). Under such a
    /// key proofs can be forged: with γ₂ = δ₂ = 0 the proof (α₁, β₂, α₁)
    /// verifies for any public input, and with δ at infinity the prover's
    /// blinding vanishes and proofs leak the witness. Cheap (six comparisons),
    /// so every prover call makes it too.
    pub fn refuse_degenerate(&self) -> Result<(), Error> {
        let at_infinity = [
            (Section::AlphaG1, self.alpha_g1.is_identity()),
            (Section::BetaG1, self.beta_g1.is_identity()),
            (Section::BetaG2, self.beta_g2.is_identity()),
            (Section::GammaG2, self.gamma_g2.is_identity()),
            (Section::DeltaG1, self.delta_g1.is_identity()),
            (Section::DeltaG2, self.delta_g2.is_identity()),
        ];
        match at_infinity.into_iter().find(|(_, is)| bool::from(*is)) {
            Some((section, _)) => Err(Error::DegenerateKey { section }),
            None => Ok(()),
        }
    }

    /// Every rule [`VerifyingKey::read`] applies, for a key that did not come
    /// from a file (built in memory, or handed over by a caller): every point
    /// on the curve and in the prime-order subgroup, no IC point at infinity,
    /// and no degenerate α, β, γ or δ.
    pub fn validate(&self) -> Result<(), Error> {
        let fixed_g1 =
            [(Section::AlphaG1, &self.alpha_g1), (Section::BetaG1, &self.beta_g1), (Section::DeltaG1, &self.delta_g1)];
        let ic = self.ic.iter().enumerate().map(|(i, p)| (Section::Ic, i as u64, p));
        for (section, index, p) in fixed_g1.into_iter().map(|(s, p)| (s, 0, p)).chain(ic) {
            g1_defect(p, section == Section::Ic)
                .map_or(Ok(()), |defect| Err(Error::InvalidPoint { section, index, defect }))?;
        }
        for (section, p) in
            [(Section::BetaG2, &self.beta_g2), (Section::GammaG2, &self.gamma_g2), (Section::DeltaG2, &self.delta_g2)]
        {
            g2_defect(p).map_or(Ok(()), |defect| Err(Error::InvalidPoint { section, index: 0, defect }))?;
        }
        self.refuse_degenerate()
    }

    /// Bytes [`VerifyingKey::write`] produces.
    pub fn serialized_len(&self) -> u64 {
        VK_FIXED_BYTES + 4 + 96 * self.ic.len() as u64
    }
}

/// What is wrong with a G1 point of a key, if anything.
fn g1_defect(p: &G1Affine, identity_forbidden: bool) -> Option<PointDefect> {
    if identity_forbidden && bool::from(p.is_identity()) {
        Some(PointDefect::Identity)
    } else if !bool::from(p.is_on_curve()) {
        Some(PointDefect::NotOnCurve)
    } else if !bool::from(p.is_torsion_free()) {
        Some(PointDefect::NotInSubgroup)
    } else {
        None
    }
}

/// What is wrong with a G2 point of a key, if anything.
fn g2_defect(p: &G2Affine) -> Option<PointDefect> {
    if !bool::from(p.is_on_curve()) {
        Some(PointDefect::NotOnCurve)
    } else if !bool::from(p.is_torsion_free()) {
        Some(PointDefect::NotInSubgroup)
    } else {
        None
    }
}

fn read_point<P: UncompressedPoint, R: Read>(
    r: &mut R,
    section: Section,
    index: u64,
    identity_allowed: bool,
) -> Result<P, Error> {
    let mut buf = [0u8; 192];
    let buf = &mut buf[..P::SIZE];
    r.read_exact(buf)?;
    let p = P::decode(buf, PointChecks::Subgroup).map_err(|defect| Error::InvalidPoint { section, index, defect })?;
    if !identity_allowed && bool::from(p.is_identity()) {
        return Err(Error::InvalidPoint { section, index, defect: PointDefect::Identity });
    }
    Ok(p)
}
