#pragma once
// Client-side controls real clients ship: retry budgets and circuit breakers, each a small
// value-type state machine that is a pure function of the events fed to it. Time is explicit, in ms,
// and must be fed in non-decreasing order (check: InputError "time"). Nothing here draws random
// numbers: the one randomised control (adaptive throttling) takes its uniform draw as an argument.
//
// Retry budgets (RetryBudget wraps one of them; `none` allows everything). Events, in the order a
// client produces them for one request: on_request(t) once when the request arrives; admit(t, u)
// before every attempt (only adaptive throttling can say no); then on_success(t, paid) or
// on_failure(t, timeout) for the attempt; after a failure, try_retry(t, timeout) decides whether the
// client may retry (RetryGrant::paid is what that retry cost, to be handed back to on_success if the
// retry succeeds).
//
// - Token bucket (generic; analytic/budget.hpp TokenBucket {capacity, retry_cost, refund, threshold}
//   plus timeout_cost, charge and refund modes). Starts full, never exceeds capacity.
//   charge per_retry (AWS): try_retry takes the cost (timeout_cost after a timeout) iff the bucket
//   stays >= threshold; per_failure (gRPC): every failed attempt takes retry_cost (timeout_cost after
//   a timeout; both 1 for gRPC), floored at 0, and try_retry allows iff tokens > threshold, taking
//   nothing. refund per_success: every success adds
//   `refund`; cost_paid (botocore): a success on a retry gives back what that retry paid, a success
//   on a first attempt adds `refund`.
//   Bound (analytic/budget.hpp max_retries; proved in proofs/Budget.v: token_bucket_bound).
//   Refund per_success: R <= max_retries(bucket, S); cost_paid: the retries whose cost was kept (retries − successes on
//   a retry) <= max_retries(bucket with cost min(retry_cost, timeout_cost), successes on a first attempt).
//   * `aws-standard`: capacity 500, cost 5, timeout cost 10, refund 1, threshold 0, per_retry,
//     cost_paid. Source: botocore/retries/standard.py (RetryQuotaChecker: INITIAL_RETRY_TOKENS = 500,
//     RETRY_COST = 5, TIMEOUT_RETRY_COST = 10, NO_RETRY_INCREMENT = 1; acquire fails when the amount
//     exceeds the available capacity; release_retry_quota gives back context['retry_quota_capacity']
//     — the cost the request's retry paid — on a 2xx, or NO_RETRY_INCREMENT when the request was not
//     retried); AWS SDKs and Tools Reference Guide, "Retry behavior", standard mode.
//   * `token-bucket`: the generic bucket, per_retry and per_success, with the numbers a scenario
//     gives (bucket_capacity, bucket_cost, bucket_timeout_cost, bucket_refund, bucket_threshold;
//     defaults those of aws-standard: 500, 5, 10, 1, 0).
//   * `grpc`: maxTokens 10, tokenRatio 0.1: capacity 10, threshold 5, cost 1 per failed attempt,
//     refund 0.1 per success, per_failure, per_success. Source: gRFC A6 "gRPC Retry Design",
//     "Throttling Retry Attempts and Hedged RPCs" (retries blocked while token_count <= maxTokens/2).
// - Finagle (com.twitter.finagle.service.RetryBudget.apply, TokenRetryBudget, TokenBucket.newLeakyBucket):
//   ttl 10 s, minRetriesPerSec 10, percentCanRetry 0.2. Integer units as Finagle: every request
//   deposits 1000, a retry withdraws floor(1000/percentCanRetry) (1 and deposit 0 when the percentage
//   is 0) iff balance >= withdrawal, balance = reserve + Σ deposits − Σ withdrawals of the last ttl,
//   reserve = minRetriesPerSec · floor(ttl in s) · withdrawal. Finagle expires entries in 10 slices
//   of ttl/10 (WindowedAdder); here each entry expires exactly ttl after it was made (a sliding
//   window), which makes the bound exact: retries in (t − ttl, t] for a retry at t
//   <= finagle_max_retries(budget, requests in (t − ttl, t]) (analytic/budget.hpp).
// - Adaptive throttling (Google SRE book, ch. 21 "Handling Overload", client-side throttling): every
//   attempt is rejected locally with probability max(0, (requests − K·accepts)/(requests + 1)), K = 2,
//   requests and accepts counted over the last 2 minutes (requests: every attempt the application
//   made, rejected or not, counted before this one; accepts: successes). A failure or timeout is not
//   an accept. admit(t, u) rejects iff u < that probability (u uniform in (0, 1)).
//
// Circuit breakers (CircuitBreaker): closed → open when the window holds >= minimum_calls outcomes
// and their failure fraction >= failure_threshold; open rejects every call until open_duration has
// passed since it opened; then half-open admits exactly half_open_calls probes (others rejected); once
// all probes reported, closed if their failure fraction < failure_threshold, else open again. Every
// transition clears the window. Outcomes of calls admitted in an earlier state are ignored. Timeouts
// and rejections by the dependency count as failures.
//   * `hystrix` (Netflix Hystrix HystrixCommandProperties defaults): time window 10,000 ms
//     (metrics.rollingStats.timeInMilliseconds; Hystrix uses 10 buckets and a 500 ms health
//     snapshot, here an exact sliding window), requestVolumeThreshold 20, errorThresholdPercentage 50,
//     sleepWindowInMilliseconds 5000, one probe when half-open (a success closes, a failure re-opens).
//   * `resilience4j` (CircuitBreakerConfig defaults): COUNT_BASED window 100 calls (a minimum_calls
//     above a count window is capped at its size, as resilience4j does),
//     minimumNumberOfCalls 100, failureRateThreshold 50, waitDurationInOpenState 60 s,
//     permittedNumberOfCallsInHalfOpenState 10 (automatic transition off: half-open at the first call
//     after the wait; slow-call thresholds not modelled).
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "analytic/budget.hpp"

