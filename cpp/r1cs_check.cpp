//! The shape checks of cuda/util/r1cs.hpp: what the device upload
//! (cuda/api/spmv.cu) and the host hook (cpp/hooks/r1cs_host.cpp) run before
//! any row code indexes with a shape. Host code in every build, so CI runs
//! the checks the device relies on.
#include <cstring>
#include <string>

#include "../cuda/spmv/row.hpp"
#include "../cuda/util/error.hpp"
#include "../cuda/util/r1cs.hpp"

namespace cuzk {
namespace {

using spmv::fr_t;

constexpr const char* NAMES[3] = {"A", "B", "C"};

/// Matrix i's checks that do not depend on the others; returns its nonzeros.
uint64_t check_matrix(const r1cs_matrix& m, const char* name, uint64_t num_vars) {
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
void check_indices(span<const T> ks, const char* name, uint64_t table_len) {
    for (size_t i = 0; i < ks.size(); i++) {
        if (ks[i] >= table_len)
            throw_invalid(std::string("matrix ") + name + ": coefficient index " + std::to_string(ks[i]) +
                          " is beyond the table of " + std::to_string(table_len));
    }
}

fr_t scalar_at(span<const uint64_t> limbs, uint64_t i) {
    fr_t x;
    std::memcpy(&x, limbs.data() + 4 * i, sizeof(x));
    return x;
}

}  // namespace

r1cs_layout check_r1cs(const r1cs_matrix& a, const r1cs_matrix& b, const r1cs_matrix& c,
                       span<const uint64_t> coefficients, uint64_t num_inputs, uint64_t num_aux) {
    const r1cs_matrix* m[3] = {&a, &b, &c};
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

}  // namespace cuzk
