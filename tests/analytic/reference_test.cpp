// The closed forms against reference_values.txt (50-digit values from reference/gen_reference.cpp).
// Tolerance: relative error <= 4·ε·cond, cond given per line by the generator (1 for well-conditioned
// formulas; the amplification of rounding otherwise). A value of exactly 0 must come out exactly 0.
// The decorrelated uncapped mean is held to the grid's stated accuracy instead (numerical, not ε).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analytic/aloha.hpp"
#include "analytic/amplification.hpp"
#include "analytic/budget.hpp"
#include "analytic/classic.hpp"
#include "analytic/decorrelated.hpp"
#include "analytic/fluid_cap.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "analytic/sleep.hpp"

namespace retrylab::reference_test {
namespace {

using Line = std::vector<std::string>;

const std::multimap<std::string, Line>& table() {
  static const std::multimap<std::string, Line> lines = [] {
    std::multimap<std::string, Line> m;
    std::ifstream in(RETRYLAB_ANALYTIC_REFERENCE);
    std::string text;
    while (std::getline(in, text)) {
      if (text.empty() || text[0] == '#') continue;
      std::istringstream is(text);
      Line l;
      for (std::string w; is >> w;) l.push_back(w);
      m.emplace(l.front(), l);
    }
    return m;
  }();
  return lines;
}

double num(const std::string& s) { return std::strtod(s.c_str(), nullptr); }
long integer(const std::string& s) { return std::stol(s); }

// Calls check(line) for every line of the family and returns how many there were.
template <class F>
int for_each(const std::string& name, F check) {
  int n = 0;
  auto [lo, hi] = table().equal_range(name);
  for (auto it = lo; it != hi; ++it, ++n) {
    std::string joined;
    for (const auto& w : it->second) joined += w + ' ';
    SCOPED_TRACE(joined);
    check(it->second);
  }
  return n;
}

// The last two fields are the value and its cond.
void expect_close(double got, const Line& l) {
  const double ref = num(l[l.size() - 2]);
  const double cond = num(l.back());
  const double eps = std::numeric_limits<double>::epsilon();
  if (ref == 0.0) {
    EXPECT_EQ(got, 0.0);
    return;
  }
  EXPECT_LE(std::abs(got - ref), 4.0 * eps * cond * std::abs(ref))
      << "got " << got << " ref " << ref << " rel err " << std::abs(got - ref) / std::abs(ref) / eps << " eps";
}

TEST(Reference, FileIsPresent) { EXPECT_GT(table().size(), 200u) << RETRYLAB_ANALYTIC_REFERENCE; }

TEST(Reference, Aloha) {
  EXPECT_EQ(for_each("aloha_goodput", [](const Line& l) { expect_close(goodput(PureAloha{num(l[1])}), l); }), 8);
  EXPECT_EQ(for_each("aloha_max", [](const Line& l) { expect_close(aloha_max_goodput(), l); }), 1);
  EXPECT_EQ(for_each("aloha_low", [](const Line& l) { expect_close(aloha_inverse(num(l[1])).low, l); }), 6);
  EXPECT_EQ(for_each("aloha_high", [](const Line& l) { expect_close(aloha_inverse(num(l[1])).high, l); }), 6);
}

TEST(Reference, Occ) {
  EXPECT_EQ(for_each("occ_goodput", [](const Line& l) { expect_close(goodput(OccFree{num(l[1])}), l); }), 6);
  EXPECT_EQ(for_each("occ_success", [](const Line& l) { expect_close(success_probability(OccFree{num(l[1])}), l); }),
            6);
}

TEST(Reference, Ps) {
  EXPECT_EQ(for_each("ps_time",
                     [](const Line& l) {
                       expect_close(mean_time(ProcessorSharing{num(l[1]), num(l[2])}), l);
                     }),
            10);
  EXPECT_EQ(for_each("ps_number", [](const Line& l) { expect_close(mean_number(ProcessorSharing{num(l[1])}), l); }), 5);
}

SleepDistribution sleep_of(const Line& l) {
  Backoff b{*parse_strategy(l[1]), num(l[2]), num(l[3]), num(l[5])};
  return SleepDistribution(b, static_cast<int>(integer(l[4])));
}

TEST(Reference, SleepMeansAndQuantiles) {
  EXPECT_EQ(for_each("sleep_mean", [](const Line& l) { expect_close(sleep_of(l).mean(), l); }), 14);
  EXPECT_EQ(for_each("sleep_quantile", [](const Line& l) { expect_close(sleep_of(l).quantile(num(l[6])), l); }), 70);
}

TEST(Reference, DecorrelatedGrowth) {
  EXPECT_EQ(for_each("growth_limit", [](const Line& l) { expect_close(decorrelated_growth_limit(), l); }), 1);
  EXPECT_EQ(for_each("step_growth",
                     [](const Line& l) {
                       const double cap = num(l[3]) >= 1e308 ? unbounded_cap : num(l[3]);
                       expect_close(decorrelated_step_growth(num(l[1]), num(l[2]), cap), l);
                     }),
            11);
}

// Numerical, so held to its stated accuracy (decorrelated.hpp: mean relative error < 1e-5 uncapped
// up to k = 40 with the default grid), not to ε.
TEST(Reference, DecorrelatedUncappedMeanWithinStatedAccuracy) {
  EXPECT_EQ(for_each("decorrelated_mean_uncapped",
                     [](const Line& l) {
                       const DecorrelatedSleep d(Backoff{Strategy::decorrelated, 1.0, unbounded_cap, 0.0},
                                                 static_cast<int>(integer(l[1])));
                       const double ref = num(l[2]);
                       EXPECT_LE(std::abs(d.mean() - ref), 1e-5 * ref);
                     }),
            6);
}

TEST(Reference, Classic) {
  EXPECT_EQ(
      for_each(
          "classic_attempts",
          [](const Line& l) {
            for (Strategy s : {Strategy::none, Strategy::nojitter})
              expect_close(*classic({Model::free, Backoff{s, 1.0, 1000.0, 0.0}, integer(l[1])}).attempts_per_client, l);
          }),
      5);
  EXPECT_EQ(
      for_each(
          "classic_makespan_none",
          [](const Line& l) {
            expect_close(*classic({Model::free, Backoff{Strategy::none, 1.0, 1000.0, 0.0}, integer(l[1])}).makespan, l);
          }),
      5);
  EXPECT_GE(for_each("classic_makespan_nojitter",
                     [](const Line& l) {
                       const Backoff b{Strategy::nojitter, num(l[2]), num(l[3]), 0.0};
                       expect_close(*classic({Model::free, b, integer(l[1])}).makespan, l);
                     }),
            20);
}

TEST(Reference, Amplification) {
  EXPECT_EQ(
      for_each(
          "amplification",
          [](const Line& l) {
            const RetryAmplification m{static_cast<int>(integer(l[1])), static_cast<int>(integer(l[2])), num(l[3])};
            expect_close(expected_bottom_calls(m), l);
          }),
      80);
}

TEST(Reference, FluidCap) {
  EXPECT_EQ(for_each("fluid_upper_root", [](const Line& l) { expect_close(fluid_upper_root(num(l[1])), l); }), 3);
  EXPECT_EQ(for_each("fluid_cap",
                     [](const Line& l) {
                       FluidCap f;
                       f.backoff.strategy = *parse_strategy(l[1]);
                       f.clients = integer(l[2]);
                       f.rate = num(l[3]);
                       expect_close(fluid_cap(f).cap, l);
                     }),
            36);
}

TEST(Reference, Budget) {
  EXPECT_EQ(for_each("budget",
                     [](const Line& l) {
                       const TokenBucket t = l[1] == "grpc"                   ? grpc_throttling()
                                             : l[1] == "aws-standard-timeout" ? aws_standard_timeout()
                                                                              : aws_standard();
                       expect_close(max_retries(t, num(l[2])), l);
                     }),
            12);
}

}  // namespace
}  // namespace retrylab::reference_test
