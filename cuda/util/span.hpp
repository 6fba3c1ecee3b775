//! A read-only view of contiguous elements (C++17 has no std::span). C++
//! functions that other C++ calls take this instead of rust::Slice, so
//! rust::Slice stays at the bridge's edge and the code below it does not
//! depend on cxx.
#pragma once

#include <cstddef>
#include <type_traits>

namespace cuzk {

template <class T>
class span {
public:
    constexpr span() = default;
    constexpr span(T* data, size_t size) : data_(data), size_(size) {}

    constexpr T* data() const { return data_; }
    constexpr size_t size() const { return size_; }
    constexpr bool empty() const { return size_ == 0; }
    constexpr T& operator[](size_t i) const { return data_[i]; }

private:
    T* data_ = nullptr;
    size_t size_ = 0;
};

/// The view of anything with data() and size() (a rust::Slice at the bridge).
template <class C>
auto span_of(const C& c) -> span<std::remove_pointer_t<decltype(c.data())>> {
    return {c.data(), c.size()};
}

}  // namespace cuzk
