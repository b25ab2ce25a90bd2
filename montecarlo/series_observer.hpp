#pragma once
// The time series' observer and reduction (internal; montecarlo/series.hpp is the public part): an
// observer of the event loop that counts one run's events into its bins, for the quantities of a
// series table (builds.hpp's series_table: the core's, counted from the core's hooks, and every
// component's, told through on_series), and the reduction of the runs bin by bin in run-index order.
// simulate_series runs them on the standard builds; a test with a parts list of its own runs them on
// its build (tests/montecarlo/toy_component_test.cpp).
// Invariants: a run's bins after its stop are undefined (NaN), unless it finished; a count past the
// series' end is not in it; the time-averages (backlog, in flight, at the server, a component's
// levels) take each bin's share of the time they held their value.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "analytic/stats.hpp"
#include "montecarlo/builds.hpp"
#include "montecarlo/p_square.hpp"
#include "montecarlo/series.hpp"

namespace retrylab::montecarlo::detail {

// Counts the run's events into its bins, and integrates the piecewise-constant quantities (clients
// waiting, attempts in flight, attempts at the server, a component's levels) over them. The
// server's count is told by the engine's reach and release hooks and the limit's on_reject (full
// tier); the plain tier serves every attempt in flight at once (no queue, no timeout), so there it
// is in_flight. It declares no tolerated shortcut (engine_parts.hpp): a series needs every hook.
class SeriesObserver {
 public:
  SeriesObserver(std::span<const SeriesQuantityDef> defs, double bin, std::int64_t bins, double warmup, bool full,
                 RunSeries& out)
      : bin_(bin), bins_(bins), warmup_(warmup), full_(full), out_(out) {
    for (std::size_t c = 0; c < std::size(core_series); ++c)
      for (std::size_t i = 0; i < defs.size(); ++i)
        if (defs[i].key == core_series[c].key) core_[c] = i;
    out_.values.assign(defs.size(), std::vector<double>(static_cast<std::size_t>(bins), 0.0));
    levels_.assign(defs.size(), 0.0);
    for (std::size_t i = 0; i < defs.size(); ++i)
      if (defs[i].kind == SeriesKind::level) level_slots_.push_back(i);
    for (const Core q : {p50, p99, p999}) std::fill(v(q).begin(), v(q).end(), nan);
  }

