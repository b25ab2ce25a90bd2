#include "montecarlo/run_detail.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

#include "analytic/error.hpp"
#include "montecarlo/entry.hpp"
#include "montecarlo/observed_run.hpp"
#include "montecarlo/parallel_runs.hpp"
#include "montecarlo/series.hpp"

namespace retrylab::montecarlo {

std::vector<RunDetail> simulate_detailed(const Scenario& s, const RunPlan& plan, const DetailOptions& options,
                                         const std::function<void(std::int64_t, std::int64_t)>& progress) {
  check_scenario(s);
  check_run_plan(plan);
  if (!(options.bin > 0.0) || !std::isfinite(options.bin))
    throw InputError("bin", fmt::format("must be a finite number > 0 (got {})", options.bin));
  if (options.outage && !(s.failures.outage_end > 0.0))
    throw InputError("outage_end", "must be > 0 for the outage's course to be measured");
  if (options.outage && (s.failures.outage_end - s.failures.outage_start) / options.bin > 1e8)
    throw InputError("bin", fmt::format("must cut the outage into at most 1e8 bins (got {})", options.bin));
  const detail::EngineOptions engine;
  const auto faults = detail::entry_faults();
  return detail::run_in_order<RunDetail>(
      plan,
      [&](std::uint64_t i) {
        detail::DetailObserver watch(s, options);
        detail::RunObserver observer(nullptr, nullptr, &watch);
        const RunResult r = detail::run_engine_plain_or_full(detail::full_tier(s, engine), s, plan.seed, i, engine,
                                                             observer, nullptr, faults);
        return watch.finish(r);
      },
      progress);
}

}  // namespace retrylab::montecarlo
