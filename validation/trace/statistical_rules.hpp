#pragma once
// StatisticalRules: a trace against the closed forms its declared traffic admits (docs/models.md):
// KS of the sleeps (probability integral transform under analytic/sleep.hpp's exact law, per retry
// index and pooled), their independence (the transformed sleeps of a client's consecutive retries
// are uncorrelated: S = sum of (u_k - 1/2)(u_(k+1) - 1/2), a martingale whose self-normalised sum
// S/sqrt(sum of its squared terms) is N(0, 1) for large n; the censoring rule never looks at the
// second sleep of a pair, so it keeps each term's mean 0), goodput with retries off (ALOHA, first commit wins, their
// rows forms), time in system (the FIFO lock by Pollaczek–Khinchine, processor sharing) and the classic test (exact).
// The tests share a false-alarm budget of trace_alpha_total per trace (Bonferroni over those run);
// p-values of the mean checks from Student's t (Boost.Math). Memory: per-run accumulators and at
// most ks_sample_cap transformed sleeps per KS test. Fed by the caller: rows, and the sleeps the
// invariants found inside their support.
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analytic/classic.hpp"
#include "analytic/sleep.hpp"
#include "montecarlo/scenario.hpp"
#include "validation/trace/invariants.hpp"
#include "validation/trace/power.hpp"
#include "validation/trace/record.hpp"
#include "validation/trace/server_rules.hpp"
#include "validation/trace/sleep_rules.hpp"

namespace retrylab::validation::trace {

// A statistical check before its verdict: its p-value (NaN for an exact check or one that did not
// run) and what its power is computed from.
struct StatCheck {
  TraceCheck check;
  double p;
  PowerBasis power = {};
};

// The verdicts of a trace's statistical checks: trace_alpha_total split evenly over those with a
// p-value (Bonferroni), each failing when p < its share; each gets its power at that share.
void settle_statistics(std::vector<StatCheck>& stats, std::vector<TraceCheck>& out);

class StatisticalRules {
 public:
  StatisticalRules(const montecarlo::Scenario& s, const ServerRules& sv, const SleepRules& sleeps)
      : s_(s), sv_(sv), sleeps_(sleeps) {}

  void row(const Row& r);
  void sleep(const SleepSample& x);
  void begin_run(std::int64_t line) { run_line_ = line; }
  // The stop time of the run now ending: its run_end record's, else the last end seen.
  double stop_time(const std::optional<RunEnd>& stop) const;
  void end_run(const std::optional<RunEnd>& stop, double stop_time);
  void finish(std::vector<StatCheck>& stats) const;

 private:
  using Stat = StatCheck;
  struct ClassicRun {
    std::int64_t attempts, successes;
    double makespan;
    bool finished;
    std::int64_t line;
  };
  struct PendingKs {
    double u, latest_start;
    int bucket;
    double pair;  // (u_prev - 1/2)(u - 1/2) with the client's previous transformed sleep, or NaN
  };
  static constexpr std::int64_t max_pending = 1000000;  // per run: bounded memory (32 MB)

  static Stat mean_check(const std::string& name, const std::string& form, const std::vector<double>& xs,
                         double expect);
  std::optional<double> sleep_cdf(std::int64_t k, double x);
  void flush_ks(bool finished, double stop_time);
  void ks_checks(std::vector<Stat>& stats) const;
  void independence_check(std::vector<Stat>& stats) const;
  void goodput_checks(std::vector<Stat>& stats) const;
  void sojourn_checks(std::vector<Stat>& stats) const;
  void classic_checks(std::vector<Stat>& stats) const;
  TraceCheck classic_runs_check(const ClassicResult& c) const;
  double pit_uniform();

  const montecarlo::Scenario& s_;
  const ServerRules& sv_;
  const SleepRules& sleeps_;
  std::int64_t run_line_ = 0;
  std::int64_t run_attempts_ = 0, run_successes_ = 0, run_window_successes_ = 0, run_sojourn_n_ = 0;
  double run_sojourn_ = 0, run_last_success_ = std::numeric_limits<double>::quiet_NaN(),
         run_last_end_ = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> goodput_, sojourn_;
  std::vector<ClassicRun> classic_runs_;
  std::array<std::vector<double>, 9> ks_;
  std::vector<double> ks_all_;
  std::vector<PendingKs> pending_ks_;
  std::unordered_map<std::int64_t, double> last_u_;  // per waiting client: its last transformed sleep
  double pair_sum_ = 0, pair_squares_ = 0;
  std::int64_t pairs_ = 0;
  std::map<int, SleepDistribution> laws_;
  std::uint64_t pit_state_ = 0x9e3779b97f4a7c15ull;  // splitmix64: the PIT's tie-breaking uniform
};

}  // namespace retrylab::validation::trace
