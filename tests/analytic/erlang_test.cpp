// Erlang's loss formula (analytic/erlang.hpp): the recurrence against the defining sum
// (a^c/c!)/Σ a^k/k! computed directly in long double, exact small values (B(1, a) = a/(1+a),
// B(3, 2) = 4/19), a published table value (B(10, 5) = 0.01838, e.g. any Erlang B table), the
// monotonicity in c and a, and the refusals of out-of-range input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "analytic/erlang.hpp"
#include "analytic/error.hpp"

using retrylab::erlang_b;
using retrylab::InputError;

namespace {

long double direct(std::int64_t c, long double a) {
  long double term = 1.0L, sum = 1.0L;  // a^0/0!
  for (std::int64_t k = 1; k <= c; ++k) {
    term *= a / static_cast<long double>(k);
    sum += term;
  }
  return term / sum;
}

std::string field_of(std::int64_t c, double a) {
  try {
    (void)erlang_b(c, a);
  } catch (const InputError& e) {
    return e.field();
  }
  return "";
}

}  // namespace

TEST(ErlangB, RecurrenceEqualsTheDefiningSum) {
  for (std::int64_t c = 0; c <= 40; ++c)
    for (double a : {0.0, 0.1, 0.5, 1.0, 2.0, 7.5, 20.0, 60.0})
      EXPECT_NEAR(erlang_b(c, a), static_cast<double>(direct(c, a)), 1e-14) << "c=" << c << " a=" << a;
}

TEST(ErlangB, ExactAndPublishedValues) {
  EXPECT_EQ(erlang_b(0, 3.0), 1.0);
  EXPECT_EQ(erlang_b(5, 0.0), 0.0);
  for (double a : {0.25, 1.0, 2.0, 9.0}) EXPECT_NEAR(erlang_b(1, a), a / (1.0 + a), 1e-15);
  EXPECT_NEAR(erlang_b(3, 2.0), 4.0 / 19.0, 1e-15);
  EXPECT_NEAR(erlang_b(10, 5.0), 0.0183846, 5e-8);
}

TEST(ErlangB, DecreasesInPlacesIncreasesInLoad) {
  for (double a : {0.5, 2.0, 10.0})
    for (std::int64_t c = 0; c < 30; ++c) EXPECT_LT(erlang_b(c + 1, a), erlang_b(c, a));
  for (std::int64_t c : {1, 3, 10})
    for (double a = 0.25; a < 20.0; a += 0.25) EXPECT_LT(erlang_b(c, a), erlang_b(c, a + 0.25));
  // a large system stays finite and in [0, 1] (no factorial is formed)
  const double big = erlang_b(100000, 99000.0);
  EXPECT_GT(big, 0.0);
  EXPECT_LT(big, 1.0);
}

TEST(ErlangB, RetriesInFlightLoad) {
  EXPECT_DOUBLE_EQ(retrylab::retries_in_flight_load(2.0, 0.5, 1.0, 1.0), 2.0);
  EXPECT_DOUBLE_EQ(retrylab::retries_in_flight_load(0.0, 0.5, 1.0, 1.0), 0.0);
  EXPECT_THROW((void)retrylab::retries_in_flight_load(1.0, 1.5, 1.0, 1.0), InputError);
  EXPECT_THROW((void)retrylab::retries_in_flight_load(1.0, 0.5, -1.0, 1.0), InputError);
  EXPECT_THROW((void)retrylab::retries_in_flight_load(1.0, 0.5, 1.0, 0.0), InputError);
}

TEST(ErlangB, RefusesOutOfRange) {
  EXPECT_EQ(field_of(-1, 1.0), "places");
  EXPECT_EQ(field_of(1'000'000'000, 1.0), "places");
  EXPECT_EQ(field_of(3, -0.5), "load");
  EXPECT_EQ(field_of(3, std::numeric_limits<double>::quiet_NaN()), "load");
  EXPECT_EQ(field_of(3, std::numeric_limits<double>::infinity()), "load");
  EXPECT_EQ(field_of(3, 1.0), "");
}
