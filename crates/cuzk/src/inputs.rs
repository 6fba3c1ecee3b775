//! `PROOFS.inputs.json`: a JSON array with one entry per proof, each an array
//! of that proof's public inputs (without the leading constant one), each a
//! string of 64 lowercase hex digits: the field element, big-endian.

use std::path::Path;

use blstrs::Scalar;

use crate::Error;

/// Encodes inputs for the file.
pub fn to_json(inputs: &[Vec<Scalar>]) -> String {
    let entries: Vec<serde_json::Value> = inputs
        .iter()
        .map(|v| v.iter().map(|s| serde_json::Value::String(hex::encode(s.to_bytes_be()))).collect())
        .collect();
    serde_json::Value::Array(entries).to_string()
}

/// Decodes the file's text; `path` only names the file in errors.
pub fn from_json(text: &str, path: &Path) -> Result<Vec<Vec<Scalar>>, Error> {
    let fail = |message: String| Error::Inputs { path: path.to_path_buf(), message };
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| fail(format!("not valid JSON: {e}")))?;
    let proofs = value.as_array().ok_or_else(|| fail("expected an array of arrays".into()))?;
    proofs
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let items = entry
                .as_array()
                .ok_or_else(|| fail(format!("entry {i}: expected an array of hex strings")))?;
            items
                .iter()
                .enumerate()
                .map(|(j, item)| {
                    let s = item
                        .as_str()
                        .ok_or_else(|| fail(format!("entry {i}, input {j}: expected a string")))?;
                    parse_scalar(s).map_err(|m| fail(format!("entry {i}, input {j}: {m}")))
                })
                .collect()
        })
        .collect()
}

fn parse_scalar(s: &str) -> Result<Scalar, String> {
    if s.len() != 64 || !s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
        return Err(format!("{} is not 64 lowercase hex digits", quoted(s)));
    }
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(s, &mut bytes).map_err(|e| e.to_string())?;
    Option::from(Scalar::from_bytes_be(&bytes))
        .ok_or_else(|| format!("`{s}` is not below the field modulus"))
}

/// `s` in backquotes for an error message, cut to its first 80 characters
/// (with its length) when longer: a hostile file's 10 MiB string must not
/// become a 10 MiB error.
fn quoted(s: &str) -> String {
    const SHOWN: usize = 80;
    match s.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("`{}…` ({} bytes)", &s[..cut], s.len()),
        None => format!("`{s}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;

    fn p() -> &'static Path {
        Path::new("t.json")
    }

    #[test]
    fn round_trips_random_inputs() {
        let mut rng = rand::thread_rng();
        let inputs: Vec<Vec<Scalar>> =
            (0..3).map(|n| (0..n).map(|_| Scalar::random(&mut rng)).collect()).collect();
        assert_eq!(from_json(&to_json(&inputs), p()).unwrap(), inputs);
        assert_eq!(to_json(&[vec![Scalar::from(1)]]), format!("[[\"{}1\"]]", "0".repeat(63)));
    }

    #[test]
    fn malformed_files_name_the_problem() {
        let cases = [
            ("{", "not valid JSON"),
            ("{}", "expected an array of arrays"),
            ("[1]", "entry 0: expected an array"),
            ("[[1]]", "entry 0, input 0: expected a string"),
            ("[[\"ab\"]]", "not 64 lowercase hex digits"),
            (&format!("[[\"{}\"]]", "A".repeat(64)), "not 64 lowercase hex digits"),
            (&format!("[[\"{}\"]]", "f".repeat(64)), "not below the field modulus"),
        ];
        for (text, want) in cases {
            let err = from_json(text, p()).unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
        let huge = format!("[[\"{}\"]]", "é".repeat(5 << 20));
        let err = from_json(&huge, p()).unwrap_err().to_string();
        assert!(err.len() < 400 && err.contains("(10485760 bytes)"), "{}", &err[..err.len().min(400)]);
    }
}
