// Time series (montecarlo/series.hpp). A property over random scenarios: one run's series, summed over
// its bins, equals the run's totals (requests arriving, attempts, successes, lost) whenever the run
// ended at the horizon or finished (bins after any other stop are undefined), and recording a series
// changes no result of any run. Reproducibility: the series' bytes do not depend on the thread count.
// Refusals: a bin that is not a finite number > 0, more than 10^6 bins.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>

#include "analytic/error.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/series.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/support/scenario_checks.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;
using retrylab::test::same_bits;
using Q = mc::SeriesQuantity;

namespace {

double total(const mc::Series& s, Q q) {
  double sum = 0.0;
  for (const auto& m : s.values[static_cast<std::size_t>(q)]) sum += m.mean;
  return sum;
}

mc::Scenario random_scenario() {
  mc::Scenario s;
  s.model = *rc::gen::element(Model::collision, Model::free, Model::shared, Model::ps, Model::none);
  s.backoff.strategy = *rc::gen::element(Strategy::full, Strategy::equal, Strategy::decorrelated, Strategy::nojitter);
  s.backoff.base = *rc::gen::element(0.5, 1.0, 2.0);
  s.backoff.cap = s.backoff.base * *rc::gen::element(4.0, 50.0);
  s.traffic.clients = *rc::gen::inRange<std::int64_t>(0, 40);
  s.traffic.rate = *rc::gen::element(0.0, 0.2, 0.6);
  if (s.traffic.clients == 0 && s.traffic.rate == 0.0) s.traffic.clients = 5;
  s.measurement.horizon = *rc::gen::element(30.0, 120.0);
  if (*rc::gen::element(false, true)) s.client.max_attempts = *rc::gen::inRange<std::int64_t>(1, 6);
  if (*rc::gen::element(false, true)) s.client.deadline = *rc::gen::element(5.0, 20.0);
  if (*rc::gen::element(false, false, true)) s.failures.failure_prob = 0.3;
  return s;
}

}  // namespace

RC_GTEST_PROP(Series, SummedOverItsBinsOneRunGivesItsTotals, ()) {
  const mc::Scenario s = random_scenario();
  const double bin = *rc::gen::element(0.7, 3.0, 25.0);
  const auto seed = *rc::gen::inRange<std::uint64_t>(0, 1000);
  const mc::RunPlan plan{1, seed, 1};
  const mc::SimulatedSeries got = mc::simulate_series(s, plan, bin);
  const std::vector<mc::RunResult> plain = mc::simulate(s, plan);
  RC_ASSERT(got.runs.size() == 1u);
  const mc::RunResult& r = got.runs[0];
  // The same run with or without the observer.
  RC_ASSERT(r.attempts == plain[0].attempts);
  RC_ASSERT(r.successes == plain[0].successes);
  RC_ASSERT(same_bits(r.stop_time, plain[0].stop_time));
  RC_ASSERT(r.stop == plain[0].stop);
  RC_PRE(r.stop == mc::StopReason::finished || r.stop == mc::StopReason::horizon);
  RC_ASSERT(total(got.series, Q::offered) == static_cast<double>(r.clients_arrived));
  RC_ASSERT(total(got.series, Q::attempts) == static_cast<double>(r.attempts));
  RC_ASSERT(total(got.series, Q::successes) == static_cast<double>(r.successes));
  RC_ASSERT(total(got.series, Q::lost) == static_cast<double>(r.lost));
  RC_ASSERT(total(got.series, Q::successes) + total(got.series, Q::failures) <= static_cast<double>(r.attempts));
}

TEST(Series, TheBytesDoNotDependOnTheThreadCount) {
  mc::Scenario s;
  s.model = Model::collision;
  s.backoff = {Strategy::full, 1.0, 100.0, 0.0};
  s.traffic.clients = 30;
  s.traffic.rate = 0.2;
  s.measurement.horizon = 200;
  const mc::SimulatedSeries one = mc::simulate_series(s, {16, 7, 1}, 10.0);
  const mc::SimulatedSeries two = mc::simulate_series(s, {16, 7, 2}, 10.0);
  ASSERT_EQ(one.series.bins, 20);
  for (int q = 0; q < mc::series_quantities; ++q)
    for (std::size_t k = 0; k < 20; ++k) {
      const auto& a = one.series.values[static_cast<std::size_t>(q)][k];
      const auto& b = two.series.values[static_cast<std::size_t>(q)][k];
      EXPECT_TRUE(same_bits(a.mean, b.mean) && same_bits(a.ci95.lo, b.ci95.lo) && a.n == b.n) << q << " " << k;
    }
}

TEST(Series, BinsOutOfRangeAreRefusedBeforeAnyRun) {
  for (const double bin : {0.0, -1.0, std::nan(""), double{INFINITY}}) {
    try {
      mc::series_bins(bin, 100.0);
      FAIL() << "bin " << bin << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "series");
    }
  }
  EXPECT_EQ(mc::series_bins(1.0, 1e6), 1'000'000);
  try {
    mc::series_bins(0.5, 1e6);  // 2e6 bins
    FAIL() << "2e6 bins accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "series");
    EXPECT_NE(std::string(e.what()).find("at most 1000000"), std::string::npos) << e.what();
  }
}
