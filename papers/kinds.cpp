#include "papers/kinds.hpp"

#include <stdexcept>

#include "analytic/units.hpp"
#include "montecarlo/brooker.hpp"
#include "montecarlo/dependency.hpp"
#include "papers/summary_json.hpp"

namespace retrylab::papers {

using nlohmann::json;

namespace {

json brooker_summary(const montecarlo::BrookerSummary& s) {
  return {{"attempts", to_json(s.attempts)},
          {"reads", to_json(s.reads)},
          {"calls", to_json(s.calls)},
          {"attempts_per_client", to_json(s.attempts_per_client)},
          {"makespan", to_json(s.makespan)},
          {"latency", to_json(s.latency)},
          {"max_attempts", to_json(s.max_attempts)}};
}

json dependency_summary(const montecarlo::DependencySummary& s) {
  return {{"requests", to_json(s.requests)},
          {"attempts", to_json(s.attempts)},
          {"retries", to_json(s.retries)},
          {"load_multiplier", to_json(s.load_multiplier)},
          {"retries_per_success", to_json(s.retries_per_success)},
          {"success_fraction", to_json(s.success_fraction)},
          {"latency", to_json(s.latency)},
          {"latency_p99", to_json(s.latency_p99)},
          {"timeouts", to_json(s.timeouts)},
          {"duplicate_effects", to_json(s.duplicate_effects)},
          {"hidden_effects", to_json(s.hidden_effects)},
          {"retries_blocked", to_json(s.retries_blocked)},
          {"rejected_by_breaker", to_json(s.rejected_by_breaker)},
          {"rejected_by_throttle", to_json(s.rejected_by_throttle)},
          {"rejected_by_capacity", to_json(s.rejected_by_capacity)},
          {"breaker_opened", to_json(s.breaker_opened)},
          {"recovery_time", to_json(s.recovery_time)},
          {"max_waiting", to_json(s.max_waiting)},
          {"recovered", to_json(s.recovered)}};
}

json layered_summary(const montecarlo::LayeredSummary& s) {
  return {{"bottom_calls_per_request", to_json(s.bottom_calls_per_request)},
          {"top_failure_fraction", to_json(s.top_failure_fraction)},
          {"bottom_calls", s.bottom_calls},
          {"requests", s.requests}};
}

}  // namespace

std::string_view time_unit(SweepKind kind) noexcept {
  if (kind == SweepKind::amplification) return units::none;
  return kind == SweepKind::brooker || is_dependency_kind(kind) ? units::ms : units::attempt_duration;
}

bool is_extension_kind(SweepKind kind) noexcept {
  return kind == SweepKind::brooker || kind == SweepKind::amplification || is_dependency_kind(kind);
}

nlohmann::json run_extension_point(const SweepSpec& sw, std::int64_t index, int threads,
                                   const std::function<void()>& run_done) {
  if (!is_extension_kind(sw.kind))
    throw std::logic_error("sweep " + sw.name + ": kind " + std::string(to_string(sw.kind)) +
                           " is not an extension kind");
  if (index < 0 || index >= static_cast<std::int64_t>(sw.points.size()))
    throw std::logic_error("sweep " + sw.name + ": no point " + std::to_string(index));
  const SweepPoint& p = sw.points[static_cast<std::size_t>(index)];
  const montecarlo::RunPlan plan{sw.runs, sw.seed, threads};
  const auto progress = [&run_done](std::int64_t, std::int64_t) {
    if (run_done) run_done();
  };
  if (sw.kind == SweepKind::brooker) {
    const auto results = montecarlo::simulate_brooker(p.brooker, plan, progress);
    return {{"runs", sw.runs}, {"summary", brooker_summary(montecarlo::summarize_brooker(results))}};
  }
  if (sw.kind == SweepKind::amplification) {
    const auto results = montecarlo::simulate_layered(p.layered, plan, progress);
    return {{"runs", sw.runs}, {"summary", layered_summary(montecarlo::summarize(results))}};
  }
  const auto results = montecarlo::simulate_dependency(p.dependency, plan, progress);
  return {{"runs", sw.runs}, {"summary", dependency_summary(montecarlo::summarize(results))}};
}

}  // namespace retrylab::papers
