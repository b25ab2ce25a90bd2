#include "montecarlo/series.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

#include "analytic/error.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/entry.hpp"
#include "montecarlo/observed_run.hpp"
#include "montecarlo/p_square.hpp"
#include "montecarlo/parallel_runs.hpp"

namespace retrylab::montecarlo {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
using Q = SeriesQuantity;
constexpr int at(Q q) { return static_cast<int>(q); }

// Counts the run's events into its bins, and integrates the piecewise-constant quantities (clients
// waiting, attempts in flight, attempts at the server, the breaker open) over them. The server's
// count is told by the engine's reach, release and rejection hooks (full tier); the plain tier
// serves every attempt in flight at once (no queue, no timeout), so there it is in_flight.
class SeriesObserver {
 public:
  SeriesObserver(double bin, std::int64_t bins, double warmup, bool full, RunSeries& out)
      : bin_(bin), bins_(bins), warmup_(warmup), full_(full), out_(out) {
    for (auto& v : out_.values) v.assign(static_cast<std::size_t>(bins), 0.0);
    for (const Q q : {Q::latency_p50, Q::latency_p99, Q::latency_p999}) std::fill(v(q).begin(), v(q).end(), nan);
  }

  void on_arrival(std::int64_t /*client*/, double t, bool /*burst*/) {
    advance(t);
    count(Q::offered, t);
    ++waiting_;
  }
  void on_start(std::int64_t /*attempt*/, std::int64_t /*client*/, double t) {
    advance(t);
    count(Q::attempts, t);
    ++in_flight_;
  }
  void on_end(std::int64_t /*attempt*/, std::int64_t /*client*/, double /*start*/, double end, bool success) {
    advance(end);
    if (!success) count(Q::failures, end);  // a success counts when it answers its request (on_succeeded)
    --in_flight_;
  }
  // A hedge cancelled when its request was answered (components/hedge.hpp): no longer in flight,
  // neither a success nor a failure.
  void on_cancel(std::int64_t /*attempt*/, std::int64_t /*client*/, double t) {
    advance(t);
    --in_flight_;
  }
  void on_give_up(std::int64_t /*client*/, double t) {
    advance(t);
    count(Q::lost, t);
  }
  void on_retry_denied(std::int64_t /*client*/, double t) {
    advance(t);
    count(Q::retries_denied, t);
  }
  void on_refused(std::int64_t /*client*/, double t) {
    advance(t);
    count(Q::refused, t);
  }
  void on_rejection(double t) {
    advance(t);
    count(Q::rejected, t);
    --at_server_;
  }
  void on_leave(std::int64_t /*client*/, double t) {
    advance(t);
    --waiting_;
  }
  // The request is answered: once per request (a hedge's late reply is absorbed before this).
  void on_succeeded(std::int64_t /*client*/, double t, double latency) {
    advance(t);
    count(Q::successes, t);
    latencies_.push_back(latency);
    if (t >= warmup_ && t < end())
      for (PSquare& p : run_latency_) p.add(latency);
  }
  // The attempts the server holds (queued or in service): one reaches it, leaves it after admission
  // (served, cancelled, or cut at the stop), or is rejected by the limit at once.
  void on_reach(double t) {
    advance(t);
    ++at_server_;
  }
  void on_release(double t) {
    advance(t);
    --at_server_;
  }
  void on_breaker(double t, bool open) {
    advance(t);
    open_ = open;
  }

  // The run stopped at r.stop_time: the bins after the one holding the stop are undefined, unless
  // the run finished (nothing is left to happen).
  void finish(const RunResult& r) {
    advance(std::min(r.stop_time, end()));
    flush_latencies();
    for (std::size_t i = 0; i < run_latency_.size(); ++i)
      out_.latency[i] = run_latency_[i].count() > 0 ? run_latency_[i].estimate() : nan;
    const auto stop_bin = static_cast<std::int64_t>(std::floor(std::min(r.stop_time, end()) / bin_));
    if (r.stop == StopReason::finished) return;
    for (std::int64_t k = stop_bin + 1; k < bins_; ++k)
      for (auto& q : out_.values) q[static_cast<std::size_t>(k)] = nan;
  }

 private:
  std::vector<double>& v(Q q) { return out_.values[static_cast<std::size_t>(at(q))]; }
  double end() const { return static_cast<double>(bins_) * bin_; }
  std::size_t bin_of(double t) const {
    const auto k = static_cast<std::int64_t>(std::floor(t / bin_));
    return static_cast<std::size_t>(std::clamp<std::int64_t>(k, 0, bins_ - 1));
  }
  void count(Q q, double t) {
    if (t < end()) v(q)[bin_of(t)] += 1.0;  // past the series' end (a settling run): not in it
  }
  // Time moves from now_ to t: the time-averages take their share of each bin crossed, and the
  // latencies of a bin that ended give its percentiles. The bin is tracked by index (k_), never
  // recomputed from now_, so a bin edge that rounds onto now_ cannot stall the loop.
  void advance(double t) {
    t = std::min(t, end());
    while (now_ < t) {
      const auto k = static_cast<std::size_t>(k_);
      const double bin_start = static_cast<double>(k_) * bin_;
      const double bin_end = std::min(static_cast<double>(k_ + 1) * bin_, end());
      const double upto = std::min(t, bin_end);
      const double share = (upto - now_) / (bin_end - bin_start);
      v(Q::backlog)[k] += static_cast<double>(waiting_) * share;
      v(Q::in_flight)[k] += static_cast<double>(in_flight_) * share;
      v(Q::server_queue)[k] += static_cast<double>(full_ ? at_server_ : in_flight_) * share;
      v(Q::breaker_open)[k] += open_ ? share : 0.0;
      now_ = upto;
      if (now_ >= bin_end) {
        flush_latencies();
        ++k_;
      }
    }
  }
  void flush_latencies() {
    if (latencies_.empty() || k_ >= bins_) {
      latencies_.clear();
      return;
    }
    // Nearest rank: the ceil(p·n)-th smallest (as the latency_p50/p99 metrics).
    const auto rank = [&](double p) {
      const auto n = latencies_.size();
      const auto r = std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(p * static_cast<double>(n))), 1, n);
      std::nth_element(latencies_.begin(), latencies_.begin() + static_cast<std::ptrdiff_t>(r - 1), latencies_.end());
      return latencies_[r - 1];
    };
    v(Q::latency_p50)[static_cast<std::size_t>(k_)] = rank(0.50);
    v(Q::latency_p99)[static_cast<std::size_t>(k_)] = rank(0.99);
    v(Q::latency_p999)[static_cast<std::size_t>(k_)] = rank(0.999);
    latencies_.clear();
  }

  double bin_;
  std::int64_t bins_;
  double warmup_;
  bool full_;
  RunSeries& out_;
  double now_ = 0.0;
  std::int64_t waiting_ = 0, in_flight_ = 0, at_server_ = 0;
  std::array<PSquare, 3> run_latency_{PSquare(run_latency_percentiles[0]), PSquare(run_latency_percentiles[1]),
                                      PSquare(run_latency_percentiles[2])};
  bool open_ = false;
  std::int64_t k_ = 0;             // the bin now_ is in (bins_ once the series' end is reached)
  std::vector<double> latencies_;  // of the successes in bin k_
};

}  // namespace

