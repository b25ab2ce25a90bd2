#pragma once
// StatisticalRules: a trace against the closed forms its declared traffic admits (docs/models.md):
// KS of the sleeps (probability integral transform under analytic/sleep.hpp's exact law, per retry
// index and pooled), goodput with retries off (ALOHA, first commit wins, their rows forms), time in
// system (the FIFO lock by Pollaczek–Khinchine, processor sharing) and the classic test (exact).
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
#include <vector>

#include "analytic/classic.hpp"
#include "analytic/sleep.hpp"
#include "montecarlo/scenario.hpp"
#include "validation/trace/invariants.hpp"
#include "validation/trace/record.hpp"
#include "validation/trace/server_rules.hpp"
#include "validation/trace/sleep_rules.hpp"

namespace retrylab::validation::trace {

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
  void finish(std::vector<TraceCheck>& out) const;

 private:
  struct Stat {
    TraceCheck check;
    double p;  // p-value, or NaN for an exact check
  };
  struct ClassicRun {
    std::int64_t attempts, successes;
    double makespan;
    bool finished;
    std::int64_t line;
  };
  struct PendingKs {
    double u, latest_start;
    int bucket;
  };
  static constexpr std::int64_t max_pending = 4000000;  // per run: bounded memory (64 MB)

  static Stat mean_check(const std::string& name, const std::string& form, const std::vector<double>& xs,
                         double expect);
  std::optional<double> sleep_cdf(std::int64_t k, double x);
  void flush_ks(bool finished, double stop_time);
  void ks_checks(std::vector<Stat>& stats) const;
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
  std::map<int, SleepDistribution> laws_;
  std::uint64_t pit_state_ = 0x9e3779b97f4a7c15ull;  // splitmix64: the PIT's tie-breaking uniform
};

}  // namespace retrylab::validation::trace
