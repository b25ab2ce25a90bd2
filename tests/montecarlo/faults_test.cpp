// The planted-fault build (retrylab_montecarlo_faulty, issue 4): each RETRYLAB_FAULT really changes
// the engine in the way its name says, so the validation gate has something real to catch. Each
// check is deterministic (fixed seeds) and states why the real engine could not pass it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <numeric>

#include "analytic/error.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/simulate.hpp"
#include "trace.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::Backoff;
using retrylab::Model;
using retrylab::Strategy;

namespace {

struct FaultEnv {
  explicit FaultEnv(const char* name) { ::setenv("RETRYLAB_FAULT", name, 1); }
  ~FaultEnv() { ::unsetenv("RETRYLAB_FAULT"); }
};

TEST(Faults, UnknownNameIsAnInputError) {
  FaultEnv f("no_such_fault");
  EXPECT_THROW(mc::draw_sleeps({Strategy::full, 1, 10, 0}, 1, 1, 1), retrylab::InputError);
  mc::Scenario s;
  s.clients = 2;
  EXPECT_THROW(mc::simulate(s, mc::RunPlan{1, 1, 1}), retrylab::InputError);
}

TEST(Faults, NoneSetMeansTheRealEngine) {
  ::unsetenv("RETRYLAB_FAULT");
  EXPECT_EQ(mc::draw_sleeps({Strategy::nojitter, 1, 1000, 0}, 1, 1, 1)[0], 1.0);
}

TEST(Faults, WindowExponentDoublesTheWindow) {
  FaultEnv f("window_exponent");
  EXPECT_EQ(mc::draw_sleeps({Strategy::nojitter, 1, 1000, 0}, 1, 1, 1)[0], 2.0);  // real: w_1 = b = 1
}

TEST(Faults, DecorrelatedUncappedGrowthSticksToTheCap) {
  // b = 1, c = 2: really s_(k−1) <= 2, so P(s_k = c) = P(U(1, 3s) >= 2) <= (6−2)/(6−1) = 0.8. Growing
  // from the uncapped draw, 3s grows geometrically and s_k = c almost always by k = 10.
  FaultEnv f("decorrelated_uncapped_growth");
  const auto xs = mc::draw_sleeps({Strategy::decorrelated, 1, 2, 0}, 10, 4000, 1);
  const double at_cap = static_cast<double>(std::count(xs.begin(), xs.end(), 2.0)) / 4000.0;
  EXPECT_GT(at_cap, 0.95);
}

TEST(Faults, BiasedUniformShiftsTheMean) {
  // Full jitter with w_1 = 1: really mean 1/2 (sd 0.29, 40000 draws: se 0.0014); biased: 1/2.05.
  FaultEnv f("biased_uniform");
  const auto xs = mc::draw_sleeps({Strategy::full, 1, 1000, 0}, 1, 40000, 1);
  const double mean = std::accumulate(xs.begin(), xs.end(), 0.0) / 40000.0;
  EXPECT_LT(mean, 0.492);
}

TEST(Faults, FreeTiesAllFailNeverFinishes) {
  // Really, free/none with N = 2 finishes at 2 (one of two simultaneous commits wins).
  FaultEnv f("free_ties_all_fail");
  mc::Scenario s;
  s.model = Model::free;
  s.backoff = {Strategy::none, 1, 1000, 0};
  s.clients = 2;
  s.horizon = 100;
  const auto r = mc::simulate(s, mc::RunPlan{1, 1, 1})[0];
  EXPECT_EQ(r.successes, 0);
  EXPECT_EQ(r.stop, mc::StopReason::horizon);
}

TEST(Faults, SharedDoomedLeaveAtCommit) {
  // Really every shared attempt takes >= 1 (service at rate <= 1); a doomed attempt leaving at the
  // winning commit can take less.
  mc::Scenario s;
  s.model = Model::shared;
  s.backoff = {Strategy::full, 1, 1000, 0};
  s.clients = 20;
  mc::detail::EngineOptions o;
  o.fault = mc::Fault::shared_doomed_leave_at_commit;
  mc::testing::TraceObserver t;
  mc::detail::run_engine(s, 1, 0, o, t);
  bool short_attempt = false;
  for (const auto& a : t.attempts)
    if (a.ended && a.end - a.start < 0.999) short_attempt = true;
  EXPECT_TRUE(short_attempt);
  FaultEnv f("shared_doomed_leave_at_commit");
  EXPECT_NO_THROW(mc::simulate(s, mc::RunPlan{1, 1, 1}));
}

}  // namespace
