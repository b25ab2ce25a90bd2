#pragma once
// Retry budgets as token buckets. A bucket starts full at `capacity` tokens and never exceeds it; a
// retry is allowed only while it leaves the bucket at or above `threshold`, and costs `retry_cost`;
// each success adds `refund`. Tokens stay >= threshold, so after R retries and S successes
//   threshold <= capacity + refund·S − retry_cost·R,  i.e.  R <= (capacity − threshold + refund·S)/retry_cost.
// (Clamping at capacity only removes tokens, so the bound holds with it.) With threshold 0 this is
// the retry bound (B + r·successes)/c.
// Proof: proofs/Budget.v: token_bucket_bound
//
// Instances (defaults of the real clients):
// - AWS SDK "standard" retry mode, retry quota: 500 tokens, a retry costs 5 (10 after a timeout), a
//   success returns 1. Source: AWS SDKs and Tools Reference Guide, "Retry behavior" (standard mode);
//   botocore/retries/standard.py: INITIAL_RETRY_TOKENS = 500, RETRY_COST = 5,
//   TIMEOUT_RETRY_COST = 10, NO_RETRY_INCREMENT = 1. (The SDK also gives a retry's cost back when
//   that retry succeeds; the bound above then counts the retries whose cost was kept.)
//   Without successes: at most 100 retries (50 after timeouts).
// - gRPC retry throttling: maxTokens 10, tokenRatio 0.1; every failed attempt takes 1 token, every
//   success adds tokenRatio, and retries are blocked while tokens <= maxTokens/2. Source: gRFC A6
//   "gRPC Retry Design", section "Throttling Retry Attempts and Hedged RPCs" (service config
//   retryThrottling {maxTokens, tokenRatio}). As a bucket: capacity 10, threshold 5, cost 1 per
//   failure preceding a retry, refund 0.1: at most (5 + 0.1·S) retries.
#include <string_view>

namespace retrylab {

struct TokenBucket {
  double capacity = 500.0;  // B > 0, finite: initial and maximum tokens
  double retry_cost = 5.0;  // c > 0, finite
  double refund = 1.0;      // r >= 0, finite: tokens returned per success
  double threshold = 0.0;   // 0 <= threshold < capacity: retries only while tokens stay >= it
};

TokenBucket aws_standard();          // {500, 5, 1, 0}
TokenBucket aws_standard_timeout();  // {500, 10, 1, 0}: every retry after a timeout
TokenBucket grpc_throttling(double max_tokens = 10.0, double token_ratio = 0.1);  // {10, 1, 0.1, 5}

// Throws InputError (capacity, cost, refund, threshold) outside the ranges above.
void check_token_bucket(const TokenBucket& t);
// (capacity − threshold + refund·successes)/retry_cost; throws InputError("successes") unless
// successes is a finite number >= 0.
double max_retries(const TokenBucket& t, double successes);

// Finagle's retry budget (com.twitter.finagle.service.RetryBudget.apply; defaults of RetryBudget():
// ttl 10 s, minRetriesPerSec 10, percentCanRetry 0.2). In Finagle's integer units every request
// deposits d = 1000 (0 when percentCanRetry = 0), a retry withdraws w = floor(1000/percentCanRetry)
// (1 when it is 0) iff the balance reserve + deposits − withdrawals of the last ttl is >= w, and
// reserve = minRetriesPerSec · floor(ttl) · w. At a retry at t the other retries of (t − ttl, t]
// were withdrawn, so with D requests in (t − ttl, t] (entries expiring exactly after ttl):
//   retries in (t − ttl, t] <= (reserve + d·D)/w = minRetriesPerSec·floor(ttl) + (d/w)·D,
// d/w = percentCanRetry up to the rounding of w (exactly 0.2 for the default).
// Not yet proved (no Coq theorem).
struct FinagleBudget {
  double ttl = 10.0;                // seconds, in [1, 1e6] (Finagle requires 1 s <= ttl <= 60 s; wider allowed here)
  double min_retries_per_sec = 10;  // integer in [0, 1e6]
  double percent_can_retry = 0.2;   // in [0, 1000] (Finagle's range)
};

// Throws InputError (ttl, min_retries_per_sec, percent_can_retry) outside the ranges above.
void check_finagle_budget(const FinagleBudget& f);
long long finagle_deposit(const FinagleBudget& f);     // d
long long finagle_withdrawal(const FinagleBudget& f);  // w
long long finagle_reserve(const FinagleBudget& f);     // minRetriesPerSec · floor(ttl) · w
// minRetriesPerSec·floor(ttl) + (d/w)·requests: the most retries in a ttl-long window ending at a
// retry with `requests` requests in it; throws InputError("requests") unless finite >= 0.
double finagle_max_retries(const FinagleBudget& f, double requests);

}  // namespace retrylab
