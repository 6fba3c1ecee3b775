//! The public-inputs JSON (`cuzk::inputs`) under mutation: a valid file
//! mutated byte-wise (see cuzk-synth's `tests/mutation/`), and well-formed
//! JSON of every wrong shape. Each is refused with a message that names the
//! file and stays short, or decodes to inputs that encode and decode back the
//! same; never a panic, never seconds of work (a time box per case).

#[path = "../../cuzk-synth/tests/mutation/mod.rs"]
mod mutation;

use std::path::Path;

use blstrs::Scalar;
use cuzk::inputs::{from_json, to_json};
use proptest::prelude::*;
use serde_json::Value;

const PATH: &str = "mutated.inputs.json";

/// Three proofs' inputs: none, one, and two of them, one the largest element.
fn valid() -> String {
    to_json(&[vec![], vec![Scalar::from(7)], vec![-Scalar::from(1), Scalar::from(u64::MAX)]])
}

fn check(text: &str) -> Result<(), TestCaseError> {
    match from_json(text, Path::new(PATH)) {
        Ok(inputs) => prop_assert_eq!(from_json(&to_json(&inputs), Path::new(PATH)).unwrap(), inputs),
        Err(e) => {
            let message = e.to_string();
            prop_assert!(message.starts_with(PATH), "the error does not name the file: {}", message);
            prop_assert!(message.len() < 512, "a {}-byte error for a {}-byte file", message.len(), text.len());
        }
    }
    Ok(())
}

/// Any JSON value, nested a few levels, strings drawn near the valid form.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<f64>().prop_map(|f| serde_json::json!(f)),
        any::<i64>().prop_map(|i| serde_json::json!(i)),
        "[0-9a-fA-F]{0,70}".prop_map(Value::String),
        ".{0,300}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{0,4}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, timeout: mutation::CASE_TIMEOUT_MS, ..ProptestConfig::default() })]

    /// Byte mutations of a valid file; overwrites aim at the strings' quotes.
    #[test]
    fn mutated_inputs_files_are_refused_or_read_back(ms in mutation::mutations()) {
        let text = valid();
        let quotes: Vec<usize> = text.match_indices('"').map(|(i, _)| i).collect();
        let bytes = mutation::apply(text.as_bytes(), &quotes, &ms);
        if let Ok(text) = std::str::from_utf8(&bytes) {
            check(text)?;
        }
    }

    /// Well-formed JSON of any shape.
    #[test]
    fn json_of_any_shape_is_refused_or_read_back(value in json()) {
        check(&value.to_string())?;
    }
}

#[test]
fn the_valid_file_reads() {
    assert_eq!(from_json(&valid(), Path::new(PATH)).unwrap().len(), 3);
}
