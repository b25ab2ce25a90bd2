#include "advise/sustainable.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "advise/runs.hpp"
#include "analytic/steady.hpp"

namespace retrylab::advise {

namespace {

constexpr double resolution = 1.0 / 512;  // the bisection stops at this width
constexpr double bracket = 1.0 / 16;      // half-width of the bracket around the estimate

// The mean-field estimate of the same quantity (analytic/steady.hpp: the passage load for K, T):
// where the bisection starts, never its answer. +inf when it predicts no collapse below 1.
double estimate(const Request& r, const Policy& p) {
  const MeanField f(SteadyModel{r.model, Backoff{p.strategy, p.base, p.cap, 0.0}});
  return collapse_loads(f, static_cast<double>(sustainable_collapse), sustainable_horizon).passage;
}

}  // namespace

Sustainable sustainable_load(const Request& r, const Policy& p) {
  Sustainable s;
  std::int64_t attempts = 0;
  // Whether at least half of the runs collapse at `rate`: runs in batches, stopped as soon as the
  // verdict of all of them is known (the same verdict, fewer runs). A batch is never longer than
  // the runs either verdict still needs, so no run is made after the verdict is known.
  auto collapses = [&](double rate) {
    const montecarlo::Scenario sc = steady_scenario(r, p, rate, sustainable_collapse, sustainable_horizon);
    std::int64_t collapsed = 0, survived = 0, first = 0;
    const std::int64_t to_collapse = (sustainable_runs + 1) / 2, to_survive = sustainable_runs / 2 + 1;
    while (collapsed < to_collapse && survived < to_survive) {
      const std::int64_t n = std::min(to_collapse - collapsed, to_survive - survived);
      for (const auto& run : common_steady_runs(r, sc, r.seed + 2, first, n)) {
        (run.collapsed ? collapsed : survived) += 1;
        attempts += run.attempts;
      }
      s.runs_made += n;
      first += n;
    }
    return collapsed >= to_collapse;
  };
  double lo = 0.0, hi = 1.0;  // lo sustained (λ = 0 trivially), hi collapsed
  const double e = estimate(r, p);
  if (e < 1.0) {
    const double a = std::max(0.0, e - bracket), b = std::min(1.0, e + bracket);
    if (a > 0.0 && collapses(a))
      hi = a;  // the estimate was high: [0, a]
    else if (b < 1.0 && collapses(b))
      lo = a, hi = b;
    else
      lo = b;  // the estimate was low: [b, 1]
  }
  if (hi == 1.0 && !collapses(1.0)) {
    s.rate = s.collapsed_at = 1.0;
    s.whole_range = true;
    return s;
  }
  while (hi - lo > resolution && attempts < sustainable_budget) {
    const double mid = 0.5 * (lo + hi);
    (collapses(mid) ? hi : lo) = mid;
  }
  s.rate = lo;
  s.collapsed_at = hi;
  return s;
}

}  // namespace retrylab::advise
