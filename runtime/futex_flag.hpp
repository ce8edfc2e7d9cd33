#pragma once
// A 32-bit flag one thread sleeps on, with a time limit, and another wakes:
// Linux futex(2) on the flag's word. std::atomic::wait has no time limit, and
// libstdc++'s notify may skip the system call for a waiter it did not register,
// so both sides use the futex directly.
//
// Threads: wait_while() on the sleeping thread only; wake() on any; set() and
// load() on any (atomic).
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>

namespace couplet {

class FutexFlag {
 public:
  std::uint32_t load(std::memory_order order = std::memory_order_seq_cst) const {
    return word_.load(order);
  }
  void set(std::uint32_t value, std::memory_order order = std::memory_order_seq_cst) {
    word_.store(value, order);
  }
  std::uint32_t exchange(std::uint32_t value, std::memory_order order = std::memory_order_seq_cst) {
    return word_.exchange(value, order);
  }

  /// Sleeps while the flag holds `value`, at most `limit` (a signal or a
  /// spurious wake-up may end it earlier: the caller looks again).
  void wait_while(std::uint32_t value, std::chrono::nanoseconds limit) {
    const timespec timeout{static_cast<std::time_t>(limit.count() / 1'000'000'000),
                           static_cast<long>(limit.count() % 1'000'000'000)};
    ::syscall(SYS_futex, address(), FUTEX_WAIT_PRIVATE, value, &timeout, nullptr, 0);
  }

  /// Wakes the thread sleeping in wait_while(), if any (a system call).
  void wake() { ::syscall(SYS_futex, address(), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0); }

 private:
  std::uint32_t* address() { return reinterpret_cast<std::uint32_t*>(&word_); }

  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  std::atomic<std::uint32_t> word_{0};
};

}  // namespace couplet
