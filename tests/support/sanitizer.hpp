#pragma once
// Whether this test program is built with AddressSanitizer or ThreadSanitizer
// (g++ defines __SANITIZE_*__, clang answers __has_feature): timings and
// resident memory differ there, so a few assertions on them are left to the
// plain build, which runs the same tests.
namespace couplet::testing {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace couplet::testing
