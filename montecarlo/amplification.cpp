#include "montecarlo/amplification.hpp"

#include <fmt/format.h>
#include <cmath>

#include "analytic/amplification.hpp"
#include "analytic/error.hpp"
#include "montecarlo/parallel_runs.hpp"
#include "montecarlo/random.hpp"

namespace retrylab::montecarlo {

namespace {
constexpr double max_layered_cost = 1e7;  // a^L
}

void check_layered(const LayeredScenario& s) {
  if (s.layers < 1 || s.layers > 64) throw InputError("layers", fmt::format("must be in [1, 64] (got {})", s.layers));
  if (s.attempts < 1 || s.attempts > 10000)
    throw InputError("attempts", fmt::format("must be in [1, 10000] (got {})", s.attempts));
  const double worst = std::pow(static_cast<double>(s.attempts), s.layers);
  if (!(worst <= max_layered_cost))
    throw InputError("layers",
                     fmt::format("attempts^layers must be <= 1e7 (got {}^{} = {})", s.attempts, s.layers, worst));
  if (!(s.failure >= 0.0 && s.failure <= 1.0))
    throw InputError("failure", fmt::format("must be in [0, 1] (got {})", s.failure));
  if (!(s.outage_fraction >= 0.0 && s.outage_fraction <= 1.0))
    throw InputError("outage_fraction", fmt::format("must be in [0, 1] (got {})", s.outage_fraction));
  if (s.requests < 1 || s.requests > 100'000'000)
    throw InputError("requests", fmt::format("must be in [1, 1e8] (got {})", s.requests));
  if (!(static_cast<double>(s.requests) * worst <= 1e10))
    throw InputError("requests", fmt::format("times attempts^layers must be <= 1e10 (got {})",
                                             static_cast<double>(s.requests) * worst));
}

std::string canonical(const LayeredScenario& s) {
  return fmt::format("model=layered layers={} attempts={} failure={} outage_fraction={} requests={}", s.layers,
                     s.attempts, s.failure, s.outage_fraction, s.requests);
}

std::uint64_t stable_hash(const LayeredScenario& s) { return fnv1a64(canonical(s)); }

double expected_bottom_calls(const LayeredScenario& s) {
  check_layered(s);
  const RetryAmplification m{s.layers, s.attempts, s.failure};
  return s.outage_fraction * amplification_bound(m) + (1.0 - s.outage_fraction) * expected_bottom_calls(m);
}

namespace {

struct LayeredCall {
  int attempts;
  double failure;
  bool outage;
  Stream* rng;
  std::int64_t calls = 0;

  bool call(int level) {
    if (level == 0) {
      ++calls;
      if (outage || failure >= 1.0) return false;
      if (failure <= 0.0) return true;
      return !(rng->uniform() < failure);
    }
    for (int i = 0; i < attempts; ++i)
      if (call(level - 1)) return true;
    return false;
  }
};

LayeredRunResult layered_run(const LayeredScenario& s, std::uint64_t seed, std::uint64_t run) {
  const std::uint64_t key = run_key(seed, stable_hash(s));
  Stream failures(key, StreamId::layered_failures, run), outages(key, StreamId::layered_outage, run);
  LayeredRunResult r;
  r.requests = s.requests;
  for (std::int64_t i = 0; i < s.requests; ++i) {
    const bool outage = s.outage_fraction > 0.0 && outages.uniform() < s.outage_fraction;
    LayeredCall c{s.attempts, s.failure, outage, &failures};
    if (!c.call(s.layers)) ++r.top_failures;
    r.bottom_calls += c.calls;
  }
  r.bottom_calls_per_request = static_cast<double>(r.bottom_calls) / static_cast<double>(r.requests);
  r.top_failure_fraction = static_cast<double>(r.top_failures) / static_cast<double>(r.requests);
  return r;
}

}  // namespace

LayeredRunResult simulate_layered_run(const LayeredScenario& s, std::uint64_t seed, std::uint64_t run_index) {
  check_layered(s);
  return layered_run(s, seed, run_index);
}

std::vector<LayeredRunResult> simulate_layered(const LayeredScenario& s, const RunPlan& plan,
                                               const std::function<void(std::int64_t, std::int64_t)>& progress) {
  check_layered(s);
  return detail::run_in_order<LayeredRunResult>(
      plan, [&](std::uint64_t i) { return layered_run(s, plan.seed, i); }, progress);
}

LayeredSummary summarize(const std::vector<LayeredRunResult>& results) {
  LayeredSummary out;
  out.runs = static_cast<std::int64_t>(results.size());
  MeanAccumulator calls, failures;
  for (const auto& r : results) {
    calls.add(r.bottom_calls_per_request);
    failures.add(r.top_failure_fraction);
    out.bottom_calls += r.bottom_calls;
    out.requests += r.requests;
  }
  out.bottom_calls_per_request = calls.summary();
  out.top_failure_fraction = failures.summary();
  return out;
}

}  // namespace retrylab::montecarlo