  void on_arrival(std::int64_t /*client*/, double t, bool /*burst*/) {
    advance(t);
    count(offered, t);
    ++waiting_;
  }
  void on_start(std::int64_t /*attempt*/, std::int64_t /*client*/, double t) {
    advance(t);
    count(attempts, t);
    ++in_flight_;
  }
  void on_end(std::int64_t /*attempt*/, std::int64_t /*client*/, double /*start*/, double end, bool success) {
    advance(end);
    if (!success) count(failures, end);  // a success counts when it answers its request (on_succeeded)
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
    count(lost, t);
  }
  void on_refused(std::int64_t /*client*/, double t) {
    advance(t);
    count(refused, t);
  }
  // The limit rejected an attempt at the server: it leaves the server's count (its count per bin is
  // the limit's own series quantity, told next through on_series).
  void on_reject(std::int64_t /*attempt*/, std::int64_t /*client*/, double t, double /*retry_after*/) {
    advance(t);
    --at_server_;
  }
  // A component's series quantity (E::tell_series): a count moves by value, a level takes it.
  void on_series(std::size_t slot, double t, double value) {
    advance(t);
    if (slot >= levels_.size()) return;
    if (std::find(level_slots_.begin(), level_slots_.end(), slot) != level_slots_.end()) {
      levels_[slot] = value;
    } else if (t < end()) {
      out_.values[slot][bin_of(t)] += value;
    }
  }
  void on_leave(std::int64_t /*client*/, double t) {
    advance(t);
    --waiting_;
  }
  // The request is answered: once per request (a hedge's late reply is absorbed before this).
  void on_succeeded(std::int64_t /*client*/, double t, double latency) {
    advance(t);
    count(successes, t);
    latencies_.push_back(latency);
    if (t >= warmup_ && t < end())
      for (PSquare& p : run_latency_) p.add(latency);
  }
  // The attempts the server holds (queued or in service): one reaches it, leaves it after admission
  // (served, cancelled, or cut at the stop), or is rejected by the limit at once (on_reject).
  void on_reach(double t) {
    advance(t);
    ++at_server_;
  }
  void on_release(double t) {
    advance(t);
    --at_server_;
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
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  // The core's quantities, in core_series order (engine_parts.hpp).
  enum Core : std::size_t {
    offered,
    attempts,
    successes,
    failures,
    refused,
    lost,
    backlog,
    in_flight,
    p50,
    p99,
    p999,
    server_queue,
    core_count
  };
  static_assert(core_count == std::size(core_series));

  std::vector<double>& v(Core q) { return out_.values[core_[q]]; }
  double end() const { return static_cast<double>(bins_) * bin_; }
  std::size_t bin_of(double t) const {
    const auto k = static_cast<std::int64_t>(std::floor(t / bin_));
    return static_cast<std::size_t>(std::clamp<std::int64_t>(k, 0, bins_ - 1));
  }
  void count(Core q, double t) {
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
      v(backlog)[k] += static_cast<double>(waiting_) * share;
      v(in_flight)[k] += static_cast<double>(in_flight_) * share;
      v(server_queue)[k] += static_cast<double>(full_ ? at_server_ : in_flight_) * share;
      for (const std::size_t slot : level_slots_) out_.values[slot][k] += levels_[slot] * share;
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
    v(p50)[static_cast<std::size_t>(k_)] = rank(0.50);
    v(p99)[static_cast<std::size_t>(k_)] = rank(0.99);
    v(p999)[static_cast<std::size_t>(k_)] = rank(0.999);
    latencies_.clear();
  }

  double bin_;
  std::int64_t bins_;
  double warmup_;
  bool full_;
  RunSeries& out_;
  std::array<std::size_t, core_count> core_{};  // each core quantity's slot
  std::vector<double> levels_;                  // by slot: a level's value now
  std::vector<std::size_t> level_slots_;
  double now_ = 0.0;
  std::int64_t waiting_ = 0, in_flight_ = 0, at_server_ = 0;
  std::array<PSquare, 3> run_latency_{PSquare(run_latency_percentiles[0]), PSquare(run_latency_percentiles[1]),
                                      PSquare(run_latency_percentiles[2])};
  std::int64_t k_ = 0;             // the bin now_ is in (bins_ once the series' end is reached)
  std::vector<double> latencies_;  // of the successes in bin k_
};

// The runs' series reduced bin by bin, in the order they are added (run-index order): per quantity,
// the mean over the runs defined in each bin (a NaN leaves the run out of n).
class SeriesReducer {
 public:
  SeriesReducer(std::span<const SeriesQuantityDef> defs, double bin, std::int64_t bins)
      : defs_(defs.begin(), defs.end()), bin_(bin), bins_(bins) {
    acc_.assign(defs.size(), std::vector<MeanAccumulator>(static_cast<std::size_t>(bins)));
  }
  void add(const RunSeries& run) {
    for (std::size_t q = 0; q < acc_.size(); ++q)
      for (std::size_t k = 0; k < static_cast<std::size_t>(bins_); ++k) {
        const double x = run.values[q][k];
        if (!std::isnan(x)) acc_[q][k].add(x);
      }
  }
  Series result() const {
    Series out;
    out.bin = bin_;
    out.bins = bins_;
    out.quantities = defs_;
    out.values.resize(acc_.size());
    for (std::size_t q = 0; q < acc_.size(); ++q) {
      out.values[q].reserve(static_cast<std::size_t>(bins_));
      for (const MeanAccumulator& a : acc_[q]) out.values[q].push_back(a.summary());
    }
    return out;
  }

 private:
  std::vector<SeriesQuantityDef> defs_;
  double bin_;
  std::int64_t bins_;
  std::vector<std::vector<MeanAccumulator>> acc_;
};

}  // namespace retrylab::montecarlo::detail
