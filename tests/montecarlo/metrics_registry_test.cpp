// The metric registry (montecarlo/metrics.hpp): one entry per key and rank, every component's
// declaration in it, and every per-run value inside its declared range (a whole number for a count)
// over random scenarios that turn every component on.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "montecarlo/builds.hpp"
#include "montecarlo/metrics.hpp"
#include "montecarlo/simulate.hpp"

namespace mc = retrylab::montecarlo;

TEST(MetricRegistry, KeysAndRanksAreUniqueAndInRankOrder) {
  std::set<std::string> keys;
  int last = -1;
  for (const mc::Metric& m : mc::metric_registry()) {
    EXPECT_TRUE(keys.insert(std::string(m.key)).second) << m.key;
    EXPECT_GT(m.rank, last) << m.key;
    last = m.rank;
    EXPECT_EQ(mc::find_metric(m.key), &m);
  }
  EXPECT_EQ(mc::find_metric("no_such_metric"), nullptr);
}

TEST(MetricRegistry, HoldsEveryComponentMetricAtItsSlot) {
  const auto& defs = mc::detail::component_metrics::defs;
  for (std::size_t i = 0; i < defs.size(); ++i) {
    const mc::Metric* m = mc::find_metric(defs[i].key);
    ASSERT_NE(m, nullptr) << defs[i].key;
    EXPECT_EQ(m->slot, static_cast<int>(i));
  }
}

TEST(MetricRegistry, SummaryReadsWhatSummarizeWrote) {
  std::vector<mc::RunResult> rs(2);
  const mc::Metric* rejected = mc::find_metric("rejected");
  ASSERT_NE(rejected, nullptr);
  rs[0].extra[static_cast<std::size_t>(rejected->slot)] = 3.0;
  rs[1].extra[static_cast<std::size_t>(rejected->slot)] = 5.0;
  const mc::Summary s = mc::summarize(rs);
  EXPECT_EQ(s.mean("rejected").mean, 4.0);
  EXPECT_EQ(s.mean("rejected").n, 2);
  EXPECT_EQ(rs[1].metric("rejected"), 5.0);
  EXPECT_THROW((void)s.mean("collapsed"), std::logic_error);  // a proportion
  EXPECT_THROW((void)s.proportion("goodput"), std::logic_error);
  EXPECT_THROW((void)rs[0].metric("no_such_metric"), std::logic_error);
}

// Scenarios that turn on (nearly) every component at once, at random settings.
RC_GTEST_PROP(MetricRegistry, EveryValueIsInItsRange, ()) {
  mc::Scenario s;
  s.model = *rc::gen::element(retrylab::Model::collision, retrylab::Model::free, retrylab::Model::shared,
                              retrylab::Model::ps);
  s.backoff.strategy = retrylab::Strategy::full;
  s.backoff.base = 1.0;
  s.backoff.cap = 50.0;
  s.traffic.rate = 0.05 * *rc::gen::inRange(1, 20);
  s.measurement.horizon = 400.0;
  s.traffic.clients = *rc::gen::inRange(0, 40);
  s.client.timeout = *rc::gen::element(mc::detail::inf, 3.0);
  s.client.max_attempts = *rc::gen::inRange(0, 6);
  s.admission.limit = *rc::gen::inRange(0, 4);
  s.failures.failure_prob = *rc::gen::element(0.0, 0.2);
  if (*rc::gen::arbitrary<bool>()) {
    s.failures.outage_start = 50.0;
    s.failures.outage_end = 100.0;
    s.measurement.recovery_window = *rc::gen::element(0.0, 20.0);
  }
  s.client.budget.preset = *rc::gen::inRange(0, 2);
  s.client.attempt_ms = 1.0;  // the budgets that keep time read their clock in ms
  if (s.client.max_attempts == 0 && !std::isinf(s.client.timeout)) s.client.max_attempts = 4;
  mc::check_scenario(s);
  const mc::RunResult r = mc::simulate_run(s, 7, 0);
  for (const mc::Metric& m : mc::metric_registry()) {
    const double v = m.value(r);
    if (std::isnan(v)) continue;
    RC_ASSERT(v >= m.lo);
    RC_ASSERT(v <= m.hi);
    if (m.integer) RC_ASSERT(v == std::floor(v));
    if (m.reduce == mc::Reduce::proportion) RC_ASSERT(v == 0.0 || v == 1.0);
  }
}
