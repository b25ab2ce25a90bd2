// The planted-fault build (retrylab_montecarlo_faulty): each RETRYLAB_FAULT really changes
// the engine in the way its name says, so the validation gate has something real to catch. Each
// check is deterministic (fixed seeds) and states why the real engine could not pass it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/run_engine.hpp"
#include "montecarlo/simulate.hpp"
#include "montecarlo/trace.hpp"
#include "validation/trace/reader.hpp"

// This file compiles no event loop: the loops without an observer over planted faults are the
// planted-fault library's own copy (its simulate.cpp, montecarlo/run_engine.hpp), and the attempts'
// times come from that library's attempt trace (write_trace, its observed_run.cpp's loops), which
// takes the fault from RETRYLAB_FAULT as simulate() does.
namespace retrylab::montecarlo::detail {
RETRYLAB_NULL_OBSERVER_ENGINES(extern, PlantedFaults)
}  // namespace retrylab::montecarlo::detail

namespace mc = retrylab::montecarlo;
using retrylab::Backoff;
using retrylab::Model;
using retrylab::Strategy;

namespace {

struct FaultEnv {
  explicit FaultEnv(const char* name) { ::setenv("RETRYLAB_FAULT", name, 1); }
  ~FaultEnv() { ::unsetenv("RETRYLAB_FAULT"); }
};

// Run 0 of s with `seed` under the fault named (none: "") as its attempt trace records it (the
// planted-fault library's write_trace, read back by the trace reader of `retrylab check`): each ended
// attempt's (start, end), in the order they ended. The same run as the engine's run_engine(s, seed,
// 0) with that fault.
std::vector<std::pair<double, double>> traced_attempts(const mc::Scenario& s, std::uint64_t seed, const char* fault) {
  struct Attempts final : retrylab::validation::trace::RecordSink {
    std::vector<std::pair<double, double>> seen;
    void begin_run(std::int64_t, std::int64_t) override {}
    void row(const retrylab::validation::trace::Row& r, std::int64_t, std::string_view) override {
      seen.emplace_back(r.start, r.end);
    }
    void end_run(const std::optional<retrylab::validation::trace::RunEnd>&) override {}
  };
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("retrylab_faults_test_" + std::to_string(::getpid()) + ".csv");
  {
    FaultEnv f(fault);
    mc::write_trace(s, seed, 1, path.string());
  }
  Attempts attempts;
  {
    std::ifstream in(path);
    retrylab::validation::trace::TraceReader reader(in);
    reader.read(attempts);
  }
  std::filesystem::remove(path);
  return attempts.seen;
}

TEST(Faults, EveryNameParses) {
  for (const char* name : {"window_exponent", "free_ties_all_fail", "shared_doomed_leave_at_commit",
                           "decorrelated_uncapped_growth", "biased_uniform", "rows_ignored", "lognormal_sigma_is_cv",
                           "exponential_service_rate", "lock_released_early", "retry_limit_off_by_one"})
    EXPECT_NE(mc::parse_fault(name), mc::Fault::none) << name;
  EXPECT_EQ(mc::parse_fault(""), mc::Fault::none);
}

TEST(Faults, UnknownNameIsAnInputError) {
  FaultEnv f("no_such_fault");
  EXPECT_THROW(mc::draw_sleeps({Strategy::full, 1, 10, 0}, 1, 1, 1), retrylab::InputError);
  mc::Scenario s;
  s.traffic.clients = 2;
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
  s.traffic.clients = 2;
  s.measurement.horizon = 100;
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
  s.traffic.clients = 20;
  bool short_attempt = false;
  for (const auto& [start, end] : traced_attempts(s, 1, "shared_doomed_leave_at_commit"))
    if (end - start < 0.999) short_attempt = true;
  EXPECT_TRUE(short_attempt);
  FaultEnv f("shared_doomed_leave_at_commit");
  EXPECT_NO_THROW(mc::simulate(s, mc::RunPlan{1, 1, 1}));
}

// ---- the full tier's faults: each changes the server loop as named; the real engine
// (fault none, the same faulty library) is shown beside it. Fixed seeds, so each check is exact.

// Retries off, steady Poisson arrivals at `rate` on [0, horizon): the full tier's view of one run.
mc::Scenario steady_off(Model m, double rate, double horizon) {
  mc::Scenario s;
  s.model = m;
  s.traffic.rate = rate;
  s.measurement.horizon = horizon;
  s.client.retries = false;
  return s;
}

// Durations (client view = service: no delay, no lock, free serves every attempt at rate 1).
std::vector<double> durations(const mc::Scenario& s, const char* fault) {
  std::vector<double> d;
  for (const auto& [start, end] : traced_attempts(s, 7, fault)) d.push_back(end - start);
  return d;
}

double median(std::vector<double> xs) {
  std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(xs.size() / 2), xs.end());
  return xs[xs.size() / 2];
}

