//! Test hooks that run the MSM kernels' index logic (cuda/msm/) on the CPU
//! with integers mod 2^64 in place of curve points: signed digits, bucket
//! accumulation and window reduction, tables of copies, batch addition.
#include <cstring>
#include <string>
#include <vector>

#include "../../cuda/msm/digits.hpp"
#include "../../cuda/msm/plan.hpp"
#include "../../cuda/msm/segments.hpp"
#include "../../cuda/util/error.hpp"
#include "limbs_io.hpp"
#include "cuzk-ffi/src/hooks.rs.h"

namespace cuzk {
namespace {

/// The group of integers mod 2^64 with the interface of ec::xyzz, so the
/// generic index logic can be checked against plain sums.
struct wrap64 {
    uint64_t v;
    static wrap64 identity() { return {0}; }
    bool is_identity() const { return v == 0; }
    wrap64 add(const wrap64& o) const { return {v + o.v}; }
    wrap64 dbl() const { return {2 * v}; }
};

/// keyed_sum of pippenger.cuh, thread by thread: targets[key] += the sum of
/// the values with that key, over the device's level shapes.
void keyed_sum(std::vector<uint32_t> keys, std::vector<wrap64> sums, std::vector<wrap64>& targets) {
    msm::for_each_level(keys.size(), [&](uint64_t m, const msm::launch_shape& shape) {
        const uint64_t threads = shape.threads();
        std::vector<uint32_t> out_keys(2 * threads);
        std::vector<wrap64> out_sums(2 * threads);
        for (uint64_t t = 0; t < threads; t++) {
            msm::reduce_chunk<wrap64>(
                keys.data(), m, msm::chunk_of(t, threads, m),
                [&](const wrap64& acc, uint64_t i) { return acc.add(sums[i]); },
                [&](uint32_t key, const wrap64& sum) {
                    if (key == msm::NO_KEY || sum.is_identity()) return;
                    targets[key] = targets[key].add(sum);
                },
                [&](int slot, uint32_t key, const wrap64& sum) {
                    out_keys[2 * t + slot] = key;
                    out_sums[2 * t + slot] = sum;
                });
        }
        keys = std::move(out_keys);
        sums = std::move(out_sums);
    });
}

}  // namespace

rust::Vec<int32_t> msm_signed_digits(rust::Slice<const uint64_t> scalar, uint32_t window_bits) {
    if (window_bits < msm::MIN_WINDOW_BITS || window_bits > msm::MAX_WINDOW_BITS)
        throw_invalid("msm_signed_digits: window bits must be in [" + std::to_string(msm::MIN_WINDOW_BITS) + ", " +
                      std::to_string(msm::MAX_WINDOW_BITS) + "]");
    uint32_t s[8];
    msm::canonical_limbs(load_one<ff::fr_t>(scalar, "scalar"), s);
    rust::Vec<int32_t> out;
    msm::signed_digits(s, window_bits, [&](uint32_t, int32_t d) { out.push_back(d); });
    return out;
}

uint64_t msm_table_model(rust::Slice<const uint64_t> scalars, rust::Slice<const uint64_t> values, uint32_t copies) {
    const uint64_t n = values.size();
    if (scalars.size() != 4 * n) throw_invalid("msm_table_model: one scalar of 4 limbs per value");
    if (n == 0 || copies == 0) throw_invalid("msm_table_model: at least one value and one copy");
    const uint32_t c = msm::window_bits_for(n, copies), stride = msm::window_stride(c, copies);
    const uint64_t stored = msm::table_copies(n, copies);
    // table_kernel's copies: 2^(c S t) b_i.
    std::vector<uint64_t> table(n * stored);
    for (uint64_t t = 0; t < stored; t++) {
        const uint64_t shift = uint64_t(c) * stride * t;
        for (uint64_t i = 0; i < n; i++) table[t * n + i] = shift < 64 ? values[i] << shift : 0;
    }
    const uint64_t buckets = uint64_t(1) << (c - 1);
    std::vector<uint64_t> sets(uint64_t(stride) * buckets);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t s[8];
        const rust::Slice<const uint64_t> limbs(scalars.data() + 4 * i, 4);
        msm::canonical_limbs(load_one<ff::fr_t>(limbs, "scalar"), s);
        msm::signed_digits(s, c, [&](uint32_t w, int32_t d) {
            if (d == 0) return;
            const msm::digit_slot at = msm::slot_of(w, stride, uint32_t(n), uint32_t(i));
            if (at.set >= stride || at.point >= table.size())
                throw_invalid("msm_table_model: window " + std::to_string(w) + " lands outside the table");
            const uint64_t p = table[at.point];
            uint64_t& bucket = sets[at.set * buckets + uint64_t(d < 0 ? -d : d) - 1];
            bucket += d < 0 ? uint64_t(0) - p : p;
        });
    }
    // Each set u: sum_b (b + 1) B_b, of weight 2^(c u).
    uint64_t total = 0;
    for (uint64_t u = 0; u < stride; u++) {
        uint64_t sum = 0;
        for (uint64_t b = 0; b < buckets; b++) sum += (b + 1) * sets[u * buckets + b];
        const uint64_t shift = uint64_t(c) * u;
        total += shift < 64 ? sum << shift : 0;
    }
    return total;
}

