// Erlang's loss formula (analytic/erlang.hpp): the recurrence against the defining sum
// (a^c/c!)/Σ a^k/k! computed directly in long double, exact small values (B(1, a) = a/(1+a),
// B(3, 2) = 4/19), a published table value (B(10, 5) = 0.01838, e.g. any Erlang B table), the
// monotonicity in c and a, and the refusals of out-of-range input.
// Erlang's delay formula (erlang_c, mmc_mean_wait, mmc_wait_survival) against the M/M/c stationary
// law summed term by term in long double (π_k ∝ a^k/k! up to c, then ·a/c per state, summed until
// the terms vanish): P(N >= c), Σ_(k>=c) π_k (k − c + 1)/c, and the mixture
// Σ_(k>=c) π_k P(Erlang(k − c + 1, c) > t) that the exponential law of the wait summarises (not proved
// in proofs/ErlangC.v, so checked here); exact values C(1, a) = a, C(2, a) = a²/(2 + a), C(3, 2) = 4/9,
// and the table value C(10, 8) = 0.40918 (the textbook call-centre example: 10 agents, 8 erlangs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "analytic/erlang.hpp"
#include "analytic/error.hpp"

namespace erlang_test {

using retrylab::erlang_b;
using retrylab::erlang_c;
using retrylab::InputError;
using retrylab::mmc_mean_wait;
using retrylab::mmc_wait_survival;

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

// The M/M/c stationary law summed directly (unnormalised weights w_k, then divided by their total):
// P(N >= c), E[W] = Σ_(k>=c) π_k (k − c + 1)/c and, for t >= 0, P(W > t) = Σ_(k>=c) π_k P(the sum
// of k − c + 1 exponentials of rate c exceeds t) = Σ_(k>=c) π_k Σ_(i<=k−c) e^(−ct)(ct)^i/i!.
struct DirectMmc {
  long double wait_probability = 0, mean_wait = 0, survival = 0;
};

DirectMmc direct_mmc(std::int64_t c, long double a, long double t) {
  const long double cc = static_cast<long double>(c);
  long double w = 1.0L, total = 0, tail = 0, waits = 0, survival = 0;
  long double poisson = std::exp(-cc * t), poisson_cdf = 0;  // e^(−ct)(ct)^i/i! and its partial sum
  for (std::int64_t k = 0;; ++k) {
    if (k > 0) w *= a / static_cast<long double>(std::min(k, c));
    total += w;
    if (k >= c) {
      const std::int64_t i = k - c;  // the arrival waits for i + 1 departures at rate c
      poisson_cdf += poisson;
      poisson *= cc * t / static_cast<long double>(i + 1);
      tail += w;
      waits += w * static_cast<long double>(i + 1) / cc;
      survival += w * poisson_cdf;
      if (w * static_cast<long double>(i + 1) < 1e-24L * total) break;
    }
  }
  return {tail / total, waits / total, survival / total};
}

std::string field_of_c(std::int64_t c, double a, double t) {
  try {
    (void)mmc_wait_survival(c, a, t);
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

TEST(ErlangC, ExactAndPublishedValues) {
  EXPECT_EQ(erlang_c(3, 0.0), 0.0);
  for (double a : {0.0, 0.1, 0.5, 0.9, 0.999}) EXPECT_NEAR(erlang_c(1, a), a, 1e-15) << a;
  for (double a : {0.25, 1.0, 1.5, 1.9}) EXPECT_NEAR(erlang_c(2, a), a * a / (2.0 + a), 1e-15) << a;
  EXPECT_NEAR(erlang_c(2, 1.0), 1.0 / 3.0, 1e-15);
  EXPECT_NEAR(erlang_c(3, 2.0), 4.0 / 9.0, 1e-15);
  EXPECT_NEAR(erlang_c(10, 8.0), 0.4091802, 5e-8);  // = 4194304/10250507
  // M/M/1: E[W] = ρ/(1 − ρ), P(W > t) = ρ·e^(−(1 − ρ)t)
  EXPECT_NEAR(mmc_mean_wait(1, 0.5), 1.0, 1e-15);
  EXPECT_NEAR(mmc_mean_wait(1, 0.9), 9.0, 1e-12);
  EXPECT_NEAR(mmc_wait_survival(1, 0.5, 2.0), 0.5 * std::exp(-1.0), 1e-15);
  EXPECT_NEAR(mmc_mean_wait(2, 1.0), 1.0 / 3.0, 1e-15);
}

TEST(ErlangC, IdentityEqualsTheStationaryLawSummed) {
  for (std::int64_t c : {1, 2, 3, 5, 10, 25, 60})
    for (double rho : {0.0, 0.1, 0.5, 0.8, 0.95, 0.99}) {
      const double a = rho * static_cast<double>(c);
      const DirectMmc d = direct_mmc(c, a, 0.0L);
      EXPECT_NEAR(erlang_c(c, a), static_cast<double>(d.wait_probability), 1e-13) << "c=" << c << " a=" << a;
      EXPECT_NEAR(mmc_mean_wait(c, a), static_cast<double>(d.mean_wait),
                  1e-13 * (1.0 + static_cast<double>(d.mean_wait)))
          << "c=" << c << " a=" << a;
      EXPECT_NEAR(mmc_wait_survival(c, a, 0.0), static_cast<double>(d.survival), 1e-13) << "c=" << c << " a=" << a;
    }
}

TEST(ErlangC, WaitLawEqualsTheMixtureOfErlangWaits) {
  for (std::int64_t c : {1, 2, 4, 10})
    for (double rho : {0.3, 0.7, 0.9})
      for (double t : {0.05, 0.5, 1.0, 3.0}) {
        const double a = rho * static_cast<double>(c);
        const DirectMmc d = direct_mmc(c, a, t);
        EXPECT_NEAR(mmc_wait_survival(c, a, t), static_cast<double>(d.survival), 1e-13)
            << "c=" << c << " a=" << a << " t=" << t;
      }
}

TEST(ErlangC, BoundsAndMonotonicity) {
  for (std::int64_t c : {1, 2, 7, 30})
    for (double a = 0.0; a < static_cast<double>(c); a += 0.05 * static_cast<double>(c)) {
      const double w = erlang_c(c, a);
      EXPECT_GE(w, erlang_b(c, a));
      EXPECT_LE(w, 1.0);
      if (a > 0.0) {
        EXPECT_LT(erlang_c(c, a - 0.01), w);  // increasing in the load
        EXPECT_LT(erlang_c(c + 1, a), w);     // decreasing in the servers
        EXPECT_LT(mmc_wait_survival(c, a, 1.0), mmc_wait_survival(c, a, 0.5));
      }
    }
  // heavy traffic and a large system stay finite and in (0, 1] (no factorial is formed)
  EXPECT_GT(erlang_c(1, 1.0 - 1e-12), 1.0 - 1e-11);
  EXPECT_GT(mmc_mean_wait(1, 1.0 - 1e-9), 9e8);
  const double big = erlang_c(100000, 99000.0);
  EXPECT_GT(big, 0.0);
  EXPECT_LT(big, 1.0);
}

TEST(ErlangC, RefusesOutOfRange) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(field_of_c(0, 0.5, 0.0), "servers");
  EXPECT_EQ(field_of_c(-2, 0.5, 0.0), "servers");
  EXPECT_EQ(field_of_c(1'000'000'000, 0.5, 0.0), "servers");
  EXPECT_EQ(field_of_c(3, -0.5, 0.0), "load");
  EXPECT_EQ(field_of_c(3, 3.0, 0.0), "load");  // a = c: no steady state
  EXPECT_EQ(field_of_c(3, 4.0, 0.0), "load");
  EXPECT_EQ(field_of_c(3, nan, 0.0), "load");
  EXPECT_EQ(field_of_c(3, inf, 0.0), "load");
  EXPECT_EQ(field_of_c(3, 1.0, -1.0), "t");
  EXPECT_EQ(field_of_c(3, 1.0, nan), "t");
  EXPECT_EQ(field_of_c(3, 1.0, inf), "t");
  EXPECT_EQ(field_of_c(3, 1.0, 0.0), "");
  EXPECT_THROW((void)erlang_c(2, 2.0), InputError);
  EXPECT_THROW((void)mmc_mean_wait(0, 0.0), InputError);
  try {
    (void)erlang_c(4, 5.0);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "load must be a number in [0, servers) = [0, 4) (got 5)");
  }
}

}  // namespace erlang_test
