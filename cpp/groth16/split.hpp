//! The split vectors (DESIGN §4.2), built on the CPU while the GPU computes H.
//! Filecoin witnesses are mostly bits, so for each query (L, A, B) every base
//! position is classified per circuit: a zero scalar drops out, a one is a bit
//! in that circuit's bitmap (summed by GPU batch addition, no multiplication),
//! and anything else, or any public input, joins the tail: the union of tail
//! positions over the batch, whose bases are gathered once and whose scalars
//! each circuit proves with one Pippenger MSM. When the tail covers more than
//! half the query, a plain MSM over every base is cheaper and is used instead.
#pragma once

#include <cstdint>
#include <vector>

#include "curve.hpp"
#include "parallel.hpp"

namespace cuzk::g16 {

/// The part of one circuit's assignment the split reads (host memory).
struct circuit_view {
    const fr_t* input;
    uint64_t num_inputs;
    const fr_t* aux;
    uint64_t num_aux;
    const uint64_t* a_aux_density;    // ceil(num_aux / 64) words
    const uint64_t* b_input_density;  // ceil(num_inputs / 64) words
    const uint64_t* b_aux_density;    // ceil(num_aux / 64) words
};

/// Which query a split is for; they differ in which variables have a base.
enum class query { l, a, b };

/// Bases of a query a circuit needs: L every aux variable; A every input,
/// then the aux variables of the A density; B the inputs, then the aux
/// variables, of the B densities.
uint64_t query_len(query q, const circuit_view& c);

/// The aux density of query q (null for L, whose bases are every aux variable).
const uint64_t* aux_density(query q, const circuit_view& c);

/// The split of one query over a batch.
struct query_split {
    uint64_t len = 0;
    /// True: one MSM over all `len` bases per circuit (scalars hold all of
    /// them, except for L, whose scalars are the aux assignment itself).
    bool dense = false;
    /// Sparse only: per circuit, bit p set where base p's scalar is one:
    /// one bitmap of `words` words per circuit, end to end, so that one
    /// batch addition sums them all.
    host_vector<uint64_t> ones;
    uint64_t words = 0;
    /// Sparse only: the tail's base positions, ascending.
    host_vector<uint32_t> tail;
    /// Per circuit: the tail scalars (sparse) or all scalars (dense, A and
    /// B), or with `aux_direct` or `aux_compacted` only the query's inputs.
    std::vector<host_vector<fr_t>> scalars;
    /// Dense A or B where every aux variable has a base (as in dense
    /// circuits): the aux part of the scalars is the aux assignment as it is,
    /// so only the inputs are copied. Copying the whole query into fresh
    /// memory cost ~80 ms per 2^20 variables on the H200 host, on the path
    /// of every dense proof.
    bool aux_direct = false;
    /// Dense A or B whose density leaves some aux variables out, split for
    /// a device that holds the aux assignment (the caller's choice): the aux
    /// part of the scalars is the aux values the density selects, in order,
    /// which the device compacts from its copy (g16::compact), so only the
    /// inputs are copied. WindowPoSt's B scalars were zero-filled, copied
    /// and uploaded twice (G1 and G2) from host memory: with the split's
    /// bitmaps, ~1 s of a 2^27 call's host work alone, ~2 s while
    /// synthesis ran (docs/PERF.md, the 2026-12-04 runs of d8a4930).
    bool aux_compacted = false;
};

/// One circuit's aux variables by class: bit j of `ones` is set where aux j
/// is one, of `others` where it is neither zero nor one.
struct aux_classes {
    host_vector<uint64_t> ones, others;
};

/// The classes of every circuit's aux variables: the one pass over the
/// values that the three splits share. `threads` bounds the workers; adds
/// the milliseconds spent allocating the bitmaps to *alloc_ms.
std::vector<aux_classes> classify_aux(const std::vector<circuit_view>& circuits, unsigned threads, double* alloc_ms);

/// The split of one query for every circuit (each needing the same number
/// of bases), from their classes; `threads` bounds the workers; adds the
/// milliseconds spent allocating the split vectors to *alloc_ms. With
/// `compact_on_device`, a dense query is `aux_compacted` where it is not
/// `aux_direct`.
query_split split_query(query q, const std::vector<circuit_view>& circuits, const std::vector<aux_classes>& classes,
                        unsigned threads, double* alloc_ms, bool compact_on_device);

}  // namespace cuzk::g16