TEST(Faults, RowsIgnoredPutsEveryAttemptOnOneRow) {
  // collision over M = 4 rows at λ = 1 (retries off): goodput λe^(−2λ/M) = 0.607 (analytic/rows.hpp),
  // as if M = 1: λe^(−2λ) = 0.135. 2000 units: a run's goodput has sd < 0.02, so the thresholds sit
  // > 5 sd from both. Through simulate(), so RETRYLAB_FAULT reaches the full tier.
  mc::Scenario s = steady_off(Model::collision, 1.0, 2000);
  s.resource.rows = 4;
  ::unsetenv("RETRYLAB_FAULT");
  EXPECT_GT(mc::simulate(s, mc::RunPlan{1, 1, 1})[0].goodput, 0.5);
  FaultEnv f("rows_ignored");
  EXPECT_LT(mc::simulate(s, mc::RunPlan{1, 1, 1})[0].goodput, 0.25);
}

TEST(Faults, LognormalSigmaIsCvKeepsTheMeanButNotTheShape) {
  // Lognormal, mean 1, cv 1.5: median e^(−σ²/2) = 0.555 with σ² = ln(1+cv²); 0.325 with σ = cv.
  // ~4000 services: the sample median's sd is < 0.02.
  mc::Scenario s = steady_off(Model::free, 0.2, 20000);
  s.resource.service = mc::ServiceDist::lognormal;
  s.resource.service_cv = 1.5;
  const auto real = durations(s, "");
  const auto faulty = durations(s, "lognormal_sigma_is_cv");
  ASSERT_GT(real.size(), 3000u);
  ASSERT_GT(faulty.size(), 3000u);
  EXPECT_GT(median(real), 0.45);
  EXPECT_LT(median(faulty), 0.42);
}

TEST(Faults, ExponentialServiceRateHalvesTheMean) {
  // Exponential service: mean 1 really, 1/2 with the fault; ~4000 services, sd of the mean < 0.02.
  mc::Scenario s = steady_off(Model::free, 0.2, 20000);
  s.resource.service = mc::ServiceDist::exponential;
  const auto mean = [](const std::vector<double>& xs) {
    return std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
  };
  EXPECT_GT(mean(durations(s, "")), 0.9);
  EXPECT_LT(mean(durations(s, "exponential_service_rate")), 0.6);
}

TEST(Faults, RetryLimitOffByOneMakesOneAttemptTooMany) {
  // Two clients at t = 0 on collision with no backoff and at most 2 attempts: they collide at 0 and 1
  // and give up at 2 (4 attempts); with the fault they try a third time (6 attempts, lost at 3).
  mc::Scenario s;
  s.model = Model::collision;
  s.backoff = {Strategy::none, 1.0, 1000.0, 0.0};
  s.traffic.clients = 2;
  s.client.max_attempts = 2;
  mc::detail::EngineOptions o;
  mc::detail::NullObserver n;
  const auto real = mc::detail::run_engine(s, 1, 0, o, n, nullptr, mc::PlantedFaults());
  EXPECT_EQ(real.attempts, 4);
  EXPECT_EQ(real.lost, 2);
  EXPECT_EQ(real.stop_time, 2.0);
  const auto faulty =
      mc::detail::run_engine(s, 1, 0, o, n, nullptr, mc::PlantedFaults(mc::Fault::retry_limit_off_by_one));
  EXPECT_EQ(faulty.attempts, 6);
  EXPECT_EQ(faulty.lost, 2);
  EXPECT_EQ(faulty.stop_time, 3.0);
}

TEST(Faults, LockReleasedEarlyLetsTwoCollide) {
  // Two clients at t = 0 on one locked row (collision, retries off): really the second waits for the
  // first, so both succeed (ends 1 and 2); with the lock passed on at service start both are served
  // at once and collide: no success.
  mc::Scenario s;
  s.model = Model::collision;
  s.traffic.clients = 2;
  s.client.retries = false;
  s.resource.lock = true;
  mc::detail::EngineOptions o;
  mc::detail::NullObserver n;
  const auto real = mc::detail::run_engine(s, 1, 0, o, n, nullptr, mc::PlantedFaults());
  EXPECT_EQ(real.successes, 2);
  EXPECT_EQ(real.stop_time, 2.0);
  const auto faulty = mc::detail::run_engine(s, 1, 0, o, n, nullptr, mc::PlantedFaults(mc::Fault::lock_released_early));
  EXPECT_EQ(faulty.successes, 0);
  EXPECT_EQ(faulty.stop_time, 1.0);
}

}  // namespace
