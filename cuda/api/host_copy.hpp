//! Host-to-pinned copies for the staged uploads (quotient.cu): one thread
//! cannot read pageable memory as fast as the DMA engine drains pinned
//! memory, so each chunk is copied by several threads. They are started once
//! per quotient state and reused, because spawning them for every 32 MiB
//! chunk cost tens of microseconds per thread on a copy of under a
//! millisecond.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace cuzk {

class copy_pool {
public:
    /// A pool of `threads` - 1 workers; the caller of copy() is the last.
    explicit copy_pool(unsigned threads) {
        for (unsigned t = 1; t < std::max(1u, threads); t++) workers_.emplace_back([this, t] { work(t); });
    }

    ~copy_pool() {
        {
            std::lock_guard<std::mutex> lock(m_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto& w : workers_) w.join();
    }

    copy_pool(const copy_pool&) = delete;
    copy_pool& operator=(const copy_pool&) = delete;

    /// memcpy(dst, src, bytes), split evenly over the pool and the caller.
    void copy(void* dst, const void* src, uint64_t bytes) {
        const unsigned parts = unsigned(workers_.size()) + 1;
        {
            std::lock_guard<std::mutex> lock(m_);
            dst_ = static_cast<uint8_t*>(dst);
            src_ = static_cast<const uint8_t*>(src);
            bytes_ = bytes;
            per_ = (bytes + parts - 1) / parts;
            pending_ = unsigned(workers_.size());
            generation_++;
        }
        wake_.notify_all();
        copy_part(0);
        std::unique_lock<std::mutex> lock(m_);
        done_.wait(lock, [this] { return pending_ == 0; });
    }

private:
    void copy_part(unsigned t) const {
        const uint64_t begin = std::min(bytes_, uint64_t(t) * per_);
        const uint64_t end = std::min(bytes_, begin + per_);
        if (end > begin) std::memcpy(dst_ + begin, src_ + begin, end - begin);
    }

    void work(unsigned t) {
        uint64_t seen = 0;
        for (;;) {
            {
                std::unique_lock<std::mutex> lock(m_);
                wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
                if (stop_) return;
                seen = generation_;
            }
            copy_part(t);
            {
                std::lock_guard<std::mutex> lock(m_);
                pending_--;
            }
            done_.notify_one();
        }
    }

    std::vector<std::thread> workers_;
    std::mutex m_;
    std::condition_variable wake_, done_;
    bool stop_ = false;
    uint64_t generation_ = 0;
    unsigned pending_ = 0;
    uint8_t* dst_ = nullptr;
    const uint8_t* src_ = nullptr;
    uint64_t bytes_ = 0, per_ = 0;
};

}  // namespace cuzk