const std::array<SeriesQuantityDef, series_quantities>& series_quantity_defs() {
  static const std::array<SeriesQuantityDef, series_quantities> defs = {{
      {"offered", "requests arriving (per bin)", Dim::count},
      {"attempts", "attempts sent (per bin)", Dim::count},
      {"successes", "requests answered (per bin)", Dim::count},
      {"failures", "attempts that failed (per bin)", Dim::count},
      {"rejected", "attempts rejected by the limit (per bin)", Dim::count},
      {"retries_denied", "retries the budget refused (per bin)", Dim::count},
      {"refused", "calls refused locally (per bin)", Dim::count},
      {"breaker_open", "share of the bin the breaker was open", Dim::count},
      {"lost", "requests lost (per bin)", Dim::count},
      {"backlog", "clients waiting (mean over the bin)", Dim::count},
      {"in_flight", "attempts in flight (mean over the bin)", Dim::count},
      {"latency_p50", "median latency of the bin's answered requests ({})", Dim::time},
      {"latency_p99", "99th percentile latency of the bin's answered requests ({})", Dim::time},
      {"latency_p999", "99.9th percentile latency of the bin's answered requests ({})", Dim::time},
      {"server_queue", "attempts at the server, queued or in service (mean over the bin)", Dim::count},
  }};
  return defs;
}

std::int64_t series_bins(double bin, double end) {
  if (!(bin > 0.0) || !std::isfinite(bin))
    throw InputError("series", fmt::format("must be a bin width, a finite number > 0 (got {})", bin));
  const double n = std::ceil(end / bin);
  if (!(n <= static_cast<double>(max_series_bins)))
    throw InputError("series", fmt::format("makes {:.0f} bins over the horizon {}; at most {} (a bin >= {})", n, end,
                                           max_series_bins, end / static_cast<double>(max_series_bins)));
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(n));
}

SimulatedSeries simulate_series(const Scenario& s, const RunPlan& plan, double bin,
                                const std::function<void(std::int64_t, std::int64_t)>& progress,
                                const std::function<void(std::uint64_t, const RunSeries&)>& each_run) {
  check_scenario(s);
  check_run_plan(plan);
  const std::int64_t bins = series_bins(bin, effective_horizon(s));
  const auto faults = detail::entry_faults();
  detail::EngineOptions options;
  options.full_tier = plan.server_engine;
  options.scenario_hash = stable_hash(s);
  options.pulse = plan.pulse;
  options.lockstep_shortcut = false;   // exact, but it tells no observer of each attempt
  options.one_event_shortcut = false;  // the series needs every hook in time order
  const bool full = detail::full_tier(s, options);

  SimulatedSeries out;
  out.series.bin = bin;
  out.series.bins = bins;
  std::array<std::vector<MeanAccumulator>, series_quantities> acc;
  for (auto& a : acc) a.assign(static_cast<std::size_t>(bins), MeanAccumulator{});
  out.runs = detail::run_in_order_reduce<RunResult, RunSeries, detail::EngineScratch>(
      plan,
      [&](std::uint64_t i, detail::EngineScratch& scratch, RunSeries& series) {
        SeriesObserver observer(bin, bins, s.measurement.warmup, full, series);
        const RunResult r =
            detail::run_engine_plain_or_full(full, s, plan.seed, i, options, observer, &scratch, faults);
        observer.finish(r);
        return r;
      },
      [&](std::uint64_t i, const RunSeries& series) {
        if (each_run) each_run(i, series);
        for (int q = 0; q < series_quantities; ++q)
          for (std::size_t k = 0; k < static_cast<std::size_t>(bins); ++k) {
            const double x = series.values[static_cast<std::size_t>(q)][k];
            if (!std::isnan(x)) acc[static_cast<std::size_t>(q)][k].add(x);
          }
      },
      progress);
  for (int q = 0; q < series_quantities; ++q) {
    auto& dst = out.series.values[static_cast<std::size_t>(q)];
    dst.reserve(static_cast<std::size_t>(bins));
    for (const MeanAccumulator& a : acc[static_cast<std::size_t>(q)]) dst.push_back(a.summary());
  }
  return out;
}

}  // namespace retrylab::montecarlo
