#pragma once
// A counting hook on the global allocation functions, for proving that a stepping
// loop does not allocate (docs/architecture.md, real-time boundary). Replacing operator new is
// per program: include this header in exactly one source file of a test or
// benchmark program.
#include <atomic>
#include <cstdlib>
#include <new>

// The replacement operators pair malloc with free on purpose.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace couplet::testing {
inline std::atomic<long> allocation_count{0};
inline long allocations() { return allocation_count.load(std::memory_order_relaxed); }
// The calling thread's own count: for a stepping thread that runs beside other
// threads that may allocate (the live view's server).
inline thread_local long thread_allocation_count = 0;
inline long allocations_on_this_thread() { return thread_allocation_count; }
}  // namespace couplet::testing

void* operator new(std::size_t size) {
  couplet::testing::allocation_count.fetch_add(1, std::memory_order_relaxed);
  ++couplet::testing::thread_allocation_count;
  if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
// The nothrow forms too (std::stable_partition's temporary buffer uses them):
// counted, and paired with free like the others.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  couplet::testing::allocation_count.fetch_add(1, std::memory_order_relaxed);
  ++couplet::testing::thread_allocation_count;
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete[](void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete(void* memory, const std::nothrow_t&) noexcept {
  std::free(memory);
}
void operator delete[](void* memory, const std::nothrow_t&) noexcept {
  std::free(memory);
}
