#pragma once
// The sleep after a client's k-th failure (docs/models.md §2): one sampler shared by the event loop and
// draw_sleeps(), so the validation gate tests the very code that runs.
//   none 0 | nojitter w_k | full U(0,w_k) | equal w_k/2 + U(0,w_k/2) |
//   decorrelated s_k = min(c, U(b, 3·s_(k−1))), s_0 = b | window U(0,W) | memoryless (w_k/2)·Exp(1);
//   w_k = min(c, b·m^(k−1)).
// Per-client state is the previous decorrelated sleep (`prev`, starts at b). Draws come from the
// caller's sleeps stream: one uniform per jittered sleep (memoryless: −ln U), none for `none`/`nojitter`.
#include <array>
#include <cmath>

#include "analytic/strategy.hpp"
#include "montecarlo/random.hpp"
#if RETRYLAB_PLANTED_FAULTS
#include "montecarlo/faults.hpp"
#endif

namespace retrylab::montecarlo {

class SleepSampler {
 public:
  static constexpr int table_size = 64;

  explicit SleepSampler(const Backoff& b, int exponent_offset = 0) : backoff_(b), offset_(exponent_offset) {
    // With m = 2, b·2^(k−1) is exact (ldexp) and so never decreases: once a width is the cap, every
    // later one is (the table is built per run, so this saves most of 64 ldexp calls).
    for (int k = 1; k <= table_size; ++k) {
      const bool capped = k > 1 && backoff_.multiplier == 2.0 && widths_[k - 2] == backoff_.cap;
      widths_[k - 1] = capped ? backoff_.cap : width_slow(k);
    }
  }

#if RETRYLAB_PLANTED_FAULTS
  SleepSampler(const Backoff& b, Fault fault) : SleepSampler(b, fault == Fault::window_exponent ? 1 : 0) {
    uncapped_growth_ = fault == Fault::decorrelated_uncapped_growth;
  }
#endif

  // w_k (k >= 1).
  [[gnu::always_inline]] double width(int k) const noexcept { return k <= table_size ? widths_[k - 1] : width_slow(k); }

  bool deterministic() const noexcept {
    return backoff_.strategy == Strategy::none || backoff_.strategy == Strategy::nojitter;
  }

  // The sleep after the k-th failure; `prev` is the client's decorrelated state.
  [[gnu::always_inline]] double sleep(int k, double& prev, Stream& rng) const noexcept {
    switch (backoff_.strategy) {
      case Strategy::none: return 0.0;
      case Strategy::nojitter: return width(k);
      case Strategy::full: return rng.uniform() * width(k);
      case Strategy::equal: {
        const double half = 0.5 * width(k);
        return half + rng.uniform() * half;
      }
      case Strategy::decorrelated: {
        const double b = backoff_.base;
        const double x = b + rng.uniform() * (3.0 * prev - b);
        const double s = std::min(backoff_.cap, x);
#if RETRYLAB_PLANTED_FAULTS
        prev = uncapped_growth_ ? x : s;
#else
        prev = s;
#endif
        return s;
      }
      case Strategy::window: return rng.uniform() * backoff_.window;
      case Strategy::memoryless: return 0.5 * width(k) * rng.exponential();
    }
    return 0.0;
  }

  const Backoff& backoff() const noexcept { return backoff_; }

 private:
  double width_slow(int k) const noexcept {
    // b·m^(k−1+offset) overflows to +inf for huge k and min() returns the cap: exact either way
    // (with m = 2 any k beyond 4096 is past every double's range, so the cap is returned at once).
    if (k > 4096 && backoff_.multiplier == 2.0) return backoff_.cap;
    return std::min(backoff_.cap, grown_width(backoff_.base, backoff_.multiplier, k - 1 + offset_));
  }

  Backoff backoff_;
  int offset_ = 0;
#if RETRYLAB_PLANTED_FAULTS
  bool uncapped_growth_ = false;
#endif
  std::array<double, table_size> widths_{};
};

}  // namespace retrylab::montecarlo
