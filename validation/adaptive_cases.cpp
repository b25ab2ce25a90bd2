// 15. AWS adaptive mode's token bucket without throttling (analytic/adaptive.hpp,
// components/adaptive_rate.hpp): steady arrivals on model `none` with no failure (so no throttling
// error and the limiter never in force), each attempt answered after one attempt-duration of 10 ms,
// so the responses are Poisson at the arrival rate λ. "adaptive-fill-l<λ>" holds the runs' mean of
// adaptive_rate (the bucket's fill rate, time-average over [T0, T)) to 2λ by the mean rule at the
// case's α. Floor 0: the warm-up (10 s) is past CUBIC's growth (0.4·t³ > 2λ from (5λ)^(1/3) s) and
// the smoothing's start (0.2^20), and an empty 0.5 s bucket has probability e^(−λ/2) (λ in /s).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "analytic/adaptive.hpp"
#include "validation/catalogue.hpp"
#include "validation/rules.hpp"

namespace retrylab::validation {

using namespace detail;

namespace {

constexpr double attempt_ms = 10.0;

montecarlo::Scenario adaptive_scenario(double rate, double horizon, double warmup) {
  montecarlo::Scenario s;
  s.model = Model::none;  // no contention: each arrival is one attempt, answered after 1
  s.client.retries = false;
  s.client.adaptive_rate = true;
  s.client.attempt_ms = attempt_ms;
  s.traffic.rate = rate;
  s.measurement.horizon = horizon;
  s.measurement.warmup = warmup;
  return s;
}

// rate: arrivals per attempt-duration.
ValidationCase adaptive_fill_case(double rate, std::int64_t runs) {
  const double horizon = 6000.0, warmup = 1000.0;  // 60 s and 10 s
  const std::string name = fmt::format("adaptive-fill-l{}", g(rate * 1000.0 / attempt_ms));
  const std::string params =
      fmt::format("model=none retries=off adaptive_rate=on attempt_ms={} rate={} T={} T0={} runs={}", g(attempt_ms),
                  g(rate), g(horizon), g(warmup), runs);
  const double cost = static_cast<double>(runs) * rate * horizon * 4e-7;
  return make_case(name, params, CaseKind::statistical, cost, [rate, horizon, warmup, runs](const CaseContext& ctx) {
    const auto results = run(adaptive_scenario(rate, horizon, warmup), runs, ctx);
    std::vector<double> v;
    v.reserve(results.size());
    for (const auto& r : results) v.push_back(r.metric("adaptive_rate"));
    const double per_s = 1000.0 / attempt_ms;
    const double expected = adaptive_steady_fill_rate(rate * per_s) / per_s;
    CaseResult out;
    out.closed_form = fmt::format("steady fill rate without throttling 2λ = {} per attempt-duration", g(expected));
    apply_mean_rule(out, v, expected, 0.0, "none: past CUBIC's growth and the smoothing's start", ctx.alpha);
    return out;
  });
}

}  // namespace

std::vector<ValidationCase> adaptive_cases(Scale scale) {
  const std::int64_t runs = scale == Scale::full ? 1000 : 200;
  std::vector<ValidationCase> out;
  for (double rate : {0.4, 0.8}) out.push_back(adaptive_fill_case(rate, runs));  // 40/s and 80/s
  return out;
}

}  // namespace retrylab::validation
