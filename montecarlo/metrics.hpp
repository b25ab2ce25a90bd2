#pragma once
// The metrics a simulation reports (docs/models.md §5), as `retrylab simulate` and the Python module
// print them: one registry, in output order, each with its key, label, dimension (how it scales
// with the unit of time) and where it lives in a Summary and, when a run has it as a double, in a
// RunResult. Which metrics a scenario shows is decided here too: the base ones always; the server
// engine's with server features (or --server-engine); the controls' with a budget, breaker,
// deadline or injected failures; effects with a timeout or an idempotency key; recovery when it is
// measured. So every output keeps its keys when a metric is added for a new mechanism.
// TimeUnit: results read in attempt-durations (D = 1), or in ms / s with D the mean attempt time.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "analytic/stats.hpp"
#include "montecarlo/fields.hpp"
#include "montecarlo/result.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo {

enum class Dim { count, time, per_time };

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

struct Metric {
  const char* key;
  const char* label;  // "{}" stands for the unit: plural for times, singular for rates
  Dim dim;
  MeanSummary Summary::*summary;
  double RunResult::*run;  // the per-run value, when a run has it as a double; else null
};

struct ProportionMetric {
  const char* key;
  const char* label;
  ProportionSummary Summary::*summary;
};

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
// The yes/no metrics: collapsed and drained always, recovered when recovery is measured.
std::vector<ProportionMetric> shown_proportions(const Scenario& s);
// The label with its unit filled in.
std::string metric_label(const Metric& m, const TimeUnit& u);
// A summary in the unit (mean, sd and interval bounds scaled; counts unchanged).
MeanSummary in_unit(MeanSummary m, Dim d, const TimeUnit& u);

}  // namespace retrylab::montecarlo
