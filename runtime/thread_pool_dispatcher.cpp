#include "runtime/thread_pool_dispatcher.hpp"

#include <boost/asio/post.hpp>
#include <thread>

#include "couplet/errors.hpp"

namespace couplet {

namespace {

/// Spins before sleeping on a futex: waves follow each other within
/// microseconds in a fixed-step run, and a futex wake-up costs about as much.
/// Short enough not to steal much from another process on a busy machine.
constexpr int kSpinsBeforeWaiting = 1000;

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

/// Waits until `value` differs from `old`; returns the new value.
template <typename T>
T wait_for_change(const std::atomic<T>& value, T old) {
  for (int spin = 0; spin < kSpinsBeforeWaiting; ++spin) {
    const T now = value.load(std::memory_order_acquire);
    if (now != old) return now;
    relax();
  }
  for (;;) {
    value.wait(old, std::memory_order_acquire);
    const T now = value.load(std::memory_order_acquire);
    if (now != old) return now;
  }
}

}  // namespace

ThreadPoolDispatcher::ThreadPoolDispatcher(std::size_t threads) : workers_(threads - 1) {
  if (threads == 0) throw ConfigurationError("executor.threads must be at least 1");
  if (workers_ == 0) return;
  pool_.emplace(workers_);
  // One loop per pool thread, for the dispatcher's lifetime: a thread running
  // one cannot take another, so each lands on its own thread.
  for (std::size_t w = 0; w < workers_; ++w) boost::asio::post(*pool_, [this] { work(); });
}

ThreadPoolDispatcher::~ThreadPoolDispatcher() {
  if (!pool_) return;
  stopping_.store(true, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  pool_->join();
}

// Every worker checks in and out of every wave, even one with fewer actions
// than threads: the stepping thread returns only when no worker can still be
// reading this wave, so the next one may reuse the counters.
void ThreadPoolDispatcher::carry_out(std::span<const PlannedAction> wave, ActionCalls& calls) {
  if (workers_ == 0 || wave.size() < 2) {
    for (const PlannedAction& action : wave) calls.call(action);
    return;
  }
  wave_ = wave;
  calls_ = &calls;
  next_.store(0, std::memory_order_relaxed);
  outstanding_.store(static_cast<std::uint32_t>(workers_), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  take_actions();
  std::uint32_t left = outstanding_.load(std::memory_order_acquire);
  while (left != 0) left = wait_for_change(outstanding_, left);
}

void ThreadPoolDispatcher::work() {
  std::uint32_t seen = 0;
  for (;;) {
    seen = wait_for_change(generation_, seen);
    if (stopping_.load(std::memory_order_relaxed)) return;
    take_actions();
    if (outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1) outstanding_.notify_one();
  }
}

void ThreadPoolDispatcher::take_actions() {
  for (;;) {
    const std::size_t index = next_.fetch_add(1, std::memory_order_relaxed);
    if (index >= wave_.size()) return;
    calls_->call(wave_[index]);
  }
}

}  // namespace couplet
