// Serial-number comparison of sequence numbers across the 2^32 wrap (docs/links.md).
#include <gtest/gtest.h>

#include <cstdint>

#include "protocol/sequence.hpp"

namespace couplet::protocol {
namespace {

TEST(Sequence, OrdinaryOrder) {
  EXPECT_TRUE(is_newer(2, 1));
  EXPECT_FALSE(is_newer(1, 2));
  EXPECT_FALSE(is_newer(5, 5));
}

TEST(Sequence, SurvivesWraparound) {
  constexpr Sequence last = 0xFFFF'FFFFU;
  EXPECT_EQ(next_sequence(last), 1U) << "0 is reserved for unsequenced messages";
  EXPECT_TRUE(is_newer(next_sequence(last), last));
  EXPECT_FALSE(is_newer(last, next_sequence(last)));
  EXPECT_TRUE(is_newer(3, 0xFFFF'FFF0U));
  EXPECT_FALSE(is_newer(0xFFFF'FFF0U, 3));
}

// Walk a window of sequence numbers across the wrap: every number is newer than
// the ones before it within half the space, and older than those after it.
TEST(Sequence, MonotoneAcrossTheWrap) {
  Sequence previous = 0xFFFF'FF00U;
  Sequence current = previous;
  for (int k = 0; k < 1000; ++k) {
    current = next_sequence(current);
    ASSERT_NE(current, 0U);
    ASSERT_TRUE(is_newer(current, previous)) << current << " after " << previous;
    ASSERT_FALSE(is_newer(previous, current));
    ASSERT_TRUE(is_newer(current, 0xFFFF'FF00U));
    previous = current;
  }
}

TEST(Sequence, HalfTheSpaceApartIsOld) {
  EXPECT_TRUE(is_newer(0x7FFF'FFFFU, 0));
  EXPECT_FALSE(is_newer(0x8000'0000U, 0)) << "ambiguous distance counts as old (ignored)";
  EXPECT_TRUE(is_newer(0, 0x8000'0001U));
}

}  // namespace
}  // namespace couplet::protocol