rust::Vec<uint64_t> msm_reduce_model(rust::Slice<const uint32_t> keys, rust::Slice<const uint64_t> values,
                                     uint64_t threads, uint32_t buckets, uint32_t buckets_per_window,
                                     uint32_t segment_len) {
    if (keys.size() != values.size()) throw_invalid("msm_reduce_model: one value per key");
    if (threads == 0 || buckets_per_window == 0 || segment_len == 0 || buckets % buckets_per_window != 0)
        throw_invalid("msm_reduce_model: inconsistent shape");
    for (size_t i = 0; i < keys.size(); i++) {
        if (keys[i] >= buckets || (i > 0 && keys[i] < keys[i - 1]))
            throw_invalid("msm_reduce_model: keys must be sorted bucket indices");
    }
    std::vector<wrap64> bucket(buckets, wrap64::identity());
    const uint64_t m = keys.size();

    // Level 1, thread by thread, as accumulate_points_kernel.
    std::vector<uint32_t> slot_keys(2 * threads);
    std::vector<wrap64> slot_sums(2 * threads);
    for (uint64_t t = 0; t < threads; t++) {
        msm::reduce_chunk<wrap64>(
            keys.data(), m, msm::chunk_of(t, threads, m),
            [&](const wrap64& acc, uint64_t i) { return acc.add({values[i]}); },
            [&](uint32_t key, const wrap64& sum) { bucket[key] = sum; },
            [&](int slot, uint32_t key, const wrap64& sum) {
                slot_keys[2 * t + slot] = key;
                slot_sums[2 * t + slot] = sum;
            });
    }
    keyed_sum(std::move(slot_keys), std::move(slot_sums), bucket);

    // Window reduction, as suffix_kernel then segment_sum_kernel: suffix
    // sums in place (on a copy, so the bucket sums can be returned), each
    // segment's weighted sum keyed by window, then a keyed sum.
    const uint32_t windows = buckets / buckets_per_window;
    const uint64_t seg_threads = uint64_t(windows) * msm::segments_per_window(buckets_per_window, segment_len);
    std::vector<wrap64> suffix = bucket;
    for (uint64_t t = 0; t < seg_threads; t++) {
        const msm::segment_span sp = msm::segment_of(t, buckets_per_window, segment_len, windows);
        wrap64* window = suffix.data() + uint64_t(sp.g) * buckets_per_window;
        msm::suffix_sums<wrap64>([&](uint32_t b) -> wrap64& { return window[b]; }, sp.lo, sp.count);
    }
    std::vector<uint32_t> seg_keys;
    std::vector<wrap64> seg_sums;
    for (uint64_t t = 0; t < seg_threads; t++) {
        const msm::segment_span sp = msm::segment_of(t, buckets_per_window, segment_len, windows);
        const wrap64* window = suffix.data() + uint64_t(sp.g) * buckets_per_window;
        const wrap64 acc = msm::sum_of_suffixes<wrap64>([&](uint32_t b) { return window[b]; }, sp.lo, sp.count);
        seg_keys.push_back(sp.g);
        seg_sums.push_back(acc.add(msm::mul_small(window[sp.lo], sp.lo)));
    }
    std::vector<wrap64> window_sums(windows, wrap64::identity());
    keyed_sum(std::move(seg_keys), std::move(seg_sums), window_sums);

    rust::Vec<uint64_t> out;
    for (const wrap64& b : bucket) out.push_back(b.v);
    for (const wrap64& w : window_sums) out.push_back(w.v);
    return out;
}

rust::Vec<uint64_t> batch_add_model(rust::Slice<const uint64_t> bitmaps, rust::Slice<const uint64_t> values,
                                    uint64_t threads) {
    const uint64_t per = values.size() / 64;
    if (threads == 0) throw_invalid("batch_add_model: at least one thread");
    if (values.size() % 64 != 0 || per == 0 || bitmaps.size() % per != 0)
        throw_invalid("batch_add_model: 64 values per word, and whole bitmaps of that many words");
    const uint64_t count = bitmaps.size() / per;
    std::vector<wrap64> targets(count, wrap64::identity());
    std::vector<uint32_t> before(bitmaps.size());
    uint64_t total = 0;
    for (size_t w = 0; w < bitmaps.size(); w++) {
        before[w] = uint32_t(total);
        total += msm::popcount64(bitmaps[w]);
    }
    // Level 1, thread by thread, as batch_add_kernel; then the keyed sum.
    std::vector<uint32_t> slot_keys(2 * threads);
    std::vector<wrap64> slot_sums(2 * threads);
    for (uint64_t t = 0; t < threads && count > 0; t++) {
        const msm::chunk ch = msm::chunk_of(t, threads, total);
        msm::set_bit_cursor cursor(bitmaps.data(), before.data(), bitmaps.size(), per, ch.begin);
        const msm::bitmap_keys keys{&cursor, before.data(), uint32_t(count)};
        msm::reduce_chunk<wrap64>(
            keys, total, ch, [&](const wrap64& acc, uint64_t) { return acc.add({values[cursor.next()]}); },
            [&](uint32_t key, const wrap64& sum) { targets[key] = sum; },
            [&](int slot, uint32_t key, const wrap64& sum) {
                slot_keys[2 * t + slot] = key;
                slot_sums[2 * t + slot] = sum;
            });
    }
    if (count > 0) keyed_sum(std::move(slot_keys), std::move(slot_sums), targets);
    rust::Vec<uint64_t> out;
    for (const wrap64& s : targets) out.push_back(s.v);
    return out;
}

}  // namespace cuzk
