//! Test hooks of the Groth16 host function's CPU parts: the split of one
//! query, the stepwise release of pages, the epilogue alone and the
//! `CUZK_TIMING:` line, so host tests check each without a GPU.
#include <cstring>
#include <string>
#include <vector>

#include "../../cuda/util/error.hpp"
#include "../groth16/circuit.hpp"
#include "../groth16/epilogue.hpp"
#include "../groth16/parallel.hpp"
#include "../groth16/split.hpp"
#include "../groth16/timing.hpp"
#include "cuzk-ffi/src/hooks.rs.h"

namespace cuzk {

using namespace g16;

Groth16Split groth16_split_hook(rust::Slice<const Groth16Circuit> circuits, uint8_t query_index, uint32_t threads,
                                bool compact) {
    if (query_index > 2) throw_invalid("query " + std::to_string(query_index) + ": not 0 (L), 1 (A) or 2 (B)");
    const query q = query_index == 0 ? query::l : query_index == 1 ? query::a : query::b;
    std::vector<circuit_view> views;
    for (size_t i = 0; i < circuits.size(); i++) {
        views.push_back(view_of(circuits[i], i));
        if (query_len(q, views[i]) != query_len(q, views[0]))
            throw_invalid("circuit " + std::to_string(i) + " has another number of bases in the query");
    }
    double alloc_ms = 0;
    const unsigned workers = std::max(1u, threads);
    const query_split split =
        split_query(q, views, classify_aux(views, workers, &alloc_ms), workers, &alloc_ms, compact);
    Groth16Split out;
    out.len = split.len;
    out.dense = split.dense;
    for (uint64_t w : split.ones) out.ones.push_back(w);
    for (uint32_t p : split.tail) out.tail.push_back(p);
    // With aux_direct the host function reads the aux part from the
    // assignment, with aux_compacted the device compacts it by the density;
    // the hook appends it, so the output is what the MSMs read.
    for (size_t i = 0; i < split.scalars.size(); i++) {
        const auto* limbs = reinterpret_cast<const uint64_t*>(split.scalars[i].data());
        for (size_t k = 0; k < 4 * split.scalars[i].size(); k++) out.scalars.push_back(limbs[k]);
        if (!split.aux_direct && !split.aux_compacted) continue;
        const auto* aux = reinterpret_cast<const uint64_t*>(views[i].aux);
        const uint64_t* density = split.aux_compacted ? aux_density(q, views[i]) : nullptr;
        for (uint64_t j = 0; j < views[i].num_aux; j++) {
            if (density && !((density[j / 64] >> (j % 64)) & 1)) continue;
            for (size_t k = 0; k < 4; k++) out.scalars.push_back(aux[4 * j + k]);
        }
    }
    return out;
}

void release_pages_hook(rust::Slice<uint8_t> buffer, size_t first, size_t len) {
    if (first > buffer.size() || len > buffer.size() - first)
        throw_invalid("release_pages: " + std::to_string(first) + " + " + std::to_string(len) + " past " +
                      std::to_string(buffer.size()) + " bytes");
    release_pages(buffer.data() + first, len);
}

void groth16_epilogue_hook(rust::Slice<const uint64_t> vk, rust::Slice<const uint64_t> sums,
                           rust::Slice<const uint64_t> rs, rust::Slice<uint8_t> proof) {
    using namespace g16;
    constexpr size_t j1 = jacobian_limbs<ff::fp_t>, j2 = jacobian_limbs<ff::fp2_t>;
    if (sums.size() != 4 * j1 + j2) throw_invalid("epilogue: sums must be ΣA, ΣB1, ΣB2, ΣL, ΣH as Jacobian limbs");
    if (rs.size() != 8) throw_invalid("epilogue: rs must be r then s (4 limbs each)");
    if (proof.size() != 192) throw_invalid("epilogue: a proof is 192 bytes");
    const uint64_t* p = sums.data();
    circuit_sums s;
    s.a = from_jacobian_limbs<ff::fp_t>(p);
    s.b_g1 = from_jacobian_limbs<ff::fp_t>(p + j1);
    s.b_g2 = from_jacobian_limbs<ff::fp2_t>(p + 2 * j1);
    s.l = from_jacobian_limbs<ff::fp_t>(p + 2 * j1 + j2);
    s.h = from_jacobian_limbs<ff::fp_t>(p + 3 * j1 + j2);
    fr_t r, sc;
    std::memcpy(&r, rs.data(), 32);
    std::memcpy(&sc, rs.data() + 4, 32);
    const blinding bl = blind(read_vk(span_of(vk)), r, sc);
    epilogue(bl, s, sum_product(bl, s, 0), sum_product(bl, s, 1), proof.data());
}

rust::String groth16_timing_line(const Groth16Timings& timings) { return rust::String(timing_line(timings)); }

}  // namespace cuzk
