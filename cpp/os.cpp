//! Operating-system services the engine needs and Rust's std lacks.
#include <cerrno>
#include <cstring>
#include <string>

#include "bridge.hpp"
#include "../cuda/util/error.hpp"

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace cuzk {

void lower_thread_priority(int32_t steps) {
#if defined(__linux__)
    // On Linux a thread is a task with its own nice value, addressed by its
    // thread id; POSIX would apply setpriority to the whole process.
    const id_t tid = id_t(syscall(SYS_gettid));
    errno = 0;
    const int now = getpriority(PRIO_PROCESS, tid);
    if (now == -1 && errno != 0) throw error(std::string("host_error: getpriority: ") + std::strerror(errno));
    if (setpriority(PRIO_PROCESS, tid, now + steps) != 0)
        throw error(std::string("host_error: setpriority: ") + std::strerror(errno));
#else
    (void)steps;
    throw error("host_error: thread priorities are only set on Linux");
#endif
}

}  // namespace cuzk
