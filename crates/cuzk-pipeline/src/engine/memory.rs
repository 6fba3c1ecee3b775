//! The engine's byte rules: what a partition holds, what a parameter file
//! holds while resident, and when a recording may stay. Every reservation
//! goes through the one [`MemoryBudget`](crate::budget::MemoryBudget) under
//! the state lock, so a check and the reservation that follows are one step.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cuzk_groth16::Parameters;

use super::state::{Shared, State};
use crate::srs::SrsCache;
use crate::EngineError;

/// Backend temporaries are assumed to take as much again as the witness and
/// a/b/c they work on (the CPU prover's coset vectors, the GPU host's split
/// vectors and pinned staging).
const TEMPORARIES_FACTOR: u64 = 2;

/// Bytes one partition of a circuit matching `params` holds: its witness,
/// a/b/c, density bitsets, and the backend's temporaries.
pub(super) fn partition_bytes(params: &Parameters) -> u64 {
    let domain = params.counts().h as u64 + 1;
    let vars = (params.vk.ic.len() + params.counts().l) as u64;
    (3 * domain + vars) * 32 * TEMPORARIES_FACTOR + vars / 2
}

/// What a partition that stopped at its witness holds until it is
/// proved: the witness and the host function's split of it (bitmaps,
/// tail scalars; at most two queries' worth of scalars when dense), but
/// no a, b, c. Synthesis reserves [`partition_bytes`] (it cannot know the
/// outcome in advance) and gives the difference back after.
pub(super) fn witness_bytes(params: &Parameters) -> u64 {
    let vars = (params.vk.ic.len() + params.counts().l) as u64;
    vars * 32 * (1 + TEMPORARIES_FACTOR) + vars / 2
}

impl State {
    /// Bytes of the budget that partitions can ever have: the total less
    /// resident parameters and recordings.
    pub(super) fn room_for_partitions(&self) -> u64 {
        let held = self.srs_reserved.values().sum::<u64>() + self.recordings_reserved;
        self.budget.total().saturating_sub(held)
    }

    /// Keeps a recording of `bytes` for the engine's life when a partition of
    /// `partition` bytes still fits beside it and the parameters; false when
    /// it does not (the caller drops the recording).
    pub(super) fn admit_recording(&mut self, bytes: u64, partition: u64) -> bool {
        let fits = bytes.saturating_add(partition) <= self.room_for_partitions() && self.budget.try_reserve(bytes);
        if fits {
            self.recordings_reserved += bytes;
        }
        fits
    }

    /// Gives back the bytes of a recording dropped because it did not fit
    /// its circuit (at most what recordings hold).
    pub(super) fn release_recording(&mut self, bytes: u64) {
        let bytes = bytes.min(self.recordings_reserved);
        self.recordings_reserved -= bytes;
        self.budget.release(bytes);
    }
}

impl Shared {
    /// The parameters in `path`, loading them on a miss; a failed load gives
    /// its budget reservation back. Parameters whose bases the devices hold
    /// give back all but the key's bytes and the pinned host memory the
    /// devices stream bases from.
    pub(super) fn load_params(&self, path: &Path) -> Result<(Arc<Parameters>, f64), EngineError> {
        let (loaded, ms) = self.srs.get(path).map_err(|message| {
            let mut st = self.lock();
            if let Some(b) = st.srs_reserved.remove(path) {
                st.budget.release(b);
            }
            EngineError::Params { path: path.to_path_buf(), message }
        })?;
        let params = loaded.params;
        if !params.has_bases() {
            // The devices hold the bases: the host keeps the key, and the
            // pinned copies of the queries the devices stream.
            let pinned: u64 = self.backends.iter().map(|b| b.pinned_bytes(&params)).sum();
            let kept = params.vk.ic.len() as u64 * 96 + 1024 + pinned;
            let mut st = self.lock();
            let State { srs_reserved, budget, .. } = &mut *st;
            if let Some(reserved) = srs_reserved.get_mut(path).filter(|r| **r > kept) {
                budget.release(*reserved - kept);
                *reserved = kept;
                drop(st);
                self.wake.notify_all();
            }
        }
        Ok((params, ms))
    }

    /// Reserves the resident bytes of a parameter file the first time it is
    /// needed, evicting unused files if that makes room.
    pub(super) fn reserve_srs(&self, st: &mut State, path: &PathBuf) -> Result<(), EngineError> {
        if st.srs_reserved.contains_key(path) {
            return Ok(());
        }
        let bytes = SrsCache::resident_bytes(path)
            .map_err(|message| EngineError::Params { path: path.clone(), message })?;
        while !st.budget.try_reserve(bytes) {
            match self.srs.evict_one(path) {
                Some(_) => {
                    let evicted: Vec<PathBuf> = st
                        .srs_reserved
                        .keys()
                        .filter(|p| !self.srs.contains(p))
                        .cloned()
                        .collect();
                    for p in evicted {
                        let b = st.srs_reserved.remove(&p).unwrap_or(0);
                        st.budget.release(b);
                    }
                }
                None => {
                    return Err(EngineError::TooLarge { needed: bytes, budget: st.budget.total() })
                }
            }
        }
        st.srs_reserved.insert(path.clone(), bytes);
        Ok(())
    }
}
