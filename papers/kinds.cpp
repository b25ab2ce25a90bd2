#include "papers/kinds.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "analytic/stats.hpp"
#include "analytic/units.hpp"
#include "montecarlo/amplification.hpp"
#include "papers/series_kind.hpp"
#include "papers/summary_json.hpp"

namespace retrylab::papers {

using nlohmann::json;

namespace {

json layered_summary(const montecarlo::LayeredSummary& s) {
  return {{"bottom_calls_per_request", to_json(s.bottom_calls_per_request)},
          {"top_failure_fraction", to_json(s.top_failure_fraction)},
          {"bottom_calls", s.bottom_calls},
          {"requests", s.requests}};
}

// One metric over the runs, in run-index order; non-finite values are left out of its n.
template <class Fn>
json over_runs(const std::vector<montecarlo::RunDetail>& runs, Fn value) {
  MeanAccumulator acc;
  for (const auto& d : runs) {
    const double x = value(d);
    if (std::isfinite(x)) acc.add(x);
  }
  return to_json(acc.summary());
}

double ratio(double num, double den) { return den > 0.0 ? num / den : std::numeric_limits<double>::quiet_NaN(); }

}  // namespace

json brooker_summary(const std::vector<montecarlo::RunDetail>& runs, double attempt_duration) {
  const double d = attempt_duration;
  auto count = [](std::int64_t x) { return static_cast<double>(x); };
  return {{"attempts", over_runs(runs, [&](const auto& r) { return count(r.result.attempts); })},
          {"reads", over_runs(runs, [&](const auto& r) { return count(r.result.attempts); })},
          {"calls", over_runs(runs, [&](const auto& r) { return 2.0 * count(r.result.attempts); })},
          {"attempts_per_client", over_runs(runs, [](const auto& r) { return r.result.attempts_per_client; })},
          {"makespan", over_runs(runs, [d](const auto& r) { return r.result.makespan * d; })},
          {"latency", over_runs(runs, [d](const auto& r) { return r.result.latency * d; })},
          {"max_attempts", over_runs(runs, [&](const auto& r) { return count(r.most_attempts); })}};
}

json dependency_summary(const std::vector<montecarlo::RunDetail>& runs, double attempt_duration, bool warning) {
  const double d = attempt_duration;
  using R = montecarlo::RunDetail;
  auto of = [&](auto fn) { return over_runs(runs, fn); };
  auto n = [](auto x) { return static_cast<double>(x); };
  auto retries = [&](const R& r) {
    const auto& x = r.result;
    return n(x.attempts) + x.metric("breaker_rejected") + x.metric("throttled") - n(x.clients_arrived);
  };
  json j = {
      {"requests", of([&](const R& r) { return n(r.result.clients_arrived); })},
      {"attempts", of([&](const R& r) { return n(r.result.attempts); })},
      {"retries", of(retries)},
      {"load_multiplier", of([&](const R& r) { return ratio(n(r.result.attempts), n(r.result.clients_arrived)); })},
      {"retries_per_success", of([&](const R& r) {
         const double s = n(r.result.successes), k = retries(r);
         return s > 0 ? k / s
                      : (k > 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN());
       })},
      {"success_fraction", of([&](const R& r) { return ratio(n(r.result.successes), n(r.result.clients_arrived)); })},
      {"latency", of([d](const R& r) { return r.result.latency * d; })},
      {"latency_p99", of([d](const R& r) { return r.result.metric("latency_p99") * d; })},
      {"timeouts", of([&](const R& r) { return n(r.result.metric("timed_out")); })},
      {"duplicate_effects", of([&](const R& r) { return n(r.result.metric("duplicate_effects")); })},
      {"hidden_effects", of([&](const R& r) { return n(r.result.metric("hidden_effects")); })},
      {"retries_blocked", of([&](const R& r) { return n(r.result.metric("retries_denied")); })},
      {"rejected_by_breaker", of([&](const R& r) { return n(r.result.metric("breaker_rejected")); })},
      {"rejected_by_throttle", of([&](const R& r) { return n(r.result.metric("throttled")); })},
      {"rejected_by_capacity", of([&](const R& r) { return n(r.result.metric("rejected")); })},
      {"breaker_opened", of([&](const R& r) { return n(r.result.metric("breaker_opened")); })},
      {"recovery_time", of([d](const R& r) { return r.result.metric("recovery_time") * d; })},
      {"max_waiting", of([&](const R& r) { return n(r.result.max_waiting); })}};
  std::int64_t recovered = 0;
  for (const auto& r : runs) recovered += std::isfinite(r.result.metric("recovery_time")) ? 1 : 0;
  j["recovered"] = to_json(summarize_proportion(recovered, static_cast<std::int64_t>(runs.size())));
  if (warning) {
    j["warning_time"] = of([d](const R& r) { return r.warning_time * d; });
    j["failure_time"] = of([d](const R& r) { return r.failure_time * d; });
    j["warning_lead"] = of([d](const R& r) { return r.warning_lead * d; });
    j["warning_ratio"] = of([](const R& r) { return r.warning_ratio; });
  }
  return j;
}

std::string_view time_unit(const SweepSpec& sw) noexcept {
  if (sw.kind == SweepKind::amplification) return units::none;
  if (sw.unit == "ms" || sw.unit == "s") return sw.unit;  // the unit the sweep was written in
  return units::attempt_duration;
}

bool is_extension_kind(SweepKind kind) noexcept {
  return kind == SweepKind::brooker || kind == SweepKind::amplification || kind == SweepKind::series ||
         is_dependency_kind(kind);
}

nlohmann::json run_extension_point(const SweepSpec& sw, std::int64_t index, int threads,
                                   const std::function<void()>& run_done) {
  if (!is_extension_kind(sw.kind))
    throw std::logic_error("sweep " + sw.name + ": kind " + std::string(to_string(sw.kind)) +
                           " is not an extension kind");
  if (index < 0 || index >= static_cast<std::int64_t>(sw.points.size()))
    throw std::logic_error("sweep " + sw.name + ": no point " + std::to_string(index));
  if (sw.kind == SweepKind::series) return run_series_point(sw, index, threads, run_done);
  const SweepPoint& p = sw.points[static_cast<std::size_t>(index)];
  const montecarlo::RunPlan plan{sw.runs, sw.seed, threads};
  const auto progress = [&run_done](std::int64_t, std::int64_t) {
    if (run_done) run_done();
  };
  if (sw.kind == SweepKind::amplification) {
    const auto results = montecarlo::simulate_layered(p.layered, plan, progress);
    return {{"runs", sw.runs}, {"summary", layered_summary(montecarlo::summarize(results))}};
  }
  // The budget's early warning is measured in bins of one attempt-duration from the outage's start.
  montecarlo::DetailOptions detail;
  detail.most_attempts = sw.kind == SweepKind::brooker;
  detail.outage = sw.kind == SweepKind::budget && p.scenario.failures.outage_end > 0.0;
  const auto runs = montecarlo::simulate_detailed(p.scenario, plan, detail, progress);
  const json summary = sw.kind == SweepKind::brooker ? brooker_summary(runs, sw.attempt_duration)
                                                     : dependency_summary(runs, sw.attempt_duration, detail.outage);
  return {{"runs", sw.runs}, {"summary", summary}};
}

}  // namespace retrylab::papers
