//! Where an SRS's bases live on one device: which queries stay resident in
//! device memory and which are streamed from pinned host memory, decided
//! from the device's free memory and what a prove call allocates beside the
//! SRS (its working set). Pure arithmetic, so the decisions for any card
//! are tested without one.
//!
//! A 32 GiB PoRep SRS is 47.4 GB; a call at its 2^27 domain needs ~41 GB
//! beside it with the overlapped quotient (its five n-scalar buffers alone
//! are 21.5 GB), ~24 GB with the lean one. An H200 (141 GB) holds both; an
//! H100 (80 GB) does not, and the all-or-nothing rule this replaces kept the
//! whole SRS resident there and left too little for the call, which then
//! failed out of device memory. The plan keeps the working set free first
//! and fills what is left with the queries whose streaming would cost the
//! most bus traffic per call; the lean quotient is taken where its memory
//! buys more than the overlap it gives up. A 16 GB card holds a 2^27 call
//! only with the spilled quotient (two buffers, c in host memory) and the
//! recorded shape's matrices left in host memory (read across the bus):
//! ~15.3 GB.

use std::fmt;

use cuzk_groth16::Parameters;

use crate::GpuError;

/// The number of bases of each query, which an assignment must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SrsSizes {
    /// IC points of the verifying key: public inputs with the constant one.
    pub ic: usize,
    /// H query: domain size − 1.
    pub h: usize,
    /// L query: private variables.
    pub l: usize,
    /// A query: inputs and private variables used in A.
    pub a: usize,
    /// B query (G1 and G2): variables used in B.
    pub b: usize,
}

impl SrsSizes {
    /// The query sizes of `params` (B's counted by its G1 query).
    pub fn of(params: &Parameters) -> SrsSizes {
        SrsSizes {
            ic: params.vk.ic.len(),
            h: params.h.len(),
            l: params.l.len(),
            a: params.a.len(),
            b: params.b_g1.len(),
        }
    }
}

/// One query of the SRS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    /// The H query (G1, domain size − 1 bases).
    H,
    /// The L query (G1, private variables).
    L,
    /// The A query (G1).
    A,
    /// The B query in G1.
    BG1,
    /// The B query in G2.
    BG2,
}

impl Query {
    /// Every query, in the bridge's bit order.
    pub const ALL: [Query; 5] = [Query::H, Query::L, Query::A, Query::BG1, Query::BG2];

    /// Its bit in a [`QuerySet`] (the bridge's, cpp/groth16/srs.hpp).
    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    fn name(self) -> &'static str {
        match self {
            Query::H => "h",
            Query::L => "l",
            Query::A => "a",
            Query::BG1 => "b_g1",
            Query::BG2 => "b_g2",
        }
    }

    /// Its number of bases in an SRS of `sizes`.
    fn len(self, sizes: &SrsSizes) -> u64 {
        (match self {
            Query::H => sizes.h,
            Query::L => sizes.l,
            Query::A => sizes.a,
            Query::BG1 | Query::BG2 => sizes.b,
        }) as u64
    }

    /// Bytes of its bases (affine points: 96 in G1, 192 in G2).
    pub fn bytes(self, sizes: &SrsSizes) -> u64 {
        self.len(sizes) * if self == Query::BG2 { G2_BYTES } else { G1_BYTES }
    }

    /// Bytes of one streamed chunk of it: `chunk_bases` bases, or the
    /// whole query when shorter.
    fn chunk_bytes(self, sizes: &SrsSizes, chunk_bases: u64) -> u64 {
        self.len(sizes).min(chunk_bases) * self.base_bytes()
    }

    /// Bytes of one of its bases.
    fn base_bytes(self) -> u64 {
        if self == Query::BG2 {
            G2_BYTES
        } else {
            G1_BYTES
        }
    }

    /// Bytes a call of [`CIRCUITS_PER_CALL`] circuits moves over the bus
    /// when the query is streamed: its bases once per call (once per
    /// circuit for H, whose scalars are made one circuit at a time), and
    /// for the queries that read the witness on the device when resident,
    /// their scalars per circuit.
    fn streaming_cost(self, sizes: &SrsSizes) -> u64 {
        let calls = CIRCUITS_PER_CALL;
        match self {
            Query::H => calls * self.bytes(sizes),
            _ => self.bytes(sizes) + calls * SCALAR_BYTES * self.len(sizes),
        }
    }
}

/// A set of queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QuerySet(u8);

impl QuerySet {
    /// No query.
    pub const NONE: QuerySet = QuerySet(0);
    /// Every query.
    pub const ALL: QuerySet = QuerySet(31);

