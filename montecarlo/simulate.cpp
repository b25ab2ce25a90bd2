#include "montecarlo/simulate.hpp"

#include <fmt/format.h>

#include "analytic/error.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/parallel_runs.hpp"

namespace retrylab::montecarlo {

namespace {
detail::EngineOptions default_options() {
  detail::EngineOptions o;
#if RETRYLAB_PLANTED_FAULTS
  o.fault = fault_from_env();
#endif
  return o;
}
}  // namespace

RunResult simulate_run(const Scenario& s, std::uint64_t seed, std::uint64_t run_index) {
  check_scenario(s);
  detail::NullObserver observer;
  return detail::run_engine(s, seed, run_index, default_options(), observer);
}

std::vector<RunResult> simulate(const Scenario& s, const RunPlan& plan,
                                const std::function<void(std::int64_t, std::int64_t)>& progress) {
  check_scenario(s);
  detail::EngineOptions options = default_options();  // bad RETRYLAB_FAULT throws here, not in a worker
  options.full_tier = plan.server_engine;
  options.scenario_hash = stable_hash(s);  // once for every run
  options.pulse = plan.pulse;
  const bool full = detail::full_tier(s, options), lean = detail::lean_build(s, options);
  return detail::run_in_order_with<RunResult, detail::EngineScratch>(
      plan,
      [&](std::uint64_t i, detail::EngineScratch& scratch) {
        detail::NullObserver observer;
        return detail::run_engine_chosen(full, lean, s, plan.seed, i, options, observer, &scratch);
      },
      progress);
}

std::vector<double> draw_sleeps(const Backoff& backoff, int k, std::int64_t n, std::uint64_t seed) {
  check_backoff(backoff);
  if (k < 1) throw InputError("retry", fmt::format("must be >= 1 (got {})", k));
  if (n < 0) throw InputError("n", fmt::format("must be >= 0 (got {})", n));
  const detail::EngineOptions options = default_options();
#if RETRYLAB_PLANTED_FAULTS
  const SleepSampler sampler(backoff, options.fault);
#else
  (void)options;
  const SleepSampler sampler(backoff);
#endif
  const double window = backoff.strategy == Strategy::window ? backoff.window : 0.0;
  const std::string id = fmt::format("draw_sleeps strategy={} base={} cap={} window={} retry={}",
                                     to_string(backoff.strategy), backoff.base, format_cap(backoff.cap), window, k);
  Stream rng(run_key(seed, fnv1a64(id)), StreamId::sleeps, 0);
#if RETRYLAB_PLANTED_FAULTS
  rng.set_biased(options.fault == Fault::biased_uniform);
#endif
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
