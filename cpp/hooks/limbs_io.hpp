//! Moving field elements and points between Rust u64 limb slices and the
//! cuda/ types. The byte layouts are identical (little-endian limbs), so this
//! is a length-checked memcpy.
#pragma once

#include <cstring>
#include <string>

#include "../../cuda/util/error.hpp"
#include "rust/cxx.h"

namespace cuzk {

template <class T>
T load_one(rust::Slice<const uint64_t> s, const char* what) {
    if (s.size() * sizeof(uint64_t) != sizeof(T))
        throw_invalid(std::string(what) + ": expected " + std::to_string(sizeof(T) / 8) + " limbs, got " +
                      std::to_string(s.size()));
    T t;
    std::memcpy(&t, s.data(), sizeof(T));
    return t;
}

template <class T>
void store_one(rust::Slice<uint64_t> s, const T& t, const char* what) {
    if (s.size() * sizeof(uint64_t) != sizeof(T))
        throw_invalid(std::string(what) + ": expected " + std::to_string(sizeof(T) / 8) + " limbs, got " +
                      std::to_string(s.size()));
    std::memcpy(s.data(), &t, sizeof(T));
}

}  // namespace cuzk
