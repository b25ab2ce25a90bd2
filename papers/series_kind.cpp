#include "papers/series_kind.hpp"

#include <algorithm>
#include <array>
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

// The mean of the defined bins among the whole bins inside [a, b) (NaN if none).
double bin_mean(const std::vector<double>& values, double bin, double a, double b) {
  const auto bins = static_cast<std::int64_t>(values.size());
  const auto first = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(a / bin - 1e-9)));
  const auto last = std::min<std::int64_t>(bins, static_cast<std::int64_t>(std::floor(b / bin + 1e-9)));
  double sum = 0.0;
  std::int64_t n = 0;
  for (std::int64_t k = first; k < last; ++k) {
    const double x = values[static_cast<std::size_t>(k)];
    if (std::isnan(x)) continue;
    sum += x;
    ++n;
  }
  return n > 0 ? sum / static_cast<double>(n) : nan;
}

// Requests answered per attempt-duration over the whole bins inside [a, b) that are defined.
double goodput(const std::vector<double>& successes, double bin, double a, double b) {
  return bin_mean(successes, bin, a, b) / bin;
}

// The largest defined bin (NaN if none), and the last bin (NaN when the run stopped before it).
double peak(const std::vector<double>& values) {
  double out = nan;
  for (const double x : values)
    if (!std::isnan(x) && !(x <= out)) out = x;
  return out;
}
double last(const std::vector<double>& values) { return values.empty() ? nan : values.back(); }

// Adds x to a when it is defined (a run where it is not is left out of n).
void add(MeanAccumulator& a, double x) {
  if (std::isfinite(x)) a.add(x);
}

struct RunValues {
  double before, during, after, recovery, backlog_before, backlog_after, backlog_end, peak_server, server_end, decay,
      backlog_decay;
  std::array<double, 3> latency;
};

// The series_record_quantities of the runs' series as {"mean", "lo", "hi"} arrays, with intervals
// that respect the quantity (papers/intervals.hpp): a count per bin is a per-run count; clients
// waiting and attempts in flight or at the server non-negative means; a latency a time (in the
// sweep's unit: D per attempt-duration).
json record_series(const montecarlo::Series& sim, double D) {
  using Q = montecarlo::SeriesQuantity;
  json series = json::object();
  for (const auto q : series_record_quantities) {
    json mean = json::array(), lo = json::array(), hi = json::array();
    const bool level = q == Q::backlog || q == Q::in_flight || q == Q::server_queue;
    const bool time = q == Q::latency_p50 || q == Q::latency_p99 || q == Q::latency_p999;
    const char* kind = level ? "backlog" : time ? "latency" : "attempts";
    const double scale = time ? D : 1.0;
    for (const MeanSummary& m : sim.values[static_cast<std::size_t>(q)]) {
      const Estimate e = intervals::for_metric(kind, to_json(m));
      mean.push_back(number(m.mean * scale));
      lo.push_back(number(e.lo * scale));
      hi.push_back(number(e.hi * scale));
    }
    series[std::string(montecarlo::series_quantity_defs()[static_cast<std::size_t>(q)].key)] = {
        {"mean", mean}, {"lo", lo}, {"hi", hi}};
  }
  return series;
}

}  // namespace

double recovery_time(const std::vector<double>& successes, const std::vector<double>& backlog, const SeriesSettings& s,
                     double goodput_before, double backlog_before) {
  if (!std::isfinite(goodput_before) || !std::isfinite(backlog_before)) return nan;
  const auto bins = static_cast<std::int64_t>(std::min(successes.size(), backlog.size()));
  const auto m = std::max<std::int64_t>(1, std::llround(s.recover_over / s.bin));
  const double need = (1.0 - s.recover_within) * goodput_before * s.bin * static_cast<double>(m);
  const double allow = ((1.0 + s.recover_within) * backlog_before + 1.0) * static_cast<double>(m);
  const auto first = static_cast<std::int64_t>(std::ceil(s.event_end / s.bin - 1e-9));
  // The windows from the last one back: k is the first of the run of good windows that ends the run.
  std::int64_t k = bins - m + 1;
  for (std::int64_t j = bins - m; j >= first; --j) {
    double answered = 0.0, waiting = 0.0;
    for (std::int64_t i = j; i < j + m; ++i) {
      answered += successes[static_cast<std::size_t>(i)];
      waiting += backlog[static_cast<std::size_t>(i)];
    }
    if (!(answered >= need && waiting <= allow)) break;  // NaN (the run stopped) fails too
    k = j;
  }
  if (k > bins - m) return nan;  // the last window is not back: not recovered
  return std::max(0.0, static_cast<double>(k) * s.bin - s.event_end);
}

