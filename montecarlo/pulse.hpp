#pragma once
// Pulse: how far the runs in flight have got, for a progress display (montecarlo/progress.hpp),
// published by the event loops without an observer. A loop given a Pulse (RunPlan::pulse) publishes
// once every 65,536 attempts, from its worker thread: the attempts since its last publication and
// its fraction done (the larger of simulated time / horizon and burst clients gone / burst size);
// at its end it adds its remaining attempts and takes its fraction back out. Invariants:
// `in_flight_ppm` is the sum of the published fractions of the runs still running (millionths);
// `attempts` never decreases and equals the attempts of every finished run plus the published
// attempts of the running ones. Publishing only reads the run's counts: no result depends on it.
#include <algorithm>
#include <atomic>
#include <cstdint>

namespace retrylab::montecarlo {

struct Pulse {
  std::atomic<std::int64_t> attempts{0};
  std::atomic<std::int64_t> in_flight_ppm{0};
};

namespace detail {

// One run's side of a Pulse; all no-ops when the pulse is null. attempt() costs a mask test per
// attempt; the atomic updates happen once every `every` attempts and at the end of the run.
class PulseWriter {
 public:
  static constexpr std::int64_t every = std::int64_t{1} << 16;

  explicit PulseWriter(Pulse* pulse) noexcept : pulse_(pulse) {}

  // After the run's attempt count grew to `attempts` (simulated time t).
  [[gnu::always_inline]] void attempt(std::int64_t attempts, double t, double horizon, std::int64_t burst_left,
                                      std::int64_t burst) noexcept {
    if ((attempts & (every - 1)) == 0 && pulse_ != nullptr) publish(attempts, t, horizon, burst_left, burst);
  }

  // The run ended with `attempts` attempts.
  void end(std::int64_t attempts) noexcept {
    if (pulse_ == nullptr) return;
    pulse_->attempts.fetch_add(attempts - published_attempts_, std::memory_order_relaxed);
    pulse_->in_flight_ppm.fetch_sub(published_ppm_, std::memory_order_relaxed);
    published_attempts_ = attempts;
    published_ppm_ = 0;
  }

 private:
  void publish(std::int64_t attempts, double t, double horizon, std::int64_t burst_left, std::int64_t burst) noexcept {
    double f = horizon > 0.0 ? t / horizon : 0.0;
    if (burst > 0) f = std::max(f, static_cast<double>(burst_left) / static_cast<double>(burst));
    const auto ppm = static_cast<std::int64_t>(std::clamp(f, 0.0, 1.0) * 1e6);
    pulse_->attempts.fetch_add(attempts - published_attempts_, std::memory_order_relaxed);
    pulse_->in_flight_ppm.fetch_add(ppm - published_ppm_, std::memory_order_relaxed);
    published_attempts_ = attempts;
    published_ppm_ = ppm;
  }

  Pulse* pulse_;
  std::int64_t published_attempts_ = 0, published_ppm_ = 0;
};

}  // namespace detail

}  // namespace retrylab::montecarlo
