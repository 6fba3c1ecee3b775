//! The one background thread that frees the host function's temporaries
//! (split vectors, gathered tail bases), so a proof returns as soon as it
//! exists instead of after gigabytes of munmap. One serialised worker, not a
//! thread per call: parallel frees of huge buffers stall the whole machine.
#pragma once

#include <memory>
#include <utility>

namespace cuzk::g16 {

/// Queues `garbage` for destruction on the freeing thread (started on first use).
void free_later(std::shared_ptr<void> garbage);

/// Moves `value` to the freeing thread.
template <class T>
void free_later_value(T&& value) {
    free_later(std::make_shared<std::decay_t<T>>(std::forward<T>(value)));
}

}  // namespace cuzk::g16
