#pragma once
// SleepRules: the sleeps a declared client may take before each retry (docs/models.md): the bounds
// of its strategy, of the mixed population's, and what a Retry-After can do to them. Shared by the
// support invariant, the vanished-clients invariant and the KS censoring of the statistics.
// Invariants: bounds are [lo, hi] with lo <= hi (hi may be inf); a value type over the scenario.
#include <cstdint>
#include <string>
#include <utility>

#include "montecarlo/scenario.hpp"
#include "validation/trace/server_rules.hpp"

namespace retrylab::validation::trace {

class SleepRules {
 public:
  SleepRules(const montecarlo::Scenario& s, const ServerRules& sv) : s_(s), sv_(sv) {}

  // The sleep bounds [lo, hi] of strategy b before retry k (prev: the previous sleep, NaN before
  // the first: then b's base, decorrelated jitter's s_0).
  static std::pair<double, double> bounds(const Backoff& b, std::int64_t k, double prev);
  // The largest sleep the declared strategy can choose before retry k.
  double max_sleep(std::int64_t k, double prev) const { return bounds(s_.backoff, k, prev).second; }
  // The largest sleep any declared client can take before retry k (mixed population, Retry-After).
  double max_sleep_any(std::int64_t k, double prev) const;
  // The sleep x is allowed for strategy b: inside its bounds, or lengthened by a Retry-After.
  bool allowed(const Backoff& b, std::int64_t k, double prev, double x) const;
  // The support rule as the report states it.
  std::string support_text() const;

 private:
  const montecarlo::Scenario& s_;
  const ServerRules& sv_;
};

}  // namespace retrylab::validation::trace
