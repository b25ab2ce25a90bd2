#include "analytic/budget.hpp"

#include <fmt/format.h>
#include <cmath>

#include "analytic/error.hpp"

namespace retrylab {

TokenBucket aws_standard() { return {500.0, 5.0, 1.0, 0.0}; }
TokenBucket aws_standard_timeout() { return {500.0, 10.0, 1.0, 0.0}; }

TokenBucket grpc_throttling(double max_tokens, double token_ratio) {
  // gRFC A6: maxTokens in (0, 1000], tokenRatio > 0.
  if (!(max_tokens > 0.0 && max_tokens <= 1000.0))
    throw InputError("capacity", fmt::format("must be gRPC maxTokens in (0, 1000] (got {})", max_tokens));
  if (!(token_ratio > 0.0) || !std::isfinite(token_ratio))
    throw InputError("refund", fmt::format("must be gRPC tokenRatio > 0 (got {})", token_ratio));
  return {max_tokens, 1.0, token_ratio, max_tokens / 2.0};
}

void check_token_bucket(const TokenBucket& t) {
  if (!(t.capacity > 0.0) || !std::isfinite(t.capacity))
    throw InputError("capacity", fmt::format("must be a finite number > 0 (got {})", t.capacity));
  if (!(t.retry_cost > 0.0) || !std::isfinite(t.retry_cost))
    throw InputError("cost", fmt::format("must be a finite number > 0 (got {})", t.retry_cost));
  if (!(t.refund >= 0.0) || !std::isfinite(t.refund))
    throw InputError("refund", fmt::format("must be a finite number >= 0 (got {})", t.refund));
  if (!(t.threshold >= 0.0) || !(t.threshold < t.capacity))
    throw InputError("threshold",
                     fmt::format("must be in [0, capacity) (got threshold={}, capacity={})", t.threshold, t.capacity));
}

double max_retries(const TokenBucket& t, double successes) {
  check_token_bucket(t);
  if (!(successes >= 0.0) || !std::isfinite(successes))
    throw InputError("successes", fmt::format("must be a finite number >= 0 (got {})", successes));
  return (t.capacity - t.threshold + t.refund * successes) / t.retry_cost;
}

void check_finagle_budget(const FinagleBudget& f) {
  if (!(f.ttl >= 1.0 && f.ttl <= 1e6))
    throw InputError("ttl", fmt::format("must be in [1, 1e6] seconds (got {})", f.ttl));
  if (!(f.min_retries_per_sec >= 0.0 && f.min_retries_per_sec <= 1e6) ||
      f.min_retries_per_sec != std::floor(f.min_retries_per_sec))
    throw InputError("min_retries_per_sec",
                     fmt::format("must be an integer in [0, 1e6] (got {})", f.min_retries_per_sec));
  if (!(f.percent_can_retry >= 0.0 && f.percent_can_retry <= 1000.0))
    throw InputError("percent_can_retry", fmt::format("must be in [0, 1000] (got {})", f.percent_can_retry));
}

// Finagle RetryBudget.apply: ScaleFactor = 1000; depositAmount = 0 if percentCanRetry == 0 else 1000;
// withdrawalAmount = 1 if percentCanRetry == 0 else (1000 / percentCanRetry).toInt;
// reserve = minRetriesPerSec * ttl.inSeconds * withdrawalAmount.
long long finagle_deposit(const FinagleBudget& f) {
  check_finagle_budget(f);
  return f.percent_can_retry == 0.0 ? 0 : 1000;
}

long long finagle_withdrawal(const FinagleBudget& f) {
  check_finagle_budget(f);
  if (f.percent_can_retry == 0.0) return 1;
  // (1000/1000) = 1 at the top of the range; truncation as Scala's toInt. Never 0: 1000/p >= 1.
  return static_cast<long long>(1000.0 / f.percent_can_retry);
}

long long finagle_reserve(const FinagleBudget& f) {
  return static_cast<long long>(f.min_retries_per_sec) * static_cast<long long>(std::floor(f.ttl)) *
         finagle_withdrawal(f);
}

double finagle_max_retries(const FinagleBudget& f, double requests) {
  check_finagle_budget(f);
  if (!(requests >= 0.0) || !std::isfinite(requests))
    throw InputError("requests", fmt::format("must be a finite number >= 0 (got {})", requests));
  const double w = static_cast<double>(finagle_withdrawal(f));
  return (static_cast<double>(finagle_reserve(f)) + static_cast<double>(finagle_deposit(f)) * requests) / w;
}

}  // namespace retrylab
