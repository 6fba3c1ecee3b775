//! The bridge's Groth16Circuit read as the split's circuit_view (circuit.hpp),
//! every length checked before the host function indexes with it.
#include "circuit.hpp"

#include <string>

#include "../../cuda/util/error.hpp"
#include "cuzk-ffi/src/lib.rs.h"

namespace cuzk::g16 {

uint64_t words_for(uint64_t bits) { return (bits + 63) / 64; }

void check_density(span<const uint64_t> words, uint64_t bits, size_t circuit, const char* what) {
    if (words.size() != words_for(bits))
        throw_invalid("circuit " + std::to_string(circuit) + ": " + what + " has " + std::to_string(words.size()) +
                      " words for " + std::to_string(bits) + " variables");
    if (bits % 64 != 0 && (words[words.size() - 1] >> (bits % 64)) != 0)
        throw_invalid("circuit " + std::to_string(circuit) + ": " + what + " has bits past its variables");
}

uint64_t scalars_in(span<const uint64_t> limbs, size_t circuit, const char* what) {
    if (limbs.size() % 4 != 0)
        throw_invalid("circuit " + std::to_string(circuit) + ": " + what + " is not a whole number of scalars");
    return limbs.size() / 4;
}

/// Circuit i's witness and densities as the split reads them, checked.
circuit_view view_of(const Groth16Circuit& c, size_t i) {
    circuit_view v{};
    v.num_inputs = scalars_in(span_of(c.input), i, "input");
    v.num_aux = scalars_in(span_of(c.aux), i, "aux");
    v.input = reinterpret_cast<const fr_t*>(c.input.data());
    v.aux = reinterpret_cast<const fr_t*>(c.aux.data());
    check_density(span_of(c.a_aux_density), v.num_aux, i, "a_aux_density");
    check_density(span_of(c.b_input_density), v.num_inputs, i, "b_input_density");
    check_density(span_of(c.b_aux_density), v.num_aux, i, "b_aux_density");
    v.a_aux_density = c.a_aux_density.data();
    v.b_input_density = c.b_input_density.data();
    v.b_aux_density = c.b_aux_density.data();
    return v;
}

}  // namespace cuzk::g16
