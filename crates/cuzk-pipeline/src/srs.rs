//! The parameter cache: each file loaded once however many jobs ask for it
//! at once, kept resident, and evicted least recently used first, only
//! while no job holds it, when the budget needs room for another file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use cuzk_groth16::{Parameters, PointChecks, PreparedVerifyingKey};

/// Reports loading progress: (file, bytes done, bytes total).
pub type LoadProgress = Arc<dyn Fn(&Path, u64, u64) + Send + Sync>;

/// Runs once per load, after the file is read and before anyone gets the
/// parameters (the engine prepares its backends here); an error fails the
/// load, and a returned set replaces the one read (the same parameters
/// without their bases, once every device holds them).
pub(crate) type OnLoad = Box<dyn Fn(&Arc<Parameters>) -> Result<Option<Arc<Parameters>>, String> + Send + Sync>;

/// A loaded file: its parameters and its verifying key prepared once, so the
/// engine's self-check of every batch pays no pairing or subgroup checks of
/// the key again (a WindowPoSt key has ~25,800 IC points).
#[derive(Clone)]
pub struct Loaded {
    /// The parameters (without their bases once every device holds them).
    pub params: Arc<Parameters>,
    /// The verifying key, validated and prepared.
    pub pvk: Arc<PreparedVerifyingKey>,
}

type Slot = Arc<OnceLock<Result<Loaded, String>>>;

struct Entry {
    slot: Slot,
    bytes: u64,
    last_used: u64,
}

/// Parameter files loaded once and kept resident.
///
/// Concurrent requests for one file wait for a single load. Entries are
/// evicted least-recently-used first, and only while no job holds them.
pub struct SrsCache {
    entries: Mutex<HashMap<PathBuf, Entry>>,
    clock: Mutex<u64>,
    checks: PointChecks,
    progress: Option<LoadProgress>,
    on_load: Option<OnLoad>,
}

impl SrsCache {
    /// An empty cache that loads with the given point checks.
    pub fn new(checks: PointChecks, progress: Option<LoadProgress>) -> Self {
        SrsCache { entries: Mutex::new(HashMap::new()), clock: Mutex::new(0), checks, progress, on_load: None }
    }

    /// The same, with `on_load` run on every freshly loaded file.
    pub(crate) fn with_on_load(checks: PointChecks, progress: Option<LoadProgress>, on_load: OnLoad) -> Self {
        SrsCache { on_load: Some(on_load), ..Self::new(checks, progress) }
    }

    /// Bytes a file will take once resident (its length: points are stored
    /// uncompressed, the same size they take in memory).
    pub fn resident_bytes(path: &Path) -> Result<u64, String> {
        std::fs::metadata(path).map(|m| m.len()).map_err(|e| e.to_string())
    }

    /// The parameters in `path`, loading them if needed, and the milliseconds
    /// this call waited for a load (0 on a hit).
    pub fn get(&self, path: &Path) -> Result<(Loaded, f64), String> {
        let slot = {
            let tick = self.tick();
            let mut entries = self.entries.lock().expect("srs cache lock");
            let entry = entries.entry(path.to_path_buf()).or_insert_with(|| Entry {
                slot: Arc::new(OnceLock::new()),
                bytes: Self::resident_bytes(path).unwrap_or(0),
                last_used: tick,
            });
            entry.last_used = tick;
            entry.slot.clone()
        };
        if let Some(hit) = slot.get() {
            return hit.clone().map(|p| (p, 0.0));
        }
        let start = Instant::now();
        let loaded = slot.get_or_init(|| self.load(path)).clone();
        let waited = start.elapsed().as_secs_f64() * 1e3;
        if loaded.is_err() {
            self.entries.lock().expect("srs cache lock").remove(path);
        }
        loaded.map(|p| (p, waited))
    }

    /// Whether `path` is resident (or loading).
    pub fn contains(&self, path: &Path) -> bool {
        self.entries.lock().expect("srs cache lock").contains_key(path)
    }

    /// Evicts the least recently used entry that nobody holds, except `keep`;
    /// returns the bytes freed, or `None` when nothing could be evicted.
    pub fn evict_one(&self, keep: &Path) -> Option<u64> {
        let mut entries = self.entries.lock().expect("srs cache lock");
        let victim = entries
            .iter()
            .filter(|(p, e)| {
                p.as_path() != keep
                    && e.slot.get().is_some_and(|r| r.as_ref().is_ok_and(|l| Arc::strong_count(&l.params) == 1))
            })
            .min_by_key(|(_, e)| e.last_used)
            .map(|(p, _)| p.clone())?;
        entries.remove(&victim).map(|e| e.bytes)
    }