namespace retrylab::montecarlo {

// ---------------------------------------------------------------------------------------------- budgets

enum class Charge { per_retry, per_failure };
enum class Refund { per_success, cost_paid };

struct TokenBucketConfig {
  TokenBucket bucket{};       // capacity, retry_cost, refund, threshold (analytic/budget.hpp)
  double timeout_cost = 5.0;  // > 0 finite: per_retry cost of a retry after a timeout
  Charge charge = Charge::per_retry;
  Refund refund_mode = Refund::per_success;
};

struct FinagleConfig {
  FinagleBudget budget{};  // ttl (s), min_retries_per_sec, percent_can_retry (analytic/budget.hpp)
};

struct AdaptiveThrottleConfig {
  double k = 2.0;            // K >= 1 finite (SRE book: 2)
  double window = 120000.0;  // ms > 0 finite: requests and accepts of the last 2 minutes
};

enum class BudgetKind { none, token_bucket, finagle, adaptive };

struct BudgetConfig {
  BudgetKind kind = BudgetKind::none;
  TokenBucketConfig token_bucket{};
  FinagleConfig finagle{};
  AdaptiveThrottleConfig adaptive{};
};

// Presets: "none", "aws-standard", "grpc", "finagle", "sre-adaptive", "token-bucket" (its defaults).
// Unknown name: InputError("budget").
// A scenario's budget (its preset and bucket numbers) becomes one through BudgetParams::config()
// (components/budget_params.hpp).
BudgetConfig budget_preset(std::string_view name);
inline constexpr std::string_view budget_preset_names[] = {"none",    "aws-standard", "grpc",
                                                           "finagle", "sre-adaptive", "token-bucket"};
TokenBucketConfig aws_standard_budget();                                            // botocore standard mode
TokenBucketConfig grpc_budget(double max_tokens = 10.0, double token_ratio = 0.1);  // gRFC A6
// Throws InputError naming the field (capacity, cost, timeout_cost, refund, threshold, ttl,
// min_retries_per_sec, percent_can_retry, k, throttle_window).
void check_budget(const BudgetConfig& b);
std::string canonical(const BudgetConfig& b);  // "budget=none" or "budget=token_bucket capacity=... ..."

struct RetryGrant {
  bool allowed = false;
  double paid = 0.0;  // tokens this retry cost (token bucket per_retry); 0 otherwise
};

class TokenBucketBudget {
 public:
  explicit TokenBucketBudget(const TokenBucketConfig& c);  // checks c
  void on_request(double t);
  bool admit(double t, double u);  // always true
  void on_success(double t, double paid);
  void on_failure(double t, bool timeout);
  RetryGrant try_retry(double t, bool timeout);
  double tokens() const noexcept { return tokens_; }

 private:
  void tick(double t);
  TokenBucketConfig config_;
  double tokens_;
  double now_ = 0.0;
};

class FinagleBudgetControl {
 public:
  explicit FinagleBudgetControl(const FinagleConfig& c);  // checks c
  void on_request(double t);                              // deposit
  bool admit(double t, double u);                         // always true
  void on_success(double t, double paid);
  void on_failure(double t, bool timeout);
  RetryGrant try_retry(double t, bool timeout);  // withdraw iff balance >= withdrawal
  // Scaled integer balance (reserve + deposits − withdrawals of the last ttl) after expiring at t.
  std::int64_t balance(double t);
  std::int64_t deposit_amount() const noexcept { return deposit_; }
  std::int64_t withdrawal_amount() const noexcept { return withdrawal_; }

