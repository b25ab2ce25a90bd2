#pragma once
// Adaptive client rate limiting (docs/models.md §7, "Adaptive client rate limiting"; the AWS SDKs'
// retry_mode adaptive, as botocore builds it in retries/adaptive.py, bucket.py and throttling.py):
// one token bucket for every client of the run (botocore's one limiter per SDK client object,
// shared by its threads), from which every attempt takes a token before it is sent, first attempts
// too. Its fill rate follows CUBIC over the measured response rate and is cut on throttling errors
// (an outcome of kind throttled, or a rejection of status throttled). It is off until the first
// throttling error (botocore's _enabled), and then stays on. A client with no token waits: the
// decision's send step answers wait, and the client asks again at now + d.sleep, when a token will
// have accrued at the rate in force, as botocore's acquire() sleeps and then refills and checks
// again (so a rate cut meanwhile makes it wait again; clients waking together take the tokens in
// the wake queue's order).
// botocore keeps time in seconds: the scenario's clock times attempt_ms / 1000.
// Invariants: the fill rate is >= 0.5 tokens/s; the bucket holds at most max(1, rate) tokens.
// Metrics: adaptive_delayed, adaptive_delay, adaptive_rate, adaptive_on.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/controls.hpp"

namespace retrylab::montecarlo::detail {

// botocore's ClientRateLimiter with its TokenBucket, CubicCalculator and RateClocker, in seconds,
// as created at time 0 (register_retry_handler: CubicCalculator(starting_max_rate=0), TokenBucket
// (max_rate=1), whose constructor's refill sets its clock). The arithmetic is botocore's, in its
// order, so the numbers are its numbers.
struct BotocoreRateLimiter {
  static constexpr double beta = 0.7;            // throttling.py, CubicCalculator._BETA
  static constexpr double scale_constant = 0.4;  // throttling.py, CubicCalculator._SCALE_CONSTANT
  static constexpr double smoothing = 0.8;       // adaptive.py, RateClocker._DEFAULT_SMOOTHING
  static constexpr double time_bucket = 0.5;     // adaptive.py, RateClocker._TIME_BUCKET_RANGE (s)
  static constexpr double min_rate = 0.5;        // bucket.py, TokenBucket._MIN_RATE (tokens/s)
  static constexpr double max_rate_scale = 2.0;  // adaptive.py, ClientRateLimiter._MAX_RATE_ADJUST_SCALE

  bool enabled = false;
  // TokenBucket: _fill_rate (max_rate), _max_capacity, _current_capacity, _last_timestamp.
  double fill = 1.0, max_capacity = 1.0, capacity = 0.0, last = 0.0;
  // CubicCalculator: _w_max, _k, _last_fail.
  double w_max = 0.0, k = 0.0, last_fail = 0.0;
  // RateClocker: _measured_rate, _last_bucket (floor of the start time), _count.
  double measured = 0.0, last_bucket = 0.0, count = 0.0;

