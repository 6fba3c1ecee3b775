//! Classification of the witness into zeros, ones and the tail (split.hpp).
//!
//! The values are read once per call: classify_aux marks each aux variable of
//! each circuit as one or "other" (neither zero nor one) in two bitmaps. The
//! three queries' splits then work on those bits and the densities alone, and
//! touch a value again only to copy it into a tail. Earlier each query walked
//! every value twice with field comparisons: six passes over the witness
//! instead of one, which several devices' calls at once could not afford.
//!
//! One circuit's variables are cut into pieces (whole density words each), so
//! the work runs on every core even for a batch of one circuit: each piece
//! knows where its bases start from a popcount of the density before it, and
//! the bitmaps are written a word at a time with an atomic OR, because
//! neighbouring pieces can share the word their boundary falls in.
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

/// The low `bits` bits set (all 64 for bits ≥ 64).
uint64_t low_mask(uint64_t bits) { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }

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

/// Calls f(position) for every public input of an input piece that has a
/// base in query q, in increasing position.
template <class F>
void walk_inputs(query q, const circuit_view& c, const piece& p, F&& f) {
    uint64_t pos = p.pos;
    for (uint64_t i = p.first; i < p.last; i++) {
        if (q == query::a || bit(c.b_input_density, i)) f(pos++, i);
    }
}

/// Calls f(position, j) for every aux variable j of an aux piece that has a
/// base in query q and whose bit in `marked` is set, in increasing position;
/// words with nothing marked are skipped by a popcount.
template <class F>
void walk_marked(query q, const circuit_view& c, const piece& p, const uint64_t* marked, F&& f) {
    const uint64_t* density = aux_density(q, c);
    uint64_t pos = p.pos;
    for (uint64_t w = p.first / 64; w * 64 < p.last; w++) {
        const uint64_t has_base = (density ? density[w] : ~uint64_t(0)) & low_mask(p.last - w * 64);
        const uint64_t hits = marked[w] & has_base;
        if (hits == 0) {
            pos += uint64_t(__builtin_popcountll(has_base));
            continue;
        }
        for (uint64_t h = hits; h != 0; h &= h - 1) {
            const uint64_t b = uint64_t(__builtin_ctzll(h));
            f(pos + uint64_t(__builtin_popcountll(has_base & low_mask(b))), w * 64 + b);
        }
        pos += uint64_t(__builtin_popcountll(has_base));
    }
}

bool is_one(const fr_t& x) { return x == fr_t::one(); }

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

/// The query's tail positions of circuit c alone: its inputs with a base
/// and its "other" aux variables with a base. A popcount over the classes,
/// no walk.
uint64_t own_tail(query q, const circuit_view& c, const aux_classes& cls) {
    uint64_t n = q == query::l ? 0 : q == query::a ? c.num_inputs : popcount(c.b_input_density, c.num_inputs);
    const uint64_t* density = aux_density(q, c);
    for (uint64_t w = 0; w < (c.num_aux + 63) / 64; w++)
        n += uint64_t(__builtin_popcountll(cls.others[w] & (density ? density[w] : ~uint64_t(0))));
    return n;
}

/// The split of a dense query: for A and B the scalars of every base
/// position, or only the inputs when the aux part is the assignment itself
/// (aux_direct) or compacted from it on the device (aux_compacted).
query_split dense_split(query q, uint64_t len, const std::vector<circuit_view>& circuits,
                        const std::vector<aux_classes>& classes, const std::vector<piece>& pieces, unsigned threads,
                        double* alloc_ms, bool compact_on_device) {
    query_split out;
    out.len = len;
    out.dense = true;
    // L's scalars are the aux assignment as it is: nothing to copy.
    if (q == query::l) return out;
    // Each circuit's head: the query's bases before its aux variables.
    std::vector<uint64_t> heads(circuits.size());
    for (size_t i = 0; i < circuits.size(); i++)
        heads[i] = len - popcount(aux_density(q, circuits[i]), circuits[i].num_aux);
    bool direct = true, same_heads = true;
    for (size_t i = 0; i < circuits.size(); i++) {
        direct = direct && heads[i] == len - circuits[i].num_aux;
        same_heads = same_heads && heads[i] == heads[0];
    }
    out.aux_direct = direct;
    // Compaction writes the aux part after one head length for the batch.
    out.aux_compacted = !direct && compact_on_device && same_heads;
    const bool inputs_only = out.aux_direct || out.aux_compacted;
    const uint64_t copied = inputs_only ? heads[0] : len;
    const auto start = std::chrono::steady_clock::now();
    out.scalars.resize(circuits.size());
    for (auto& s : out.scalars) s = zeroed<fr_t>(copied, threads);
    *alloc_ms += ms_since(start);
    parallel_for(pieces.size(), threads, [&](size_t k) {
        const piece& p = pieces[k];
        const circuit_view& c = circuits[p.circuit];
        auto& s = out.scalars[p.circuit];
        if (p.input) {
            walk_inputs(q, c, p, [&](uint64_t pos, uint64_t i) { s[pos] = c.input[i]; });
            return;
        }
        if (inputs_only) return;
        // Zeros stay zero; ones and others are copied.
        const aux_classes& cls = classes[p.circuit];
        walk_marked(q, c, p, cls.ones.data(), [&](uint64_t pos, uint64_t j) { s[pos] = c.aux[j]; });
        walk_marked(q, c, p, cls.others.data(), [&](uint64_t pos, uint64_t j) { s[pos] = c.aux[j]; });
    });
    return out;
}

}  // namespace

