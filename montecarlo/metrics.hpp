#pragma once
// The metric registry (docs/models.md §5): every metric a run reports, in output order, as its
// owner declared it (montecarlo/metric.hpp: the core for its tally, each component for its own),
// with where its value lives in a RunResult and a Summary. summarize(), `retrylab simulate`'s table,
// JSON and CSV, the studies' records and the Python module loop over it; no other file lists
// metrics. Which metrics an output shows for a scenario is each metric's own `shown` rule, so every
// output keeps its keys when a metric is added for a new mechanism.
// TimeUnit: results read in attempt-durations (D = 1), or in ms / s with D the mean attempt time.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "analytic/stats.hpp"
#include "montecarlo/fields.hpp"
#include "montecarlo/metric.hpp"
#include "montecarlo/result.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo {

struct TimeUnit {
  std::string name = "attempt";  // attempt | ms | s
  double attempt_duration = 1.0;
  bool plain() const { return name == "attempt"; }
  std::string plural() const { return plain() ? "attempt-durations" : name; }
  std::string singular() const { return plain() ? "attempt-duration" : name; }
  // A value from attempt-durations into this unit: times x D, rates / D (a division, not a
  // multiplication by 1/D, so a rate typed in this unit prints back as typed).
  double out(Dim d, double v) const {
    return d == Dim::time ? v * attempt_duration : d == Dim::per_time ? v / attempt_duration : v;
  }
  // Milliseconds per attempt-duration (the controls' clock); 0 in attempt-durations.
  double ms() const { return plain() ? 0.0 : name == "s" ? 1000.0 * attempt_duration : attempt_duration; }
};

// The unit from --unit and --attempt-duration (given: whether it was), with simulate's rules:
// attempt takes no duration but 1; ms and s need one, finite and > 0. InputError("--unit" or
// "--attempt-duration").
TimeUnit time_unit(const std::string& unit, double attempt_duration, bool given);

// A metric of the registry: its declaration and where its value lives.
struct Metric : MetricDef {
  int slot = -1;  // a component's: its slot in RunResult::extra and Summary::extra
  // The core's: its per-run value and its summary.
  double (*core_value)(const RunResult&) = nullptr;
  MeanSummary Summary::*core_mean = nullptr;
  ProportionSummary Summary::*core_proportion = nullptr;

  double value(const RunResult& r) const { return slot >= 0 ? r.extra[static_cast<std::size_t>(slot)] : core_value(r); }
  const MeanSummary& mean(const Summary& s) const;  // Reduce::mean
  MeanSummary& mean(Summary& s) const;
  const ProportionSummary& proportion(const Summary& s) const;  // Reduce::proportion
};

// Every metric, in output order (by rank).
std::span<const Metric> metric_registry();
// The metric named key, or null.
const Metric* find_metric(std::string_view key) noexcept;

// How a scenario field scales with the unit of time (FieldUnit as a Dim).
inline Dim dim_of(const Field& f) noexcept {
  return f.unit == FieldUnit::time ? Dim::time : f.unit == FieldUnit::per_time ? Dim::per_time : Dim::count;
}

// A field's value as a scenario object writes it (JSON, Python): a name ("full", "on", "none" for
// an unbounded number), an integer, or a number in the unit u. The one rule for the CLI and the
// Python module.
using FieldOutput = std::variant<std::string, std::int64_t, double>;
FieldOutput field_output(const Field& f, double v, const TimeUnit& u);

// The mean metrics shown for s (server_engine: --server-engine), in output order.
std::vector<const Metric*> shown_metrics(const Scenario& s, bool server_engine);
// The yes/no metrics shown for s: collapsed and drained always, recovered when recovery is measured.
std::vector<const Metric*> shown_proportions(const Scenario& s);
// The label with its unit filled in.
std::string metric_label(const Metric& m, const TimeUnit& u);
// A summary in the unit (mean, sd and interval bounds scaled; counts unchanged).
MeanSummary in_unit(MeanSummary m, Dim d, const TimeUnit& u);
// Every mean metric of s in the unit u (what a sweep in ms or s records).
void summary_in_unit(Summary& s, const TimeUnit& u);

}  // namespace retrylab::montecarlo
