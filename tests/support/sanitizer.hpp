#pragma once
// Whether this test program is built with AddressSanitizer or ThreadSanitizer
// (g++ defines __SANITIZE_*__, clang answers __has_feature): timings, resident
// memory and address-space limits differ there, so a few assertions on them
// are left to the plain build, which runs the same tests. The macros serve
// declarations that exist only then (support/malloc_counter.hpp).
#if defined(__SANITIZE_ADDRESS__)
#define COUPLET_ADDRESS_SANITIZER 1
#endif
#if defined(__SANITIZE_THREAD__)
#define COUPLET_THREAD_SANITIZER 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COUPLET_ADDRESS_SANITIZER 1
#endif
#if __has_feature(thread_sanitizer)
#define COUPLET_THREAD_SANITIZER 1
#endif
#endif

namespace couplet::testing {

#if defined(COUPLET_ADDRESS_SANITIZER)
inline constexpr bool kAddressSanitized = true;
#else
inline constexpr bool kAddressSanitized = false;
#endif
#if defined(COUPLET_ADDRESS_SANITIZER) || defined(COUPLET_THREAD_SANITIZER)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace couplet::testing
