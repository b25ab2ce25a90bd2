// The parts of papers/spec.hpp that read a parsed spec (output names, canonical points, seeds), apart
// from the parser (papers/spec.cpp).
#include <fmt/format.h>

#include "montecarlo/metrics.hpp"
#include "papers/spec.hpp"

namespace retrylab::papers {

std::vector<std::string> output_stems(const SweepSpec& sw) {
  std::vector<const char*> suffixes = {""};
  switch (sw.kind) {
    case SweepKind::steady:
      suffixes = {"", "_ceiling", "_cost", "_thresholds", "_latency", "_by_server", "_collapsed", "_thresholds_vs_k"};
      break;
    case SweepKind::burst: suffixes = {"", "_caps", "_drain", "_drained", "_drain_time"}; break;
    case SweepKind::brooker: suffixes = {"", "_models", "_exponents", "_fits"}; break;
    case SweepKind::budget: suffixes = {"", "_warning"}; break;
    case SweepKind::series:
      suffixes = {"", "_tail", "_series", "_goodput", "_backlog", "_server_queue", "_latency"};
      break;
    default: break;
  }
  std::vector<std::string> out;
  out.reserve(suffixes.size());
  for (const char* s : suffixes) out.push_back(sw.name + s);
  return out;
}

const std::vector<const char*>& reserved_output_names() {
  static const std::vector<const char*> names = {
      "README", "results", "figure1", "published", "published_summary", "published_numbers", "validation", "study"};
  return names;
}

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names = [] {  // the registry's keys, in output order
    std::vector<std::string> out;
    for (const montecarlo::Metric& m : montecarlo::metric_registry()) out.emplace_back(m.key);
    return out;
  }();
  return names;
}

bool is_dependency_kind(SweepKind k) noexcept {
  return k == SweepKind::budget || k == SweepKind::idempotency || k == SweepKind::breaker;
}

std::string canonical(const SweepPoint& p, SweepKind kind) {
  if (kind == SweepKind::amplification) return montecarlo::canonical(p.layered);
  if (kind == SweepKind::sleep)
    return fmt::format("strategy={} base={} cap={} window={} retry={}", to_string(p.scenario.backoff.strategy),
                       p.scenario.backoff.base, format_cap(p.scenario.backoff.cap), p.scenario.backoff.window, p.retry);
  return montecarlo::canonical(p.scenario);
}

const SweepSpec* replica_of(const StudySpec& spec, const std::string& name) {
  for (const auto& s : spec.sweeps)
    if (s.replica_of == name) return &s;
  return nullptr;
}

void reseed(StudySpec& spec, std::uint64_t seed) {
  for (auto& s : spec.sweeps) s.seed = s.replica_of.empty() ? seed : seed + 1;
}

std::int64_t StudySpec::total_points() const {
  std::int64_t n = 0;
  for (const auto& s : sweeps) n += static_cast<std::int64_t>(s.points.size());
  return n;
}

}  // namespace retrylab::papers
