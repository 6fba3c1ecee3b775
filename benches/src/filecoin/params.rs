//! The parameter file of a circuit id in a Filecoin parameter cache
//! directory, named as filecoin-proofs names it: used when present (real
//! Filecoin parameters serve as well as test ones), otherwise written once
//! as random **test** parameters by cuzk's setup, which the run says, with
//! the time it took. bellperson reads the same file.

use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use cuzk_filecoin::{CircuitId, ParamCache, ParamFiles};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use crate::error::BenchError;

/// The files of `id` in `dir` and, when this call wrote them, the setup's
/// milliseconds. `note` receives progress lines (one per setup phase).
pub fn ensure(
    dir: &Path,
    id: CircuitId,
    seed: u64,
    note: &dyn Fn(&str),
) -> Result<(ParamFiles, Option<f64>), BenchError> {
    std::fs::create_dir_all(dir).map_err(|source| BenchError::Io { path: dir.to_path_buf(), source })?;
    let cache = ParamCache::new(dir);
    let files = cache.files(id)?;
    if files.params.exists() && files.vk.exists() && files.meta.exists() {
        note(&format!("{id}: using {}", files.params.display()));
        return Ok((files, None));
    }
    note(&format!(
        "{id}: no parameters in {}: writing random TEST parameters with cuzk's setup (not Filecoin's)",
        dir.display()
    ));
    let start = Instant::now();
    let phase = Mutex::new(String::new());
    let progress = |name: &str, _done: u64, _total: u64| {
        let mut last = phase.lock().unwrap_or_else(|p| p.into_inner());
        if *last != name {
            note(&format!("{id}: setup {name} ({:.1} s in)", start.elapsed().as_secs_f64()));
            *last = name.to_string();
        }
    };
    let mut rng = ChaCha20Rng::seed_from_u64(seed ^ 0x5e7);
    let files = cache.write_test_params(id, &mut rng, Some(&progress))?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    note(&format!("{id}: wrote {} in {:.1} s", files.params.display(), ms / 1e3));
    Ok((files, Some(ms)))
}
