//! One circuit of a host-function call as the split reads it: the bridge's
//! Groth16Circuit (rust::Slice fields) checked once at the edge and turned
//! into a plain circuit_view, shared by the host function (prove.cpp) and
//! the split's test hook (cpp/hooks/groth16_hooks.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../cuda/util/span.hpp"
#include "split.hpp"

namespace cuzk {
struct Groth16Circuit;
}  // namespace cuzk

namespace cuzk::g16 {

/// Words of a bitset of `bits` bits.
uint64_t words_for(uint64_t bits);

/// Checks that a density bitset of circuit `circuit` has the words of `bits`
/// variables and no bit past them; throws invalid_input naming `what`.
void check_density(span<const uint64_t> words, uint64_t bits, size_t circuit, const char* what);

/// Scalars in `limbs` (4 limbs each); throws invalid_input naming `what`
/// when the limbs are not whole scalars.
uint64_t scalars_in(span<const uint64_t> limbs, size_t circuit, const char* what);

/// Circuit i's witness and densities as the split reads them, checked.
circuit_view view_of(const Groth16Circuit& c, size_t i);

}  // namespace cuzk::g16
