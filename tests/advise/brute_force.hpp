#pragma once
// A brute-force search for the policy of least mean drain time, independent of advise's search (it
// shares only the scenario a policy runs: advise::burst_scenario), for tests/advise and the
// advise_brute tool that measures the README's questions (docs/advise.md).
// The grid: caps least_base·2^(i/2) up to max_cap, and at each cap every base least_base·2^j below
// it and the cap itself. Screening: `screen_runs` runs per point on seed `seed` (the engine's
// public key), in pairs, a point dropped at its first pair with a run that did not drain. Each base
// is scanned from the largest cap down and stops after two caps in a row that did not drain, below
// one that did (the drained fraction taken to be non-decreasing in the cap below the objective's
// horizon, as the fluid and stage models say). The `top` points of least screening mean are then
// run again, `runs` runs each on seed + 1, and the best of those (all runs drained) is the answer.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "advise/advise.hpp"
#include "advise/runs.hpp"

namespace retrylab::advise::test {

// Mean drain time of policy p over runs 0..runs−1 of the public key (seed): NaN if any run did not
// drain. Runs in pairs when `drop` (stopping at the first pair with a failure).
inline double mean_drain_time(const Request& r, const Policy& p, std::uint64_t seed, std::int64_t runs,
                              bool drop = false) {
  const montecarlo::Scenario sc = burst_scenario(r, p, r.clients);
  double sum = 0.0;
  const std::int64_t step = drop ? 2 : runs;
  for (std::int64_t first = 0; first < runs; first += step) {
    for (const auto& run : independent_runs(r, sc, seed, first, std::min(step, runs - first))) {
      if (!run.drained) return std::numeric_limits<double>::quiet_NaN();
      sum += run.drain_time;
    }
  }
  return sum / static_cast<double>(runs);
}

struct BrutePoint {
  Policy policy;
  double mean = 0.0;  // screening mean, then (top points) the re-run mean
};

struct Brute {
  BrutePoint best;              // the least re-run mean
  std::vector<BrutePoint> top;  // the re-run points
  int points = 0;               // grid points run
};

inline Brute brute_force(const Request& r, Strategy s, std::uint64_t seed, std::int64_t screen_runs, int top,
                         std::int64_t runs) {
  const double b0 = least_base(r);
  std::vector<double> caps;
  for (int i = 0; b0 * std::exp2(i / 2.0) <= max_cap(r) * (1 + 1e-12); ++i) caps.push_back(b0 * std::exp2(i / 2.0));
  std::vector<double> bases;
  for (double b = b0; b <= max_cap(r); b *= 2) bases.push_back(b);
  Brute out;
  std::vector<BrutePoint> feasible;
  // Each base line from the largest cap down; the window (base = cap) as a line of its own.
  auto scan_line = [&](auto policy_at) {
    int misses = 0;
    bool seen = false;
    for (auto it = caps.rbegin(); it != caps.rend() && misses < 2; ++it) {
      const auto p = policy_at(*it);
      if (!p) continue;
      ++out.points;
      const double m = mean_drain_time(r, *p, seed, screen_runs, true);
      if (std::isfinite(m)) {
        feasible.push_back({*p, m});
        seen = true;
        misses = 0;
      } else if (seen) {
        ++misses;
      }
    }
  };
  for (double b : bases)
    scan_line([&](double cap) {
      return cap > b * (1 + 1e-12) ? std::optional<Policy>(Policy{s, b, cap}) : std::nullopt;
    });
  scan_line([&](double cap) { return std::optional<Policy>(Policy{s, cap, cap}); });
  std::sort(feasible.begin(), feasible.end(), [](const auto& a, const auto& b) { return a.mean < b.mean; });
  out.best.mean = std::numeric_limits<double>::infinity();
  for (int k = 0; k < top && k < static_cast<int>(feasible.size()); ++k) {
    BrutePoint q{feasible[k].policy, mean_drain_time(r, feasible[k].policy, seed + 1, runs)};
    out.top.push_back(q);
    if (std::isfinite(q.mean) && q.mean < out.best.mean) out.best = q;
  }
  return out;
}

}  // namespace retrylab::advise::test
