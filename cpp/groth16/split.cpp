// Classification of the witness into zeros, ones and the tail (split.hpp).
#include "split.hpp"

#include <chrono>

#include "parallel.hpp"

namespace cuzk::g16 {
namespace {

bool bit(const uint64_t* words, uint64_t i) { return (words[i / 64] >> (i % 64)) & 1; }
void set_bit(std::vector<uint64_t>& words, uint64_t i) { words[i / 64] |= uint64_t(1) << (i % 64); }

uint64_t popcount(const uint64_t* words, uint64_t bits) {
    uint64_t n = 0;
    for (uint64_t w = 0; w < (bits + 63) / 64; w++) n += uint64_t(__builtin_popcountll(words[w]));
    return n;
}

/// Calls f(position, value, is_input) for every variable with a base in
/// query q, in increasing base position (which is variable order).
template <class F>
void walk(query q, const circuit_view& c, F&& f) {
    uint64_t pos = 0;
    if (q != query::l) {
        for (uint64_t i = 0; i < c.num_inputs; i++) {
            if (q == query::a || bit(c.b_input_density, i)) f(pos++, c.input[i], true);
        }
    }
    const uint64_t* density = q == query::a ? c.a_aux_density : q == query::b ? c.b_aux_density : nullptr;
    for (uint64_t j = 0; j < c.num_aux; j++) {
        if (!density || bit(density, j)) f(pos++, c.aux[j], false);
    }
}

bool is_one(const fr_t& x) { return x == fr_t::one(); }

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

uint64_t query_len(query q, const circuit_view& c) {
    switch (q) {
        case query::l: return c.num_aux;
        case query::a: return c.num_inputs + popcount(c.a_aux_density, c.num_aux);
        case query::b: return popcount(c.b_input_density, c.num_inputs) + popcount(c.b_aux_density, c.num_aux);
    }
    return 0;
}

query_split split_query(query q, const std::vector<circuit_view>& circuits, unsigned threads, double* alloc_ms) {
    query_split out;
    const size_t count = circuits.size();
    if (count == 0) return out;
    out.len = query_len(q, circuits[0]);
    const uint64_t words = (out.len + 63) / 64;

    // Per circuit: its ones, and its tail positions (inputs and other scalars).
    auto start = std::chrono::steady_clock::now();
    out.ones.assign(count, std::vector<uint64_t>(words, 0));
    std::vector<std::vector<uint64_t>> others(count, std::vector<uint64_t>(words, 0));
    *alloc_ms += ms_since(start);
    parallel_for(count, threads, [&](size_t i) {
        walk(q, circuits[i], [&](uint64_t pos, const fr_t& v, bool input) {
            if (input || !(v.is_zero() || is_one(v))) {
                set_bit(others[i], pos);
            } else if (is_one(v)) {
                set_bit(out.ones[i], pos);
            }
        });
    });
    std::vector<uint64_t> tail_bits(words, 0);
    for (const auto& o : others) {
        for (uint64_t w = 0; w < words; w++) tail_bits[w] |= o[w];
    }
    others.clear();
    const uint64_t tail_len = popcount(tail_bits.data(), out.len);
    out.dense = 2 * tail_len > out.len;

    if (out.dense) {
        out.ones.clear();
        // L's scalars are the aux assignment as it is: nothing to copy.
        if (q == query::l) return out;
        start = std::chrono::steady_clock::now();
        out.scalars.assign(count, std::vector<fr_t>(out.len));
        *alloc_ms += ms_since(start);
        parallel_for(count, threads, [&](size_t i) {
            walk(q, circuits[i], [&](uint64_t pos, const fr_t& v, bool) { out.scalars[i][pos] = v; });
        });
        return out;
    }

    start = std::chrono::steady_clock::now();
    out.scalars.assign(count, std::vector<fr_t>(tail_len, fr_t::zero()));
    out.tail.reserve(tail_len);
    *alloc_ms += ms_since(start);
    for (uint64_t p = 0; p < out.len; p++) {
        if (bit(tail_bits.data(), p)) out.tail.push_back(uint32_t(p));
    }
    // A circuit's tail scalar is its value where that is an input or other;
    // where its value is one (counted by its bitmap) or zero, it is zero.
    parallel_for(count, threads, [&](size_t i) {
        auto& s = out.scalars[i];
        uint64_t t = 0;
        walk(q, circuits[i], [&](uint64_t pos, const fr_t& v, bool input) {
            if (!bit(tail_bits.data(), pos)) return;
            if (input || !is_one(v)) s[t] = v;
            t++;
        });
    });
    return out;
}

}  // namespace cuzk::g16
