//! Device time of stream-ordered work, measured with CUDA events: what every
//! entry point that reports a kernel time (MSM, batch addition, the timed NTT,
//! the arithmetic microbenchmarks) uses, so their figures are comparable.
#pragma once

#include "cuda_util.cuh"

namespace cuzk::cuda {

class event {
public:
    event() { CUZK_CUDA(cudaEventCreate(&e_)); }
    ~event() { cudaEventDestroy(e_); }
    event(const event&) = delete;
    event& operator=(const event&) = delete;
    operator cudaEvent_t() const { return e_; }

private:
    cudaEvent_t e_{};
};

/// Elapsed device time of the work queued on a stream between construction
/// and stop_ms(), which waits for it.
class stream_timer {
public:
    explicit stream_timer(cudaStream_t s) : s_(s) { CUZK_CUDA(cudaEventRecord(start_, s_)); }

    float stop_ms() {
        CUZK_CUDA(cudaEventRecord(stop_, s_));
        CUZK_CUDA(cudaEventSynchronize(stop_));
        float ms = 0;
        CUZK_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
        return ms;
    }

private:
    cudaStream_t s_;
    event start_, stop_;
};

}  // namespace cuzk::cuda
