#pragma once
// The sustainable steady load of a policy, the one definition retrylab prints under that name
// (docs/advise.md, "Sustainable steady load"; docs/models.md §5): the largest steady Poisson load λ
// at which runs that start empty, under the policy, reach K = 3000 waiting clients within T = 20,000
// attempt-durations in fewer than half of `sustainable_runs` runs: paper 1's collapse threshold
// (its K and T, as `retrylab analytic steady --collapse 3000 --horizon 20000` estimates it), without
// its 0.05 grid. Found on the engine by bisection to a width of at most 1/512 per attempt-duration,
// every load on the same common random numbers (seed + 2, advise/runs.hpp), so the collapsed
// fraction moves with λ alone. The bisection starts from the bracket ±1/16 around the mean-field
// estimate of the same quantity (analytic/steady.hpp, the passage load), each end checked by
// simulation and the bracket widened to 0 or 1 where the estimate was off: the answer is the
// simulation's. A load's runs stop once the verdict of all 20 is known (10 collapsed or 11 not). The
// bisection also stops once its runs have made sustainable_budget attempts (a policy with a cap of
// a few attempt-durations makes millions per collapsing run): the bracket [rate, collapsed_at] it
// reached is reported, so its precision is always stated. Where no load below 1 collapses (free: a
// failed attempt costs nothing), λ = 1 is tried: a policy that sustains it sustains the resource's
// own rate.
// Invariants: a pure function of (request, policy, seed); 0 <= rate <= 1.
#include <cstdint>

#include "advise/advise.hpp"

namespace retrylab::advise {

inline constexpr std::int64_t sustainable_runs = 20;
inline constexpr std::int64_t sustainable_collapse = 3000;       // K
inline constexpr double sustainable_horizon = 20000.0;           // T, attempt-durations
inline constexpr std::int64_t sustainable_budget = 200'000'000;  // attempts, about 15 s of one core
inline constexpr int sustainable_halvings = 9;

struct Sustainable {
  double rate = 0.0;          // per attempt-duration: the last load that did not collapse (1: all up to it)
  double collapsed_at = 0.0;  // the least load that did (1 with whole_range: none did)
  bool whole_range = false;   // even λ = 1 did not collapse: the resource's own rate
  std::int64_t runs_made = 0;
};

Sustainable sustainable_load(const Request& r, const Policy& p);

}  // namespace retrylab::advise
