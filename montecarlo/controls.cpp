#include "montecarlo/controls.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "analytic/error.hpp"
#include "montecarlo/components/breaker_params.hpp"
#include "montecarlo/components/budget_params.hpp"

namespace retrylab::montecarlo {

namespace {

void check_time(double t, double now) {
  if (!std::isfinite(t) || t < now)
    throw InputError("time", fmt::format("must be finite and non-decreasing (got {} after {})", t, now));
}

void check_finite_positive(const char* field, double x) {
  if (!(x > 0.0) || !std::isfinite(x)) throw InputError(field, fmt::format("must be a finite number > 0 (got {})", x));
}

}  // namespace

std::string_view to_string(BudgetKind k) noexcept {
  switch (k) {
    case BudgetKind::none: return "none";
    case BudgetKind::token_bucket: return "token_bucket";
    case BudgetKind::finagle: return "finagle";
    case BudgetKind::adaptive: return "adaptive";
  }
  return "?";
}

std::string_view to_string(BreakerState s) noexcept {
  switch (s) {
    case BreakerState::closed: return "closed";
    case BreakerState::open: return "open";
    case BreakerState::half_open: return "half_open";
  }
  return "?";
}

// ------------------------------------------------------------------------------------------ presets

TokenBucketConfig aws_standard_budget() {
  TokenBucketConfig c;
  c.bucket = aws_standard();  // {500, 5, 1, 0}
  c.timeout_cost = 10.0;      // TIMEOUT_RETRY_COST
  c.charge = Charge::per_retry;
  c.refund_mode = Refund::cost_paid;
  return c;
}

TokenBucketConfig grpc_budget(double max_tokens, double token_ratio) {
  TokenBucketConfig c;
  c.bucket = grpc_throttling(max_tokens, token_ratio);  // {max, 1, ratio, max/2}
  c.timeout_cost = 1.0;  // gRFC A6: every failed attempt takes one token, whatever the failure
  c.charge = Charge::per_failure;
  c.refund_mode = Refund::per_success;
  return c;
}

BudgetConfig budget_preset(std::string_view name) {
  BudgetConfig b;
  if (name == "none") return b;
  if (name == "aws-standard") {
    b.kind = BudgetKind::token_bucket;
    b.token_bucket = aws_standard_budget();
  } else if (name == "grpc") {
    b.kind = BudgetKind::token_bucket;
    b.token_bucket = grpc_budget();
  } else if (name == "finagle") {
    b.kind = BudgetKind::finagle;
  } else if (name == "sre-adaptive") {
    b.kind = BudgetKind::adaptive;
  } else if (name == "token-bucket") {
    b.kind = BudgetKind::token_bucket;
    b.token_bucket.bucket = TokenBucket{500.0, 5.0, 1.0, 0.0};
    b.token_bucket.timeout_cost = 10.0;
    b.token_bucket.charge = Charge::per_retry;
    b.token_bucket.refund_mode = Refund::per_success;
  } else {
    throw InputError(
        "budget",
        fmt::format("must be one of none, aws-standard, grpc, finagle, sre-adaptive, token-bucket (got {})", name));
  }
  return b;
}

BudgetConfig BudgetParams::config() const {
  BudgetConfig b = budget_preset(budget_preset_names[preset]);
  if (budget_preset_names[preset] == "token-bucket") {
    b.token_bucket.bucket = TokenBucket{capacity, cost, refund, threshold};
    b.token_bucket.timeout_cost = timeout_cost;
    b.token_bucket.charge = charge == 1 ? Charge::per_failure : Charge::per_retry;
  }
  return b;
}

void check_budget(const BudgetConfig& b) {
  switch (b.kind) {
    case BudgetKind::none: return;
    case BudgetKind::token_bucket:
      check_token_bucket(b.token_bucket.bucket);
      check_finite_positive("timeout_cost", b.token_bucket.timeout_cost);
      return;
    case BudgetKind::finagle: check_finagle_budget(b.finagle.budget); return;
    case BudgetKind::adaptive:
      if (!(b.adaptive.k >= 1.0) || !std::isfinite(b.adaptive.k))
        throw InputError("k", fmt::format("must be a finite number >= 1 (got {})", b.adaptive.k));
      check_finite_positive("throttle_window", b.adaptive.window);
      return;
  }
  throw InputError("budget", "must be a known budget kind");
}

std::string canonical(const BudgetConfig& b) {
  switch (b.kind) {
    case BudgetKind::none: return "budget=none";
    case BudgetKind::token_bucket: {
      const auto& t = b.token_bucket;
      return fmt::format(
          "budget=token_bucket capacity={} cost={} timeout_cost={} refund={} threshold={} charge={} refund_mode={}",
          t.bucket.capacity, t.bucket.retry_cost, t.timeout_cost, t.bucket.refund, t.bucket.threshold,
          t.charge == Charge::per_retry ? "per_retry" : "per_failure",
          t.refund_mode == Refund::per_success ? "per_success" : "cost_paid");
    }
    case BudgetKind::finagle:
      return fmt::format("budget=finagle ttl={} min_retries_per_sec={} percent_can_retry={}", b.finagle.budget.ttl,
                         b.finagle.budget.min_retries_per_sec, b.finagle.budget.percent_can_retry);
    case BudgetKind::adaptive:
      return fmt::format("budget=adaptive k={} throttle_window={}", b.adaptive.k, b.adaptive.window);
  }
  return "budget=?";
}

// ------------------------------------------------------------------------------------- token bucket

TokenBucketBudget::TokenBucketBudget(const TokenBucketConfig& c) : config_(c), tokens_(c.bucket.capacity) {
  BudgetConfig b;
  b.kind = BudgetKind::token_bucket;
  b.token_bucket = c;
  check_budget(b);
}

void TokenBucketBudget::tick(double t) {
  check_time(t, now_);
  now_ = t;
}

void TokenBucketBudget::on_request(double t) { tick(t); }

bool TokenBucketBudget::admit(double t, double) {
  tick(t);
  return true;
}

void TokenBucketBudget::on_success(double t, double paid) {
  tick(t);
  double refund = config_.bucket.refund;
  if (config_.refund_mode == Refund::cost_paid && paid > 0.0) refund = paid;  // botocore release_retry_quota
  tokens_ = std::min(config_.bucket.capacity, tokens_ + refund);
}

void TokenBucketBudget::on_failure(double t, bool timeout) {
  tick(t);
  if (config_.charge == Charge::per_failure) {
    const double cost = timeout ? config_.timeout_cost : config_.bucket.retry_cost;
    tokens_ = std::max(0.0, tokens_ - cost);  // gRPC clamps the count to [0, maxTokens]
  }
}

RetryGrant TokenBucketBudget::try_retry(double t, bool timeout) {
  tick(t);
  if (config_.charge == Charge::per_failure) return {tokens_ > config_.bucket.threshold, 0.0};
  const double cost = timeout ? config_.timeout_cost : config_.bucket.retry_cost;
  if (tokens_ - cost >= config_.bucket.threshold) {  // botocore: acquire fails iff amount > available
    tokens_ -= cost;
    return {true, cost};
  }
  return {false, 0.0};
}

// ------------------------------------------------------------------------------------------ finagle

FinagleBudgetControl::FinagleBudgetControl(const FinagleConfig& c)
    : ttl_ms_(c.budget.ttl * 1000.0),
      deposit_(finagle_deposit(c.budget)),
      withdrawal_(finagle_withdrawal(c.budget)),
      reserve_(finagle_reserve(c.budget)) {}

void FinagleBudgetControl::expire(double t) {
  check_time(t, now_);
  now_ = t;
  // An entry made at s counts while t − s < ttl.
  while (!deposits_.empty() && t - deposits_.front() >= ttl_ms_) deposits_.pop_front();
  while (!withdrawals_.empty() && t - withdrawals_.front() >= ttl_ms_) withdrawals_.pop_front();
}

std::int64_t FinagleBudgetControl::balance(double t) {
  expire(t);
  return reserve_ + deposit_ * static_cast<std::int64_t>(deposits_.size()) -
         withdrawal_ * static_cast<std::int64_t>(withdrawals_.size());
}

void FinagleBudgetControl::on_request(double t) {
  expire(t);
  deposits_.push_back(t);
}

bool FinagleBudgetControl::admit(double t, double) {
  expire(t);
  return true;
}

void FinagleBudgetControl::on_success(double t, double) { expire(t); }
void FinagleBudgetControl::on_failure(double t, bool) { expire(t); }

RetryGrant FinagleBudgetControl::try_retry(double t, bool) {
  if (balance(t) >= withdrawal_) {  // TokenBucket.newLeakyBucket tryGet: count >= n
    withdrawals_.push_back(t);
    return {true, 0.0};
  }
  return {false, 0.0};
}

// ------------------------------------------------------------------------------ adaptive throttling

AdaptiveThrottle::AdaptiveThrottle(const AdaptiveThrottleConfig& c) : config_(c) {
  BudgetConfig b;
  b.kind = BudgetKind::adaptive;
  b.adaptive = c;
  check_budget(b);
}

void AdaptiveThrottle::expire(double t) {
  check_time(t, now_);
  now_ = t;
  while (!requests_.empty() && t - requests_.front() >= config_.window) requests_.pop_front();
  while (!accepts_.empty() && t - accepts_.front() >= config_.window) accepts_.pop_front();
}

double AdaptiveThrottle::rejection_probability(double t) {
  expire(t);
  const double requests = static_cast<double>(requests_.size());
  const double accepts = static_cast<double>(accepts_.size());
  return std::max(0.0, (requests - config_.k * accepts) / (requests + 1.0));
}

void AdaptiveThrottle::on_request(double t) { expire(t); }

bool AdaptiveThrottle::admit(double t, double u) {
  const double p = rejection_probability(t);
  requests_.push_back(t);
  return !(u < p);
}

void AdaptiveThrottle::on_success(double t, double) {
  expire(t);
  accepts_.push_back(t);
}

void AdaptiveThrottle::on_failure(double t, bool) { expire(t); }

RetryGrant AdaptiveThrottle::try_retry(double t, bool) {
  expire(t);
  return {true, 0.0};
}

// ------------------------------------------------------------------------------------- RetryBudget

namespace {
std::variant<NoBudget, TokenBucketBudget, FinagleBudgetControl, AdaptiveThrottle> make_budget(const BudgetConfig& c) {
  check_budget(c);
  switch (c.kind) {
    case BudgetKind::token_bucket: return TokenBucketBudget(c.token_bucket);
    case BudgetKind::finagle: return FinagleBudgetControl(c.finagle);
    case BudgetKind::adaptive: return AdaptiveThrottle(c.adaptive);
    case BudgetKind::none: break;
  }
  return NoBudget{};
}
}  // namespace

RetryBudget::RetryBudget(const BudgetConfig& c) : impl_(make_budget(c)) {}

void RetryBudget::on_request(double t) {
  std::visit([t](auto& b) { b.on_request(t); }, impl_);
}
bool RetryBudget::admit(double t, double u) {
  return std::visit([t, u](auto& b) { return b.admit(t, u); }, impl_);
}
void RetryBudget::on_success(double t, double paid) {
  std::visit([t, paid](auto& b) { b.on_success(t, paid); }, impl_);
}
void RetryBudget::on_failure(double t, bool timeout) {
  std::visit([t, timeout](auto& b) { b.on_failure(t, timeout); }, impl_);
}
RetryGrant RetryBudget::try_retry(double t, bool timeout) {
  return std::visit([t, timeout](auto& b) { return b.try_retry(t, timeout); }, impl_);
}
BudgetKind RetryBudget::kind() const noexcept {
  switch (impl_.index()) {
    case 1: return BudgetKind::token_bucket;
    case 2: return BudgetKind::finagle;
    case 3: return BudgetKind::adaptive;
    default: return BudgetKind::none;
  }
}

// ---------------------------------------------------------------------------------------- breakers

BreakerConfig hystrix_breaker() {
  BreakerConfig c;
  c.enabled = true;
  c.window_kind = BreakerWindow::time;
  c.window = 10000.0;         // metrics.rollingStats.timeInMilliseconds
  c.minimum_calls = 20;       // circuitBreaker.requestVolumeThreshold
  c.failure_threshold = 0.5;  // circuitBreaker.errorThresholdPercentage 50
  c.open_duration = 5000.0;   // circuitBreaker.sleepWindowInMilliseconds
  c.half_open_calls = 1;      // one single test request
  return c;
}

BreakerConfig resilience4j_breaker() {
  BreakerConfig c;
  c.enabled = true;
  c.window_kind = BreakerWindow::count;
  c.window = 100.0;           // slidingWindowSize (COUNT_BASED)
  c.minimum_calls = 100;      // minimumNumberOfCalls
  c.failure_threshold = 0.5;  // failureRateThreshold 50
  c.open_duration = 60000.0;  // waitDurationInOpenState 60 s
  c.half_open_calls = 10;     // permittedNumberOfCallsInHalfOpenState
  return c;
}

BreakerConfig breaker_preset(std::string_view name) {
  if (name == "none") return BreakerConfig{};
  if (name == "hystrix") return hystrix_breaker();
  if (name == "resilience4j") return resilience4j_breaker();
  throw InputError("breaker", fmt::format("must be one of none, hystrix, resilience4j (got {})", name));
}

BreakerConfig BreakerParams::config(double attempt_ms) const {
  BreakerConfig b = breaker_preset(breaker_preset_names[preset]);
  const double ms = attempt_ms > 0.0 ? attempt_ms : 1.0;
  if (window > 0.0) {
    b.window_kind = BreakerWindow::time;
    b.window = window * ms;
  }
  if (calls > 0) {
    b.window_kind = BreakerWindow::count;
    b.window = static_cast<double>(calls);
  }
  if (minimum_calls > 0) b.minimum_calls = minimum_calls;
  if (failure_threshold > 0.0) b.failure_threshold = failure_threshold;
  if (open_duration > 0.0) b.open_duration = open_duration * ms;
  if (half_open_calls > 0) b.half_open_calls = half_open_calls;
  return b;
}

void check_breaker(const BreakerConfig& b) {
  if (!b.enabled) return;
  if (b.window_kind == BreakerWindow::time) {
    check_finite_positive("breaker_window", b.window);
  } else if (!(b.window >= 1.0 && b.window <= 1e9) || b.window != std::floor(b.window)) {
    throw InputError("breaker_window",
                     fmt::format("must be an integer number of calls in [1, 1e9] (got {})", b.window));
  }
  if (b.minimum_calls < 1 || b.minimum_calls > 1'000'000'000)
    throw InputError("minimum_calls", fmt::format("must be in [1, 1e9] (got {})", b.minimum_calls));
  if (!(b.failure_threshold > 0.0 && b.failure_threshold <= 1.0))
    throw InputError("failure_threshold", fmt::format("must be in (0, 1] (got {})", b.failure_threshold));
  check_finite_positive("open_duration", b.open_duration);
  if (b.half_open_calls < 1 || b.half_open_calls > 1'000'000'000)
    throw InputError("half_open_calls", fmt::format("must be in [1, 1e9] (got {})", b.half_open_calls));
}

std::string canonical(const BreakerConfig& b) {
  if (!b.enabled) return "breaker=off";
  return fmt::format("breaker={} window={} minimum_calls={} failure_threshold={} open_duration={} half_open_calls={}",
                     b.window_kind == BreakerWindow::time ? "time" : "count", b.window, b.minimum_calls,
                     b.failure_threshold, b.open_duration, b.half_open_calls);
}

CircuitBreaker::CircuitBreaker(const BreakerConfig& c) : config_(c) { check_breaker(c); }

void CircuitBreaker::tick(double t) {
  check_time(t, now_);
  now_ = t;
  if (config_.window_kind == BreakerWindow::time) {
    while (!window_.empty() && t - window_.front().first >= config_.window) {
      if (window_.front().second) --window_failures_;
      window_.pop_front();
    }
  }
  if (state_ == BreakerState::open && t - opened_at_ >= config_.open_duration) {
    state_ = BreakerState::half_open;
    ++epoch_;
    probes_issued_ = probes_done_ = probe_failures_ = 0;
  }
}

void CircuitBreaker::open(double t) {
  state_ = BreakerState::open;
  opened_at_ = t;
  ++times_opened_;
  ++epoch_;
  window_.clear();
  window_failures_ = 0;
}

void CircuitBreaker::close() {
  state_ = BreakerState::closed;
  ++epoch_;
  window_.clear();
  window_failures_ = 0;
}

BreakerTicket CircuitBreaker::admit(double t) {
  if (!config_.enabled) {
    check_time(t, now_);
    now_ = t;
    return {BreakerAdmission::admitted, 0};
  }
  tick(t);
  switch (state_) {
    case BreakerState::closed: return {BreakerAdmission::admitted, epoch_};
    case BreakerState::open: return {BreakerAdmission::rejected, epoch_};
    case BreakerState::half_open:
      if (probes_issued_ < config_.half_open_calls) {
        ++probes_issued_;
        return {BreakerAdmission::probe, epoch_};
      }
      return {BreakerAdmission::rejected, epoch_};
  }
  return {BreakerAdmission::rejected, epoch_};
}

void CircuitBreaker::record(double t, const BreakerTicket& ticket, bool success) {
  if (!config_.enabled) {
    check_time(t, now_);
    now_ = t;
    return;
  }
  tick(t);
  if (ticket.admission == BreakerAdmission::rejected || ticket.epoch != epoch_) return;
  if (state_ == BreakerState::closed && ticket.admission == BreakerAdmission::admitted) {
    window_.emplace_back(t, !success);
    if (!success) ++window_failures_;
    if (config_.window_kind == BreakerWindow::count && static_cast<double>(window_.size()) > config_.window) {
      if (window_.front().second) --window_failures_;
      window_.pop_front();
    }
    const auto n = static_cast<std::int64_t>(window_.size());
    // resilience4j caps minimumNumberOfCalls at a count window's size.
    const std::int64_t minimum = config_.window_kind == BreakerWindow::count
                                     ? std::min(config_.minimum_calls, static_cast<std::int64_t>(config_.window))
                                     : config_.minimum_calls;
    if (n >= minimum && static_cast<double>(window_failures_) >= config_.failure_threshold * static_cast<double>(n))
      open(t);
  } else if (state_ == BreakerState::half_open && ticket.admission == BreakerAdmission::probe) {
    ++probes_done_;
    if (!success) ++probe_failures_;
    if (probes_done_ == config_.half_open_calls) {
      if (static_cast<double>(probe_failures_) >= config_.failure_threshold * static_cast<double>(probes_done_))
        open(t);
      else
        close();
    }
  }
}

}  // namespace retrylab::montecarlo
