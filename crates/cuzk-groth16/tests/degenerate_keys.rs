//! Verifying keys that no honest setup makes are refused on every path that
//! takes a key: reading a key or a parameter file, preparing a key built in
//! memory for the verifier, and proving.

mod common;

use blstrs::{Bls12, G1Affine, G1Projective, G2Affine, G2Prepared, Scalar};
use common::{CuzkDemo, Demo};
use cuzk_groth16::{
    generate_random_parameters, prepare_verifying_key, prove, Error, Parameters, PointChecks, PointDefect, Section,
    VerifyingKey,
};
use cuzk_synth::synthesize_batch;
use group::prime::PrimeCurveAffine;
use group::Curve;
use pairing::{MillerLoopResult, MultiMillerLoop};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn params() -> Parameters {
    let mut rng = ChaCha8Rng::seed_from_u64(19);
    generate_random_parameters(CuzkDemo(Demo::new(19, 40)), &mut rng, None).unwrap()
}

/// The verification equation e(A, B)·e(acc, −γ)·e(C, −δ) = e(α, β) computed
/// directly, without any check of the key: what a verifier that trusts its key
/// would conclude.
fn equation_holds(vk: &VerifyingKey, a: G1Affine, b: G2Affine, c: G1Affine, inputs: &[Scalar]) -> bool {
    let mut acc = G1Projective::from(vk.ic[0]);
    for (base, x) in vk.ic[1..].iter().zip(inputs) {
        acc += *base * x;
    }
    let acc = acc.to_affine();
    let (b, neg_gamma, neg_delta) =
        (G2Prepared::from(b), G2Prepared::from(-vk.gamma_g2), G2Prepared::from(-vk.delta_g2));
    let lhs = Bls12::multi_miller_loop(&[(&a, &b), (&acc, &neg_gamma), (&c, &neg_delta)]).final_exponentiation();
    lhs == Bls12::multi_miller_loop(&[(&vk.alpha_g1, &G2Prepared::from(vk.beta_g2))]).final_exponentiation()
}

fn key_bytes(vk: &VerifyingKey) -> Vec<u8> {
    let mut bytes = Vec::new();
    vk.write(&mut bytes).unwrap();
    bytes
}

#[test]
fn a_forged_proof_under_identity_gamma_and_delta_is_refused() {
    let mut forged = params().vk;
    forged.gamma_g2 = G2Affine::identity();
    forged.delta_g2 = G2Affine::identity();
    // The forgery is real: (α₁, β₂, α₁) satisfies the equation for any input.
    let inputs = vec![Scalar::from(123_456u64); forged.ic.len() - 1];
    assert!(equation_holds(&forged, forged.alpha_g1, forged.beta_g2, forged.alpha_g1, &inputs));

    assert!(matches!(prepare_verifying_key(&forged), Err(Error::DegenerateKey { section: Section::GammaG2 })));
    assert!(matches!(
        VerifyingKey::read(&key_bytes(&forged)[..]),
        Err(Error::DegenerateKey { section: Section::GammaG2 })
    ));
}

#[test]
fn every_fixed_point_at_infinity_is_refused_by_name() {
    let honest = params();
    assert!(prepare_verifying_key(&honest.vk).is_ok());
    type Case = (Section, fn(&mut VerifyingKey));
    let cases: [Case; 6] = [
        (Section::AlphaG1, |k| k.alpha_g1 = G1Affine::identity()),
        (Section::BetaG1, |k| k.beta_g1 = G1Affine::identity()),
        (Section::BetaG2, |k| k.beta_g2 = G2Affine::identity()),
        (Section::GammaG2, |k| k.gamma_g2 = G2Affine::identity()),
        (Section::DeltaG1, |k| k.delta_g1 = G1Affine::identity()),
        (Section::DeltaG2, |k| k.delta_g2 = G2Affine::identity()),
    ];
    for (section, degrade) in cases {
        let mut p = honest.clone();
        degrade(&mut p.vk);
        let refused = |r: Result<(), Error>| matches!(r, Err(Error::DegenerateKey { section: s }) if s == section);
        assert!(refused(prepare_verifying_key(&p.vk).map(drop)), "{section}: prepare");
        assert!(refused(VerifyingKey::read(&key_bytes(&p.vk)[..]).map(drop)), "{section}: key read");
        let file = tempfile::NamedTempFile::new().unwrap();
        p.write(std::fs::File::create(file.path()).unwrap()).unwrap();
        assert!(refused(Parameters::read(file.path(), PointChecks::OnCurve).map(drop)), "{section}: params read");
        let pa = synthesize_batch(vec![CuzkDemo(Demo::new(3, 40))]).unwrap();
        assert!(refused(prove(&p, &pa, &[(Scalar::from(1u64), Scalar::from(2u64))]).map(drop)), "{section}: prove");
    }
}

#[test]
fn keys_built_in_memory_get_the_file_checks() {
    let honest = params().vk;
    // Decompressing without checks finds curve points outside the subgroup.
    let mut compressed = G1Affine::generator().to_compressed();
    let outside = loop {
        compressed[47] = compressed[47].wrapping_add(1);
        let p: Option<G1Affine> = Option::from(G1Affine::from_compressed_unchecked(&compressed));
        if let Some(p) = p.filter(|p| !bool::from(p.is_torsion_free())) {
            break p;
        }
    };
    assert!(bool::from(outside.is_on_curve()) && !bool::from(outside.is_torsion_free()));

    let mut bad_alpha = honest.clone();
    bad_alpha.alpha_g1 = outside;
    assert!(matches!(
        prepare_verifying_key(&bad_alpha),
        Err(Error::InvalidPoint { section: Section::AlphaG1, index: 0, defect: PointDefect::NotInSubgroup })
    ));
    let mut bad_ic = honest.clone();
    bad_ic.ic[1] = outside;
    assert!(matches!(
        prepare_verifying_key(&bad_ic),
        Err(Error::InvalidPoint { section: Section::Ic, index: 1, defect: PointDefect::NotInSubgroup })
    ));
    let mut identity_ic = honest;
    identity_ic.ic[0] = G1Affine::identity();
    assert!(matches!(
        prepare_verifying_key(&identity_ic),
        Err(Error::InvalidPoint { section: Section::Ic, index: 0, defect: PointDefect::Identity })
    ));
}