    /// The set of the bridge's bits (bits past the five queries ignored).
    pub fn from_bits(bits: u8) -> QuerySet {
        QuerySet(bits & 31)
    }

    /// The bridge's bits.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// The set of these queries.
    pub fn of(queries: &[Query]) -> QuerySet {
        QuerySet(queries.iter().fold(0, |bits, q| bits | q.bit()))
    }

    /// Whether `q` is in the set.
    pub fn contains(self, q: Query) -> bool {
        self.0 & q.bit() != 0
    }

    /// The queries in the set, in bit order.
    pub fn iter(self) -> impl Iterator<Item = Query> {
        Query::ALL.into_iter().filter(move |q| self.contains(*q))
    }

    /// The queries not in the set.
    pub fn complement(self) -> QuerySet {
        QuerySet(!self.0 & 31)
    }

    /// Bytes of the set's bases in an SRS of `sizes`.
    pub fn bytes(self, sizes: &SrsSizes) -> u64 {
        self.iter().map(|q| q.bytes(sizes)).sum()
    }
}

impl fmt::Display for QuerySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("none");
        }
        let names: Vec<&str> = self.iter().map(Query::name).collect();
        f.write_str(&names.join(","))
    }
}

const G1_BYTES: u64 = 96;
const G2_BYTES: u64 = 192;
const SCALAR_BYTES: u64 = 32;
/// Circuits a call is assumed to hold when streaming costs are compared:
/// a 32 GiB PoRep's ten partitions go in calls of about four.
const CIRCUITS_PER_CALL: u64 = 4;
/// Bytes of G2 bases per streamed chunk (each of two staging buffers; the
/// same number of G1 bases take half), cpp/groth16/srs.cpp's default: the
/// least a plan streams with.
pub const STREAM_CHUNK_BYTES: u64 = 256 << 20;
/// Bases per streamed chunk by default: [`STREAM_CHUNK_BYTES`] of G2,
/// rounded up to whole bitmap words as srs.cpp does.
pub const DEFAULT_CHUNK_BASES: u64 = (STREAM_CHUNK_BYTES / G2_BYTES).div_ceil(64) * 64;

/// How a call computes the quotient H (cuda/api/quotient.cu).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotientLayout {
    /// Five n-scalar buffers kept between calls: each circuit's quotient
    /// runs while the previous circuit's H MSM does.
    Overlapped,
    /// Three, allocated as a call needs them (the third once the witness is
    /// freed): 60 % of the buffers, one circuit after the other.
    Lean,
    /// Two, with c = a·b waiting in pinned host memory while a and b are
    /// transformed, and the twiddles built by each call (not kept beside
    /// the witness): for cards that cannot hold the lean layout.
    Spilled,
}

impl QuotientLayout {
    /// Every layout, the overlapped one first (preferred at equal cost).
    pub const ALL: [QuotientLayout; 3] = [QuotientLayout::Overlapped, QuotientLayout::Lean, QuotientLayout::Spilled];

    /// Its n-scalar buffers.
    fn buffers(self) -> u64 {
        match self {
            QuotientLayout::Overlapped => 5,
            QuotientLayout::Lean => 3,
            QuotientLayout::Spilled => 2,
        }
    }

    /// The bridge's number (cuda/api/groth16.hpp's quotient_layout).
    pub fn bits(self) -> u8 {
        match self {
            QuotientLayout::Overlapped => 0,
            QuotientLayout::Lean => 1,
            QuotientLayout::Spilled => 2,
        }
    }

    /// What it costs a call of [`CIRCUITS_PER_CALL`] circuits, in bus
    /// bytes, so that it compares with streaming: nothing for the
    /// overlapped layout; for the lean one, each circuit's quotient no
    /// longer hidden under an MSM, counted as the bytes of its three
    /// buffers (12.9 GB at 2^27, ~0.25 s of a PCIe 5 bus, about what the
    /// quotient's transforms and products take on an H100). An estimate, to
    /// be corrected by measurement (docs/PERF.md).
    /// Spilled: that, and c's round trip over the bus per circuit.
    fn cost(self, n: u64) -> u64 {
        match self {
            QuotientLayout::Overlapped => 0,
            QuotientLayout::Lean => CIRCUITS_PER_CALL * 3 * SCALAR_BYTES * n,
            QuotientLayout::Spilled => CIRCUITS_PER_CALL * 5 * SCALAR_BYTES * n,
        }
    }
}

