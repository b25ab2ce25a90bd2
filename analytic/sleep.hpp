#pragma once
// The sleep before retry k (after the k-th failure, k >= 1) of each strategy (docs/models.md §2), with
// w_k = min(c, b·2^(k−1)) (analytic/strategy.hpp: window_width):
//   none:      0                       (point mass)     mean 0
//   nojitter:  w_k                     (point mass)     mean w_k
//   full:      U(0, w_k)               F(t) = t/w_k     mean w_k/2,   quantile q·w_k
//   equal:     w_k/2 + U(0, w_k/2)     F(t) = 2t/w_k − 1 on [w_k/2, w_k]; mean 3w_k/4, quantile (1+q)·w_k/2
//   window:    U(0, W) for every k                      mean W/2,     quantile q·W
//   memoryless: Exp(mean m = w_k/2)    F(t) = 1 − e^(−t/m) mean w_k/2,   quantile −m·ln(1−q); support [0, ∞)
//   decorrelated: numerical (analytic/decorrelated.hpp), to the accuracy stated there; exact() = false.
// So equal jitter with (b, C) has the mean of full jitter with (1.5b, 1.5C) for every k, and the mean
// of full jitter with cap 1.5C once both are at their caps (b·2^(k−1) >= 1.5C).
// Quantile convention: inf{t : F(t) >= q}, with quantile(0) = the lower end of the support.
// Limits: retry k in [1, 10^6]; with cap none, b·2^(k−1) must stay finite (k <= 1000 for b = 1).
// Proof: proofs/Sleep.v: full_mean
// Proof: proofs/Sleep.v: full_quantile
// Proof: proofs/Sleep.v: equal_mean
// Proof: proofs/Sleep.v: equal_quantile
// Proof: proofs/Sleep.v: window_mean
// Proof: proofs/Sleep.v: window_quantile
// Proof: proofs/Sleep.v: equal_full_mean
// Proof: proofs/Sleep.v: window_reaches_cap
#include <optional>

#include "analytic/decorrelated.hpp"
#include "analytic/strategy.hpp"

namespace retrylab {

inline constexpr int max_sleep_retry = 1'000'000;  // the largest retry index k SleepDistribution takes

class SleepDistribution {
 public:
  // Throws InputError (base, cap, window, retry) on bad input. Decorrelated: builds the numerical law
  // once (O(k · cells) work: milliseconds for the defaults), so build one object and query it many times.
  SleepDistribution(const Backoff& backoff, int retry);

  double cdf(double t) const;       // P(sleep <= t)
  double quantile(double q) const;  // q in [0, 1], else InputError("quantile")
  double mean() const;
  double lower() const;  // support [lower, upper]
  double upper() const;
  bool exact() const noexcept { return !decorrelated_.has_value(); }
  const Backoff& backoff() const noexcept { return backoff_; }
  int retry() const noexcept { return retry_; }

 private:
  Backoff backoff_;
  int retry_;
  double lo_ = 0.0, hi_ = 0.0;  // point mass when lo_ == hi_, else uniform on [lo_, hi_]
  double exp_mean_ = 0.0;       // > 0: exponential with this mean (memoryless), lo_ = 0, hi_ = +inf
  std::optional<DecorrelatedSleep> decorrelated_;
};

inline double cdf(const SleepDistribution& d, double t) { return d.cdf(t); }
inline double quantile(const SleepDistribution& d, double q) { return d.quantile(q); }
inline double mean(const SleepDistribution& d) { return d.mean(); }

// Checks a (backoff, retry) pair as the constructor does; throws InputError naming the field.
void check_sleep(const Backoff& backoff, int retry);

}  // namespace retrylab
