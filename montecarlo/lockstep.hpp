#pragma once
// The lock-step shortcut of the event loop's plain tier (internal; the member functions of Engine in
// montecarlo/engine.hpp that it declares under "The lock-step shortcut", defined here to keep that
// file to the loop itself).
//
// `collision` with `none` or `nojitter`, a pure burst of N >= 2 and retries on can never succeed
// (docs/models.md §4): every round is N simultaneous attempts that all fail, and the clients sleep
// the same deterministic w_k and start again together. So after the burst starts the loop advances
// round by round (O(1) per round), and once the sleep is constant (none; nojitter at its cap) whole
// periodic cycles at once, to the horizon.
// Invariants: the event loop's own arithmetic (end = start + 1, wake = end + sleep) and its time
// integrals over [warmup, stop): counts equal the loop's, times equal to the rounding of the skipped
// cycles' sums (EngineOptions::lockstep_shortcut turns it off; tests/montecarlo/exact_test.cpp,
// Lockstep.ShortcutEqualsTheEventLoop, compares the two).
#include "montecarlo/engine.hpp"

namespace retrylab::montecarlo::detail {

template <Model M, class P, class Observer, class Faults>
RunResult Engine<M, P, Observer, Faults>::lockstep() {
  const auto n = static_cast<std::int64_t>(in_service_);
  const double nd = static_cast<double>(n);
  // The event loop's own arithmetic: end = start + 1, wake = end + sleep.
  double start = 0.0;
  int k = 0;
  double prev = s_.backoff.base;
  bool in_flight = true;
  for (;;) {
    const double end = start + 1.0;
    if (end >= horizon_) break;
    advance_lockstep(end, true);
    tally_.sojourn_sum += nd * (end - start) * (end >= warmup_);
    tally_.sojourn_n += n * (end >= warmup_);
    if (end > warmup_) tally_.work += nd * (end - std::max(start, warmup_));
    if (k < std::numeric_limits<int>::max()) ++k;
    const double sleep = sampler_.sleep(k, prev, sleeps_);
    const double next = end + sleep;
    if (next >= horizon_) {
      in_flight = false;
      break;
    }
    advance_lockstep(next, false);
    tally_.attempts += n;
    if (next >= warmup_) tally_.window_attempts += n;
    start = next;
    // Once the sleep is constant (none; nojitter at its cap) the rounds are periodic with period
    // P = 1 + sleep: skip whole cycles (an end, then the next start) that lie inside the window
    // and well before the horizon, leaving the last two to the exact loop above.
    const bool periodic = s_.backoff.strategy == Strategy::none || sleep_at_cap(k);
    if (periodic && start >= warmup_) {
      const double period = 1.0 + sleep;
      const double cycles = std::floor((horizon_ - start) / period) - 2.0;
      if (cycles >= 1.0) {
        const auto c = static_cast<std::int64_t>(cycles);
        tally_.busy += cycles;                        // each round [s, s + 1) is busy
        tally_.area_waiting += nd * cycles * period;  // n clients wait throughout
        tally_.sojourn_sum += nd * cycles;            // each attempt lasts exactly 1
        tally_.sojourn_n += n * c;
        tally_.work += nd * cycles;
        tally_.attempts += n * c;
        tally_.window_attempts += n * c;
        start += cycles * period;
        t_ = start;
        k = static_cast<int>(std::min<std::int64_t>(k + c, std::numeric_limits<int>::max()));
      }
    }
  }
  if (in_flight) {
    advance_lockstep(horizon_, true);
    if (horizon_ > warmup_) tally_.work += nd * (horizon_ - std::max(start, warmup_));
  } else {
    advance_lockstep(horizon_, false);
  }
  return plain_result(StopReason::horizon, horizon_);
}

template <Model M, class P, class Observer, class Faults>
bool Engine<M, P, Observer, Faults>::sleep_at_cap(int k) const noexcept {
  return s_.backoff.strategy == Strategy::nojitter && sampler_.width(k) == s_.backoff.cap;
}

template <Model M, class P, class Observer, class Faults>
void Engine<M, P, Observer, Faults>::advance_lockstep(double t, bool busy) noexcept {
  if (t > warmup_) {
    const double from = t_ > warmup_ ? t_ : warmup_;
    const double dt = t - from;
    tally_.area_waiting += static_cast<double>(tally_.waiting) * dt;
    if (busy) tally_.busy += dt;
  }
  t_ = t;
}

}  // namespace retrylab::montecarlo::detail