  void refill(double now) noexcept {
    capacity = std::min(max_capacity, capacity + (now - last) * fill);
    last = now;
  }
  // The max_rate setter: refill at the old rate, then the new one.
  void set_max_rate(double now, double value) noexcept {
    refill(now);
    fill = std::max(value, min_rate);
    max_capacity = value >= 1.0 ? value : 1.0;
    capacity = std::min(capacity, max_capacity);
  }
  // acquire(1) at `now`: 0 when a token is there (taken), else the wait until one will be, botocore's
  // _sleep_amount (1 − capacity)/rate, after which the caller asks again. A shortfall below 1e-9
  // token (the rounding of a refill at the very time computed) counts as a token.
  double acquire(double now) noexcept {
    refill(now);
    if (capacity >= 1.0 - 1e-9) {
      capacity -= 1.0;
      return 0.0;
    }
    return (1.0 - capacity) / fill;
  }
  // RateClocker.record(): the response rate, an exponential smoothing over 0.5 s buckets.
  double record(double now) noexcept {
    constexpr double scale = 1.0 / time_bucket;
    const double bucket = std::floor(now * scale) / scale;
    count += 1.0;
    if (bucket > last_bucket) {
      const double current = count / (bucket - last_bucket);
      measured = (current * smoothing) + (measured * (1.0 - smoothing));
      count = 0.0;
      last_bucket = bucket;
    }
    return measured;
  }
  // ClientRateLimiter.on_receiving_response: every response (needs-retry), a success included.
  void on_response(double now, bool throttling) noexcept {
    const double rate = record(now);
    double next = 0.0;
    if (!throttling) {
      const double dt = now - last_fail;
      next = scale_constant * std::pow(dt - k, 3.0) + w_max;  // success_received
    } else {
      const double use = enabled ? std::min(rate, fill) : rate;
      w_max = use;  // error_received
      k = std::pow((w_max * (1.0 - beta)) / scale_constant, 1.0 / 3.0);
      last_fail = now;
      next = use * beta;
      enabled = true;
    }
    set_max_rate(now, std::min(next, max_rate_scale * rate));
  }
};

class AdaptiveRate : public Component {
 public:
  struct ClientState {
    bool waiting = false;  // it has waited for a token since it last asked to send
  };
  static constexpr std::array fields{
      Field{.name = "adaptive_rate",
            .group = FieldGroup::client,
            .rank = 1160,
            .kind = FieldKind::on_off,
            .hi = 1,
            .meaning = "AWS adaptive mode's client-side rate limiter (botocore): every attempt waits for a token of "
                       "one bucket for every client, whose rate follows CUBIC, cut on throttling errors (needs "
                       "attempt_ms > 0)",
            .access = member<&Scenario::client, &ClientPolicy::adaptive_rate>()}};
  static constexpr std::array metrics{
      MetricDef{.key = "adaptive_delayed",
                .label = "attempts that waited for a token of the adaptive rate limiter (per run)",
                .dim = Dim::count,
                .rank = 396,
                .shown = [](const Scenario& s, bool) { return s.client.adaptive_rate; },
                .when_absent = absent::zero,
                .integer = true},
      MetricDef{.key = "adaptive_delay",
                .label = "time attempts waited for a token of the adaptive rate limiter ({}, per run)",
                .dim = Dim::time,
                .rank = 397,
                .shown = [](const Scenario& s, bool) { return s.client.adaptive_rate; },
                .when_absent = absent::zero},
      MetricDef{.key = "adaptive_rate",
                .label = "the adaptive rate limiter's fill rate, time-average over the window (tokens per {})",
                .dim = Dim::per_time,
                .rank = 398,
                .shown = [](const Scenario& s, bool) { return s.client.adaptive_rate; },
                .when_absent = absent::undefined},
      MetricDef{.key = "adaptive_on",
                .label = "share of the window the adaptive rate limiter was in force (after a throttling error)",
                .dim = Dim::count,
                .rank = 399,
                .shown = [](const Scenario& s, bool) { return s.client.adaptive_rate; },
                .when_absent = absent::undefined,
                .hi = 1.0}};
  static bool active(const Scenario& s) noexcept { return s.client.adaptive_rate; }
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  static void check(const Scenario& s) {
    if (!s.client.adaptive_rate) return;
    if (!(s.client.attempt_ms > 0.0))
      throw InputError(
          "attempt_ms",
          "must be > 0 with adaptive_rate on: botocore's rate limiter keeps time in seconds (give `unit=ms` "
          "or s with `attempt_duration`)");
    // A request waiting for a token at its deadline has no attempt to cancel, and its wake would
    // send one after the deadline.
    if (s.client.deadline_cancel)
      throw InputError("adaptive_rate",
                       "cannot combine with `deadline_cancel=on` yet (a request waiting for a "
                       "token at its deadline has no attempt to cancel)");
    // A client that waits for a token asks the send step again: a component that decides there
    // before this one would be asked twice for one attempt.
    if (s.client.breaker.on())
      throw InputError("adaptive_rate", "cannot combine with a breaker (both decide at the send step)");
    if (std::string_view(budget_preset_names[s.client.budget.preset]) == "sre-adaptive")
      throw InputError("adaptive_rate", "cannot combine with budget sre-adaptive (both decide at the send step)");
    if (s.client.hedge.on())
      throw InputError("adaptive_rate", "cannot combine with hedging (hedge_attempts > 1): a hedge takes no token");
  }
  template <class Faults>
  AdaptiveRate(const Scenario& s, const Faults& /*faults*/)
      : on_(s.client.adaptive_rate), per_s_(s.client.attempt_ms > 0.0 ? s.client.attempt_ms / 1000.0 : 1.0) {}

  void reset() noexcept {
    limiter_ = {};
    delayed_ = 0;
    delay_ = area_ = on_time_ = window_ = 0.0;
  }

  // The send step: a token now, or wait until one will have accrued, then ask again. An attempt
  // counts once in adaptive_delayed, and every wait in adaptive_delay.
  template <class E>
  void decide(E& e, Decision& d) noexcept {
    if (!on_ || d.ask != Ask::send || !limiter_.enabled) return;
    ClientState& mine = e.client_extra(d.client);
    const double wait_s = limiter_.acquire(e.now() * per_s_);
    const double wait = wait_s / per_s_;
    if (wait_s <= 0.0 || !(e.now() + wait > e.now())) {  // a wait too short to move the clock: sent
      if (wait_s > 0.0) limiter_.capacity -= 1.0;
      mine.waiting = false;
      return;
    }
    if (!mine.waiting) ++delayed_;
    mine.waiting = true;
    delay_ += wait;
    d.verb = Verb::wait;
    d.sleep = wait;
  }
  // Every response of an attempt (botocore's needs-retry: a success, a failure, a rejection, a
  // timeout), not a local refusal (no attempt) nor a cancellation (no response).
  template <class E>
  void on_outcome(E& e, const Outcome& o) noexcept {
    if (!on_ || o.job < 0 || o.kind == OutcomeKind::cancelled) return;
    const bool throttling =
        o.kind == OutcomeKind::throttled || (o.kind == OutcomeKind::rejected && o.status == FailureKind::throttled);
    limiter_.on_response(e.now() * per_s_, throttling);
  }
  void on_advance(double dt) noexcept {
    if (!on_) return;
    window_ += dt;
    area_ += limiter_.fill * per_s_ * dt;
    if (limiter_.enabled) on_time_ += dt;
  }
  const BotocoreRateLimiter& limiter() const noexcept { return limiter_; }
  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(delayed_);
    out[1] = delay_;
    out[2] = window_ > 0.0 ? area_ / window_ : nan;
    out[3] = window_ > 0.0 ? on_time_ / window_ : nan;
  }

 private:
  bool on_;
  double per_s_;  // seconds per attempt-duration
  BotocoreRateLimiter limiter_;
  std::int64_t delayed_ = 0;
  double delay_ = 0.0, area_ = 0.0, on_time_ = 0.0, window_ = 0.0;
};

}  // namespace retrylab::montecarlo::detail