impl fmt::Display for QuotientLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QuotientLayout::Overlapped => "overlapped",
            QuotientLayout::Lean => "lean",
            QuotientLayout::Spilled => "spilled",
        })
    }
}

/// Device memory a prove call allocates beside the SRS, by purpose. The
/// figures follow the host function (cpp/groth16/prove.cpp) at one circuit
/// at a time: its per-circuit buffers are freed before the next circuit's,
/// so the working set does not grow with the batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkingSet {
    /// How H is computed, which decides what is live at once ([`WorkingSet::total`]).
    pub layout: QuotientLayout,
    /// The quotient's n-scalar buffers: a, b, c and (overlapped) two
    /// results.
    pub quotient: u64,
    /// The transforms' twiddles: n/2 + 1 scalars, kept between calls.
    pub twiddles: u64,
    /// The witness a recorded shape's a, b, c are computed from, and its
    /// classes: 33 bytes per variable (overlapped: kept between calls).
    /// The dense queries that read the aux assignment reuse it as their
    /// window (or, without it, allocate a window of its size instead).
    pub witness: u64,
    /// A recorded shape's matrices (uploaded when the recording is ready,
    /// after the SRS): 48 bytes per domain element, an estimate above the
    /// 32 GiB PoRep's 44 (5.93 GB for 2^27); none when they stay in host
    /// memory ([`WorkingSet::with_shape_on_host`]).
    pub shape: u64,
    /// B's scalars on the device, whole, when either B query is resident:
    /// compacted there by its density when both are, made on the host and
    /// uploaded for the one resident query when only one is (a 32 GiB
    /// WindowPoSt with b_g2 resident and b_g1 streamed ran out of memory on
    /// an H100, 2026-12-07, for these 3.0 GB that the plan did not count).
    pub b_scalars: u64,
    /// The least MSM temporaries of an n-scalar MSM (its sorted digits;
    /// 2.63 GB measured at 2^27).
    pub msm: u64,
    /// The MSM's own reserve: a 64th of the card (cuda/msm/pippenger.cuh).
    pub msm_reserve: u64,
    /// Two staging buffers for the streamed query whose chunks are the
    /// largest (a chunk is `chunk_bases` bases), and two chunks' worth of
    /// scalars (a dense streamed query makes each circuit's scalars of a
    /// chunk, cpp/groth16/prove.cpp's dense_scalars, and the previous
    /// circuit's may not be freed yet).
    pub staging: u64,
    /// Bases per streamed chunk: [`DEFAULT_CHUNK_BASES`], or more where the
    /// plan found room ([`plan`]): each chunk is an MSM of its own, whose
    /// bucket sums and sort cost the same at 1.4 M bases as at 10 M, so a
    /// 2^27 H query in 96 default chunks took about twice its resident MSM
    /// time on an H100 capped to 24 GiB (2026-12-07).
    pub chunk_bases: u64,
    /// Kept free for CUB, streams and the allocator's slack: 2 GiB.
    pub reserve: u64,
}

impl WorkingSet {
    /// The working set of a call over an SRS of `sizes` on a card of
    /// `total` bytes, with the queries of `resident` in device memory and H
    /// computed in `layout`.
    pub fn of(sizes: &SrsSizes, total: u64, resident: QuerySet, layout: QuotientLayout) -> WorkingSet {
        let n = sizes.h as u64 + 1;
        let vars = (sizes.ic + sizes.l) as u64;
        let b_resident = resident.contains(Query::BG1) || resident.contains(Query::BG2);
        WorkingSet {
            layout,
            quotient: layout.buffers() * SCALAR_BYTES * n,
            twiddles: SCALAR_BYTES * (n / 2 + 1),
            witness: (SCALAR_BYTES + 1) * vars,
            shape: 48 * n,
            b_scalars: if b_resident { SCALAR_BYTES * sizes.b as u64 } else { 0 },
            msm: 24 * n,
            msm_reserve: total / 64,
            staging: Self::staging_for(sizes, resident, DEFAULT_CHUNK_BASES),
            chunk_bases: DEFAULT_CHUNK_BASES,
            reserve: 2 << 30,
        }
    }

    /// Two staging buffers of the largest chunk of the queries not in
    /// `resident`, with two chunks of scalars.
    fn staging_for(sizes: &SrsSizes, resident: QuerySet, chunk_bases: u64) -> u64 {
        let per_chunk = |q: Query| q.chunk_bytes(sizes, chunk_bases) + SCALAR_BYTES * q.len(sizes).min(chunk_bases);
        resident.complement().iter().map(|q| 2 * per_chunk(q)).max().unwrap_or(0)
    }

