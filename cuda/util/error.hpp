//! Errors that cross the bridge. cxx turns a thrown std::exception into a Rust
//! Err whose message is what(); the message starts with a machine-readable
//! kind that cuzk-gpu parses into its typed GpuError:
//!   no_gpu: ...                              no driver, no device, or built without CUDA
//!   no_device(id=I,count=C): ...             device id out of range
//!   cuda_oom(requested=B,free=F): ...        device allocation failed
//!   cuda_error(CODE): ...                    any other CUDA runtime error
//!   invalid_input: ...                       caller passed malformed data
//!   unsatisfied(row=R): ...                  the witness fails constraint R (the lowest such)
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <utility>

namespace cuzk {

class error : public std::exception {
public:
    explicit error(std::string message) : message_(std::move(message)) {}
    const char* what() const noexcept override { return message_.c_str(); }

private:
    std::string message_;
};

[[noreturn]] inline void throw_no_gpu(const std::string& detail) { throw error("no_gpu: " + detail); }

[[noreturn]] inline void throw_no_device(int32_t id, int32_t count) {
    throw error("no_device(id=" + std::to_string(id) + ",count=" + std::to_string(count) +
                "): no CUDA device with this id");
}

[[noreturn]] inline void throw_oom(uint64_t requested, uint64_t free, const std::string& detail) {
    throw error("cuda_oom(requested=" + std::to_string(requested) + ",free=" + std::to_string(free) +
                "): " + detail);
}

[[noreturn]] inline void throw_cuda(int code, const std::string& detail) {
    throw error("cuda_error(" + std::to_string(code) + "): " + detail);
}

[[noreturn]] inline void throw_invalid(const std::string& detail) { throw error("invalid_input: " + detail); }

[[noreturn]] inline void throw_unsatisfied(uint64_t row) {
    throw error("unsatisfied(row=" + std::to_string(row) + "): the witness does not satisfy a·b = c in this row");
}

}  // namespace cuzk