 private:
  void expire(double t);
  double ttl_ms_;
  std::int64_t deposit_, withdrawal_, reserve_;
  std::deque<double> deposits_, withdrawals_;
  double now_ = 0.0;
};

class AdaptiveThrottle {
 public:
  explicit AdaptiveThrottle(const AdaptiveThrottleConfig& c);  // checks c
  void on_request(double t);
  // Counts the attempt as a request; returns false (reject locally) iff u < rejection_probability(t)
  // computed before counting it.
  bool admit(double t, double u);
  void on_success(double t, double paid);  // an accept
  void on_failure(double t, bool timeout);
  RetryGrant try_retry(double t, bool timeout);  // always allowed
  double rejection_probability(double t);        // max(0, (requests − K·accepts)/(requests + 1))

 private:
  void expire(double t);
  AdaptiveThrottleConfig config_;
  std::deque<double> requests_, accepts_;
  double now_ = 0.0;
};

struct NoBudget {
  void on_request(double) {}
  bool admit(double, double) { return true; }
  void on_success(double, double) {}
  void on_failure(double, bool) {}
  RetryGrant try_retry(double, bool) { return {true, 0.0}; }
};

// One of the above, chosen by BudgetConfig::kind; forwards every event.
class RetryBudget {
 public:
  explicit RetryBudget(const BudgetConfig& c);  // checks c
  void on_request(double t);
  bool admit(double t, double u);
  void on_success(double t, double paid);
  void on_failure(double t, bool timeout);
  RetryGrant try_retry(double t, bool timeout);
  BudgetKind kind() const noexcept;

 private:
  std::variant<NoBudget, TokenBucketBudget, FinagleBudgetControl, AdaptiveThrottle> impl_;
};

// --------------------------------------------------------------------------------------------- breakers

enum class BreakerWindow { time, count };

struct BreakerConfig {
  bool enabled = false;
  BreakerWindow window_kind = BreakerWindow::time;
  double window = 10000.0;           // ms (time) or calls (count, integer >= 1)
  std::int64_t minimum_calls = 20;   // >= 1: outcomes needed in the window before it can open
  double failure_threshold = 0.5;    // in (0, 1]: opens when failures/outcomes >= it
  double open_duration = 5000.0;     // ms > 0 finite
  std::int64_t half_open_calls = 1;  // >= 1 probes admitted when half-open
};

// Presets: "none" (disabled), "hystrix", "resilience4j". Unknown name: InputError("breaker").
// A scenario's breaker (its preset and numbers) becomes one through BreakerParams::config(attempt_ms)
// (components/breaker_params.hpp).
BreakerConfig breaker_preset(std::string_view name);
inline constexpr std::string_view breaker_preset_names[] = {"none", "hystrix", "resilience4j"};
BreakerConfig hystrix_breaker();
BreakerConfig resilience4j_breaker();
// Throws InputError naming the field (breaker_window, minimum_calls, failure_threshold,
// open_duration, half_open_calls).
void check_breaker(const BreakerConfig& b);
std::string canonical(const BreakerConfig& b);  // "breaker=off" or "breaker=time window=... ..."

enum class BreakerState { closed, open, half_open };
enum class BreakerAdmission { rejected, admitted, probe };

// What admit() decided, and in which breaker epoch (every transition starts a new one); hand it back
// to record() with the call's outcome.
struct BreakerTicket {
  BreakerAdmission admission = BreakerAdmission::admitted;
  std::uint64_t epoch = 0;
  bool admitted() const noexcept { return admission != BreakerAdmission::rejected; }
};

class CircuitBreaker {
 public:
  explicit CircuitBreaker(const BreakerConfig& c);  // checks c; a disabled breaker admits everything
  // Decides on a call at t (open → half-open once open_duration has passed).
  BreakerTicket admit(double t);
  // The outcome, at t, of a call admitted with `ticket` (rejected calls report nothing; outcomes from
  // an earlier epoch are ignored).
  void record(double t, const BreakerTicket& ticket, bool success);
  BreakerState state() const noexcept { return state_; }
  double opened_at() const noexcept { return opened_at_; }
  std::int64_t times_opened() const noexcept { return times_opened_; }

 private:
  void tick(double t);
  void open(double t);
  void close();
  BreakerConfig config_;
  BreakerState state_ = BreakerState::closed;
  double now_ = 0.0;
  double opened_at_ = 0.0;
  std::int64_t times_opened_ = 0;
  std::deque<std::pair<double, bool>> window_;  // (time, failed)
  std::int64_t window_failures_ = 0;
  std::int64_t probes_issued_ = 0, probes_done_ = 0, probe_failures_ = 0;
  std::uint64_t epoch_ = 0;  // bumps on every transition (outcomes from older epochs are ignored)
};

std::string_view to_string(BudgetKind k) noexcept;
std::string_view to_string(BreakerState s) noexcept;

}  // namespace retrylab::montecarlo
