#include "papers/series_kind.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "analytic/stats.hpp"
#include "papers/intervals.hpp"
#include "papers/summary_json.hpp"

namespace retrylab::papers {

using nlohmann::json;

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// Successes per attempt-duration over the whole bins inside [a, b) that are defined (NaN if none).
double goodput(const std::vector<double>& successes, double bin, double a, double b) {
  const auto bins = static_cast<std::int64_t>(successes.size());
  const auto first = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(a / bin - 1e-9)));
  const auto last = std::min<std::int64_t>(bins, static_cast<std::int64_t>(std::floor(b / bin + 1e-9)));
  double sum = 0.0;
  std::int64_t n = 0;
  for (std::int64_t k = first; k < last; ++k) {
    const double x = successes[static_cast<std::size_t>(k)];
    if (std::isnan(x)) continue;
    sum += x;
    ++n;
  }
  return n > 0 ? sum / (static_cast<double>(n) * bin) : nan;
}

// The recovery time (attempt-durations) of one run, NaN when it does not recover before the horizon.
double recovery_time(const std::vector<double>& successes, const SeriesSettings& s, double before) {
  if (!std::isfinite(before)) return nan;
  const auto bins = static_cast<std::int64_t>(successes.size());
  const auto m = std::max<std::int64_t>(1, std::llround(s.recover_over / s.bin));
  const double need = (1.0 - s.recover_within) * before * s.bin * static_cast<double>(m);
  for (auto k = static_cast<std::int64_t>(std::ceil(s.event_end / s.bin - 1e-9)); k + m <= bins; ++k) {
    double sum = 0.0;
    for (std::int64_t j = k; j < k + m; ++j) sum += successes[static_cast<std::size_t>(j)];
    if (std::isnan(sum)) return nan;  // the run stopped
    if (sum >= need) return std::max(0.0, static_cast<double>(k) * s.bin - s.event_end);
  }
  return nan;
}

struct RunValues {
  double before, during, after, recovery;
};

}  // namespace

json run_series_point(const SweepSpec& sw, std::int64_t index, int threads, const std::function<void()>& run_done) {
  const SweepPoint& p = sw.points.at(static_cast<std::size_t>(index));
  const SeriesSettings& set = sw.series;
  const double D = sw.attempt_duration;  // the sweep's unit per attempt-duration
  const double warmup = p.scenario.measurement.warmup, horizon = montecarlo::effective_horizon(p.scenario);
  const montecarlo::RunPlan plan{sw.runs, sw.seed, threads};
  std::vector<RunValues> per_run;
  const auto one_run = [&](std::uint64_t, const montecarlo::RunSeries& r) {
    const auto& ok = r.values[static_cast<std::size_t>(montecarlo::SeriesQuantity::successes)];
    const double before = goodput(ok, set.bin, warmup, set.event_start);
    per_run.push_back({before, goodput(ok, set.bin, set.event_start, set.event_end),
                       goodput(ok, set.bin, set.event_end, horizon), recovery_time(ok, set, before)});
  };
  const auto sim = montecarlo::simulate_series(
      p.scenario, plan, set.bin,
      [&run_done](std::int64_t, std::int64_t) {
        if (run_done) run_done();
      },
      one_run);
  MeanAccumulator before, during, after, recovery, peak, per_request, lost, lost_fraction, requests;
  std::int64_t recovered = 0;
  for (std::size_t i = 0; i < sim.runs.size(); ++i) {
    const auto& r = sim.runs[i];
    const RunValues& v = per_run[i];
    const auto add = [](MeanAccumulator& a, double x) {
      if (std::isfinite(x)) a.add(x);
    };
    add(before, v.before / D);
    add(during, v.during / D);
    add(after, v.after / D);
    add(recovery, v.recovery * D);
    recovered += std::isfinite(v.recovery) ? 1 : 0;
    const auto arrived = static_cast<double>(r.clients_arrived);
    add(peak, static_cast<double>(r.max_waiting));
    add(per_request, arrived > 0 ? static_cast<double>(r.attempts) / arrived : nan);
    add(lost, static_cast<double>(r.lost));
    add(lost_fraction, arrived > 0 ? static_cast<double>(r.lost) / arrived : nan);
    add(requests, arrived);
  }
  json summary = {{"goodput_before", to_json(before.summary())},
                  {"goodput_during", to_json(during.summary())},
                  {"goodput_after", to_json(after.summary())},
                  {"recovery_time", to_json(recovery.summary())},
                  {"recovered", to_json(summarize_proportion(recovered, sw.runs))},
                  {"peak_backlog", to_json(peak.summary())},
                  {"attempts_per_request", to_json(per_request.summary())},
                  {"lost", to_json(lost.summary())},
                  {"lost_fraction", to_json(lost_fraction.summary())},
                  {"requests", to_json(requests.summary())}};
  json t = json::array(), series = json::object();
  for (std::int64_t k = 0; k < sim.series.bins; ++k) t.push_back(number(static_cast<double>(k) * set.bin * D));
  for (const auto q : series_record_quantities) {
    json mean = json::array(), lo = json::array(), hi = json::array();
    // Intervals that respect the quantity (papers/intervals.hpp): a count per bin is a per-run count,
    // clients waiting a non-negative mean.
    const char* kind = q == montecarlo::SeriesQuantity::backlog ? "backlog" : "attempts";
    for (const MeanSummary& m : sim.series.values[static_cast<std::size_t>(q)]) {
      const Estimate e = intervals::for_metric(kind, to_json(m));
      mean.push_back(number(m.mean));
      lo.push_back(number(e.lo));
      hi.push_back(number(e.hi));
    }
    series[std::string(montecarlo::series_quantity_defs()[static_cast<std::size_t>(q)].key)] = {
        {"mean", mean}, {"lo", lo}, {"hi", hi}};
  }
  return {{"runs", sw.runs}, {"policy", p.label},  {"bin", number(set.bin * D)},
          {"t", t},          {"summary", summary}, {"series", series}};
}

}  // namespace retrylab::papers
