#include "analytic/budget.hpp"

#include <cmath>
#include <fmt/format.h>

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
    throw InputError("threshold", fmt::format("must be in [0, capacity) (got threshold={}, capacity={})",
                                              t.threshold, t.capacity));
}

double max_retries(const TokenBucket& t, double successes) {
  check_token_bucket(t);
  if (!(successes >= 0.0) || !std::isfinite(successes))
    throw InputError("successes", fmt::format("must be a finite number >= 0 (got {})", successes));
  return (t.capacity - t.threshold + t.refund * successes) / t.retry_cost;
}

}  // namespace retrylab
