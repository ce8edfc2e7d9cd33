// Rounding rules of Real → Integer connections (runtime/rounding.hpp): the
// halves, the signs, and the edges of the 64-bit range.
#include "runtime/rounding.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace couplet {
namespace {

TEST(Rounding, EachRuleAsStated) {
  EXPECT_EQ(rounded(2.5, Rounding::nearest), 3);
  EXPECT_EQ(rounded(-2.5, Rounding::nearest), -3);  // halves away from zero
  EXPECT_EQ(rounded(0.49999999999999994, Rounding::nearest), 0);
  EXPECT_EQ(rounded(-0.5, Rounding::floor), -1);
  EXPECT_EQ(rounded(2.999, Rounding::floor), 2);
  EXPECT_EQ(rounded(0.5, Rounding::ceil), 1);
  EXPECT_EQ(rounded(-0.5, Rounding::ceil), 0);
  EXPECT_EQ(rounded(-1.7, Rounding::truncate), -1);
  EXPECT_EQ(rounded(1.7, Rounding::truncate), 1);
}

TEST(Rounding, OnlyValuesA64BitIntegerHoldsRound) {
  const double two_to_63 = 9223372036854775808.0;
  EXPECT_EQ(rounded(-two_to_63, Rounding::nearest), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(rounded(std::nextafter(two_to_63, 0.0), Rounding::floor),
            std::int64_t{9223372036854774784});
  EXPECT_FALSE(rounded(two_to_63, Rounding::floor));
  EXPECT_FALSE(rounded(std::nextafter(-two_to_63, -1e300), Rounding::ceil));
  EXPECT_FALSE(rounded(std::nan(""), Rounding::nearest));
  EXPECT_FALSE(rounded(std::numeric_limits<double>::infinity(), Rounding::truncate));
}

TEST(Rounding, NamesReadBack) {
  for (const Rounding rule :
       {Rounding::nearest, Rounding::floor, Rounding::ceil, Rounding::truncate})
    EXPECT_EQ(rounding_named(to_string(rule)), rule);
  EXPECT_FALSE(rounding_named("round"));
  EXPECT_FALSE(rounding_named(""));
}

}  // namespace
}  // namespace couplet
