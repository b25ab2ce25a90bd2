#include "validation/statistics.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <numbers>
#include <vector>

#include "analytic/error.hpp"

namespace retrylab::validation {

namespace {

void check_alpha(const char* field, double alpha) {
  if (!(alpha > 0.0 && alpha < 1.0)) throw InputError(field, fmt::format("must be in (0, 1) (got {})", alpha));
}

// Square matrices with a power-of-two exponent kept aside (MTW's scaling: entries grow like n^n).
struct ScaledMatrix {
  std::vector<double> a;
  int exponent = 0;  // value = a · 2^exponent
};

std::vector<double> multiply(const std::vector<double>& x, const std::vector<double>& y, int m) {
  std::vector<double> z(static_cast<std::size_t>(m) * m, 0.0);
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < m; ++k) {
      const double xik = x[i * m + k];
      if (xik == 0.0) continue;
      for (int j = 0; j < m; ++j) z[i * m + j] += xik * y[k * m + j];
    }
  return z;
}

void renormalize(ScaledMatrix& s, int m) {
  const double centre = s.a[(m / 2) * m + m / 2];
  if (centre > 0x1p400) {
    for (double& v : s.a) v = std::ldexp(v, -400);
    s.exponent += 400;
  }
}

ScaledMatrix power(const ScaledMatrix& h, std::int64_t n, int m) {
  if (n == 1) return h;
  ScaledMatrix half = power(h, n / 2, m);
  ScaledMatrix sq{multiply(half.a, half.a, m), 2 * half.exponent};
  ScaledMatrix out = (n % 2 == 0) ? sq : ScaledMatrix{multiply(h.a, sq.a, m), h.exponent + sq.exponent};
  renormalize(out, m);
  return out;
}

}  // namespace

double bonferroni_alpha(double total, std::int64_t checks) {
  check_alpha("alpha", total);
  if (checks < 1) throw InputError("checks", fmt::format("must be >= 1 (got {})", checks));
  return total / static_cast<double>(checks);
}

double z_two_sided(double alpha) {
  check_alpha("alpha", alpha);
  return boost::math::quantile(boost::math::complement(boost::math::normal(), alpha / 2.0));
}

double t_two_sided(double alpha, double df) {
  check_alpha("alpha", alpha);
  if (!(df >= 1.0)) throw InputError("df", fmt::format("must be >= 1 (got {})", df));
  return boost::math::quantile(boost::math::complement(boost::math::students_t(df), alpha / 2.0));
}

double t_two_sided_p(double t, double df) {
  if (!(df >= 1.0)) throw InputError("df", fmt::format("must be >= 1 (got {})", df));
  if (std::isnan(t)) throw InputError("t", "must be a number (got NaN)");
  if (std::isinf(t)) return 0.0;
  return 2.0 * boost::math::cdf(boost::math::complement(boost::math::students_t(df), std::fabs(t)));
}

double kolmogorov_sf(double x) {
  if (!(x > 0.0)) return 1.0;
  if (x < 1.0) return 1.0 - kolmogorov_cdf(x);
  // 2 Σ_{k>=1} (−1)^(k−1) e^(−2k²x²): terms fall faster than e^(−2k²), 20 terms is exhaustive.
  double s = 0.0;
  for (int k = 1; k <= 20; ++k) {
    const double term = std::exp(-2.0 * k * k * x * x);
    s += (k % 2 == 1 ? term : -term);
    if (term < 1e-300) break;
  }
  return std::clamp(2.0 * s, 0.0, 1.0);
}

double kolmogorov_cdf(double x) {
  if (!(x > 0.0)) return 0.0;
  if (x >= 1.0) return 1.0 - kolmogorov_sf(x);
  // √(2π)/x Σ_{k>=1} e^(−(2k−1)²π²/(8x²)): the form that converges fast for small x.
  const double pi2 = std::numbers::pi * std::numbers::pi;
  double s = 0.0;
  for (int k = 1; k <= 20; ++k) {
    const double j = 2.0 * k - 1.0;
    const double term = std::exp(-j * j * pi2 / (8.0 * x * x));
    s += term;
    if (term < 1e-300) break;
  }
  return std::clamp(std::sqrt(2.0 * std::numbers::pi) / x * s, 0.0, 1.0);
}

