// Classification of the witness into zeros, ones and the tail (split.hpp).
//
// One circuit's variables are cut into pieces (whole density words each), so
// the split runs on every core even for a batch of one circuit: each piece
// knows where its bases start from a popcount of the density before it, and
// the bitmaps are written a word at a time with an atomic OR, because
// neighbouring pieces can share the word their boundary falls in.
#include "split.hpp"

#include <algorithm>
#include <chrono>

#include "parallel.hpp"

namespace cuzk::g16 {
namespace {

/// Aux variables per piece: a multiple of 64, so no density word is split.
constexpr uint64_t piece_vars = uint64_t(1) << 16;

bool bit(const uint64_t* words, uint64_t i) { return (words[i / 64] >> (i % 64)) & 1; }

uint64_t popcount(const uint64_t* words, uint64_t bits) {
    uint64_t n = 0;
    for (uint64_t w = 0; w < bits / 64; w++) n += uint64_t(__builtin_popcountll(words[w]));
    if (bits % 64 != 0) n += uint64_t(__builtin_popcountll(words[bits / 64] & ((uint64_t(1) << (bits % 64)) - 1)));
    return n;
}

/// Sets bits of a shared bitmap, collecting them a word at a time and
/// OR-ing each word in once (atomically: a neighbouring piece may own the
/// other bits of the first and last word).
class bit_writer {
public:
    explicit bit_writer(uint64_t* words) : words_(words) {}
    bit_writer(const bit_writer&) = delete;
    bit_writer& operator=(const bit_writer&) = delete;
    ~bit_writer() { flush(); }

    void set(uint64_t pos) {
        if (pos / 64 != word_) {
            flush();
            word_ = pos / 64;
        }
        bits_ |= uint64_t(1) << (pos % 64);
    }

private:
    void flush() {
        if (bits_ != 0) __atomic_fetch_or(&words_[word_], bits_, __ATOMIC_RELAXED);
        bits_ = 0;
    }