    /// The same with the shape's matrices left in host memory
    /// (DeviceShape::map): none of their bytes on the device.
    pub fn with_shape_on_host(mut self) -> WorkingSet {
        self.shape = 0;
        self
    }

    /// Its bytes: the most that is live at once. Overlapped, everything
    /// may be (the buffers are kept and H overlaps the MSMs). Lean, the
    /// phases of a circuit follow one another: the witness with a and b
    /// (the shape's products), then a, b and c (the transforms), then h
    /// with an MSM's temporaries, then the aux window and B's scalars with
    /// them; the shape, the twiddles and the reserves throughout. Spilled,
    /// the same phases with two buffers in the transforms, and the
    /// twiddles only there.
    pub fn total(&self) -> u64 {
        let always = self.reserve + self.msm_reserve + self.shape;
        if self.layout == QuotientLayout::Overlapped {
            return always + self.twiddles + self.quotient + self.witness + self.b_scalars + self.msm + self.staging;
        }
        let scalars = self.quotient / self.layout.buffers();
        let kept = self.kept_twiddles();
        let phases = [
            kept + self.witness + 2 * scalars,
            self.twiddles + self.quotient,
            kept + scalars + self.msm + self.staging,
            kept + self.witness + self.b_scalars + self.msm + self.staging,
        ];
        always + phases.into_iter().max().unwrap_or(0)
    }

    /// The twiddles while no transform runs: kept by every layout but the
    /// spilled one.
    fn kept_twiddles(&self) -> u64 {
        if self.layout == QuotientLayout::Spilled {
            0
        } else {
            self.twiddles
        }
    }
}

/// Where an SRS's bases go on one device, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The queries kept in device memory; the others are streamed.
    pub resident: QuerySet,
    /// How proofs compute H.
    pub quotient: QuotientLayout,
    /// Whether a recorded shape's matrices stay in host memory
    /// (DeviceShape::map), read across the bus by each circuit's a, b, c.
    pub shape_on_host: bool,
    /// Bytes of the resident bases.
    pub resident_bytes: u64,
    /// Bytes of the streamed bases (each moved over the bus at least once
    /// per call).
    pub streamed_bytes: u64,
    /// What a call needs beside the SRS with this placement.
    pub working_set: WorkingSet,
    /// The device's free and total bytes the plan was made from.
    pub free: u64,
    /// The device's total bytes.
    pub total: u64,
}

impl Placement {
    /// The device bytes the SRS and one call take together at most.
    pub fn peak(&self) -> u64 {
        self.resident_bytes + self.working_set.total()
    }

    /// The same with a recorded shape's matrices left in host memory.
    pub fn with_shape_on_host(self) -> Placement {
        Placement { shape_on_host: true, working_set: self.working_set.with_shape_on_host(), ..self }
    }

    /// The same streaming `chunk_bases` bases per chunk (rounded up to
    /// whole 64-base words, at least one word), the staging counted anew.
    pub fn with_chunk(self, sizes: &SrsSizes, chunk_bases: u64) -> Placement {
        let chunk_bases = chunk_bases.max(1).div_ceil(64) * 64;
        let staging = WorkingSet::staging_for(sizes, self.resident, chunk_bases);
        Placement { working_set: WorkingSet { staging, chunk_bases, ..self.working_set }, ..self }
    }

    /// Pinned host memory the placement takes: the streamed bases, and the
    /// spilled layout's c (n scalars).
    pub fn pinned_host_bytes(&self) -> u64 {
        let spill = if self.quotient == QuotientLayout::Spilled { self.working_set.quotient / 2 } else { 0 };
        self.streamed_bytes + spill
    }

    /// Bases per streamed chunk.
    pub fn stream_chunk(&self) -> u64 {
        self.working_set.chunk_bases
    }

