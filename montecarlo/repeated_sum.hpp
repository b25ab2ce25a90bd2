#pragma once
// One value added n times, to the bit what n floating-point additions give, without doing them one by
// one (internal; the lock-step shortcut's sums over a round's simultaneous attempts, lockstep.hpp).
// repeated_sum(s, d, n) == `for (i < n) s += d;` for finite s >= 0 and d >= 0 in the default rounding
// (to nearest, ties to even). While s is in one binade [2^e, 2^(e+1)) the sum's spacing u is fixed,
// s = m·u, and while the exact s + d stays below 2^(e+1) each addition adds d rounded to a multiple
// of u: a constant step r·u, taken many times at once with one exact multiplication. When d is an odd
// multiple of u/2 (a tie) the rounding goes to the even m, so after one addition m is even and the
// step is the even one of the two neighbours. Near a binade's top, and below 2^-1000 (subnormal
// spacing), the additions are done one by one. Cost: O(binades crossed), at most n additions.
// Tested against the plain loop (tests/montecarlo/repeated_sum_test.cpp).
#include <cmath>
#include <cstdint>

namespace retrylab::montecarlo::detail {

inline double repeated_sum(double s, double d, std::int64_t n) noexcept {
  constexpr double two53 = 9007199254740992.0;  // 2^53: the significand's integer range is [2^52, 2^53)
  while (n > 0) {
    if (d == 0.0) return s + 0.0;  // s + 0 is s (and -0 + 0 is +0, as one addition gives)
    if (!(s >= 0x1p-1000) || !(d >= 0.0) || !std::isfinite(s) || !std::isfinite(d)) {
      s += d;  // one by one (from zero, tiny or outside the contract)
      --n;
      continue;
    }
    int e = 0;
    (void)std::frexp(s, &e);                   // s in [2^(e-1), 2^e)
    const double u = std::ldexp(1.0, e - 53);  // the spacing there
    const double q = d / u;                    // exact (u is a power of two), or, d tiny, far below 1/2
    if (!(q < two53)) {                        // d alone crosses the binade: one addition
      s += d;
      --n;
      continue;
    }
    const auto m = static_cast<std::int64_t>(s / u);  // exact: an integer in [2^52, 2^53)
    const double fl = std::floor(q);
    const auto a = static_cast<std::int64_t>(fl);
    std::int64_t r = 0;
    if (q - fl == 0.5) {  // a tie: to the even neighbour
      if (m % 2 != 0) {
        s += d;
        --n;
        continue;
      }
      r = a + (a % 2);  // m even: m + a + 1/2 goes to the even of m + a, m + a + 1
    } else {
      r = q - fl < 0.5 ? a : a + 1;
    }
    if (r == 0) return s;  // each addition rounds back to s
    // Additions j = 0, 1, … with m + j·r + q < 2^53 stay in the binade: j·r <= R − ceil(q) − 1.
    const std::int64_t room = static_cast<std::int64_t>(two53) - m - static_cast<std::int64_t>(std::ceil(q)) - 1;
    if (room < 0) {
      s += d;
      --n;
      continue;
    }
    std::int64_t j = room / r + 1;
    if (j > n) j = n;
    s = static_cast<double>(m + j * r) * u;  // exact: m + j·r <= 2^53
    n -= j;
  }
  return s;
}

}  // namespace retrylab::montecarlo::detail
