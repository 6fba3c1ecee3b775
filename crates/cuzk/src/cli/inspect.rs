//! `cuzk params inspect`: section counts and layout validity.

use std::path::Path;
use std::process::ExitCode;

use cuzk::Error;

/// Prints the summary; an invalid layout is reported (as JSON with `--json`)
/// and exits non-zero.
pub fn run(file: &Path, json: bool) -> Result<ExitCode, Error> {
    let summary = match cuzk::groth16::params::inspect(file) {
        Ok(s) => s,
        Err(e) if json => {
            let v = serde_json::json!({
                "file": file.display().to_string(),
                "valid": false,
                "problem": e.to_string(),
            });
            println!("{v}");
            return Ok(ExitCode::FAILURE);
        }
        Err(e) => return Err(e.into()),
    };
    let s = summary;
    if json {
        let v = serde_json::json!({
            "file": file.display().to_string(),
            "file_len": s.file_len,
            "ic": s.ic, "h": s.h, "l": s.l, "a": s.a, "b_g1": s.b_g1, "b_g2": s.b_g2,
            "valid": true,
        });
        println!("{v}");
    } else {
        println!("file:   {} ({} bytes)", file.display(), s.file_len);
        println!("ic:     {}", s.ic);
        println!("h:      {}", s.h);
        println!("l:      {}", s.l);
        println!("a:      {}", s.a);
        println!("b_g1:   {}", s.b_g1);
        println!("b_g2:   {}", s.b_g2);
        println!("layout: valid");
    }
    Ok(ExitCode::SUCCESS)
}
