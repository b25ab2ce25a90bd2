#include "montecarlo/simulate.hpp"

#include <fmt/format.h>

#include "analytic/error.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/entry.hpp"
#include "montecarlo/parallel_runs.hpp"

// The one copy of the event loops without an observer (run_engine.hpp); the planted-fault library
// compiles this file with its own Faults policy, so it defines those instead.
namespace retrylab::montecarlo::detail {
RETRYLAB_NULL_OBSERVER_ENGINES(, EntryFaults)
}  // namespace retrylab::montecarlo::detail

namespace retrylab::montecarlo {

RunResult simulate_run(const Scenario& s, std::uint64_t seed, std::uint64_t run_index) {
  check_scenario(s);
  detail::NullObserver observer;
  return detail::run_engine(s, seed, run_index, detail::EngineOptions{}, observer, nullptr, detail::entry_faults());
}

std::vector<RunResult> simulate(const Scenario& s, const RunPlan& plan,
                                const std::function<void(std::int64_t, std::int64_t)>& progress) {
  check_scenario(s);
  const auto faults = detail::entry_faults();  // a bad RETRYLAB_FAULT throws here, not in a worker
  detail::EngineOptions options;
  options.full_tier = plan.server_engine;
  options.scenario_hash = stable_hash(s);  // once for every run
  options.pulse = plan.pulse;
  const bool full = detail::full_tier(s, options), lean = detail::lean_build(s, options);
  return detail::run_in_order_with<RunResult, detail::EngineScratch>(
      plan,
      [&](std::uint64_t i, detail::EngineScratch& scratch) {
        detail::NullObserver observer;
        return detail::run_engine_chosen(full, lean, s, plan.seed, i, options, observer, &scratch, faults);
      },
      progress);
}

std::vector<double> draw_sleeps(const Backoff& backoff, int k, std::int64_t n, std::uint64_t seed) {
  check_backoff(backoff);
  if (k < 1) throw InputError("retry", fmt::format("must be >= 1 (got {})", k));
  if (n < 0) throw InputError("n", fmt::format("must be >= 0 (got {})", n));
  const auto faults = detail::entry_faults();
  const BasicSleepSampler<detail::EntryFaults> sampler(backoff, faults);
  const double window = backoff.strategy == Strategy::window ? backoff.window : 0.0;
  const std::string id = fmt::format("draw_sleeps strategy={} base={} cap={} window={} retry={}",
                                     to_string(backoff.strategy), backoff.base, format_cap(backoff.cap), window, k);
  detail::EntryFaults::BiasableStream rng(run_key(seed, fnv1a64(id)), StreamId::sleeps, 0);
  apply_bias(rng, faults);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (auto& x : out) {
    double prev = backoff.base;
    if (backoff.strategy == Strategy::decorrelated) {
      for (int j = 1; j < k; ++j) sampler.sleep(j, prev, rng);  // the chain s_1 … s_(k−1)
    }
    x = sampler.sleep(k, prev, rng);
  }
  return out;
}

}  // namespace retrylab::montecarlo
