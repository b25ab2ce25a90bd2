#include "montecarlo/metrics.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

#include "analytic/error.hpp"
#include "montecarlo/builds.hpp"

namespace retrylab::montecarlo {

namespace {

// A component that declares shows_controls is on (the budget, the breaker, injected failures, a
// deadline).
bool shows_controls(const Scenario& s) { return detail::FullParts::shows_controls(s); }

// The core's metrics and every component's (builds.hpp: in FullParts order, slot by slot), sorted by rank.
std::vector<Metric> make_registry() {
  std::vector<Metric> all(std::begin(detail::core_metrics), std::end(detail::core_metrics));
  const auto& defs = detail::component_metrics::defs;
  for (std::size_t i = 0; i < defs.size(); ++i) {
    Metric m{defs[i]};
    m.slot = static_cast<int>(i);
    all.push_back(m);
  }
  std::sort(all.begin(), all.end(), [](const Metric& a, const Metric& b) { return a.rank < b.rank; });
  for (std::size_t i = 1; i < all.size(); ++i)
    if (all[i].rank == all[i - 1].rank)
      throw std::logic_error(fmt::format("metrics {} and {} share rank {}", all[i - 1].key, all[i].key, all[i].rank));
  return all;
}

[[noreturn]] void no_metric(std::string_view key, std::string_view as) {
  throw std::logic_error(fmt::format("no {} metric named '{}' in the registry (montecarlo/metrics.hpp)", as, key));
}

}  // namespace

namespace shown {
bool always(const Scenario& /*s*/, bool /*server_engine*/) { return true; }
bool never(const Scenario& /*s*/, bool /*server_engine*/) { return false; }
bool server(const Scenario& s, bool server_engine) { return has_server_features(s) || server_engine; }
bool controls(const Scenario& s, bool /*server_engine*/) { return shows_controls(s); }
bool breaker(const Scenario& s, bool /*server_engine*/) { return s.client.breaker.on(); }
bool effects(const Scenario& s, bool /*server_engine*/) {
  return !std::isinf(s.client.timeout) || s.client.idempotency != Idempotency::none;
}
bool recovery(const Scenario& s, bool /*server_engine*/) { return s.measurement.recovery_window > 0.0; }
}  // namespace shown

std::span<const Metric> metric_registry() {
  static const std::vector<Metric> registry = make_registry();  // a constant table, built once
  return registry;
}

const Metric* find_metric(std::string_view key) noexcept {
  for (const Metric& m : metric_registry())
    if (m.key == key) return &m;
  return nullptr;
}

const MeanSummary& Metric::mean(const Summary& s) const {
  if (reduce != Reduce::mean) no_metric(key, "mean");
  return slot >= 0 ? s.extra[static_cast<std::size_t>(slot)] : s.*core_mean;
}
MeanSummary& Metric::mean(Summary& s) const {
  if (reduce != Reduce::mean) no_metric(key, "mean");
  return slot >= 0 ? s.extra[static_cast<std::size_t>(slot)] : s.*core_mean;
}
const ProportionSummary& Metric::proportion(const Summary& s) const {
  if (reduce != Reduce::proportion) no_metric(key, "proportion");
  return slot >= 0 ? s.extra_proportion[static_cast<std::size_t>(slot)] : s.*core_proportion;
}

double RunResult::metric(std::string_view key) const {
  const Metric* m = find_metric(key);
  if (m == nullptr) no_metric(key, "run");
  return m->value(*this);
}
const MeanSummary& Summary::mean(std::string_view key) const {
  const Metric* m = find_metric(key);
  if (m == nullptr) no_metric(key, "mean");
  return m->mean(*this);
}
MeanSummary& Summary::mean(std::string_view key) {
  const Metric* m = find_metric(key);
  if (m == nullptr) no_metric(key, "mean");
  return m->mean(*this);
}
const ProportionSummary& Summary::proportion(std::string_view key) const {
  const Metric* m = find_metric(key);
  if (m == nullptr) no_metric(key, "proportion");
  return m->proportion(*this);
}

// Each metric over the runs in run-index order: a mean leaves a NaN run out of n; a proportion
// counts its 1s over its defined runs.
Summary summarize(const std::vector<RunResult>& results) {
  Summary s;
  s.runs = static_cast<std::int64_t>(results.size());
  for (const RunResult& r : results) ++s.stops[static_cast<int>(r.stop)];
  for (const Metric& m : metric_registry()) {
    if (m.reduce == Reduce::proportion) {
      std::int64_t count = 0, n = 0;
      for (const RunResult& r : results) {
        const double v = m.value(r);
        if (std::isnan(v)) continue;
        ++n;
        count += v != 0.0;
      }
      (m.slot >= 0 ? s.extra_proportion[static_cast<std::size_t>(m.slot)] : s.*m.core_proportion) =
          summarize_proportion(count, n);
      continue;
    }
    MeanAccumulator acc;
    for (const RunResult& r : results) {
      const double v = m.value(r);
      if (!std::isnan(v)) acc.add(v);  // undefined for this run: left out of n
    }
    m.mean(s) = acc.summary();
  }
  return s;
}

TimeUnit time_unit(const std::string& unit, double attempt_duration, bool given) {
  TimeUnit u;
  u.name = unit;
  if (unit == "attempt") {
    if (given && attempt_duration != 1.0)
      throw InputError("attempt_duration",
                       fmt::format("must be 1 (or left out) with `unit=attempt` (got {})", attempt_duration));
    return u;
  }
  if (unit != "ms" && unit != "s") throw InputError("unit", fmt::format("must be attempt, ms or s (got {})", unit));
  if (!given)
    throw InputError("attempt_duration",
                     fmt::format("is required with `unit={}`: the mean time of one attempt in {}", unit, unit));
  if (!(attempt_duration > 0.0) || !std::isfinite(attempt_duration))
    throw InputError("attempt_duration", fmt::format("must be a finite number > 0 (got {})", attempt_duration));
  u.attempt_duration = attempt_duration;
  return u;
}

std::vector<const Metric*> shown_metrics(const Scenario& s, bool server_engine) {
  std::vector<const Metric*> out;
  for (const Metric& m : metric_registry())
    if (m.reduce == Reduce::mean && m.shown(s, server_engine)) out.push_back(&m);
  return out;
}

std::vector<const Metric*> shown_proportions(const Scenario& s) {
  std::vector<const Metric*> out;
  for (const Metric& m : metric_registry())
    if (m.reduce == Reduce::proportion && m.shown(s, false)) out.push_back(&m);
  return out;
}

std::string metric_label(const Metric& m, const TimeUnit& u) {
  return fmt::format(fmt::runtime(m.label), m.dim == Dim::time ? u.plural() : u.singular());
}

void summary_in_unit(Summary& s, const TimeUnit& u) {
  for (const Metric& m : metric_registry())
    if (m.reduce == Reduce::mean) m.mean(s) = in_unit(m.mean(s), m.dim, u);
}

MeanSummary in_unit(MeanSummary m, Dim d, const TimeUnit& u) {
  if (u.plain() || d == Dim::count) return m;
  m.mean = u.out(d, m.mean);
  m.sd = u.out(d, m.sd);
  m.ci95.lo = u.out(d, m.ci95.lo);
  m.ci95.hi = u.out(d, m.ci95.hi);
  return m;
}

FieldOutput field_output(const Field& f, double v, const TimeUnit& u) {
  switch (f.kind) {
    case FieldKind::choice:
    case FieldKind::on_off: return format_field(f, v);
    case FieldKind::integer: return static_cast<std::int64_t>(v);
    case FieldKind::number_or_none:
      if (std::isinf(v)) return std::string("none");
      [[fallthrough]];
    case FieldKind::number: return u.out(dim_of(f), v);
    case FieldKind::text: text_field_has_no_number();
  }
  return std::string("none");
}

}  // namespace retrylab::montecarlo
