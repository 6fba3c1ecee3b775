//! The checks a recorded shape passes before any kernel indexes with it,
//! shared by the device upload (cuda/api/spmv.cu) and the host hook
//! (cpp/hooks/r1cs_host.cpp), so CI tests the checks the device relies on.
//! The matrices are plain views here, so the checks need nothing of the
//! bridge; they are defined in cpp/r1cs_check.cpp.
#pragma once

#include <cstdint>

#include "span.hpp"

namespace cuzk {

/// One constraint matrix in compressed sparse rows (the bridge's R1csMatrix
/// as plain views): coefficient indices in exactly one of narrow and wide.
struct r1cs_matrix {
    span<const uint32_t> row_ptr;
    span<const uint32_t> cols;
    span<const uint16_t> narrow;
    span<const uint32_t> wide;
};

/// The view of the bridge's R1csMatrix (or any struct with those slices).
template <class M>
r1cs_matrix r1cs_view_of(const M& m) {
    return {span_of(m.row_ptr), span_of(m.cols), span_of(m.narrow), span_of(m.wide)};
}

/// What the checks established about a shape.
struct r1cs_layout {
    /// Rows of each matrix (equal), below spmv::NO_ROW.
    uint64_t rows = 0;
    /// Nonzeros of A, B and C.
    uint64_t nnz[3] = {};
    /// Coefficient table entries.
    uint64_t table_len = 0;
    /// 32-bit coefficient indices (else 16-bit; a matrix without nonzeros
    /// may give either).
    bool wide = false;
};

/// Checks that the row pointers of every matrix start at 0, never
/// decrease and end at its nonzero count; that the three have one row
/// count; that every column is below num_inputs + num_aux and every
/// coefficient index below the table's length, at one width for all three;
/// and that table entries 0 and 1 are one and minus one (the rows' fast
/// path assumes it). Throws invalid_input naming the first problem.
r1cs_layout check_r1cs(const r1cs_matrix& a, const r1cs_matrix& b, const r1cs_matrix& c,
                       span<const uint64_t> coefficients, uint64_t num_inputs, uint64_t num_aux);

}  // namespace cuzk