double ks_exact_cdf(std::int64_t n, double d) {
  if (n < 1) throw InputError("n", fmt::format("must be >= 1 (got {})", n));
  const double nn = static_cast<double>(n);
  if (!(d > 0.5 / nn)) return 0.0;  // D_n >= 1/(2n) always
  if (d >= 1.0) return 1.0;
  const int k = static_cast<int>(nn * d) + 1;
  const int m = 2 * k - 1;
  const double h = k - nn * d;
  std::vector<double> hm(static_cast<std::size_t>(m) * m);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) hm[i * m + j] = (i - j + 1 < 0) ? 0.0 : 1.0;
  for (int i = 0; i < m; ++i) {
    hm[i * m] -= std::pow(h, i + 1);
    hm[(m - 1) * m + i] -= std::pow(h, m - i);
  }
  hm[(m - 1) * m] += (2 * h - 1 > 0 ? std::pow(2 * h - 1, m) : 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j)
      if (i - j + 1 > 0)
        for (int g = 1; g <= i - j + 1; ++g) hm[i * m + j] /= g;
  const ScaledMatrix q = power(ScaledMatrix{hm, 0}, n, m);
  // P = n!/n^n · Q[k−1][k−1]: multiply i/n one factor at a time, keeping the scale in the exponent.
  double s = q.a[(k - 1) * m + (k - 1)];
  int e = q.exponent;
  for (std::int64_t i = 1; i <= n; ++i) {
    s = s * static_cast<double>(i) / nn;
    if (s < 0x1p-400) {
      s = std::ldexp(s, 400);
      e -= 400;
    }
  }
  return std::clamp(std::ldexp(s, e), 0.0, 1.0);
}

double ks_pvalue(std::int64_t n, double d) {
  if (n < 1) throw InputError("n", fmt::format("must be >= 1 (got {})", n));
  const double nn = static_cast<double>(n);
  if (n <= 1000 && nn * d <= 50.0) return std::clamp(1.0 - ks_exact_cdf(n, d), 0.0, 1.0);
  const double rn = std::sqrt(nn);
  return kolmogorov_sf((rn + 0.12 + 0.11 / rn) * d);
}

double ks_critical(std::int64_t n, double alpha) {
  check_alpha("alpha", alpha);
  // ks_pvalue is non-increasing in d: bisection on [0, 1] to double resolution.
  double lo = 0.0, hi = 1.0;
  for (int it = 0; it < 200 && hi - lo > 1e-12; ++it) {
    const double mid = 0.5 * (lo + hi);
    (ks_pvalue(n, mid) <= alpha ? hi : lo) = mid;
  }
  return hi;
}

double ks_statistic(std::span<const double> sample, const std::function<double(double)>& cdf,
                    const std::function<double(double)>& cdf_left) {
  if (sample.empty()) throw InputError("sample", "must hold at least one draw (got 0)");
  std::vector<double> x(sample.begin(), sample.end());
  std::sort(x.begin(), x.end());
  const double nn = static_cast<double>(x.size());
  double d = 0.0;
  std::size_t i = 0;
  double below = 0.0;  // F_n just below the current value
  while (i < x.size()) {
    std::size_t j = i;
    while (j < x.size() && x[j] == x[i]) ++j;  // ties: the same value, one jump of F_n
    const double v = x[i];
    const double at = static_cast<double>(j) / nn;  // F_n(v)
    const double f = cdf(v);
    const double f_left = cdf_left ? cdf_left(v) : f;
    d = std::max({d, std::abs(at - f), std::abs(below - f_left)});
    below = at;
    i = j;
  }
  return d;
}

KsResult ks_test(std::span<const double> sample, const std::function<double(double)>& cdf,
                 const std::function<double(double)>& cdf_left) {
  const double d = ks_statistic(sample, cdf, cdf_left);
  const auto n = static_cast<std::int64_t>(sample.size());
  return {d, ks_pvalue(n, d), n};
}

}  // namespace retrylab::validation
