// The suite runner: the Bonferroni split, filtering, and thread-count independence of the results
// (each case is a pure function of its configuration and the seed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "analytic/error.hpp"
#include "validation/catalogue.hpp"
#include "validation/suite.hpp"

namespace suite_test {

namespace rv = retrylab::validation;

namespace {
bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }
}  // namespace

TEST(Suite, SameBytesForAnyThreadCount) {
  rv::SuiteOptions o;
  o.only = {"sleep-full-k4", "sleep-decorrelated-k3", "classic-free-none", "collision-goodput-0.5"};
  o.threads = 1;
  const auto one = rv::run_suite(o);
  o.threads = 3;
  const auto three = rv::run_suite(o);
  ASSERT_EQ(one.cases.size(), 4u);
  ASSERT_EQ(one.cases.size(), three.cases.size());
  for (std::size_t i = 0; i < one.cases.size(); ++i) {
    EXPECT_EQ(one.cases[i].name, three.cases[i].name);
    EXPECT_TRUE(same(one.cases[i].observed, three.cases[i].observed)) << one.cases[i].name;
    EXPECT_TRUE(same(one.cases[i].tolerance, three.cases[i].tolerance)) << one.cases[i].name;
    EXPECT_EQ(one.cases[i].check, three.cases[i].check);
  }
  EXPECT_TRUE(one.filtered);
}

TEST(Suite, BonferroniSplitOverTheWholeCatalogue) {
  rv::SuiteOptions o;
  o.only = {"classic-free-none"};
  const auto r = rv::run_suite(o);
  const auto all = rv::catalogue(rv::Scale::quick);
  const auto stat = std::count_if(all.begin(), all.end(),
                                  [](const rv::ValidationCase& c) { return c.kind == rv::CaseKind::statistical; });
  EXPECT_EQ(r.statistical_cases, stat);
  EXPECT_DOUBLE_EQ(r.alpha_per_case, o.alpha_total / static_cast<double>(stat));
  EXPECT_EQ(r.alpha_run, 0.0);  // an exact case spends none of the budget
  EXPECT_TRUE(r.passed);
}

TEST(Suite, BadOptionsAreInputErrors) {
  rv::SuiteOptions o;
  o.only = {"no-such-case"};
  EXPECT_THROW(rv::run_suite(o), retrylab::InputError);
  o.only.clear();
  o.threads = -1;
  EXPECT_THROW(rv::run_suite(o), retrylab::InputError);
  o.threads = 0;
  o.alpha_total = 1.5;
  EXPECT_THROW(rv::run_suite(o), retrylab::InputError);
}

TEST(Suite, CatalogueNamesAreUnique) {
  for (auto scale : {rv::Scale::quick, rv::Scale::full}) {
    const auto cat = rv::catalogue(scale);
    std::set<std::string> names;
    for (const auto& c : cat) EXPECT_TRUE(names.insert(c.name).second) << c.name;
  }
}

// Server-side mechanisms: every closed form of analytic/rows.hpp is in both suites, as a statistical case.
TEST(Suite, ServerClosedFormsAreInBothScales) {
  for (auto scale : {rv::Scale::quick, rv::Scale::full}) {
    const auto cat = rv::catalogue(scale);
    for (const char* name : {"aloha-rows", "occ-rows", "mm1-lock", "md1-lock", "mg1-lock-lognormal"}) {
      const auto it = std::find_if(cat.begin(), cat.end(), [&](const rv::ValidationCase& c) { return c.name == name; });
      ASSERT_NE(it, cat.end()) << name << " missing at scale " << rv::to_string(scale);
      EXPECT_EQ(it->kind, rv::CaseKind::statistical) << name;
    }
  }
}

TEST(Suite, ServerCaseConstructorsRejectBadInput) {
  using retrylab::Model;
  using retrylab::montecarlo::ServiceDist;
  const rv::SteadyRuns ok{0.5, 1000.0, 10.0, 4};
  EXPECT_THROW(rv::rows_goodput_case(Model::ps, 4, ok), retrylab::InputError);         // no closed form
  EXPECT_THROW(rv::rows_goodput_case(Model::collision, 0, ok), retrylab::InputError);  // rows >= 1
  EXPECT_THROW(rv::lock_sojourn_case(Model::shared, ServiceDist::exponential, 0.0, {1.0, 1000.0, 10.0, 4}),
               retrylab::InputError);                                                                         // λ < 1
  EXPECT_THROW(rv::lock_sojourn_case(Model::shared, ServiceDist::lognormal, 0.0, ok), retrylab::InputError);  // cv > 0
  EXPECT_THROW(rv::lock_sojourn_case(Model::shared, ServiceDist::exponential, 1.5, ok), retrylab::InputError);
  EXPECT_NO_THROW(rv::lock_sojourn_case(Model::free, ServiceDist::lognormal, 1.5, ok));
}

// The estimates are info cases in both scales (they never pass or fail), named "estimate-…".
TEST(Suite, EstimatesAreInfoCasesInBothScales) {
  for (auto scale : {rv::Scale::quick, rv::Scale::full}) {
    const auto cat = rv::catalogue(scale);
    const auto n = std::count_if(cat.begin(), cat.end(), [](const rv::ValidationCase& c) {
      return c.name.starts_with("estimate-") && c.kind == rv::CaseKind::info;
    });
    EXPECT_GE(n, scale == rv::Scale::quick ? 2 : 10) << rv::to_string(scale);
    for (const auto& c : cat) {
      if (c.name.starts_with("estimate-")) {
        EXPECT_EQ(c.kind, rv::CaseKind::info) << c.name;
      }
    }
  }
}

TEST(Suite, EstimateCaseConstructorsRejectBadInput) {
  using retrylab::Backoff;
  using retrylab::Model;
  using retrylab::Strategy;
  const retrylab::BurstModel ok{Model::collision, Backoff{Strategy::full, 1.0, 250.0, 0.0}, 100, 0.05, 60000.0, 3000.0};
  EXPECT_NO_THROW(rv::burst_drain_estimate_case(ok, 4));
  EXPECT_THROW(rv::burst_drain_estimate_case(ok, 1), retrylab::InputError);  // runs >= 2
  auto frac = ok;
  frac.collapse = 2.5;  // the engine's K is a whole number of clients
  EXPECT_THROW(rv::burst_drain_estimate_case(frac, 4), retrylab::InputError);
  EXPECT_THROW(rv::burst_cap_estimate_case(ok, 4, 0), retrylab::InputError);  // max_steps >= 1
  const retrylab::SteadyModel sm{Model::collision, Backoff{Strategy::full, 1.0, 1000.0, 0.0}};
  EXPECT_THROW(rv::steady_collapse_estimate_case(sm, 100.0, 20000.0, 0.0, 20), retrylab::InputError);  // step
  EXPECT_THROW(rv::steady_collapse_estimate_case(sm, 0.5, 20000.0, 0.05, 20), retrylab::InputError);   // K
  EXPECT_THROW(rv::steady_collapse_estimate_case({Model::ps, sm.backoff}, 100.0, 20000.0, 0.05, 20),
               retrylab::InputError);  // no mean field for ps
}

}  // namespace suite_test
