//! Bit compatibility with bellperson 0.27: parameter files, proofs and verification.

mod common;

use blstrs::{Bls12, Scalar};
use common::{tampered, BellDemo, CuzkDemo, Demo};
use cuzk_groth16::{
    generate_parameters, generate_random_parameters, prepare_verifying_key, prove, verify_proof, Parameters,
    PointChecks, Proof, ToxicWaste,
};
use cuzk_synth::ProvingAssignment;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

type BellParams = bellperson::groth16::Parameters<Bls12>;

const STEPS: usize = 200;

fn bell_bytes(p: &BellParams) -> Vec<u8> {
    let mut out = Vec::new();
    p.write(&mut out).unwrap();
    out
}

fn cuzk_bytes(p: &Parameters) -> Vec<u8> {
    let mut out = Vec::new();
    p.write(&mut out).unwrap();
    out
}

#[test]
fn bellperson_params_load_and_write_back_identically() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let bell: BellParams =
        bellperson::groth16::generate_random_parameters(BellDemo(Demo::new(1, STEPS)), &mut rng).unwrap();
    let bytes = bell_bytes(&bell);
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), &bytes).unwrap();
    for checks in [PointChecks::None, PointChecks::Subgroup] {
        let ours = Parameters::read(file.path(), checks).unwrap();
        assert_eq!(cuzk_bytes(&ours), bytes);
    }
}

#[test]
fn same_toxic_waste_gives_the_same_file_as_bellperson() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let t = ToxicWaste::random(&mut rng);
    let ours = generate_parameters(CuzkDemo(Demo::new(2, STEPS)), &t, None).unwrap();
    let bell: BellParams = bellperson::groth16::generate_parameters(
        BellDemo(Demo::new(2, STEPS)),
        t.g1,
        t.g2,
        t.alpha,
        t.beta,
        t.gamma,
        t.delta,
        t.tau,
    )
    .unwrap();
    assert_eq!(cuzk_bytes(&ours), bell_bytes(&bell));
}

#[test]
fn cuzk_params_round_trip_through_bellperson_and_proofs_cross_verify() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let params = generate_random_parameters(CuzkDemo(Demo::new(3, STEPS)), &mut rng, None).unwrap();
    let bytes = cuzk_bytes(&params);
    let bell = BellParams::read(&bytes[..], true).unwrap();
    assert_eq!(bell_bytes(&bell), bytes);
    let bell_pvk = bellperson::groth16::prepare_verifying_key(&bell.vk);
    let pvk = prepare_verifying_key(&params.vk).unwrap();

    let demo = Demo::new(33, STEPS);
    let inputs = demo.public_inputs();
    let (r, s) = (Scalar::from(5u64), Scalar::from(7u64));

    // Our proof, checked by bellperson (and equal to bellperson's for the same r, s).
    let pa = ProvingAssignment::synthesize(CuzkDemo(demo.clone())).unwrap();
    let ours = prove(&params, &[pa], &[(r, s)]).unwrap()[0];
    let as_bell = bellperson::groth16::Proof::<Bls12>::read(&ours.to_bytes()[..]).unwrap();
    assert!(bellperson::groth16::verify_proof(&bell_pvk, &as_bell, &inputs).unwrap());
    assert!(!bellperson::groth16::verify_proof(&bell_pvk, &as_bell, &tampered(&inputs)).unwrap());

    let theirs = bellperson::groth16::create_proof(BellDemo(demo.clone()), &bell, r, s).unwrap();
    let mut theirs_bytes = Vec::new();
    theirs.write(&mut theirs_bytes).unwrap();
    assert_eq!(theirs_bytes, ours.to_bytes().to_vec());

    // bellperson's random proof, checked by us.
    let random = bellperson::groth16::create_random_proof(BellDemo(demo), &bell, &mut rng).unwrap();
    let mut random_bytes = Vec::new();
    random.write(&mut random_bytes).unwrap();
    let random = Proof::from_bytes(&random_bytes).unwrap();
    assert!(verify_proof(&pvk, &random, &inputs).unwrap());
    assert!(!verify_proof(&pvk, &random, &tampered(&inputs)).unwrap());
}