    uint64_t* words_;
    uint64_t word_ = ~uint64_t(0);
    uint64_t bits_ = 0;
};

/// A run of one circuit's variables, [first, last) of its inputs or of its
/// aux variables, whose bases in the query start at position `pos`.
struct piece {
    size_t circuit;
    bool input;
    uint64_t first, last, pos;
};

const uint64_t* aux_density(query q, const circuit_view& c) {
    return q == query::a ? c.a_aux_density : q == query::b ? c.b_aux_density : nullptr;
}

/// Every circuit's variables with bases in query q, cut into pieces.
std::vector<piece> pieces_of(query q, const std::vector<circuit_view>& circuits) {
    std::vector<piece> out;
    for (size_t i = 0; i < circuits.size(); i++) {
        const circuit_view& c = circuits[i];
        uint64_t pos = 0;
        if (q != query::l && c.num_inputs > 0) {
            out.push_back({i, true, 0, c.num_inputs, 0});
            pos = q == query::a ? c.num_inputs : popcount(c.b_input_density, c.num_inputs);
        }
        const uint64_t* density = aux_density(q, c);
        for (uint64_t first = 0; first < c.num_aux; first += piece_vars) {
            const uint64_t last = std::min(c.num_aux, first + piece_vars);
            out.push_back({i, false, first, last, pos});
            pos += density ? popcount(density + first / 64, last - first) : last - first;
        }
    }
    return out;
}

/// Calls f(position, value, is_input) for every variable of piece p that has
/// a base in query q, in increasing position.
template <class F>
void walk(query q, const circuit_view& c, const piece& p, F&& f) {
    uint64_t pos = p.pos;
    if (p.input) {
        for (uint64_t i = p.first; i < p.last; i++) {
            if (q == query::a || bit(c.b_input_density, i)) f(pos++, c.input[i], true);
        }
        return;
    }
    const uint64_t* density = aux_density(q, c);
    for (uint64_t j = p.first; j < p.last; j++) {
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
    const std::vector<piece> pieces = pieces_of(q, circuits);

    // Per circuit: its ones, and its tail positions (inputs and other scalars).
    auto start = std::chrono::steady_clock::now();
    out.ones.assign(count, std::vector<uint64_t>(words, 0));
    std::vector<std::vector<uint64_t>> others(count, std::vector<uint64_t>(words, 0));
    *alloc_ms += ms_since(start);
    parallel_for(pieces.size(), threads, [&](size_t k) {
        const piece& p = pieces[k];
        bit_writer ones(out.ones[p.circuit].data());
        bit_writer other(others[p.circuit].data());
        walk(q, circuits[p.circuit], p, [&](uint64_t pos, const fr_t& v, bool input) {
            if (input || !(v.is_zero() || is_one(v))) {
                other.set(pos);
            } else if (is_one(v)) {
                ones.set(pos);
            }
        });
    });

    // The tail is the union over the batch; rank[w] counts its positions
    // before word w, so any piece finds a position's index in the tail.
    std::vector<uint64_t> tail_bits(words, 0);
    const uint64_t word_block = std::max<uint64_t>(1, (words + threads - 1) / threads);
    parallel_for((words + word_block - 1) / word_block, threads, [&](size_t b) {
        const uint64_t end = std::min(words, (b + 1) * word_block);
        for (uint64_t w = b * word_block; w < end; w++) {
            uint64_t acc = 0;
            for (const auto& o : others) acc |= o[w];
            tail_bits[w] = acc;
        }
    });
    others.clear();
    std::vector<uint64_t> rank(words + 1, 0);
    for (uint64_t w = 0; w < words; w++) rank[w + 1] = rank[w] + uint64_t(__builtin_popcountll(tail_bits[w]));
    const uint64_t tail_len = rank[words];
    out.dense = 2 * tail_len > out.len;

    if (out.dense) {
        out.ones.clear();
        // L's scalars are the aux assignment as it is: nothing to copy.
        if (q == query::l) return out;
        start = std::chrono::steady_clock::now();
        out.scalars.assign(count, std::vector<fr_t>(out.len));
        *alloc_ms += ms_since(start);
        parallel_for(pieces.size(), threads, [&](size_t k) {
            const piece& p = pieces[k];
            auto& s = out.scalars[p.circuit];
            walk(q, circuits[p.circuit], p, [&](uint64_t pos, const fr_t& v, bool) { s[pos] = v; });
        });
        return out;
    }

    start = std::chrono::steady_clock::now();
    out.scalars.assign(count, std::vector<fr_t>(tail_len, fr_t::zero()));
    out.tail.resize(tail_len);
    *alloc_ms += ms_since(start);
    parallel_for((words + word_block - 1) / word_block, threads, [&](size_t b) {
        const uint64_t end = std::min(words, (b + 1) * word_block);
        for (uint64_t w = b * word_block; w < end; w++) {
            uint64_t t = rank[w];
            for (uint64_t bits = tail_bits[w]; bits != 0; bits &= bits - 1)
                out.tail[t++] = uint32_t(w * 64 + uint64_t(__builtin_ctzll(bits)));
        }
    });
    // A circuit's tail scalar is its value where that is an input or other;
    // where its value is one (counted by its bitmap) or zero, it stays zero.
    parallel_for(pieces.size(), threads, [&](size_t k) {
        const piece& p = pieces[k];
        auto& s = out.scalars[p.circuit];
        walk(q, circuits[p.circuit], p, [&](uint64_t pos, const fr_t& v, bool input) {
            const uint64_t w = pos / 64, below = tail_bits[w] & ((uint64_t(1) << (pos % 64)) - 1);
            if (!bit(tail_bits.data(), pos) || !(input || !is_one(v))) return;
            s[rank[w] + uint64_t(__builtin_popcountll(below))] = v;
        });
    });
    return out;
}

}  // namespace cuzk::g16
