#pragma once
// Counts the process's heap allocations — malloc, calloc and realloc, and so
// operator new and SUNDIALS' C allocations — made while counting_mallocs is
// set, for proving that a stepping path does not allocate (the real-time rules
// of docs/architecture.md). Include this header in exactly one source file of
// a test program.
//
// Without a sanitizer, the program's own malloc family interposes glibc's (it
// is found before libc's by the dynamic linker) and forwards to glibc's
// __libc_* entry points. Under AddressSanitizer or ThreadSanitizer that is not
// possible — the sanitizer's runtime is the malloc the program must use (its
// own definitions clash with clang's static runtime and bypass gcc's shared
// one) — so the count comes from the sanitizer's allocation hook instead,
// which sees the same calls. UBSan alone leaves malloc alone: interposition.
#include <atomic>
#include <cstddef>

namespace couplet::testing {
inline std::atomic<bool> counting_mallocs{false};
inline std::atomic<long> malloc_count{0};
inline void note_malloc() {
  if (counting_mallocs.load(std::memory_order_relaxed)) malloc_count.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace couplet::testing

#include "support/sanitizer.hpp"

#if defined(COUPLET_ADDRESS_SANITIZER) || defined(COUPLET_THREAD_SANITIZER)
#define COUPLET_MALLOC_BY_SANITIZER 1
#endif

#ifdef COUPLET_MALLOC_BY_SANITIZER
// sanitizer/allocator_interface.h, which g++ 12 does not ship; both runtimes
// (gcc's libasan/libtsan, clang's compiler-rt) provide the function.
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, std::size_t),
                                                         void (*free_hook)(const volatile void*));
namespace couplet::testing {
inline void sanitizer_malloc_hook(const volatile void*, std::size_t) { note_malloc(); }
inline void sanitizer_free_hook(const volatile void*) {}
/// Installed before main() (the hook is per process, like the interposition).
inline const int malloc_hook_installed =
    __sanitizer_install_malloc_and_free_hooks(sanitizer_malloc_hook, sanitizer_free_hook);
}  // namespace couplet::testing
#else
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void __libc_free(void* pointer);

void* malloc(std::size_t size) noexcept {
  couplet::testing::note_malloc();
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) noexcept {
  couplet::testing::note_malloc();
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t size) noexcept {
  couplet::testing::note_malloc();
  return __libc_realloc(pointer, size);
}
void free(void* pointer) noexcept { __libc_free(pointer); }
}
#endif
