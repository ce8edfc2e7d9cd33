#pragma once
// Makes the slave calls of a wave concurrently on a thread pool (scenario
// `executor: {type: threads, threads: N}`, docs/executors.md). The stepping
// thread takes part: N threads share each wave, the stepping thread and N − 1
// threads of a Boost.Asio thread_pool. Each takes the next action not yet taken
// until none is left (a shared counter), so unequal slaves balance themselves.
// Results land in each slave's own buffers and the executor completes them in
// plan order afterwards: decisions, run log and signals are those of the
// sequential run.
//
// Real-time boundary: the constructor allocates (the pool, its threads). After
// that carry_out() neither allocates nor takes a lock. Posting a handler per
// action to Asio allocates its operation object every time (asio's recycling
// allocator keeps a few per thread, but a handler posted from the stepping
// thread and run on a worker is freed into the worker's cache, so the stepping
// thread keeps allocating), so the pool's threads run one long-lived loop
// each, posted once at construction; a wave reaches them through a generation
// counter they wait on (spinning briefly, then std::atomic::wait: a futex, no
// allocation). Asio still owns the threads and their start-up and join.
//
// The stepping thread waits for the wave's calls, not for the workers: a
// worker still asleep when a wave is published (a sleeping core in a VM can
// take a hundred microseconds to wake) neither delays the wave nor holds up the
// next one; the threads that are awake make its calls. A worker that wakes late
// joins whatever wave is current. One 64-bit word holds the wave's tag, its
// size and the next action to take, so a late worker can never take an action
// of a wave that is over.
#include <atomic>
#include <boost/asio/thread_pool.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "runtime/action_dispatcher.hpp"

namespace couplet {

class ThreadPoolDispatcher final : public ActionDispatcher {
 public:
  /// `threads` ≥ 1: the threads sharing each wave, the stepping thread included
  /// (1: every call on the stepping thread).
  explicit ThreadPoolDispatcher(std::size_t threads);
  ~ThreadPoolDispatcher() override;
  ThreadPoolDispatcher(const ThreadPoolDispatcher&) = delete;
  ThreadPoolDispatcher& operator=(const ThreadPoolDispatcher&) = delete;

  std::string_view name() const override { return "threads"; }
  std::size_t threads() const { return workers_ + 1; }
  /// Returns when every call of the wave was made.
  void carry_out(std::span<const PlannedAction> wave, ActionCalls& calls) override;

 private:
  void work();
  /// Carries out a wave of at most kLargestWave actions.
  void carry_out_part(std::span<const PlannedAction> wave, ActionCalls& calls);
  /// Takes and makes the current wave's actions until none is left (any thread).
  void take_actions();

  std::size_t workers_;
  std::optional<boost::asio::thread_pool> pool_;
  // The wave being carried out: written by the stepping thread before it
  // publishes the wave's claim word (release), read by a thread only after it
  // claimed one of the wave's actions (acquire); the stepping thread rewrites
  // them only once every claimed action was made.
  std::span<const PlannedAction> wave_;
  ActionCalls* calls_ = nullptr;
  // Each on its own cache line: they are hit by every thread.
  alignas(64) std::atomic<std::uint64_t> claim_{0};       ///< wave tag | wave size | next action
  alignas(64) std::atomic<std::uint32_t> generation_{0};  ///< waves published so far
  alignas(64) std::atomic<std::uint32_t> made_{0};        ///< calls of this wave made
  std::atomic<bool> stopping_{false};
};

}  // namespace couplet
