// analytic/rows.hpp: each closed form reduces to an existing, proved one at its edge (one row; the
// M/M/1 mean equals the M/G/1-PS mean for exponential service), scales as its derivation says
// (M rows at λ = M rows-of-one at λ/M), and refuses bad input naming the field. Comparisons are to
// a few ulps (4·ε relative): each side is a handful of correctly rounded operations.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>

#include "analytic/aloha.hpp"
#include "analytic/error.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "analytic/rows.hpp"

namespace rows_test {

namespace {

using namespace retrylab;

constexpr double eps = std::numeric_limits<double>::epsilon();

void expect_close(double a, double b) { EXPECT_NEAR(a, b, 4 * eps * std::max(std::abs(a), std::abs(b))); }

TEST(Rows, OneRowIsTheSingleRowModel) {
  for (const double rate : {0.0, 0.1, 0.5, 1.0, 3.0}) {
    expect_close(goodput(AlohaRows{rate, 1}), goodput(PureAloha{rate}));
    expect_close(goodput(FreeRows{rate, 1}), goodput(OccFree{rate}));
  }
}

TEST(Rows, ExponentialFifoMeanEqualsPsMean) {
  // M/M/1: FIFO and PS share the mean time in system 1/(1−λ) (PS is insensitive; FIFO with m2 = 2).
  for (const double rate : {0.0, 0.25, 0.5, 0.9}) {
    expect_close(mean_time(FifoQueue{rate, service_second_moment_exponential()}),
                 mean_time(ProcessorSharing{rate, 1.0}));
  }
  EXPECT_EQ(mean_time(FifoQueue{0.5, 1.0}), 1.5);  // M/D/1 at 1/2: 1 + 0.5/(2·0.5)
  EXPECT_EQ(service_second_moment_lognormal(2.0), 5.0);
}

RC_GTEST_PROP(Rows, MRowsAtRateIsMRowsOfOneAtRateOverM, ()) {
  const double rate = *rc::gen::inRange(0, 10000) / 1000.0;
  const auto rows = *rc::gen::inRange<std::int64_t>(1, 64);
  const double m = static_cast<double>(rows);
  const double per_row = rate / m;
  RC_ASSERT(std::abs(goodput(AlohaRows{rate, rows}) - m * goodput(PureAloha{per_row})) <=
            8 * eps * std::max(1.0, rate));
  RC_ASSERT(std::abs(goodput(FreeRows{rate, rows}) - m * goodput(OccFree{per_row})) <= 8 * eps * std::max(1.0, rate));
}

TEST(Rows, TimeoutLossIsTheExponentialTailOfTheMm1Sojourn) {
  // P(W > τ) for W ~ Exp(1−λ): the tail at the mean 1/(1−λ) is e^−1; at λ = 0 the service tail e^−τ.
  for (const double rate : {0.0, 0.5, 0.9})
    expect_close(loss_probability(FifoTimeout{rate, 1.0 / (1.0 - rate)}), std::exp(-1.0));
  expect_close(loss_probability(FifoTimeout{0.0, 3.0}), std::exp(-3.0));
  // Longer timeouts lose fewer; more load loses more.
  EXPECT_LT(loss_probability(FifoTimeout{0.5, 4.0}), loss_probability(FifoTimeout{0.5, 2.0}));
  EXPECT_GT(loss_probability(FifoTimeout{0.8, 2.0}), loss_probability(FifoTimeout{0.5, 2.0}));
}

TEST(Rows, BadInputNamesTheField) {
  auto field = [](auto&& f) {
    try {
      f();
    } catch (const InputError& e) {
      return e.field();
    }
    return std::string("none");
  };
  EXPECT_EQ(field([] { goodput(AlohaRows{-1.0, 1}); }), "rate");
  EXPECT_EQ(field([] { goodput(AlohaRows{1.0, 0}); }), "rows");
  EXPECT_EQ(field([] { goodput(FreeRows{NAN, 2}); }), "rate");
  EXPECT_EQ(field([] { mean_time(FifoQueue{1.0, 1.0}); }), "rate");
  EXPECT_EQ(field([] { mean_time(FifoQueue{0.5, 0.5}); }), "second_moment");
  EXPECT_EQ(field([] { service_second_moment_lognormal(-1.0); }), "cv");
  EXPECT_EQ(field([] { loss_probability(FifoTimeout{1.0, 2.0}); }), "rate");
  EXPECT_EQ(field([] { loss_probability(FifoTimeout{0.5, 0.0}); }), "timeout");
  EXPECT_EQ(field([] { loss_probability(FifoTimeout{0.5, INFINITY}); }), "timeout");
}

}  // namespace

}  // namespace rows_test
