//! Vanilla proofs as bincode, as Curio sends them for WindowPoSt and
//! SnapDeals (`cuzk_filecoin::window_post`, `cuzk_filecoin::snap`): the
//! first byte picks the kind (even: one WindowPoSt sector proof of a 2 KiB
//! sector; odd: one SnapDeals partition proof of a 2 KiB update, with valid
//! commitments), the rest is the proof. Refused with a short typed error,
//! or checked by filecoin-proofs' vanilla verification, without a panic.
#![no_main]

use cuzk_filecoin::snap::SnapRequest;
use cuzk_filecoin::testdata::window_proof;
use cuzk_filecoin::window_post::WindowPoStRequest;
use cuzk_filecoin::SectorSize;
use filecoin_proofs_api::RegisteredUpdateProof;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&kind, proof)) = data.split_first() else { return };
    let outcome = if kind % 2 == 0 {
        let req = WindowPoStRequest {
            proof: window_proof(SectorSize::Kib2),
            randomness: [5; 32],
            miner_id: 1000,
            partition_index: 0,
            vanilla: vec![proof.to_vec()],
        };
        req.check_vanilla()
    } else {
        // Any canonical commitments: the proof's own are checked against them.
        let comm = [1u8; 32];
        SnapRequest::new(RegisteredUpdateProof::StackedDrg2KiBV1, vec![proof.to_vec()], &comm, &comm, &comm)
            .and_then(|req| req.check_vanilla())
    };
    if let Err(e) = outcome {
        let message = e.to_string();
        assert!(message.len() <= 2048, "a {}-byte message for {} proof bytes", message.len(), proof.len());
    }
});
