#pragma once
// A 64-bit FNV-1a hash over every master decision (step times, input polynomials,
// requested samples). Two runs with the same configuration and the same slave
// results must produce the same value (`decision_hash` in docs/cli.md).
#include <bit>
#include <cstdint>
#include <cstdio>
#include <string>

#include "couplet/polynomial.hpp"

namespace couplet {

class DecisionHash {
 public:
  void add(std::uint64_t word) {
    for (int byte = 0; byte < 8; ++byte) {
      state_ ^= (word >> (8 * byte)) & 0xffU;
      state_ *= 0x100000001b3ULL;
    }
  }
  void add(std::int64_t word) { add(static_cast<std::uint64_t>(word)); }
  void add(double value) { add(std::bit_cast<std::uint64_t>(value)); }
  void add(const Polynomial& polynomial) {
    add(polynomial.origin());
    add(polynomial.scale());
    add(static_cast<std::uint64_t>(polynomial.degree()));
    for (const double coefficient : polynomial.coefficients()) add(coefficient);
  }
  std::uint64_t value() const { return state_; }

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

/// "0x0123456789abcdef": how summaries, logs and reports show a decision hash.
inline std::string hash_text(std::uint64_t hash) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace couplet
