#pragma once
// The engine as the advise search uses it. Two kinds of runs:
//  - common random numbers (Bench): every policy's run i draws from the same Philox streams, keyed
//    by (seed, a hash of the request's scenario with the policy left out, i), so neighbouring
//    policies see the same arrivals and the same uniforms for their sleeps and compare run by run
//    (paired differences); the engine's own key would hash the policy in and decouple them;
//  - independent runs (independent_runs): the engine's public key (seed, stable_hash(scenario), i),
//    so `retrylab simulate ... --seed S --runs n` reproduces them exactly.
// burst_scenario and steady_scenario are the only functions that fill a montecarlo::Scenario.
// Invariants: every result is a pure function of (request, policy, seed, run index); runs are made
// in batches and returned in run-index order, so no result depends on the thread count.
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "advise/advise.hpp"
#include "montecarlo/result.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::advise {

// The burst of `clients` (on the request's steady load) under policy p, horizon drain_within, and a
// collapse level K = max(3000, 3·N) far above the burst, so a run collapses only when steady
// traffic piles up, never from the burst.
montecarlo::Scenario burst_scenario(const Request& r, const Policy& p, std::int64_t clients);
// Steady Poisson traffic alone at `rate` under policy p, with collapse level K and horizon T.
montecarlo::Scenario steady_scenario(const Request& r, const Policy& p, double rate, std::int64_t collapse,
                                     double horizon);

// The objective of one run (NaN when its burst did not drain).
double run_objective(const Request& r, const montecarlo::RunResult& run);

// What the runs of policy p showed (their summaries; objective by r.objective).
Stats stats_of(const Request& r, const Policy& p, const std::vector<montecarlo::RunResult>& runs);

// Policies' runs on common random numbers, kept so no run is made twice.
class Bench {
 public:
  Bench(const Request& r, std::uint64_t seed);

  // Runs 0 .. runs−1 of every policy in ps, in one parallel batch; a policy already seen to fail
  // (a run that did not drain) gets no more.
  void ensure(const std::vector<Policy>& ps, std::int64_t runs);
  // Runs in pairs up to `runs`, stopping at the first pair with a run that did not drain: whether
  // all of them drained. Cheap for policies far below the least draining cap.
  bool passes(const Policy& p, std::int64_t runs);
  // Over runs 0 .. min(runs, made)−1 (drained.n = 0 if none was made).
  Stats stats(const Policy& p, std::int64_t runs) const;
  // Objective of a minus that of b, run by run over their common runs where both drained.
  MeanSummary difference(const Policy& a, const Policy& b, std::int64_t runs) const;
  // The same across two benches of one request and seed (one strategy's and another's: the same
  // random numbers); n = 0 when they do not share them.
  static MeanSummary difference(const Bench& x, const Policy& a, const Bench& y, const Policy& b, std::int64_t runs);
  bool failed(const Policy& p) const;  // some run made did not drain
  std::int64_t runs_made() const noexcept { return made_; }

  using Key = std::tuple<int, double, double>;
  static Key key_of(const Policy& p);

 private:
  const std::vector<montecarlo::RunResult>* find(const Policy& p) const;
  Request r_;
  std::uint64_t seed_;
  std::uint64_t hash_;
  std::map<Key, std::vector<montecarlo::RunResult>> runs_;
  std::int64_t made_ = 0;
};

// Runs first .. first+count−1 of scenario sc under its public key (seed, stable_hash(sc)), in order.
std::vector<montecarlo::RunResult> independent_runs(const Request& r, const montecarlo::Scenario& sc,
                                                    std::uint64_t seed, std::int64_t first, std::int64_t count);

// Runs first .. first+count−1 of sc on a key that leaves out the backoff and the steady rate (common
// random numbers over both), for the sustainable-load bisection.
std::vector<montecarlo::RunResult> common_steady_runs(const Request& r, const montecarlo::Scenario& sc,
                                                      std::uint64_t seed, std::int64_t first, std::int64_t count);

}  // namespace retrylab::advise
