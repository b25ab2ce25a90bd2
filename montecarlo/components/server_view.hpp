#pragma once
// What the full tier reports of the server that the plain tier does not track: attempts served,
// the mean queue wait at the server (service start − arrival at the server, over attempts starting
// in the window; 0 for every attempt unless a component delays the start), and the nearest-rank
// latency percentiles p50 and p99 of the requests that succeeded. In every full-tier build; it
// turns no build on (active() is false) and allows every shortcut.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "montecarlo/component.hpp"

namespace retrylab::montecarlo::detail {

class ServerView : public Component {
 public:
  static bool active(const Scenario& /*s*/) noexcept { return false; }
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  // The plain tier has no queue (queue_wait 0 exactly) and keeps no latency list (NaN); every attempt
  // it makes is served.
  static constexpr std::array metrics{
      MetricDef{.key = "served",
                .label = "attempts admitted and served (per run)",
                .dim = Dim::count,
                .rank = 400,
                .shown = shown::never,
                .when_absent = [](const RunResult& core) { return static_cast<double>(core.attempts); },
                .integer = true},
      MetricDef{.key = "queue_wait",
                .label = "queue wait at the server ({})",
                .dim = Dim::time,
                .rank = 180,
                .shown = shown::server,
                .when_absent = absent::zero},
      MetricDef{.key = "latency_p50",
                .label = "median latency ({})",
                .dim = Dim::time,
                .rank = 200,
                .shown = shown::server,
                .when_absent = absent::undefined},
      MetricDef{.key = "latency_p99",
                .label = "99th percentile latency ({})",
                .dim = Dim::time,
                .rank = 210,
                .shown = shown::server,
                .when_absent = absent::undefined}};
  static bool allows_one_event(const Scenario& /*s*/) noexcept { return true; }
  template <class Faults>
  ServerView(const Scenario& /*s*/, const Faults& /*faults*/) {}

  // The latency list a worker lends to each run (component.hpp).
  struct Scratch {
    std::vector<double> latencies;
  };
  void lend(Scratch& scratch) noexcept { std::swap(latencies_, scratch.latencies); }
  void reset() noexcept { count_ = 0; }  // the list keeps its size: no refill with zeros per run

  template <class E>
  [[gnu::always_inline]] void on_service_start(E& e, std::int32_t j) {
    ++served_;
    if (e.now() >= e.warmup()) {
      if constexpr (E::separate_send) queue_wait_sum_ += e.now() - e.extra(j).reached;  // else no wait
      ++queue_wait_n_;
    }
  }
  template <class E>
  [[gnu::always_inline]] void on_succeeded(E& /*e*/, std::int32_t /*c*/, double latency) {
    add_latency(latency);
  }
  // One success's latency: a store and a count on the hot path (std::vector::push_back was left an
  // out-of-line call in the full tier's loop); the list grows out of line.
  [[gnu::always_inline]] void add_latency(double latency) {
    if (count_ == latencies_.size()) [[unlikely]]
      grow();
    latencies_[count_++] = latency;
  }

  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(served_);
    out[1] = queue_wait_n_ > 0 ? queue_wait_sum_ / static_cast<double>(queue_wait_n_)
                               : std::numeric_limits<double>::quiet_NaN();
    std::size_t below = 0;  // latencies_[0, below) are all <= the rest: the p50 selection leaves them so
    out[2] = percentile(0.50, below);
    out[3] = percentile(0.99, below);
  }

  // The one-event shortcut's direct counts (montecarlo/one_event.hpp).
  void count_served() noexcept { ++served_; }
  void count_wait() noexcept { ++queue_wait_n_; }
  // The latencies recorded (the list trimmed to them).
  std::vector<double>& latencies() {
    latencies_.resize(count_);
    return latencies_;
  }

 private:
  // Nearest rank: the ceil(p·n)-th smallest latency. The selection runs on latencies_[below, n),
  // valid when every element before `below` is <= every element from it and the rank lies at or
  // beyond it (percentiles taken in increasing p); `below` then moves to the rank.
  double percentile(double p, std::size_t& below) {
    if (count_ == 0) return std::numeric_limits<double>::quiet_NaN();
    const auto n = count_;
    auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(n)));
    rank = std::clamp<std::size_t>(rank, below + 1, n);
    const auto at = [&](std::size_t i) { return latencies_.begin() + static_cast<std::ptrdiff_t>(i); };
    std::nth_element(at(below), at(rank - 1), at(n));
    below = rank - 1;
    return latencies_[rank - 1];
  }

  [[gnu::noinline]] void grow() { latencies_.resize(std::max<std::size_t>(1024, 2 * latencies_.size())); }

  std::int64_t served_ = 0, queue_wait_n_ = 0;
  double queue_wait_sum_ = 0.0;
  std::vector<double> latencies_;  // [0, count_) recorded; the rest room to grow into
  std::size_t count_ = 0;
};

}  // namespace retrylab::montecarlo::detail
