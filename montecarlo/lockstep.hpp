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
//
// `free` and `shared` with `none` or `nojitter`, a pure burst of N >= 2 and retries on (the plain
// tier, an observer that tolerates lock step, no planted fault): every round is the n clients
// still waiting, sent at one instant s, ending together at e (free: s + 1; shared: n attempts on
// the processor-sharing server each need one unit, e = s + n·(v_e − v)), all eligible (the last
// commit was at or before s), one of them commits and leaves, the other n − 1 sleep the same w_k
// and are sent again together at e + w_k. N rounds, so the run costs O(N) instead of O(N²)
// attempts through the queues.
// Invariants: the same result bytes as the event loop (LockstepFirstCommit.SameBytesAsTheEventLoop
// in tests/montecarlo/exact_test.cpp, over random scenarios): every time is the loop's own
// expression, the clock moves through the loop's advance(), the tally's success, leave and counts
// are its own calls, and each round's n equal additions to the sojourn and work sums are those n
// additions (repeated_sum.hpp). The winner's identity changes no result (the clients are alike:
// arrival 0, the same failures, the same sleep), so the ties stream is not drawn; nothing else in
// such a run draws from it. Taken only where every time stays below 2^52 (s + 1 > s).
#include "montecarlo/engine.hpp"
#include "montecarlo/repeated_sum.hpp"

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
RunResult Engine<M, P, Observer, Faults>::lockstep_first_commit() {
  static_assert(M == Model::free || M == Model::shared);
  std::int64_t n = in_service_;  // the burst, all sent at t_ = 0 (run())
  double start = t_;             // when the round's attempts were sent (their job.start)
  int k = 0;                     // the failures each waiting client has had
  double prev = s_.backoff.base;
  // Service received in the window by each of the round's attempts, as deliver() and finish() take
  // it (end: real for free, virtual for shared).
  const auto in_window = [&](double v_end, double end) {
    Job job;
    job.start = start;
    job.end = v_end;
    return service_in_window(job, end);
  };
  for (;;) {
    // The round's end: next_end_time()'s expression, the n ends queued at one key.
    double v_end = 0.0, end = 0.0;
    if constexpr (virtual_time) {
      v_end = v_ + 1.0;
      end = std::max(t_ + (v_end - v_) * static_cast<double>(n), t_);
    } else {
      v_end = end = t_ + 1.0;
    }
    if (!(end < horizon_)) {  // finish(horizon): the n attempts in flight at the stop
      pulse_.end(tally_.attempts);
      advance(horizon_);
      tally_.work = repeated_sum(tally_.work, in_window(v_end, virtual_time ? v_ : horizon_), n);
      return plain_result(StopReason::horizon, horizon_);
    }
    advance(end);
    if constexpr (virtual_time) v_ = v_end;  // end_group's snap
    in_service_ = 0;
    if (end >= warmup_) {  // deliver(), for each of the n attempts
      tally_.sojourn_sum = repeated_sum(tally_.sojourn_sum, end - start, n);
      tally_.sojourn_n += n;
      tally_.work = repeated_sum(tally_.work, in_window(v_end, virtual_time ? v_end : end), n);
    }
    tally_.succeed(0.0, end, true, warmup_, s_.traffic.clients);  // the one commit: a burst client
    tally_.leave();
    if (--n == 0) {
      pulse_.end(tally_.attempts);
      return plain_result(StopReason::finished, end);
    }
    if (k < std::numeric_limits<std::int32_t>::max()) ++k;
    const double wake = end + sampler_.sleep(k, prev, sleeps_);
    if (!(wake < horizon_)) {
      pulse_.end(tally_.attempts);
      advance(horizon_);
      return plain_result(StopReason::horizon, horizon_);
    }
    advance(wake);  // the n sends at one instant (later ones advance nothing)
    const std::int64_t before = tally_.attempts;
    tally_.attempts += n;
    if (before / PulseWriter::every != tally_.attempts / PulseWriter::every)  // progress only: no result
      pulse_.attempt(tally_.attempts / PulseWriter::every * PulseWriter::every, wake, horizon_, tally_.burst_left,
                     s_.traffic.clients);
    if (wake >= warmup_) tally_.window_attempts += n;
    in_service_ = n;
    start = wake;
  }
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
