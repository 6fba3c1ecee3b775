//! One row of a = A·w, b = B·w, c = C·w and its check a·b = c, written once
//! for the host (g++: the CI test hook, cpp/hooks/r1cs_host.cpp) and the device
//! (nvcc: kernels.cuh), so CI checks the very arithmetic the GPU runs.
//!
//! Most witness values of the circuits we prove are bits and most
//! coefficients are ±1, so every value is first classified as zero, one or
//! other (one byte per variable). In a row a zero costs nothing and is never
//! read; a one with coefficient ±1 is counted in an integer; a one with any
//! other coefficient is that table entry; only "other" values are read (32
//! bytes each) and multiplied, and not even that by ±1. When a, b and c are
//! such counts the check is an integer comparison, and when a or b is the
//! count 0 or 1 it needs no multiplication.
#pragma once

#include "../ff/bls12_381.hpp"

namespace cuzk::spmv {

using ff::fr_t;

/// Classes of a witness value.
constexpr uint8_t IS_ZERO = 0;
constexpr uint8_t IS_ONE = 1;
constexpr uint8_t IS_OTHER = 2;

/// Table indices of one and minus one in every recorded shape (cuzk-synth's
/// recorded/matrix.rs fixes them).
constexpr uint32_t ONE = 0;
constexpr uint32_t MINUS_ONE = 1;

/// "No unsatisfied row": rows are indexed below it (the upload checks).
constexpr uint32_t NO_ROW = 0xffffffffu;

CUZK_HD uint8_t classify(const fr_t& v) {
    if (v.is_zero()) return IS_ZERO;
    return v == fr_t::one() ? IS_ONE : IS_OTHER;
}

/// One matrix in compressed sparse rows, its coefficient indices K wide
/// (uint16_t or uint32_t, as recorded).
template <class K>
struct csr_view {
    const uint32_t* row_ptr;
    const uint32_t* cols;
    const K* coeffs;
};

/// The three matrices of a shape over one coefficient table.
template <class K>
struct r1cs_view {
    csr_view<K> m[3];
    const fr_t* table;
    uint32_t rows;
};

/// The witness (inputs first, then aux: the matrices' column space) and
/// the class of every value.
struct witness_view {
    const fr_t* values;
    const uint8_t* classes;
};

/// One row's dot product: `field` (the sum of the terms that needed the
/// field) plus `count` (the ±1 coefficients of values that are one).
/// `touched` says whether any term went to `field`; a row without is the
/// integer `count`.
struct dot {
    fr_t field;
    int64_t count;
    bool touched;
};

/// The field element n, by doubling and adding: counts are row lengths at
/// most, so this is a few additions instead of a multiplication by R^2.
CUZK_HD fr_t small(int64_t n) {
    uint64_t m = n < 0 ? uint64_t(0) - uint64_t(n) : uint64_t(n);
    fr_t r = fr_t::zero();
    fr_t p = fr_t::one();
    while (m != 0) {
        if (m & 1) r = r + p;
        m >>= 1;
        if (m != 0) p = p + p;
    }
    return n < 0 ? -r : r;
}

template <class K>
CUZK_HD dot row_dot(const csr_view<K>& m, uint32_t r, const fr_t* table, const witness_view& w) {
    dot d{fr_t::zero(), 0, false};
    const uint32_t end = m.row_ptr[r + 1];
    for (uint32_t i = m.row_ptr[r]; i < end; i++) {
        const uint32_t col = m.cols[i];
        const uint32_t k = m.coeffs[i];
        const uint8_t cls = w.classes[col];
        if (cls == IS_ZERO) continue;
        fr_t term;
        if (cls == IS_ONE) {
            if (k == ONE) {
                d.count++;
                continue;
            }
            if (k == MINUS_ONE) {
                d.count--;
                continue;
            }
            term = table[k];
        } else {
            const fr_t v = w.values[col];
            term = k == ONE ? v : k == MINUS_ONE ? -v : v * table[k];
        }
        d.field = d.touched ? d.field + term : term;
        d.touched = true;
    }
    return d;
}

/// The field value of a row.
CUZK_HD fr_t value_of(const dot& d) {
    if (d.count == 0) return d.field;
    const fr_t n = small(d.count);
    return d.touched ? d.field + n : n;
}

/// Counts the check may multiply as integers: |a·b| stays far below 2^63.
CUZK_HD bool is_count(const dot& d) {
    constexpr int64_t LIMIT = int64_t(1) << 31;
    return !d.touched && d.count > -LIMIT && d.count < LIMIT;
}

/// a·b = c. Integer counts and their field values agree because every
/// count is far smaller than half the modulus, so comparing the integers
/// is comparing the field elements.
CUZK_HD bool holds(const dot& a, const dot& b, const dot& c, const fr_t& va, const fr_t& vb, const fr_t& vc) {
    const bool ka = is_count(a);
    const bool kb = is_count(b);
    if (ka && kb && !c.touched) return a.count * b.count == c.count;
    if ((ka && a.count == 0) || (kb && b.count == 0)) return vc.is_zero();
    if (ka && a.count == 1) return vb == vc;
    if (kb && b.count == 1) return va == vc;
    return va * vb == vc;
}

/// Row r of the shape: writes a[r], b[r], c[r] (not c when null) and returns
/// whether a·b = c.
template <class K>
CUZK_HD bool eval_row(const r1cs_view<K>& s, const witness_view& w, uint32_t r, fr_t* a, fr_t* b, fr_t* c) {
    const dot da = row_dot(s.m[0], r, s.table, w);
    const dot db = row_dot(s.m[1], r, s.table, w);
    const dot dc = row_dot(s.m[2], r, s.table, w);
    const fr_t va = value_of(da);
    const fr_t vb = value_of(db);
    const fr_t vc = value_of(dc);
    a[r] = va;
    b[r] = vb;
    if (c) c[r] = vc;
    return holds(da, db, dc, va, vb, vc);
}

}  // namespace cuzk::spmv
