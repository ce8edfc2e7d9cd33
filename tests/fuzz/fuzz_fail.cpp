// The one definition of couplet::fuzz::fail, linked into every harness.
#include <cstdio>
#include <cstdlib>

#include "fuzz_input.hpp"

namespace couplet::fuzz {

void fail(const char* what) {
  std::fprintf(stderr, "fuzz property broken: %s\n", what);
  std::abort();
}

}  // namespace couplet::fuzz
