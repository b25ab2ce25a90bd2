#pragma once
// How far the fluid cap estimate (analytic/fluid_cap.hpp) has been measured to be from the engine:
// the ratio simulated threshold / estimate, per strategy, from results the repository commits. Data,
// not a model: every row names the file it comes from, and `retrylab analytic fluid-cap` prints the
// band (least and largest ratio over the rows of its strategy) beside its estimate. All rows are
// `collision`, base 1, steady load 0.05 with a burst of B clients at t = 0. Two definitions of the
// simulated threshold, both stated in the output:
//  - validation: the cap where half the runs drain (interpolated on the case's cap grid), from the
//    full catalogue's cases fluid-cap-full-B100 and fluid-cap-full-B300 (validation/catalogue.cpp;
//    papers/cap-is-doing-the-work/validation/validation.csv, certificate 7b7a3e15a401f4af-full);
//  - paper 1: the least cap of a doubling grid (125 .. 64,000) at which all 40 runs drained
//    (papers/cap-is-doing-the-work/burst_caps.csv, horizon 60,000; burst_long_caps.csv, 300,000);
//    the true threshold lies within a factor 2 below it, so such a ratio is an upper end.
// A strategy without rows (nojitter: no cap of paper 1's grid drained any burst) has no band.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>

#include "analytic/strategy.hpp"

namespace retrylab::api {

struct MeasuredThreshold {
  Strategy strategy;
  std::int64_t clients;  // B
  double horizon;
  double simulated;  // the simulated threshold cap
  double estimate;   // fluid_cap() for the same inputs, as the source file records it
};

inline constexpr MeasuredThreshold fluid_cap_measurements[] = {
    // validation, full catalogue: fluid-cap-full-B100, fluid-cap-full-B300 (half the runs drained)
    {Strategy::full, 100, 60000, 151.2579238917067, 113.03667157563588},
    {Strategy::full, 300, 60000, 443.40500673763239, 343.11001472690759},
    // paper 1, burst_caps.csv (horizon 60,000) and burst_long_caps.csv (300,000): all runs drained
    {Strategy::full, 100, 60000, 250, 113.03667157563588},
    {Strategy::full, 300, 60000, 500, 343.1100147269076},
    {Strategy::full, 1000, 60000, 2000, 1148.3667157563586},
    {Strategy::full, 300, 300000, 500, 343.1100147269076},
    {Strategy::full, 1000, 300000, 2000, 1148.3667157563586},
    {Strategy::equal, 100, 60000, 125, 75.35778105042394},
    {Strategy::equal, 300, 60000, 500, 228.7400098179384},
    {Strategy::equal, 1000, 60000, 2000, 765.5778105042391},
    {Strategy::decorrelated, 100, 60000, 500, 67.48999321701967},
    {Strategy::decorrelated, 300, 60000, 2000, 205.5331086850052},
    {Strategy::decorrelated, 1000, 300000, 8000, 688.6868252531006},
};

// What is printed instead of a band for a strategy without rows (of those fluid-cap accepts: nojitter).
inline constexpr const char* fluid_cap_unmeasured =
    "no simulated threshold: no cap of paper 1's grid (125..64,000) drained a burst of 100, 300 or 1000 clients "
    "(papers/cap-is-doing-the-work/burst_caps.csv)";

struct ErrorBand {
  double low = 0.0, high = 0.0;  // least and largest simulated / estimate
  std::int64_t min_clients = 0, max_clients = 0;
  int rows = 0;
};

// The band over the measurements of one strategy; nullopt when there are none.
inline std::optional<ErrorBand> fluid_cap_band(Strategy s,
                                               std::span<const MeasuredThreshold> rows = fluid_cap_measurements) {
  std::optional<ErrorBand> band;
  for (const MeasuredThreshold& m : rows) {
    if (m.strategy != s) continue;
    const double r = m.simulated / m.estimate;
    if (!band) band = ErrorBand{r, r, m.clients, m.clients, 0};
    band->low = std::min(band->low, r);
    band->high = std::max(band->high, r);
    band->min_clients = std::min(band->min_clients, m.clients);
    band->max_clients = std::max(band->max_clients, m.clients);
    ++band->rows;
  }
  return band;
}

}  // namespace retrylab::api
