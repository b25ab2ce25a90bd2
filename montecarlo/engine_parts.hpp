#pragma once
// The event loop's small parts (internal; montecarlo/engine.hpp is the loop): the observer that sees
// nothing, the loop's options, a FIFO ring, the counts every run keeps (Tally) and the recovery meter. Each is a value
// type with no knowledge of the loop.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "montecarlo/metrics.hpp"
#include "montecarlo/pulse.hpp"
#include "montecarlo/result.hpp"

namespace retrylab::montecarlo::detail {

inline constexpr double inf = std::numeric_limits<double>::infinity();
inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// The shortcuts an observer tolerates: engine.hpp takes one only for an observer that declares it,
// because each tells fewer hooks than the event loop. one_event (one_event.hpp): only on_arrival,
// on_start, on_end and on_sleep, deferred to time order, with other draws (the same laws); lockstep
// (lockstep.hpp): the burst's arrivals and first attempts, then nothing until the result. An
// observer declares `static constexpr unsigned tolerated_shortcuts = shortcut::one_event | ...`;
// one that says nothing tolerates none and gets every hook. It may narrow its declaration per run
// with a member `bool tolerates(unsigned shortcut) const` (e.g. only when it records no attempts).
namespace shortcut {
inline constexpr unsigned one_event = 1u, lockstep = 2u, all = one_event | lockstep;
}
template <class Observer>
constexpr unsigned declared_shortcuts() noexcept {
  if constexpr (requires { Observer::tolerated_shortcuts; })
    return static_cast<unsigned>(Observer::tolerated_shortcuts);
  else
    return 0u;
}
// Whether this run's observer tolerates the shortcut `which` (its declaration, then its own say).
template <class Observer>
bool observer_tolerates(const Observer& o, unsigned which) noexcept {
  if ((declared_shortcuts<Observer>() & which) == 0u) return false;
  if constexpr (requires { o.tolerates(which); })
    return o.tolerates(which);
  else
    return true;
}

// The observer that sees nothing (compiles to nothing): it tolerates every shortcut. Observers may
// add the optional hooks that engine.hpp lists; the three below are required.
struct NullObserver {
  static constexpr unsigned tolerated_shortcuts = shortcut::all;
  void on_arrival(std::int64_t /*client*/, double /*t*/, bool /*burst*/) noexcept {}
  void on_start(std::int64_t /*attempt*/, std::int64_t /*client*/, double /*t*/) noexcept {}
  void on_end(std::int64_t /*attempt*/, std::int64_t /*client*/, double /*start*/, double /*end*/,
              bool /*success*/) noexcept {}
};

struct EngineOptions {
  bool lockstep_shortcut = true;
  // Brooker-shaped runs take one event per attempt instead of four (one_event.hpp): the same laws,
  // other numbers. Off: the four-event loop (the tests compare the two).
  bool one_event_shortcut = true;
  // Run the full tier (engine.hpp) even without server-side options: it fills in the metrics only
  // that tier tracks (latency percentiles, queue wait); counts and times are the plain tier's.
  bool full_tier = false;
  // Full-tier runs whose components are all in the lean build (builds.hpp) run it: the same code
  // and the same numbers, faster. Off: the full build (the tests compare the two).
  bool lean = true;
  Pulse* pulse = nullptr;  // coarse progress for a display (pulse.hpp); null: none
  // stable_hash(scenario), when the caller has it (simulate() computes it once for all its runs);
  // empty: each run computes it.
  std::optional<std::uint64_t> scenario_hash;
};

// Intrusive FIFO of job slots (a row's lock, the limit's queue), linked through the core's
// per-attempt record (CoreJobState::next); the engine's push and pop move jobs in and out.
struct Fifo {
  std::int32_t head = -1, tail = -1;
  bool empty() const noexcept { return head < 0; }
};

// Ring buffer of in-flight attempts (FIFO). Grows by doubling only past its previous peak.
template <class T>
class Ring {
 public:
  explicit Ring(std::size_t capacity = 64) {
    std::size_t c = 1;
    while (c < capacity) c <<= 1;
    data_.resize(c);
    mask_ = c - 1;
  }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }
  T& front() noexcept { return data_[head_]; }
  T& operator[](std::size_t i) noexcept { return data_[(head_ + i) & mask_]; }
  void pop_front() noexcept {
    head_ = (head_ + 1) & mask_;
    --size_;
  }
  // Inline, so the caller's fields are stored straight into the slot: called out of line, the
  // caller stored x field by field and push_back loaded it back whole, a load no store could
  // forward (80% of the end queue's push time, 12% of the full tier's steady `shared`).
  [[gnu::always_inline]] void push_back(const T& x) {
    if (size_ == data_.size()) [[unlikely]]
      grow();
    data_[(head_ + size_) & mask_] = x;
    ++size_;
  }
  void clear() noexcept { head_ = size_ = 0; }

