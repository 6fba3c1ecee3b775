//! The host test hook r1cs_evaluate_host: the shape checks
//! (cuda/util/r1cs.hpp) and the kernels' row code (cuda/spmv/row.hpp)
//! compiled by g++, run row after row on the CPU, so a test without a GPU
//! compares them with cuzk-synth's evaluation.
#include <cstring>
#include <string>
#include <vector>

#include "../../cuda/spmv/row.hpp"
#include "../../cuda/util/error.hpp"
#include "../../cuda/util/r1cs.hpp"
#include "cuzk-ffi/src/hooks.rs.h"

namespace cuzk {
namespace {

using spmv::fr_t;

template <class K>
spmv::csr_view<K> host_view(const r1cs_matrix& m) {
    if constexpr (sizeof(K) == 2) return {m.row_ptr.data(), m.cols.data(), m.narrow.data()};
    else return {m.row_ptr.data(), m.cols.data(), m.wide.data()};
}

/// Every row on the CPU; returns the lowest unsatisfied row or NO_ROW.
template <class K>
uint32_t evaluate_rows(const r1cs_matrix* const (&m)[3], const fr_t* table, uint32_t rows, const std::vector<fr_t>& w,
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

void r1cs_evaluate_host(const R1csMatrix& a, const R1csMatrix& b, const R1csMatrix& c,
                        rust::Slice<const uint64_t> coefficients, rust::Slice<const uint64_t> inputs,
                        rust::Slice<const uint64_t> aux, rust::Slice<uint64_t> abc) {
    if (inputs.size() % 4 != 0 || aux.size() % 4 != 0)
        throw_invalid("r1cs_evaluate_host: inputs and aux must be whole numbers of scalars");
    const r1cs_matrix m[3] = {r1cs_view_of(a), r1cs_view_of(b), r1cs_view_of(c)};
    const r1cs_layout layout = check_r1cs(m[0], m[1], m[2], span_of(coefficients), inputs.size() / 4, aux.size() / 4);
    if (abc.size() != 3 * 4 * layout.rows)
        throw_invalid("r1cs_evaluate_host: abc must hold 3 x " + std::to_string(layout.rows) + " scalars");
    std::vector<fr_t> w(inputs.size() / 4 + aux.size() / 4);
    if (!inputs.empty()) std::memcpy(w.data(), inputs.data(), inputs.size() * 8);
    if (!aux.empty()) std::memcpy(w.data() + inputs.size() / 4, aux.data(), aux.size() * 8);
    // Copies, because fr_t is 16-byte aligned and Rust's limbs only 8.
    std::vector<fr_t> table(layout.table_len), out(3 * layout.rows);
    std::memcpy(table.data(), coefficients.data(), coefficients.size() * 8);
    const r1cs_matrix* views[3] = {&m[0], &m[1], &m[2]};
    const uint32_t rows = uint32_t(layout.rows);
    const uint32_t bad = layout.wide ? evaluate_rows<uint32_t>(views, table.data(), rows, w, out.data())
                                     : evaluate_rows<uint16_t>(views, table.data(), rows, w, out.data());
    if (!out.empty()) std::memcpy(abc.data(), out.data(), abc.size() * 8);
    if (bad != spmv::NO_ROW) throw_unsatisfied(bad);
}

}  // namespace cuzk
