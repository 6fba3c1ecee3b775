//! A C1 output as a prover receives it (`cuzk_filecoin::porep`): the first
//! byte picks the form (even: filecoin-ffi's raw JSON; odd: Curio's
//! `c1.json` wrapper), the rest is the input. Any bytes are refused with a
//! short typed error or give a request whose vanilla proofs filecoin-proofs
//! then checks, without a panic.
#![no_main]

use cuzk_filecoin::porep::PoRepRequest;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&form, input)) = data.split_first() else { return };
    let parsed =
        if form % 2 == 0 { PoRepRequest::from_c1_json(input, 42, 1000) } else { PoRepRequest::from_curio_wrapper(input, 1000) };
    let outcome = parsed.and_then(|req| req.check_vanilla());
    if let Err(e) = outcome {
        let message = e.to_string();
        assert!(message.len() <= 2048, "a {}-byte message for {} input bytes", message.len(), input.len());
    }
});