const uint64_t* aux_density(query q, const circuit_view& c) {
    return q == query::a ? c.a_aux_density : q == query::b ? c.b_aux_density : nullptr;
}

uint64_t query_len(query q, const circuit_view& c) {
    switch (q) {
        case query::l: return c.num_aux;
        case query::a: return c.num_inputs + popcount(c.a_aux_density, c.num_aux);
        case query::b: return popcount(c.b_input_density, c.num_inputs) + popcount(c.b_aux_density, c.num_aux);
    }
    return 0;
}

std::vector<aux_classes> classify_aux(const std::vector<circuit_view>& circuits, unsigned threads,
                                      double* alloc_ms) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<aux_classes> out(circuits.size());
    for (size_t i = 0; i < circuits.size(); i++) {
        const uint64_t words = (circuits[i].num_aux + 63) / 64;
        // Every word is written below, by the threads that fault it in.
        out[i].ones = host_vector<uint64_t>(words);
        out[i].others = host_vector<uint64_t>(words);
    }
    *alloc_ms += ms_since(start);
    // Pieces of whole words: each word has one writer, so no atomics here.
    const std::vector<piece> pieces = pieces_of(query::l, circuits);
    parallel_for(pieces.size(), threads, [&](size_t k) {
        const piece& p = pieces[k];
        const fr_t* aux = circuits[p.circuit].aux;
        aux_classes& cls = out[p.circuit];
        for (uint64_t w = p.first / 64; w * 64 < p.last; w++) {
            uint64_t ones = 0, others = 0;
            const uint64_t end = std::min<uint64_t>(64, p.last - w * 64);
            for (uint64_t b = 0; b < end; b++) {
                const fr_t& v = aux[w * 64 + b];
                if (v.is_zero()) continue;
                if (is_one(v)) {
                    ones |= uint64_t(1) << b;
                } else {
                    others |= uint64_t(1) << b;
                }
            }
            cls.ones[w] = ones;
            cls.others[w] = others;
        }
    });
    return out;
}

query_split split_query(query q, const std::vector<circuit_view>& circuits, const std::vector<aux_classes>& classes,
                        unsigned threads, double* alloc_ms, bool compact_on_device) {
    query_split out;
    const size_t count = circuits.size();
    if (count == 0) return out;
    out.len = query_len(q, circuits[0]);
    const uint64_t words = (out.len + 63) / 64;
    const std::vector<piece> pieces = pieces_of(q, circuits);
    // The batch's tail is at least each circuit's own: one that covers more
    // than half the query makes it dense without the per-position bitmaps
    // below, which were most of a dense witness's split.
    for (size_t i = 0; i < count; i++) {
        if (2 * own_tail(q, circuits[i], classes[i]) > out.len)
            return dense_split(q, out.len, circuits, classes, pieces, threads, alloc_ms, compact_on_device);
    }

    // Per circuit: its ones, and its tail positions (inputs and other scalars).
    auto start = std::chrono::steady_clock::now();
    std::vector<host_vector<uint64_t>> others(count);
    out.words = words;
    out.ones = zeroed<uint64_t>(count * words, threads);
    for (size_t i = 0; i < count; i++) others[i] = zeroed<uint64_t>(words, threads);
    *alloc_ms += ms_since(start);
    parallel_for(pieces.size(), threads, [&](size_t k) {
        const piece& p = pieces[k];
        const circuit_view& c = circuits[p.circuit];
        bit_writer other(others[p.circuit].data());
        if (p.input) {
            walk_inputs(q, c, p, [&](uint64_t pos, uint64_t) { other.set(pos); });
            return;
        }
        bit_writer ones(out.ones.data() + p.circuit * words);
        walk_marked(q, c, p, classes[p.circuit].ones.data(), [&](uint64_t pos, uint64_t) { ones.set(pos); });
        walk_marked(q, c, p, classes[p.circuit].others.data(), [&](uint64_t pos, uint64_t) { other.set(pos); });
    });

    // The tail is the union over the batch; rank[w] counts its positions
    // before word w, so any piece finds a position's index in the tail.
    host_vector<uint64_t> tail_bits(words);  // every word written below
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
    host_vector<uint64_t> rank(words + 1);
    rank[0] = 0;
    for (uint64_t w = 0; w < words; w++) rank[w + 1] = rank[w] + uint64_t(__builtin_popcountll(tail_bits[w]));
    const uint64_t tail_len = rank[words];
    if (2 * tail_len > out.len)
        return dense_split(q, out.len, circuits, classes, pieces, threads, alloc_ms, compact_on_device);

    start = std::chrono::steady_clock::now();
    out.scalars.resize(count);
    for (auto& s : out.scalars) s = zeroed<fr_t>(tail_len, threads);
    // Every position is written below, by the threads that fault it in.
    out.tail = host_vector<uint32_t>(tail_len);
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
    auto tail_index = [&](uint64_t pos) {
        const uint64_t w = pos / 64;
        return rank[w] + uint64_t(__builtin_popcountll(tail_bits[w] & low_mask(pos % 64)));
    };
    parallel_for(pieces.size(), threads, [&](size_t k) {
        const piece& p = pieces[k];
        const circuit_view& c = circuits[p.circuit];
        auto& s = out.scalars[p.circuit];
        if (p.input) {
            walk_inputs(q, c, p, [&](uint64_t pos, uint64_t i) { s[tail_index(pos)] = c.input[i]; });
            return;
        }
        walk_marked(q, c, p, classes[p.circuit].others.data(),
                    [&](uint64_t pos, uint64_t j) { s[tail_index(pos)] = c.aux[j]; });
    });
    return out;
}

}  // namespace cuzk::g16