 private:
  [[gnu::noinline]] void grow() {
    std::vector<T> bigger(data_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = (*this)[i];
    data_.swap(bigger);
    head_ = 0;
    mask_ = data_.size() - 1;
  }
  std::vector<T> data_;
  std::size_t head_ = 0, size_ = 0, mask_ = 0;
};

// What the event loop counts for RunResult (docs/models.md §5), and
// the part of the result made from the counts alone. Window counts and integrals cover [warmup, stop).
struct Tally {
  std::int64_t arrived = 0, attempts = 0, successes = 0;
  std::int64_t waiting = 0, max_waiting = 0;
  std::int64_t window_arrivals = 0, window_attempts = 0, window_successes = 0;
  std::int64_t burst_successes = 0, burst_left = 0, p99_target = 0;
  double last_success = nan, drain_time = nan, drain_p99 = nan;
  double latency_sum = 0.0, waiting_time_sum = 0.0, sojourn_sum = 0.0;
  std::int64_t latency_n = 0, waiting_time_n = 0, sojourn_n = 0;
  double area_waiting = 0.0, busy = 0.0, work = 0.0;

  // A client arrives at t: returns its serial (arrival order).
  std::int64_t arrive(double t, double warmup) noexcept {
    if (t >= warmup) ++window_arrivals;
    ++waiting;
    max_waiting = std::max(max_waiting, waiting);
    return arrived++;
  }
  // An attempt sent at `sent` ends, for its client, at t.
  [[gnu::always_inline]] void attempt_ended(double sent, double t, double warmup) noexcept {
    if (t >= warmup) {
      sojourn_sum += t - sent;
      ++sojourn_n;
    }
  }
  // A client that arrived at `arrival` succeeds at t (it then leaves: see leave()).
  [[gnu::always_inline]] void succeed(double arrival, double t, bool burst, double warmup,
                                      std::int64_t burst_clients) noexcept {
    count_success(arrival, t, warmup);
    last_success = t;
    if (burst) {
      if (++burst_successes == p99_target) drain_p99 = t;
      burst_left_at(t, burst_clients);
    }
  }
  // What succeed() counts that does not depend on the order successes are told in.
  [[gnu::always_inline]] void count_success(double arrival, double t, double warmup) noexcept {
    ++successes;
    if (t >= warmup) ++window_successes;
    latency_sum += t - arrival;
    ++latency_n;
    if (arrival >= warmup) {
      waiting_time_sum += t - arrival;
      ++waiting_time_n;
    }
  }
  // A burst client leaves at t (succeeded, or gave up); the last one sets the drain time.
  void burst_left_at(double t, std::int64_t burst_clients) noexcept {
    if (++burst_left == burst_clients) drain_time = t;
  }
  void leave() noexcept { --waiting; }

