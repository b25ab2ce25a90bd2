#include "advise/sustainable.hpp"

#include <vector>

#include "advise/runs.hpp"

namespace retrylab::advise {

Sustainable sustainable_load(const Request& r, const Policy& p) {
  Sustainable s;
  auto collapses = [&](double rate) {
    const auto runs = common_steady_runs(r, steady_scenario(r, p, rate, sustainable_collapse, sustainable_horizon),
                                         r.seed + 2, sustainable_runs);
    s.runs_made += sustainable_runs;
    std::int64_t collapsed = 0;
    for (const auto& run : runs) collapsed += run.collapsed ? 1 : 0;
    return 2 * collapsed >= sustainable_runs;
  };
  if (!collapses(1.0)) {
    s.rate = 1.0;
    s.whole_range = true;
    return s;
  }
  double lo = 0.0, hi = 1.0;  // lo sustained (λ = 0 trivially), hi collapsed
  for (int i = 0; i < sustainable_halvings; ++i) {
    const double mid = 0.5 * (lo + hi);
    (collapses(mid) ? hi : lo) = mid;
  }
  s.rate = lo;
  return s;
}

}  // namespace retrylab::advise