    /// Every file resident or loading: its path, its resident bytes, and
    /// whether it is loaded yet.
    pub fn entries(&self) -> Vec<(PathBuf, u64, bool)> {
        let entries = self.entries.lock().expect("srs cache lock");
        entries.iter().map(|(p, e)| (p.clone(), e.bytes, e.slot.get().is_some())).collect()
    }

    /// Drops `path` when it is loaded and nobody holds it: `Ok(Some(bytes))`;
    /// `Ok(None)` when it is not resident; an error saying why it stays
    /// (still loading, or held by a partition being proved).
    pub fn remove_unheld(&self, path: &Path) -> Result<Option<u64>, &'static str> {
        let mut entries = self.entries.lock().expect("srs cache lock");
        let Some(entry) = entries.get(path) else { return Ok(None) };
        match entry.slot.get() {
            None => return Err("still loading"),
            Some(Ok(l)) if Arc::strong_count(&l.params) > 1 => return Err("held by a partition being proved"),
            Some(_) => {}
        }
        Ok(entries.remove(path).map(|e| e.bytes))
    }

    fn load(&self, path: &Path) -> Result<Loaded, String> {
        let progress = self.progress.clone();
        let report = progress.as_ref().map(|p| {
            let path = path.to_path_buf();
            move |done: u64, total: u64| p(&path, done, total)
        });
        let params = match &report {
            Some(r) => Parameters::read_with_progress(path, self.checks, r),
            None => Parameters::read(path, self.checks),
        };
        let params = params.map(Arc::new).map_err(|e| e.to_string())?;
        let pvk = Arc::new(cuzk_groth16::prepare_verifying_key(&params.vk).map_err(|e| e.to_string())?);
        let params = match &self.on_load {
            Some(hook) => hook(&params)?.unwrap_or(params),
            None => params,
        };
        Ok(Loaded { params, pvk })
    }

    fn tick(&self) -> u64 {
        let mut c = self.clock.lock().expect("srs clock lock");
        *c += 1;
        *c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_synth::workloads::MulChain;

    /// Three small parameter files (a mul-chain of 4 steps each, under one
    /// temporary directory), and their lengths.
    fn files(dir: &Path) -> Vec<(PathBuf, u64)> {
        let params =
            cuzk_groth16::generate_random_parameters(MulChain::<blstrs::Scalar>::new(4, 0), &mut rand::thread_rng(), None)
                .unwrap();
        ["a", "b", "c"]
            .iter()
            .map(|name| {
                let path = dir.join(format!("{name}.params"));
                params.write(&mut std::fs::File::create(&path).unwrap()).unwrap();
                let len = std::fs::metadata(&path).unwrap().len();
                (path, len)
            })
            .collect()
    }

    #[test]
    fn eviction_takes_the_least_recently_used_file_nobody_holds() {
        let dir = tempfile::tempdir().unwrap();
        let f = files(dir.path());
        let (a, b, c) = (&f[0].0, &f[1].0, &f[2].0);
        let cache = SrsCache::new(PointChecks::OnCurve, None);
        let held = cache.get(a).unwrap().0.params;
        let (_, loaded_ms) = cache.get(b).unwrap();
        assert!(loaded_ms > 0.0, "a first get loads");
        cache.get(c).unwrap();
        assert_eq!(cache.get(b).unwrap().1, 0.0, "a second get hits");
        // Use order a, b, c, b: a is held, so c is the least recently used free file.
        assert_eq!(cache.evict_one(Path::new("/none")), Some(f[2].1));
        assert!(!cache.contains(c) && cache.contains(a) && cache.contains(b));
        assert_eq!(cache.evict_one(b), None, "a is held and b is kept");
        drop(held);
        assert_eq!(cache.evict_one(b), Some(f[0].1), "a is free once its holder lets go");
        assert_eq!(cache.evict_one(Path::new("/none")), Some(f[1].1));
        assert_eq!(cache.evict_one(Path::new("/none")), None, "nothing is left");
        assert!(cache.get(c).unwrap().1 > 0.0, "an evicted file loads again");
    }

    #[test]
    fn removal_is_refused_while_a_holder_keeps_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = files(dir.path());
        let cache = SrsCache::new(PointChecks::OnCurve, None);
        assert_eq!(cache.remove_unheld(&f[0].0), Ok(None), "nothing resident");
        let held = cache.get(&f[0].0).unwrap().0.params;
        assert_eq!(cache.entries(), vec![(f[0].0.clone(), f[0].1, true)]);
        assert_eq!(cache.remove_unheld(&f[0].0), Err("held by a partition being proved"));
        drop(held);
        assert_eq!(cache.remove_unheld(&f[0].0), Ok(Some(f[0].1)));
        assert!(cache.entries().is_empty());
    }
}
