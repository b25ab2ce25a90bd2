#pragma once
// TrafficRules: the declared traffic (docs/models.md §3) as the rows show it.
// Invariant "arrivals": a burst client arrives at t = 0 and only when a burst is declared; a steady
// one in [0, horizon) and only with steady traffic; a run has at most N burst clients, and exactly N
// when it stopped finished or drained (then every burst client has left, so each has its rows).
// Statistics, for steady traffic in runs that reached the horizon, over the arrivals before a time
// tau by which every one of them has its first row (collision/free: tau = T - 1, attempts last 1;
// shared/ps: tau = T/2, complete when a start at or after it was recorded, by FIFO order):
//   arrival count  the number of steady arrivals against Poisson(lambda·sum of tau), exact tails;
//   arrival gaps   KS of 1 - exp(-lambda·gap) against U(0,1) (a Poisson process has independent
//                  Exp(lambda) gaps; leaving out the gap that straddles tau biases the sample's CDF
//                  by O(1/n), far below the test's threshold ~1.9/sqrt(n)).
// Memory: per-run counts and at most ks_sample_cap transformed gaps.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "montecarlo/scenario.hpp"
#include "validation/trace/findings.hpp"
#include "validation/trace/record.hpp"
#include "validation/trace/server_rules.hpp"
#include "validation/trace/statistical_rules.hpp"

namespace retrylab::validation::trace {

class TrafficRules {
 public:
  TrafficRules(const montecarlo::Scenario& s, const ServerRules& sv);

  void begin_run(std::int64_t run, std::int64_t line);
  void row(const Row& r, std::int64_t line, std::string_view text);
  void end_run(const std::optional<RunEnd>& stop);
  void finish(std::vector<TraceCheck>& out, std::vector<StatCheck>& stats) const;

 private:
  bool exact_durations() const;
  std::string stats_na() const;

  const montecarlo::Scenario& s_;
  const ServerRules& sv_;
  Finding arrivals_;
  std::int64_t checked_ = 0;
  bool burst_unknown_ = false;  // no burst column in burst-on-steady traffic
  double tau_ = 0;              // the arrivals counted are those before tau
  // this run
  std::int64_t run_ = 0, run_line_ = 0, burst_clients_ = 0, steady_ = 0;
  double last_arrival_ = 0, last_start_ = -inf;
  std::vector<double> run_gaps_;
  // pooled over the runs that count
  std::int64_t count_ = 0, runs_counted_ = 0;
  double exposure_ = 0;
  std::vector<double> gaps_;
};

}  // namespace retrylab::validation::trace