    /// The same with the largest chunks (in words of 64 bases, never fewer
    /// than the default's, never more than the longest streamed query's)
    /// whose peak leaves a quarter of the room it leaves at the default:
    /// fewer, larger MSMs per streamed query where the card has memory to
    /// spare. The staging counts only in the phases of a call that stream,
    /// so a lean call's chunks may grow without raising its peak at all.
    fn with_chunks_grown(self, sizes: &SrsSizes, room: u64) -> Placement {
        let longest = self.resident.complement().iter().map(|q| q.len(sizes)).max().unwrap_or(0);
        let limit = room.saturating_sub(room.saturating_sub(self.peak()) / 4);
        let fits = |words: u64| self.with_chunk(sizes, words * 64).peak() <= limit;
        let (mut lo, mut hi) = (self.stream_chunk() / 64, longest.div_ceil(64));
        if hi <= lo || !fits(lo) {
            return self;
        }
        // The largest word count that fits: lo fits, and above hi no chunk
        // is larger.
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        self.with_chunk(sizes, lo * 64)
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const GB: f64 = 1e9;
        write!(
            f,
            "resident {} ({:.2} GB), streamed {} ({:.2} GB per call, {} bases per chunk), quotient {}, shape {}, working set {:.2} GB, of {:.2} GB free ({:.2} GB card)",
            self.resident,
            self.resident_bytes as f64 / GB,
            self.resident.complement(),
            self.streamed_bytes as f64 / GB,
            self.stream_chunk(),
            self.quotient,
            if self.shape_on_host { "in host memory" } else { "on the device" },
            self.working_set.total() as f64 / GB,
            self.free as f64 / GB,
            self.total as f64 / GB,
        )
    }
}

/// The placement with `resident` in device memory and H computed in
/// `quotient`, whether or not it fits (callers that choose for themselves:
/// tests, streaming on purpose).
pub fn forced(sizes: &SrsSizes, free: u64, total: u64, resident: QuerySet, quotient: QuotientLayout) -> Placement {
    Placement {
        resident,
        quotient,
        shape_on_host: false,
        resident_bytes: resident.bytes(sizes),
        streamed_bytes: resident.complement().bytes(sizes),
        working_set: WorkingSet::of(sizes, total, resident, quotient),
        free,
        total,
    }
}

/// The placement of an SRS of `sizes` on a device with `free` of `total`
/// bytes, where `held` more bytes must stay free for calls over other SRSs
/// already placed there (their working sets beyond this one's).
///
/// Of the placements (resident queries, quotient layout) whose bases and
/// working set fit, the one that costs the least per call is taken: the
/// bus traffic of its streamed queries and the one-at-a-time quotients'
/// [`QuotientLayout::cost`] (ties: the earlier layout, then the most
/// resident bytes), its chunks then grown into the room it leaves. A
/// recorded shape stays on the device unless no placement fits with it
/// there: what reading it across the bus costs a call has not been
/// measured yet, so it is the last resort (a 16 GB card), not a trade
/// against streamed queries. A device that cannot hold one call's working
/// set even with every query streamed, the spilled quotient and the shape
/// in host memory gets a typed error saying how much it needs: such a call
/// would fail out of memory on its first proof.
pub fn plan(sizes: &SrsSizes, free: u64, total: u64, held: u64) -> Result<Placement, GpuError> {
    let room = free.saturating_sub(held);
    let n = sizes.h as u64 + 1;
    [false, true]
        .into_iter()
        .find_map(|shape_on_host| cheapest(sizes, free, total, room, shape_on_host))
        .map(|p| p.with_chunks_grown(sizes, room))
        .ok_or_else(|| {
            let least = WorkingSet::of(sizes, total, QuerySet::NONE, QuotientLayout::Spilled).with_shape_on_host();
            GpuError::DeviceTooSmall { domain: n, needed: least.total() + held, free, total }
        })
}

/// The cheapest placement within `room` with the shape where
/// `shape_on_host` says, if any fits ([`plan`]'s order and ties).
fn cheapest(sizes: &SrsSizes, free: u64, total: u64, room: u64, shape_on_host: bool) -> Option<Placement> {
    let n = sizes.h as u64 + 1;
    let mut best: Option<(u64, Placement)> = None;
    for layout in QuotientLayout::ALL {
        // From every query resident down, so that ties keep the most
        // resident (empty queries cost nothing either way, but streaming
        // needs staging).
        for bits in (0..=QuerySet::ALL.bits()).rev() {
            let resident = QuerySet::from_bits(bits);
            let mut candidate = forced(sizes, free, total, resident, layout);
            if shape_on_host {
                candidate = candidate.with_shape_on_host();
            }
            if candidate.resident_bytes.saturating_add(candidate.working_set.total()) > room {
                continue;
            }
            let streaming: u64 = resident.complement().iter().map(|q| q.streaming_cost(sizes)).sum();
            let cost = streaming + layout.cost(n);
            let better = match &best {
                None => true,
                Some((c, p)) => cost < *c || (cost == *c && p.quotient == layout && candidate.resident_bytes > p.resident_bytes),
            };
            if better {
                best = Some((cost, candidate));
            }
        }
    }
    best.map(|(_, p)| p)
}

#[cfg(test)]
#[path = "placement_tests.rs"]
mod tests;