double decay_time(const std::vector<double>& level, const SeriesSettings& s, double before) {
  if (!(before >= 0.0)) return nan;
  auto from = static_cast<std::size_t>(std::ceil(s.event_end / s.bin - 1e-9));
  for (std::size_t k = from; k < level.size(); ++k)
    if (level[k] > level[from]) from = k;  // a NaN never is
  double n = 0.0, st = 0.0, sy = 0.0, stt = 0.0, sty = 0.0;
  for (std::size_t k = from; k < level.size(); ++k) {
    if (!(level[k] > 2.0 * before) || !(level[k] > before)) continue;
    const double t = (static_cast<double>(k) + 0.5) * s.bin, y = std::log(level[k] - before);
    n += 1.0;
    st += t;
    sy += y;
    stt += t * t;
    sty += t * y;
  }
  if (n < 5.0) return nan;
  const double slope = (n * sty - st * sy) / (n * stt - st * st);
  return slope < 0.0 ? -1.0 / slope : nan;
}

json run_series_point(const SweepSpec& sw, std::int64_t index, int threads, const std::function<void()>& run_done) {
  const SweepPoint& p = sw.points.at(static_cast<std::size_t>(index));
  const SeriesSettings& set = sw.series;
  const double D = sw.attempt_duration;  // the sweep's unit per attempt-duration
  const double warmup = p.scenario.measurement.warmup, horizon = montecarlo::effective_horizon(p.scenario);
  const montecarlo::RunPlan plan{sw.runs, sw.seed, threads};
  std::vector<RunValues> per_run;
  const auto one_run = [&](std::uint64_t, const montecarlo::RunSeries& r) {
    using Q = montecarlo::SeriesQuantity;
    const auto& ok = r.values[static_cast<std::size_t>(Q::successes)];
    const auto& waiting = r.values[static_cast<std::size_t>(Q::backlog)];
    const auto& at_server = r.values[static_cast<std::size_t>(Q::server_queue)];
    const double before = goodput(ok, set.bin, warmup, set.event_start);
    const double waiting_before = bin_mean(waiting, set.bin, warmup, set.event_start);
    per_run.push_back(
        {before, goodput(ok, set.bin, set.event_start, set.event_end), goodput(ok, set.bin, set.event_end, horizon),
         recovery_time(ok, waiting, set, before, waiting_before), waiting_before,
         bin_mean(waiting, set.bin, set.event_end, horizon), last(waiting), peak(at_server), last(at_server),
         decay_time(at_server, set, bin_mean(at_server, set.bin, warmup, set.event_start)),
         decay_time(waiting, set, waiting_before), r.latency});
  };
  const auto sim = montecarlo::simulate_series(
      p.scenario, plan, set.bin,
      [&run_done](std::int64_t, std::int64_t) {
        if (run_done) run_done();
      },
      one_run);
  MeanAccumulator before, during, after, recovery, peak_waiting, per_request, lost, lost_fraction, requests;
  MeanAccumulator backlog_before, backlog_after, backlog_end, peak_server, server_end, decay, backlog_decay;
  std::array<MeanAccumulator, 3> latency;
  std::int64_t recovered = 0;
  for (std::size_t i = 0; i < sim.runs.size(); ++i) {
    const auto& r = sim.runs[i];
    const RunValues& v = per_run[i];
    add(before, v.before / D);
    add(during, v.during / D);
    add(after, v.after / D);
    add(recovery, v.recovery * D);
    recovered += std::isfinite(v.recovery) ? 1 : 0;
    const auto arrived = static_cast<double>(r.clients_arrived);
    add(peak_waiting, static_cast<double>(r.max_waiting));
    add(backlog_before, v.backlog_before);
    add(backlog_after, v.backlog_after);
    add(backlog_end, v.backlog_end);
    add(peak_server, v.peak_server);
    add(server_end, v.server_end);
    add(decay, v.decay * D);
    add(backlog_decay, v.backlog_decay * D);
    for (std::size_t q = 0; q < latency.size(); ++q) add(latency[q], v.latency[q] * D);
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
                  {"peak_backlog", to_json(peak_waiting.summary())},
                  {"backlog_before", to_json(backlog_before.summary())},
                  {"backlog_after", to_json(backlog_after.summary())},
                  {"backlog_end", to_json(backlog_end.summary())},
                  {"peak_server_queue", to_json(peak_server.summary())},
                  {"server_queue_end", to_json(server_end.summary())},
                  {"queue_decay_time", to_json(decay.summary())},
                  {"backlog_decay_time", to_json(backlog_decay.summary())},
                  {"latency_p50", to_json(latency[0].summary())},
                  {"latency_p99", to_json(latency[1].summary())},
                  {"latency_p999", to_json(latency[2].summary())},
                  {"attempts_per_request", to_json(per_request.summary())},
                  {"lost", to_json(lost.summary())},
                  {"lost_fraction", to_json(lost_fraction.summary())},
                  {"requests", to_json(requests.summary())}};
  json t = json::array();
  for (std::int64_t k = 0; k < sim.series.bins; ++k) t.push_back(number(static_cast<double>(k) * set.bin * D));
  return {{"runs", sw.runs}, {"policy", p.label},  {"bin", number(set.bin * D)},
          {"t", t},          {"summary", summary}, {"series", record_series(sim.series, D)}};
}

}  // namespace retrylab::papers
