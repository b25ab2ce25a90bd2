// repeated_sum (montecarlo/repeated_sum.hpp) against the loop it stands for, to the last bit: random
// sums and addends of many magnitudes, ties (odd multiples of half the sum's spacing), sums just
// below a power of two, zero and tiny values, n up to a million. Fixed seed: no false failures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "montecarlo/repeated_sum.hpp"

namespace {

using retrylab::montecarlo::detail::repeated_sum;

double by_loop(double s, double d, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) s += d;
  return s;
}

bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(RepeatedSum, EqualsTheLoopBitForBit) {
  std::mt19937_64 g(20261206);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto value = [&](std::uint64_t kind) -> double {
    switch (kind % 6) {
      case 0: return unit(g) * 1000.0;
      case 1: return std::ldexp(1.0 + static_cast<double>(g() % 8) / 8.0, static_cast<int>(g() % 60) - 20);
      case 2: return std::floor(unit(g) * 2000.0) / 4.0;
      case 3: return unit(g) * 1e-3;
      case 4: return std::ldexp(static_cast<double>(g() % 4096), static_cast<int>(g() % 40) - 30);
      default: return 0.0;
    }
  };
  int ties = 0;
  for (int i = 0; i < 40000; ++i) {
    double s = value(g()), d = value(g());
    if (g() % 7 == 0)  // just below a power of two: the binade's top is crossed
      s = std::ldexp(1.0, static_cast<int>(g() % 50)) - std::ldexp(1.0, static_cast<int>(g() % 10) - 2);
    if (g() % 5 == 0) {  // a tie: an odd multiple of half the spacing at s (or at 1)
      int e = 0;
      (void)std::frexp(s > 0.0 ? s : 1.0, &e);
      d = std::ldexp(static_cast<double>(2 * (g() % 7) + 1), e - 54 + static_cast<int>(g() % 3));
      ++ties;
    }
    const auto n = static_cast<std::int64_t>(i % 1000 == 0 ? g() % 1'000'000 : g() % 3000);
    const double loop = by_loop(s, d, n), fast = repeated_sum(s, d, n);
    ASSERT_TRUE(same(loop, fast)) << std::hexfloat << "s=" << s << " d=" << d << " n=" << n << ": " << loop << " vs "
                                  << fast;
  }
  EXPECT_GT(ties, 5000);
}

TEST(RepeatedSum, KnownCases) {
  EXPECT_EQ(repeated_sum(0.0, 1.0, 1000), 1000.0);
  EXPECT_EQ(repeated_sum(0x1p53, 1.0, 1000), 0x1p53);           // each 1 is half the spacing, s even: unchanged
  EXPECT_EQ(repeated_sum(0x1p53 + 2.0, 1.0, 3), 0x1p53 + 4.0);  // odd: up to the even one, then stays
  EXPECT_EQ(repeated_sum(0x1p53, 3.0, 2), 0x1p53 + 8.0);        // 3 rounds to 4 (the even neighbour) each time
  EXPECT_EQ(repeated_sum(5.0, 0.0, 7), 5.0);
  EXPECT_EQ(repeated_sum(1.0, 0.1, 10), by_loop(1.0, 0.1, 10));
  EXPECT_NE(repeated_sum(0.0, 0.1, 10), 0.1 * 10);  // the loop's rounding, not the product's
}

}  // namespace
