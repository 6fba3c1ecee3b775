//! The freeing thread: a detached std::thread fed by a queue (dealloc.hpp).
#include "dealloc.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace cuzk::g16 {
namespace {

struct freeing_queue {
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<std::shared_ptr<void>> items;

    freeing_queue() {
        std::thread([this] {
            for (;;) {
                std::shared_ptr<void> item;
                {
                    std::unique_lock<std::mutex> lock(mutex);
                    ready.wait(lock, [this] { return !items.empty(); });
                    item = std::move(items.front());
                    items.pop_front();
                }
                item.reset();  // the destructor runs here, outside the lock
            }
        }).detach();
    }
};

/// Never destroyed: the detached thread may outlive static destruction.
freeing_queue& queue() {
    static freeing_queue* q = new freeing_queue();
    return *q;
}

}  // namespace

void free_later(std::shared_ptr<void> garbage) {
    freeing_queue& q = queue();
    {
        std::lock_guard<std::mutex> lock(q.mutex);
        q.items.push_back(std::move(garbage));
    }
    q.ready.notify_one();
}

}  // namespace cuzk::g16
