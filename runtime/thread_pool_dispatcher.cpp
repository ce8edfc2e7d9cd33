#include "runtime/thread_pool_dispatcher.hpp"

#include <algorithm>
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

// The claim word: the wave's tag (the low 24 bits of its generation) above its
// size above the next action's index, 20 bits each. A thread that read the
// word of an older wave fails its exchange, since the tag differs: the tag
// comes round again only after 2^24 waves.
constexpr unsigned kFieldBits = 20;
constexpr std::uint64_t kFieldMask = (std::uint64_t{1} << kFieldBits) - 1;

constexpr std::uint64_t claim_word(std::uint32_t generation, std::size_t size, std::size_t index) {
  return (std::uint64_t{generation} << (2 * kFieldBits)) | (std::uint64_t{size} << kFieldBits) |
         std::uint64_t{index};
}

/// The most actions one claim word holds: a larger wave goes in parts.
constexpr std::size_t kLargestWave = kFieldMask;

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

void ThreadPoolDispatcher::carry_out(std::span<const PlannedAction> wave, ActionCalls& calls) {
  if (workers_ == 0 || wave.size() < 2) {
    for (const PlannedAction& action : wave) calls.call(action);
    return;
  }
  for (std::size_t first = 0; first < wave.size(); first += kLargestWave)
    carry_out_part(wave.subspan(first, std::min(kLargestWave, wave.size() - first)), calls);
}

void ThreadPoolDispatcher::carry_out_part(std::span<const PlannedAction> wave, ActionCalls& calls) {
  wave_ = wave;
  calls_ = &calls;
  made_.store(0, std::memory_order_relaxed);
  const std::uint32_t generation = generation_.load(std::memory_order_relaxed) + 1;
  claim_.store(claim_word(generation, wave.size(), 0), std::memory_order_release);
  generation_.store(generation, std::memory_order_release);
  generation_.notify_all();
  take_actions();
  std::uint32_t made = made_.load(std::memory_order_acquire);
  while (made != wave.size()) made = wait_for_change(made_, made);
}

void ThreadPoolDispatcher::work() {
  std::uint32_t seen = 0;
  for (;;) {
    seen = wait_for_change(generation_, seen);
    if (stopping_.load(std::memory_order_relaxed)) return;
    take_actions();
  }
}

void ThreadPoolDispatcher::take_actions() {
  std::uint64_t claim = claim_.load(std::memory_order_acquire);
  for (;;) {
    const std::uint64_t index = claim & kFieldMask;
    const std::uint64_t size = (claim >> kFieldBits) & kFieldMask;
    if (index >= size) return;
    // The claim word of another wave, or one another thread advanced, fails
    // the exchange (which reloads it): a call is made only for an action of
    // the current wave that no other thread took.
    if (!claim_.compare_exchange_weak(claim, claim + 1, std::memory_order_acquire)) continue;
    calls_->call(wave_[index]);
    if (made_.fetch_add(1, std::memory_order_release) + 1 == size) made_.notify_one();
    claim = claim_.load(std::memory_order_acquire);
  }
}

}  // namespace couplet
