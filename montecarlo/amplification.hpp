#pragma once
// Layered retry amplification: L layers over a bottom; every layer makes up to `attempts` attempts of
// its call (first included) and stops at the first success; a bottom call fails with probability
// `failure`, except that with probability `outage_fraction` a top request meets a total outage (every
// bottom call it causes fails: correlated failure). Not an event loop: each top request is one
// recursive count. Expected bottom calls per top request:
//   outage_fraction·a^L + (1 − outage_fraction)·E_L (analytic/amplification.hpp).
// Deterministic per (scenario, seed, run index): Philox streams keyed by run_key(seed,
// stable_hash(scenario)), one for the failures and one for the outage draws; simulate_layered
// returns runs in run-index order, so results are byte-identical for any thread count.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analytic/stats.hpp"
#include "montecarlo/scenario.hpp"  // RunPlan, fnv1a64

namespace retrylab::montecarlo {

struct LayeredScenario {
  int layers = 4;                // L in [1, 64]
  int attempts = 3;              // a in [1, 10000]; a^L <= 1e7
  double failure = 1.0;          // p in [0, 1]
  double outage_fraction = 0.0;  // in [0, 1]
  std::int64_t requests = 1000;  // top requests per run, in [1, 1e8]; requests·a^L <= 1e10
};

void check_layered(const LayeredScenario& s);
std::string canonical(const LayeredScenario& s);
std::uint64_t stable_hash(const LayeredScenario& s);
// outage_fraction·a^L + (1 − outage_fraction)·expected_bottom_calls(L, a, p).
double expected_bottom_calls(const LayeredScenario& s);

struct LayeredRunResult {
  std::int64_t requests = 0;
  std::int64_t bottom_calls = 0;
  std::int64_t top_failures = 0;
  double bottom_calls_per_request = 0.0;
  double top_failure_fraction = 0.0;
};

struct LayeredSummary {
  std::int64_t runs = 0;
  MeanSummary bottom_calls_per_request, top_failure_fraction;
  std::int64_t bottom_calls = 0, requests = 0;  // totals over runs
};

LayeredRunResult simulate_layered_run(const LayeredScenario& s, std::uint64_t seed, std::uint64_t run_index);
std::vector<LayeredRunResult> simulate_layered(const LayeredScenario& s, const RunPlan& plan,
                                               const std::function<void(std::int64_t, std::int64_t)>& progress = {});
LayeredSummary summarize(const std::vector<LayeredRunResult>& results);

}  // namespace retrylab::montecarlo
