#pragma once
// What a metric is (docs/models.md §5), as the one who computes it declares it: the core for its
// tally (montecarlo/engine_parts.hpp), a component for its own (montecarlo/components/*.hpp, its
// `metrics` array). The registry (montecarlo/metrics.hpp) is every declaration in output order; the
// result of a run, summarize(), simulate's table, JSON and CSV, the studies' records and the Python
// module all loop over it, so a metric is declared once, beside the counter that fills it.
// Invariants: keys are unique (a static_assert in montecarlo/builds.hpp for the components' and a
// test for the whole registry); `rank` orders the outputs (an existing metric's rank never changes,
// so every output keeps its order); a per-run value outside [lo, hi] is a bug, and intervals are
// clipped to [lo, hi] (the true mean lies there).
#include <cstdint>
#include <limits>
#include <string_view>

#include "montecarlo/result.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo {

// How a metric scales with the unit of time: a count, a time, a rate.
enum class Dim { count, time, per_time };
// How runs reduce: a mean (mean, sd, n, Student-t interval) or a proportion of runs (the per-run
// value is 1 or 0; NaN leaves the run out of n; Wilson interval).
enum class Reduce { mean, proportion };

struct MetricDef {
  std::string_view key;
  std::string_view label;  // "{}" stands for the unit: plural for times, singular for rates
  Dim dim;
  int rank;  // position in every output (a new metric takes a number no other has)
  // Whether outputs show it for scenario s (server_engine: the full tier was asked for).
  bool (*shown)(const Scenario& s, bool server_engine);
  // Its value in a run whose build lacks the component (the plain tier, the lean build), from the
  // core's result.
  double (*when_absent)(const RunResult& core);
  Reduce reduce = Reduce::mean;
  double lo = 0.0;  // the quantity's range
  double hi = std::numeric_limits<double>::infinity();
  bool integer = false;  // a count: every per-run value is a whole number (records write it as one)
};

// A quantity of a time series (montecarlo/series.hpp, docs/models.md §5 "Over time"), as its owner
// declares it (the core for the counts it keeps, a component in its `series` array): a count (the
// events told in each bin: E::tell_series<C>(k, 1)) or a level (a value held from the moment it is
// told, averaged over each bin: a breaker open, 1, or closed, 0). rank orders the series' JSON and
// CSV, column its table and figure; neither ever changes for an existing quantity (a new one takes
// numbers no other has), so every output keeps its order.
enum class SeriesKind { count, level };
struct SeriesQuantityDef {
  std::string_view key;
  std::string_view label;  // "{}": the unit (plural for times)
  Dim dim;                 // count (per bin, or a time-average of a count), time
  int rank = 0;
  int column = 0;
  // Whether the table and the figure show it for scenario s (the JSON and CSV carry every quantity).
  bool (*shown)(const Scenario& s) = nullptr;
  SeriesKind kind = SeriesKind::count;
};

// When outputs show a metric: the groups docs/models.md §5 names.
namespace shown {
bool always(const Scenario& s, bool server_engine);
bool never(const Scenario& s, bool server_engine);     // validation's own (work conservation, served)
bool server(const Scenario& s, bool server_engine);    // server features, or the full tier asked for
bool controls(const Scenario& s, bool server_engine);  // a budget, breaker, deadline or injected failures
bool breaker(const Scenario& s, bool server_engine);
bool effects(const Scenario& s, bool server_engine);   // a timeout or an idempotency key
bool recovery(const Scenario& s, bool server_engine);  // recovery measured
}  // namespace shown

// Values for a run without the component.
namespace absent {
constexpr double zero(const RunResult& /*core*/) { return 0.0; }
constexpr double undefined(const RunResult& /*core*/) { return std::numeric_limits<double>::quiet_NaN(); }
}  // namespace absent

// Where a component writes its metrics when the run ends: out[k] is its k-th declared metric.
class MetricOut {
 public:
  explicit MetricOut(double* slots) noexcept : slots_(slots) {}
  double& operator[](std::size_t k) const noexcept { return slots_[k]; }

 private:
  double* slots_;
};

}  // namespace retrylab::montecarlo
