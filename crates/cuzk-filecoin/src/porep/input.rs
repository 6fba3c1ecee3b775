//! Curio's two ways of handing over a C1 output: its `c1.json` wrapper and
//! the raw `SealCommitPhase1Output` JSON filecoin-ffi returns. Decoding
//! errors name the field and never quote more than a few dozen characters of
//! what was sent (a 32 GiB C1 is ~50 MB of JSON).

use base64::Engine;
use filecoin_proofs_api::seal::SealCommitPhase1Output;
use serde::Deserialize;

use crate::error::FilecoinError;

/// Curio's `c1OutputWrapper` (lib/ffi/cuzk_funcs.go), also lotus-bench's
/// `Commit2In`: Go's `json.Marshal` writes the C1 JSON bytes as standard
/// base64 with padding.
#[derive(Deserialize)]
struct CurioWrapper {
    #[serde(rename = "SectorNum")]
    sector_num: i64,
    #[serde(rename = "Phase1Out")]
    phase1_out: Option<String>,
    #[serde(rename = "SectorSize")]
    sector_size: u64,
}

/// What Curio's wrapper holds once decoded.
pub(crate) struct Wrapped {
    pub(crate) c1: SealCommitPhase1Output,
    pub(crate) sector_number: u64,
    pub(crate) sector_size: u64,
}

/// Decodes Curio's `c1.json` wrapper.
pub(crate) fn curio_wrapper(bytes: &[u8]) -> Result<Wrapped, FilecoinError> {
    let w: CurioWrapper =
        serde_json::from_slice(bytes).map_err(|e| FilecoinError::input("c1.json", json_reason(&e)))?;
    let sector_number = u64::try_from(w.sector_num)
        .map_err(|_| FilecoinError::input("SectorNum", format!("{} is negative", w.sector_num)))?;
    let b64 =
        w.phase1_out.ok_or_else(|| FilecoinError::input("Phase1Out", "missing or null (Curio sent no C1 output)"))?;
    let json = base64::engine::general_purpose::STANDARD
        .decode(b64.as_bytes())
        .map_err(|e| FilecoinError::input("Phase1Out", format!("not standard base64: {e}")))?;
    let c1 = c1_json(&json, "Phase1Out")?;
    Ok(Wrapped { c1, sector_number, sector_size: w.sector_size })
}

/// Decodes filecoin-ffi's C1 JSON; `field` names where it came from.
pub(crate) fn c1_json(bytes: &[u8], field: &str) -> Result<SealCommitPhase1Output, FilecoinError> {
    refuse_container_floods(bytes, field)?;
    serde_json::from_slice(bytes).map_err(|e| {
        FilecoinError::input(field, format!("not a C1 output (SealCommitPhase1Output JSON): {}", json_reason(&e)))
    })
}

/// Most arrays and objects a C1 JSON may open per byte, as one per this
/// many bytes (a few thousand are always allowed). Each decodes into at
/// least a 24-byte vector, so `[],` (3 bytes) decodes into 8 times its size:
/// 85 M empty arrays in an in-limit message took 3.7 GB before serde
/// refused them. A real C1 opens one per ~100 bytes: its hashes are arrays
/// of 32 numbers.
const BYTES_PER_CONTAINER: usize = 16;

/// Refuses JSON that opens more arrays and objects than
/// [`BYTES_PER_CONTAINER`] allows, counted in one pass over the bytes
/// (brackets inside strings skipped) before anything is decoded.
fn refuse_container_floods(bytes: &[u8], field: &str) -> Result<(), FilecoinError> {
    let (mut containers, mut in_string, mut escaped) = (0usize, false, false);
    for &b in bytes {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => containers += 1,
            _ => {}
        }
    }
    let allowed = 4096 + bytes.len() / BYTES_PER_CONTAINER;
    if containers > allowed {
        return Err(FilecoinError::input(
            field,
            format!(
                "{containers} JSON arrays and objects in {} bytes, more than one per {BYTES_PER_CONTAINER} bytes; \
                 no C1 output has that many (refused before decoding)",
                bytes.len()
            ),
        ));
    }
    Ok(())
}

/// Longest run of quoted input kept in a message, in characters.
const QUOTE_CHARS: usize = 32;
/// Longest message kept, in characters, before the position.
const MESSAGE_CHARS: usize = 240;