  RunResult result(std::int64_t burst_clients, StopReason why, double stop, double warmup) const {
    RunResult r;
    r.stop = why;
    r.stop_time = stop;
    r.clients_arrived = arrived;
    r.attempts = attempts;
    r.successes = successes;
    r.burst_clients = burst_clients;
    r.attempts_per_client = arrived > 0 ? static_cast<double>(attempts) / static_cast<double>(arrived) : nan;
    r.makespan = why == StopReason::finished && successes > 0 ? last_success : nan;
    r.latency = latency_n > 0 ? latency_sum / static_cast<double>(latency_n) : nan;
    const double span = stop - warmup;
    const bool has_window = span > 0.0;
    r.goodput = has_window ? static_cast<double>(window_successes) / span : nan;
    r.attempt_rate = has_window ? static_cast<double>(window_attempts) / span : nan;
    r.sojourn = sojourn_n > 0 ? sojourn_sum / static_cast<double>(sojourn_n) : nan;
    r.collapsed = why == StopReason::collapsed;
    r.drained = burst_clients > 0 && burst_left == burst_clients;
    r.drain_time = r.drained ? drain_time : nan;
    r.drain_time_p99 = burst_clients > 0 && burst_successes >= p99_target ? drain_p99 : nan;
    r.unfinished = waiting;
    r.max_waiting = max_waiting;
    r.mean_waiting = has_window ? area_waiting / span : nan;
    r.mean_time_waiting = waiting_time_n > 0 ? waiting_time_sum / static_cast<double>(waiting_time_n) : nan;
    r.arrival_rate = has_window ? static_cast<double>(window_arrivals) / span : nan;
    r.busy_time = busy;
    r.work_done = work;
    return r;
  }
};

// The core's metrics (montecarlo/metric.hpp), as Tally::result and the core fill them: the tally's
// counts, times and rates, how the run stopped (collapsed, drained) and the requests lost.
inline const Metric core_metrics[] = {
    {MetricDef{.key = "attempts_per_client",
               .label = "attempts per client",
               .dim = Dim::count,
               .rank = 10,
               .shown = shown::always,
               .when_absent = absent::undefined},
     -1, [](const RunResult& r) { return r.attempts_per_client; }, &Summary::attempts_per_client},
    {MetricDef{.key = "makespan",
               .label = "makespan ({})",
               .dim = Dim::time,
               .rank = 20,
               .shown = shown::always,
               .when_absent = absent::undefined},
     -1, [](const RunResult& r) { return r.makespan; }, &Summary::makespan},
    {MetricDef{.key = "latency",
               .label = "latency ({})",
               .dim = Dim::time,
               .rank = 30,
               .shown = shown::always,
               .when_absent = absent::undefined},
     -1, [](const RunResult& r) { return r.latency; }, &Summary::latency},
    {MetricDef{.key = "goodput",
               .label = "goodput (successes per {})",
               .dim = Dim::per_time,
               .rank = 40,
               .shown = shown::always,
               .when_absent = absent::undefined},
     -1, [](const RunResult& r) { return r.goodput; }, &Summary::goodput},
    {MetricDef{.key = "attempt_rate",
               .label = "attempt rate (per {})",
               .dim = Dim::per_time,
               .rank = 50,
               .shown = shown::always,
               .when_absent = absent::undefined},
     -1, [](const RunResult& r) { return r.attempt_rate; }, &Summary::attempt_rate},
    {MetricDef{.key = "sojourn",
               .label = "time in system ({})",
               .dim = Dim::time,
               .rank = 60,
               .shown = shown::always,
               .when_absent = absent::undefined},
     -1, [](const RunResult& r) { return r.sojourn; }, &Summary::sojourn},
    {MetricDef{.key = "drain_time",
               .label = "drain time ({})",
               .dim = Dim::time,
               .rank = 70,
               .shown = shown::always,
               .when_absent = absent::undefined},
     -1, [](const RunResult& r) { return r.drain_time; }, &Summary::drain_time},
    {MetricDef{.key = "drain_time_p99",
               .label = "99% drain time ({})",
               .dim = Dim::time,
               .rank = 80,
               .shown = shown::always,
               .when_absent = absent::undefined},
     -1, [](const RunResult& r) { return r.drain_time_p99; }, &Summary::drain_time_p99},
    {MetricDef{.key = "unfinished",
               .label = "unfinished (clients)",
               .dim = Dim::count,
               .rank = 90,
               .shown = shown::always,
               .when_absent = absent::undefined,
               .integer = true},
     -1, [](const RunResult& r) { return static_cast<double>(r.unfinished); }, &Summary::unfinished},
    {MetricDef{.key = "max_waiting",
               .label = "peak backlog (clients)",
               .dim = Dim::count,
               .rank = 100,
               .shown = shown::always,
               .when_absent = absent::undefined,
               .integer = true},
     -1, [](const RunResult& r) { return static_cast<double>(r.max_waiting); }, &Summary::max_waiting},
    {MetricDef{.key = "mean_waiting",
               .label = "mean waiting (clients)",
               .dim = Dim::count,
               .rank = 110,
               .shown = shown::always,
               .when_absent = absent::undefined},
     -1, [](const RunResult& r) { return r.mean_waiting; }, &Summary::mean_waiting},
    {MetricDef{.key = "mean_time_waiting",
               .label = "mean time waiting ({})",
               .dim = Dim::time,
               .rank = 120,
               .shown = shown::always,
               .when_absent = absent::undefined},
     -1, [](const RunResult& r) { return r.mean_time_waiting; }, &Summary::mean_time_waiting},
    {MetricDef{.key = "arrival_rate",
               .label = "arrival rate (per {})",
               .dim = Dim::per_time,
               .rank = 130,
               .shown = shown::always,
               .when_absent = absent::undefined},
     -1, [](const RunResult& r) { return r.arrival_rate; }, &Summary::arrival_rate},
    {MetricDef{.key = "busy_time",
               .label = "busy time ({})",
               .dim = Dim::time,
               .rank = 140,
               .shown = shown::always,
               .when_absent = absent::undefined},
     -1, [](const RunResult& r) { return r.busy_time; }, &Summary::busy_time},
    {MetricDef{.key = "work_done",
               .label = "work done ({})",
               .dim = Dim::time,
               .rank = 150,
               .shown = shown::always,
               .when_absent = absent::undefined},
     -1, [](const RunResult& r) { return r.work_done; }, &Summary::work_done},
    {MetricDef{.key = "lost",
               .label = "clients that gave up (per run)",
               .dim = Dim::count,
               .rank = 220,
               .shown = shown::server,
               .when_absent = absent::undefined,
               .integer = true},
     -1, [](const RunResult& r) { return static_cast<double>(r.lost); }, &Summary::lost},
    {MetricDef{.key = "lost_fraction",
               .label = "lost / (successes + lost)",
               .dim = Dim::count,
               .rank = 230,
               .shown = shown::server,
               .when_absent = absent::undefined,
               .lo = 0.0,
               .hi = 1.0},
     -1, [](const RunResult& r) { return r.lost_fraction; }, &Summary::lost_fraction},
    {MetricDef{.key = "collapsed",
               .label = "collapsed (runs)",
               .dim = Dim::count,
               .rank = 1000,
               .shown = shown::always,
               .when_absent = absent::undefined,
               .reduce = Reduce::proportion,
               .lo = 0.0,
               .hi = 1.0},
     -1, [](const RunResult& r) { return r.collapsed ? 1.0 : 0.0; }, nullptr, &Summary::collapsed},
    {MetricDef{.key = "drained",
               .label = "drained (runs with a burst)",
               .dim = Dim::count,
               .rank = 1010,
               .shown = shown::always,
               .when_absent = absent::undefined,
               .reduce = Reduce::proportion,
               .lo = 0.0,
               .hi = 1.0},
     -1, [](const RunResult& r) { return r.burst_clients > 0 ? (r.drained ? 1.0 : 0.0) : nan; }, nullptr,
     &Summary::drained}};

// The length of a union of half-open intervals [a, b) added in non-decreasing b (the one-event
// shortcut's busy time: services added as they end, engine.hpp). A stack of the union's disjoint
// pieces that a later interval can still reach; an interval merges the pieces it overlaps or
// touches (amortised O(1)). Each piece carries the length of the pieces beneath it, so no length
// is ever subtracted: the result is a plain sum of the final pieces.
class IntervalUnion {
 public:
  void clear() noexcept { pieces_.clear(); }
  void add(double a, double b) {
    if (!(b > a)) return;
    double below = length();
    while (!pieces_.empty() && pieces_.back().to >= a) {
      a = std::min(a, pieces_.back().from);
      below = pieces_.back().below;
      pieces_.pop_back();
    }
    pieces_.push_back({a, b, below});
  }
  double length() const noexcept {
    return pieces_.empty() ? 0.0 : pieces_.back().below + (pieces_.back().to - pieces_.back().from);
  }

