#pragma once
// PSquare: a deterministic online estimate of the p-quantile of a stream of numbers in O(1) memory,
// the P² algorithm (R. Jain and I. Chlamtac, "The P² algorithm for dynamic calculation of quantiles
// and histograms without storing observations", CACM 28(10), 1985). Five markers hold the minimum,
// the p/2-, p- and (1+p)/2-quantiles and the maximum; each new value moves the markers' positions by
// one and adjusts their heights by the piecewise-parabolic (else linear) formula. Until five values
// have been seen the estimate is the exact nearest-rank quantile of those seen. Invariants: the
// heights stay sorted; the estimate depends only on the values and their order (no randomness), so
// the same run gives the same estimate.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace retrylab::montecarlo {

class PSquare {
 public:
  explicit PSquare(double p) noexcept : p_(p), want_{0.0, p / 2.0, p, (1.0 + p) / 2.0, 1.0} {}
  std::int64_t count() const noexcept { return n_; }
  void add(double x) noexcept {
    if (n_ < 5) {
      q_[static_cast<std::size_t>(n_++)] = x;
      std::sort(q_.begin(), q_.begin() + n_);
      if (n_ == 5)
        for (int i = 0; i < 5; ++i) {
          pos_[i] = i + 1;
          desired_[i] = 1.0 + 4.0 * want_[i];
        }
      return;
    }
    ++n_;
    int k = 0;  // the cell [q_k, q_(k+1)) that holds x, the extremes moved to hold it
    if (x < q_[0]) {
      q_[0] = x;
    } else if (x >= q_[4]) {
      q_[4] = x;
      k = 3;
    } else {
      while (k < 3 && x >= q_[static_cast<std::size_t>(k + 1)]) ++k;
    }
    for (int i = k + 1; i < 5; ++i) ++pos_[i];
    for (int i = 0; i < 5; ++i) desired_[i] += want_[i];
    for (int i = 1; i <= 3; ++i) adjust(i);
  }
  // The estimate (NaN before any value).
  double estimate() const noexcept {
    if (n_ == 0) return std::nan("");
    if (n_ < 5) {
      const auto rank = static_cast<std::int64_t>(std::ceil(p_ * static_cast<double>(n_)));
      return q_[static_cast<std::size_t>(std::clamp<std::int64_t>(rank, 1, n_) - 1)];
    }
    return q_[2];
  }

 private:
  void adjust(int i) noexcept {
    const auto u = static_cast<std::size_t>(i);
    const double d = desired_[u] - static_cast<double>(pos_[u]);
    if ((d >= 1.0 && pos_[u + 1] - pos_[u] > 1) || (d <= -1.0 && pos_[u - 1] - pos_[u] < -1)) {
      const int s = d > 0.0 ? 1 : -1;
      const double parabolic = q_[u] + static_cast<double>(s) / static_cast<double>(pos_[u + 1] - pos_[u - 1]) *
                                           (static_cast<double>(pos_[u] - pos_[u - 1] + s) * (q_[u + 1] - q_[u]) /
                                                static_cast<double>(pos_[u + 1] - pos_[u]) +
                                            static_cast<double>(pos_[u + 1] - pos_[u] - s) * (q_[u] - q_[u - 1]) /
                                                static_cast<double>(pos_[u] - pos_[u - 1]));
      if (q_[u - 1] < parabolic && parabolic < q_[u + 1]) {
        q_[u] = parabolic;
      } else {
        const auto v = static_cast<std::size_t>(i + s);
        q_[u] += static_cast<double>(s) * (q_[v] - q_[u]) / static_cast<double>(pos_[v] - pos_[u]);
      }
      pos_[u] += s;
    }
  }

  double p_;
  std::array<double, 5> want_;  // each marker's quantile: 0, p/2, p, (1+p)/2, 1
  std::array<double, 5> q_{};   // heights
  std::array<std::int64_t, 5> pos_{};
  std::array<double, 5> desired_{};
  std::int64_t n_ = 0;
};

}  // namespace retrylab::montecarlo
