// Time series (montecarlo/series.hpp). A property over random scenarios: one run's series, summed over
// its bins, equals the run's totals (requests arriving, attempts, successes, lost) whenever the run
// ended at the horizon or finished (bins after any other stop are undefined), and recording a series
// changes no result of any run. Reproducibility: the series' bytes do not depend on the thread count.
// Refusals: a bin that is not a finite number > 0, more than 10^6 bins. Hedged requests are answered
// once each (never more than were offered); the server's queue keeps the attempts clients abandoned.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

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

// Hedged requests (a copy's late reply, hedge_cancel off, is not a second answer): a request is
// counted in `successes` once, when answered, so up to the end of every bin a run has answered no
// more requests than arrived (goodput never exceeds the requests offered), and the bins sum to the
// run's successes (requests). Counting successful attempts, as the series did, fails this within a
// few cases: a copy sent before its original's answer often succeeds too. A bin alone may answer
// more than arrive in it (a backlog draining), so the bound is on the running sums.
RC_GTEST_PROP(Series, HedgedRequestsAreAnsweredOnceAndNeverMoreThanOffered, ()) {
  mc::Scenario s;
  s.model = *rc::gen::element(Model::collision, Model::free, Model::ps, Model::none);
  s.backoff = {Strategy::full, 1.0, 20.0, 0.0};
  s.traffic.rate = *rc::gen::element(0.3, 0.7, 1.5);
  s.measurement.horizon = *rc::gen::element(60.0, 200.0);
  s.client.max_attempts = *rc::gen::inRange<std::int64_t>(1, 4);
  s.client.hedge.attempts = *rc::gen::inRange<std::int64_t>(2, 6);
  s.client.hedge.delay = *rc::gen::element(0.0, 0.3, 1.0);
  s.client.hedge.cancel = *rc::gen::arbitrary<bool>();
  if (!s.client.hedge.cancel && *rc::gen::arbitrary<bool>()) {  // a queue at the server (no cancelling)
    s.model = Model::none;
    s.admission.limit = *rc::gen::inRange<std::int64_t>(1, 4);
    s.admission.overflow = mc::Overflow::queue;
    s.resource.service = mc::ServiceDist::exponential;
  }
  const double bin = *rc::gen::element(0.5, 4.0);
  const mc::SimulatedSeries got = mc::simulate_series(s, {1, *rc::gen::inRange<std::uint64_t>(0, 1000), 1}, bin);
  const mc::RunResult& r = got.runs[0];
  RC_PRE(r.stop == mc::StopReason::finished || r.stop == mc::StopReason::horizon);
  const auto& offered = got.series.values[static_cast<std::size_t>(Q::offered)];
  const auto& answered = got.series.values[static_cast<std::size_t>(Q::successes)];
  double in = 0.0, out = 0.0;
  for (std::size_t k = 0; k < offered.size(); ++k) {
    in += offered[k].mean;
    out += answered[k].mean;
    RC_ASSERT(out <= in);
  }
  RC_ASSERT(out == static_cast<double>(r.successes));
  RC_ASSERT(total(got.series, Q::successes) + total(got.series, Q::failures) <= static_cast<double>(r.attempts));
}

// The server's queue (attempts it holds, queued or in service) is never below the attempts in service
// and, with a client timeout, holds far more than the clients still wait for: under overload the
// queue grows past the timeout and most of it is attempts their clients abandoned.
TEST(Series, TheServerQueueHoldsTheAttemptsTheClientsAbandoned) {
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 10.0, 0.0};
  s.traffic.rate = 3.0;  // three times the server's capacity (limit 1, one attempt per attempt-duration)
  s.admission.limit = 1;
  s.admission.overflow = mc::Overflow::queue;
  s.client.timeout = 5.0;
  s.client.max_attempts = 2;
  s.measurement.horizon = 400.0;
  const mc::SimulatedSeries got = mc::simulate_series(s, {4, 11, 1}, 20.0);
  const auto& at_server = got.series.values[static_cast<std::size_t>(Q::server_queue)];
  const auto& in_flight = got.series.values[static_cast<std::size_t>(Q::in_flight)];
  // Every attempt in flight waits at the server (no network delay); the rest of the server's queue
  // was abandoned by its client. From t = 100 on (bin 5) it holds ten times as many.
  for (std::size_t k = 0; k < at_server.size(); ++k) EXPECT_GE(at_server[k].mean, in_flight[k].mean - 1e-9) << k;
  for (std::size_t k = 5; k < at_server.size(); ++k) EXPECT_GT(at_server[k].mean, 10.0 * in_flight[k].mean) << k;
  // Without a timeout no attempt is abandoned: the server holds exactly the attempts in flight.
  s.client.timeout = std::numeric_limits<double>::infinity();
  s.traffic.rate = 0.9;
  const mc::SimulatedSeries kept = mc::simulate_series(s, {2, 5, 1}, 20.0);
  for (std::size_t k = 0; k < 20; ++k)
    EXPECT_NEAR(kept.series.values[static_cast<std::size_t>(Q::server_queue)][k].mean,
                kept.series.values[static_cast<std::size_t>(Q::in_flight)][k].mean, 1e-9)
        << k;
  // The plain tier (no server option): every attempt in flight is at the server.
  mc::Scenario plain;
  plain.model = Model::free;
  plain.traffic.rate = 0.5;
  plain.measurement.horizon = 100.0;
  const mc::SimulatedSeries p = mc::simulate_series(plain, {2, 3, 1}, 10.0);
  for (std::size_t k = 0; k < 10; ++k)
    EXPECT_TRUE(same_bits(p.series.values[static_cast<std::size_t>(Q::server_queue)][k].mean,
                          p.series.values[static_cast<std::size_t>(Q::in_flight)][k].mean));
}

// A run's request latency percentiles (P²) are ordered and lie within the bins' nearest-rank ones.
TEST(Series, RunLatencyPercentilesAreOrdered) {
  mc::Scenario s;
  s.model = Model::none;
  s.traffic.rate = 0.8;
  s.admission.limit = 1;
  s.admission.overflow = mc::Overflow::queue;
  s.resource.service = mc::ServiceDist::exponential;
  s.measurement.horizon = 5000.0;
  double p50 = 0.0, p99 = 0.0, p999 = 0.0;
  mc::simulate_series(s, {1, 5, 1}, 500.0, {}, [&](std::uint64_t, const mc::RunSeries& r) {
    p50 = r.latency[0];
    p99 = r.latency[1];
    p999 = r.latency[2];
  });
  // M/M/1 at load 0.8: the time in system is exponential with mean 1 / (1 − 0.8) = 5 attempt-durations,
  // so p50 = 5 ln 2 = 3.47, p99 = 5 ln 100 = 23.0, p99.9 = 5 ln 1000 = 34.5; one run of ~4,000
  // requests (correlated in a queue) lands within 35% of each.
  EXPECT_NEAR(p50, 5.0 * std::log(2.0), 0.35 * 5.0 * std::log(2.0));
  EXPECT_NEAR(p99, 5.0 * std::log(100.0), 0.35 * 5.0 * std::log(100.0));
  EXPECT_LT(p50, p99);
  EXPECT_LT(p99, p999);
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