/// serde_json's message with every quoted piece of input (serde quotes
/// strings with `"` and variant or field names with backticks) cut to
/// [`QUOTE_CHARS`] and the whole cut to [`MESSAGE_CHARS`], then the position.
pub(crate) fn json_reason(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    let message = if e.line() > 0 { full.strip_suffix(&position).unwrap_or(&full) } else { &full };
    let mut short = cap_quotes(message);
    if let Some((cut, _)) = short.char_indices().nth(MESSAGE_CHARS) {
        short.truncate(cut);
        short.push('…');
    }
    if e.line() > 0 {
        short.push_str(&position);
    }
    short
}

/// `text` with the inside of each `"…"` or `` `…` `` pair cut to [`QUOTE_CHARS`].
fn cap_quotes(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4 * MESSAGE_CHARS));
    let mut rest = text;
    while let Some(open) = rest.find(['"', '`']) {
        let delim = rest[open..].chars().next().unwrap_or('"');
        out.push_str(&rest[..=open]);
        let inside = &rest[open + 1..];
        let close = inside.find(delim).unwrap_or(inside.len());
        let quoted = &inside[..close];
        match quoted.char_indices().nth(QUOTE_CHARS) {
            Some((cut, _)) => {
                out.push_str(&quoted[..cut]);
                out.push('…');
            }
            None => out.push_str(quoted),
        }
        if close < inside.len() {
            out.push(delim);
            rest = &inside[close + 1..];
        } else {
            rest = "";
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_input_is_capped() {
        let long = "x".repeat(10_000);
        let e = serde_json::from_str::<u64>(&format!("\"{long}\"")).unwrap_err();
        let reason = json_reason(&e);
        assert!(reason.len() < 200, "{reason}");
        assert!(reason.contains("xxxx…\""), "{reason}");
        assert!(reason.ends_with("at line 1 column 10002"), "{reason}");

        assert_eq!(cap_quotes("a `b` \"c"), "a `b` \"c");
        let capped = cap_quotes(&format!("unknown variant `{long}`, expected `A`"));
        assert_eq!(capped, format!("unknown variant `{}…`, expected `A`", "x".repeat(QUOTE_CHARS)));
    }

    #[test]
    fn messages_without_position_are_kept() {
        let e = serde_json::from_str::<u64>("").unwrap_err();
        assert!(json_reason(&e).contains("EOF"), "{}", json_reason(&e));
    }

    #[test]
    fn a_flood_of_empty_arrays_is_refused_before_decoding() {
        let flood = format!(
            r#"{{"registered_proof":"StackedDrg2KiBV1_1","vanilla_proofs":{{"StackedDrg2KiBV1":[{}[]]}}}}"#,
            "[],".repeat(200_000)
        );
        let err = c1_json(flood.as_bytes(), "c1").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.starts_with("invalid c1: 200004 JSON arrays and objects"), "{err}");
        // Brackets inside strings are not containers; escaped quotes do not end them.
        let quoted = format!(r#"["{}\"{}"]"#, "[".repeat(100_000), "{".repeat(100_000));
        assert!(refuse_container_floods(quoted.as_bytes(), "c1").is_ok());
        // Arrays of 32 numbers, as a C1's hashes are, pass.
        let hashes = format!("[{}[0]]", format!("[{}],", ["255"; 32].join(",")).repeat(10_000));
        assert!(refuse_container_floods(hashes.as_bytes(), "c1").is_ok());
    }

    #[test]
    fn wrapper_fields_are_named() {
        let err = |json: &str| curio_wrapper(json.as_bytes()).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err("{").starts_with("invalid c1.json:"), "{}", err("{"));
        assert!(err(r#"{"SectorNum":-1,"Phase1Out":"","SectorSize":2048}"#).starts_with("invalid SectorNum"));
        assert!(err(r#"{"SectorNum":1,"Phase1Out":null,"SectorSize":2048}"#).starts_with("invalid Phase1Out"));
        assert!(err(r#"{"SectorNum":1,"Phase1Out":"!!!!","SectorSize":2048}"#).contains("base64"));
        assert!(
            err(r#"{"SectorNum":1,"Phase1Out":"e30=","SectorSize":2048}"#).starts_with("invalid Phase1Out: not a C1")
        );
        assert!(err(r#"{"SectorNum":1,"SectorSize":2048}"#).starts_with("invalid Phase1Out: missing"));
        assert!(err(r#"{"Phase1Out":"","SectorSize":2048}"#).contains("missing field `SectorNum`"));
    }
}
