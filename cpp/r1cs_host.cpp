// The shape checks (r1cs.hpp) and the host test hook r1cs_evaluate_host:
// the kernels' row code (cuda/spmv/row.hpp) compiled by g++, run row after
// row on the CPU, so a test without a GPU compares it with cuzk-synth's
// evaluation.
#include <cstring>
#include <string>
#include <vector>

#include "../cuda/spmv/row.hpp"
#include "cuzk-ffi/src/lib.rs.h"
#include "error.hpp"
#include "r1cs.hpp"

namespace cuzk {
namespace {

using spmv::fr_t;

constexpr const char* NAMES[3] = {"A", "B", "C"};

/// Matrix i's checks that do not depend on the others; returns its nonzeros.
uint64_t check_matrix(const R1csMatrix& m, const char* name, uint64_t num_vars) {
    const auto fail = [&](const std::string& why) { throw_invalid(std::string("matrix ") + name + ": " + why); };
    if (m.row_ptr.empty()) fail("no row pointers (a matrix of r rows has r + 1)");
    if (m.row_ptr[0] != 0) fail("row pointers do not start at 0");
    for (size_t r = 1; r < m.row_ptr.size(); r++) {
        if (m.row_ptr[r] < m.row_ptr[r - 1]) fail("row pointers decrease at row " + std::to_string(r - 1));
    }
    const uint64_t nnz = m.cols.size();
    if (m.row_ptr[m.row_ptr.size() - 1] != nnz)
        fail("row pointers end at " + std::to_string(m.row_ptr[m.row_ptr.size() - 1]) + ", not at the " +
             std::to_string(nnz) + " columns");
    for (uint64_t i = 0; i < nnz; i++) {
        if (m.cols[i] >= num_vars)
            fail("column " + std::to_string(m.cols[i]) + " is beyond the " + std::to_string(num_vars) + " variables");
    }
    return nnz;
}

template <class T>
void check_indices(rust::Slice<const T> ks, const char* name, uint64_t table_len) {
    for (size_t i = 0; i < ks.size(); i++) {
        if (ks[i] >= table_len)
            throw_invalid(std::string("matrix ") + name + ": coefficient index " + std::to_string(ks[i]) +
                          " is beyond the table of " + std::to_string(table_len));
    }
}

fr_t scalar_at(rust::Slice<const uint64_t> limbs, uint64_t i) {
    fr_t x;
    std::memcpy(&x, limbs.data() + 4 * i, sizeof(x));
    return x;
}

template <class K>
spmv::csr_view<K> host_view(const R1csMatrix& m) {
    if constexpr (sizeof(K) == 2) return {m.row_ptr.data(), m.cols.data(), m.narrow.data()};
    else return {m.row_ptr.data(), m.cols.data(), m.wide.data()};
}

/// Every row on the CPU; returns the lowest unsatisfied row or NO_ROW.
template <class K>
uint32_t evaluate_rows(const R1csMatrix* const (&m)[3], const fr_t* table, uint32_t rows, const std::vector<fr_t>& w,
                       fr_t* abc) {
    const spmv::r1cs_view<K> s{{host_view<K>(*m[0]), host_view<K>(*m[1]), host_view<K>(*m[2])}, table, rows};
    std::vector<uint8_t> classes(w.size());
    for (size_t i = 0; i < w.size(); i++) classes[i] = spmv::classify(w[i]);
    const spmv::witness_view wv{w.data(), classes.data()};
    uint32_t first_bad = spmv::NO_ROW;
    for (uint32_t r = 0; r < rows; r++) {
        if (!spmv::eval_row(s, wv, r, abc, abc + rows, abc + 2 * uint64_t(rows)) && first_bad == spmv::NO_ROW)
            first_bad = r;
    }
    return first_bad;
}

}  // namespace

r1cs_layout check_r1cs(const R1csMatrix& a, const R1csMatrix& b, const R1csMatrix& c,
                       rust::Slice<const uint64_t> coefficients, uint64_t num_inputs, uint64_t num_aux) {
    const R1csMatrix* m[3] = {&a, &b, &c};
    const uint64_t num_vars = num_inputs + num_aux;
    if (num_inputs > (uint64_t(1) << 32) || num_vars > (uint64_t(1) << 32))
        throw_invalid("shape: " + std::to_string(num_vars) + " variables do not fit 32-bit columns");
    if (coefficients.size() % 4 != 0) throw_invalid("shape: the coefficient table is not a whole number of scalars");
    r1cs_layout layout;
    layout.table_len = coefficients.size() / 4;
    if (layout.table_len < 2 || scalar_at(coefficients, spmv::ONE) != fr_t::one() ||
        scalar_at(coefficients, spmv::MINUS_ONE) != -fr_t::one())
        throw_invalid("shape: coefficient table entries 0 and 1 must be one and minus one");
    for (int i = 0; i < 3; i++) {
        layout.nnz[i] = check_matrix(*m[i], NAMES[i], num_vars);
        layout.wide = layout.wide || !m[i]->wide.empty();
    }
    layout.rows = a.row_ptr.size() - 1;
    if (b.row_ptr.size() != a.row_ptr.size() || c.row_ptr.size() != a.row_ptr.size())
        throw_invalid("shape: A, B and C have " + std::to_string(a.row_ptr.size() - 1) + ", " +
                      std::to_string(b.row_ptr.size() - 1) + " and " + std::to_string(c.row_ptr.size() - 1) +
                      " rows");
    if (layout.rows >= spmv::NO_ROW) throw_invalid("shape: " + std::to_string(layout.rows) + " rows need 32-bit row numbers");
    for (int i = 0; i < 3; i++) {
        const uint64_t given = layout.wide ? m[i]->wide.size() : m[i]->narrow.size();
        const uint64_t other = layout.wide ? m[i]->narrow.size() : m[i]->wide.size();
        if (given != layout.nnz[i] || other != 0)
            throw_invalid(std::string("matrix ") + NAMES[i] + ": needs " + std::to_string(layout.nnz[i]) + " " +
                          (layout.wide ? "32" : "16") + "-bit coefficient indices (and none of the other width)");
        if (layout.wide) check_indices(m[i]->wide, NAMES[i], layout.table_len);
        else check_indices(m[i]->narrow, NAMES[i], layout.table_len);
    }
    return layout;
}

void r1cs_evaluate_host(const R1csMatrix& a, const R1csMatrix& b, const R1csMatrix& c,
                        rust::Slice<const uint64_t> coefficients, rust::Slice<const uint64_t> inputs,
                        rust::Slice<const uint64_t> aux, rust::Slice<uint64_t> abc) {
    if (inputs.size() % 4 != 0 || aux.size() % 4 != 0)
        throw_invalid("r1cs_evaluate_host: inputs and aux must be whole numbers of scalars");
    const r1cs_layout layout = check_r1cs(a, b, c, coefficients, inputs.size() / 4, aux.size() / 4);
    if (abc.size() != 3 * 4 * layout.rows)
        throw_invalid("r1cs_evaluate_host: abc must hold 3 x " + std::to_string(layout.rows) + " scalars");
    std::vector<fr_t> w(inputs.size() / 4 + aux.size() / 4);
    if (!inputs.empty()) std::memcpy(w.data(), inputs.data(), inputs.size() * 8);
    if (!aux.empty()) std::memcpy(w.data() + inputs.size() / 4, aux.data(), aux.size() * 8);
    // Copies, because fr_t is 16-byte aligned and Rust's limbs only 8.
    std::vector<fr_t> table(layout.table_len), out(3 * layout.rows);
    std::memcpy(table.data(), coefficients.data(), coefficients.size() * 8);
    const R1csMatrix* m[3] = {&a, &b, &c};
    const uint32_t rows = uint32_t(layout.rows);
    const uint32_t bad = layout.wide ? evaluate_rows<uint32_t>(m, table.data(), rows, w, out.data())
                                     : evaluate_rows<uint16_t>(m, table.data(), rows, w, out.data());
    if (!out.empty()) std::memcpy(abc.data(), out.data(), abc.size() * 8);
    if (bad != spmv::NO_ROW) throw_unsatisfied(bad);
}

}  // namespace cuzk