 private:
  struct Piece {
    double from, to, below;
  };
  std::vector<Piece> pieces_;
};

// The core's time-series quantities (montecarlo/series.hpp), counted by the series observer from the
// core's own hooks; the components add theirs (their `series` arrays). `refused` is shown when a
// component the scenario turns on may refuse a call locally (its shown rule is set per parts list:
// builds.hpp's series_table). Ranks and columns leave room for the components' between them.
inline constexpr bool series_always(const Scenario& /*s*/) { return true; }
inline constexpr SeriesQuantityDef core_series[] = {
    {"offered", "requests arriving (per bin)", Dim::count, 0, 0, series_always},
    {"attempts", "attempts sent (per bin)", Dim::count, 10, 10, series_always},
    {"successes", "requests answered (per bin)", Dim::count, 20, 20, series_always},
    {"failures", "attempts that failed (per bin)", Dim::count, 30, 30, series_always},
    {"refused", "calls refused locally (per bin)", Dim::count, 60, 60, nullptr},
    {"lost", "requests lost (per bin)", Dim::count, 80, 80, series_always},
    {"backlog", "clients waiting (mean over the bin)", Dim::count, 90, 90, series_always},
    {"in_flight", "attempts in flight (mean over the bin)", Dim::count, 100, 100, series_always},
    {"latency_p50", "median latency of the bin's answered requests ({})", Dim::time, 110, 110, series_always},
    {"latency_p99", "99th percentile latency of the bin's answered requests ({})", Dim::time, 120, 120, series_always},
    {"latency_p999", "99.9th percentile latency of the bin's answered requests ({})", Dim::time, 130, 130,
     series_always},
    {"server_queue", "attempts at the server, queued or in service (mean over the bin)", Dim::count, 140, 105,
     series_always},
};

// An observer hook the one-event shortcut (engine.hpp) knows before its time: held until every
// event before it has been told. rank orders hooks of one instant as the four-event loop does
// (a reply reaching its client, with the sleep it chose, before a send); seq keeps the rest in the
// order they were made.
struct DeferredHook {
  double time;
  int rank;  // 0: on_end (and on_sleep after a failure), 1: on_start
  std::int64_t seq;
  std::int64_t attempt, client;
  double sent;
  bool success, slept;
  std::int32_t retry;
  double sleep;
};
// The heap's order (std::push_heap keeps the greatest in front, so "less" is "later").
inline bool later(const DeferredHook& x, const DeferredHook& y) noexcept {
  if (x.time != y.time) return x.time > y.time;
  if (x.rank != y.rank) return x.rank > y.rank;
  return x.seq > y.seq;
}

// Recovery after an outage (Measurement::recovery_window): outcomes at the server before
// outage_start form the baseline; those after outage_end are binned in windows of length w;
// recovery_time is the end of the first window whose success fraction reaches 95% of the baseline
// (1 − failure_prob without one). Windows with no outcome do not count.
class RecoveryMeter {
 public:
  RecoveryMeter(double outage_start, double outage_end, double window, double failure_prob) noexcept
      : start_(outage_start), end_(outage_end), window_(window), failure_prob_(failure_prob) {}

