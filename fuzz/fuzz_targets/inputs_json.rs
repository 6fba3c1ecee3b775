//! The public-inputs JSON of `prove --out` (`cuzk::inputs`): any text is
//! refused with a message or decoded, and what decodes encodes and decodes
//! back to the same inputs. The message is bounded (a hostile file's long
//! string must not be echoed whole).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let path = Path::new("fuzz.inputs.json");
    match cuzk::inputs::from_json(text, path) {
        Ok(inputs) => {
            let again = cuzk::inputs::to_json(&inputs);
            assert_eq!(cuzk::inputs::from_json(&again, path).expect("encoded inputs decode"), inputs);
        }
        Err(e) => {
            let message = e.to_string();
            assert!(message.len() < 1024, "a {}-byte error message for a {}-byte input", message.len(), text.len());
        }
    }
});
