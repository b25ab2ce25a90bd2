#pragma once
// The sleep after a client's k-th failure (docs/models.md §2): one sampler shared by the event loop and
// draw_sleeps(), so the validation gate tests the very code that runs.
//   none 0 | nojitter w_k | full U(0,w_k) | equal w_k/2 + U(0,w_k/2) |
//   decorrelated s_k = min(c, U(b, 3·s_(k−1))), s_0 = b | window U(0,W) | memoryless (w_k/2)·Exp(1);
//   w_k = min(c, b·m^(k−1)).
// Per-client state is the previous decorrelated sleep (`prev`, starts at b). Draws come from the
// caller's sleeps stream: one uniform per jittered sleep (memoryless: −ln U), none for `none`/`nojitter`.
// Faults (montecarlo/faults.hpp): NoFaults in the real engine; the planted-fault build's
// window_exponent and decorrelated_uncapped_growth are its two faults.
#include <array>
#include <cmath>

#include "analytic/strategy.hpp"
#include "montecarlo/faults.hpp"
#include "montecarlo/random.hpp"

namespace retrylab::montecarlo {

template <class Faults = NoFaults>
class BasicSleepSampler {
 public:
  static constexpr int table_size = 64;

  explicit BasicSleepSampler(const Backoff& b, const Faults& faults = {})
      : backoff_(b),
        offset_(faults(Fault::window_exponent) ? 1 : 0),
        uncapped_growth_(faults(Fault::decorrelated_uncapped_growth)) {
    // With m = 2, b·2^(k−1) is exact (ldexp) and so never decreases: once a width is the cap, every
    // later one is (the table is built per run, so this saves most of 64 ldexp calls).
    for (int k = 1; k <= table_size; ++k) {
      const bool capped = k > 1 && backoff_.multiplier == 2.0 && widths_[k - 2] == backoff_.cap;
      widths_[k - 1] = capped ? backoff_.cap : width_slow(k);
    }
  }

  // w_k (k >= 1).
  [[gnu::always_inline]] double width(int k) const noexcept { return k <= table_size ? widths_[k - 1] : width_slow(k); }

  bool deterministic() const noexcept {
    return backoff_.strategy == Strategy::none || backoff_.strategy == Strategy::nojitter;
  }

  // The sleep after the k-th failure; `prev` is the client's decorrelated state; rng a Stream (or
  // the planted-fault build's BiasedStream).
  template <class Rng>
  [[gnu::always_inline]] double sleep(int k, double& prev, Rng& rng) const noexcept {
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
        if constexpr (Faults::planted) {
          prev = uncapped_growth_ ? x : s;
        } else {
          prev = s;
        }
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
    const int offset = Faults::planted ? offset_ : 0;
    return std::min(backoff_.cap, grown_width(backoff_.base, backoff_.multiplier, k - 1 + offset));
  }

  Backoff backoff_;
  int offset_ = 0;
  bool uncapped_growth_ = false;
  std::array<double, table_size> widths_{};
};

using SleepSampler = BasicSleepSampler<NoFaults>;

}  // namespace retrylab::montecarlo