  void record(double t, bool success) {
    if (t < start_) {
      ++baseline_done_;
      baseline_ok_ += success;
    } else if (t >= end_) {
      const double k = std::floor((t - end_) / window_);
      if (k > 1e7) return;  // far beyond any horizon a study uses: not binned
      const auto bin = static_cast<std::size_t>(k);
      if (bins_.size() <= bin) bins_.resize(bin + 1, {0, 0});
      ++bins_[bin].first;
      bins_[bin].second += success;
    }
  }

  double recovery_time() const {
    const double baseline = baseline_done_ > 0 ? static_cast<double>(baseline_ok_) / static_cast<double>(baseline_done_)
                                               : 1.0 - failure_prob_;
    for (std::size_t k = 0; k < bins_.size(); ++k) {
      if (bins_[k].first == 0) continue;  // a window with no attempt does not count
      const double fraction = static_cast<double>(bins_[k].second) / static_cast<double>(bins_[k].first);
      if (fraction >= 0.95 * baseline) return static_cast<double>(k + 1) * window_;
    }
    return nan;
  }

 private:
  double start_, end_, window_, failure_prob_;
  std::int64_t baseline_done_ = 0, baseline_ok_ = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> bins_;  // (completed, succeeded) per window
};

}  // namespace retrylab::montecarlo::detail
