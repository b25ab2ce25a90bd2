#include "papers/published/fits.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>

#include "papers/published/statements.hpp"

namespace retrylab::papers::published {

namespace {

constexpr double z95 = 1.959963984540054;

struct Lsq {
  Eigen::VectorXd coef;
  Eigen::MatrixXd cov;
};

// Weighted least squares of ys on the columns of X with standard errors ses: the coefficients and
// their covariance, scaled by chi²/dof when above 1 (lack of fit counted as noise).
Lsq weighted_fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& ys, const Eigen::VectorXd& ses) {
  const Eigen::VectorXd w = ses.array().square().inverse();
  const Eigen::MatrixXd xtw = x.transpose() * w.asDiagonal();
  const Eigen::MatrixXd info = xtw * x;
  Lsq f;
  f.cov = info.inverse();
  f.coef = f.cov * (xtw * ys);
  const Eigen::VectorXd r = ys - x * f.coef;
  const double chi2 = (r.array().square() * w.array()).sum();
  const auto dof = static_cast<double>(x.rows() - x.cols());
  if (dof > 0 && chi2 / dof > 1.0) f.cov *= chi2 / dof;
  return f;
}

// Each point's standard error, or relative weights (`fallback`: proportional to y) when any point
// has none.
Eigen::VectorXd errors(const std::vector<FitPoint>& ps, const std::function<double(const FitPoint&)>& se,
                       const std::function<double(const FitPoint&)>& fallback) {
  const bool all = std::all_of(ps.begin(), ps.end(), [&](const FitPoint& p) { return se(p) > 0; });
  Eigen::VectorXd e(static_cast<Eigen::Index>(ps.size()));
  for (std::size_t i = 0; i < ps.size(); ++i) e[static_cast<Eigen::Index>(i)] = all ? se(ps[i]) : fallback(ps[i]);
  return e;
}

void by_n(std::vector<FitPoint>& ps) {
  std::sort(ps.begin(), ps.end(), [](const FitPoint& a, const FitPoint& b) { return a.n < b.n; });
  ps.erase(std::remove_if(ps.begin(), ps.end(), [](const FitPoint& p) { return !(p.y > 0) || !(p.n > 0); }), ps.end());
}

}  // namespace

Estimate power_exponent(std::vector<FitPoint> ps) {
  by_n(ps);
  if (ps.size() < 2) return {nan, nan, nan};
  const auto n = static_cast<Eigen::Index>(ps.size());
  Eigen::MatrixXd x(n, 2);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto& p = ps[static_cast<std::size_t>(i)];
    x(i, 0) = 1.0;
    x(i, 1) = std::log(p.n);
    y[i] = std::log(p.y);
  }
  const Lsq f =
      weighted_fit(x, y,
                   errors(
                       ps, [](const FitPoint& p) { return p.se / p.y; }, [](const FitPoint&) { return 1.0; }));
  const double b = f.coef[1], se = std::sqrt(f.cov(1, 1));
  return {b, b - z95 * se, b + z95 * se};
}

Estimate quadratic_share(std::vector<FitPoint> ps) {
  by_n(ps);
  if (ps.size() < 4) return {nan, nan, nan};
  const auto n = static_cast<Eigen::Index>(ps.size());
  // N in units of the largest N keeps the normal equations well conditioned.
  const double top = ps.back().n;
  Eigen::MatrixXd x(n, 3);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto& p = ps[static_cast<std::size_t>(i)];
    const double u = p.n / top;
    x(i, 0) = 1.0;
    x(i, 1) = u;
    x(i, 2) = u * u;
    y[i] = p.y;
  }
  const Lsq f = weighted_fit(x, y,
                             errors(
                                 ps, [](const FitPoint& p) { return p.se; }, [](const FitPoint& p) { return p.y; }));
  const double a = f.coef[0], b = f.coef[1], c = f.coef[2], d = a + b + c;  // at u = 1
  const double share = c / d;
  Eigen::Vector3d g(-c / (d * d), -c / (d * d), (a + b) / (d * d));
  const double se = std::sqrt(g.dot(f.cov * g));
  return {share, share - z95 * se, share + z95 * se};
}

double affine_r2(std::vector<FitPoint> ps) {
  by_n(ps);
  if (ps.size() < 3) return nan;
  const auto n = static_cast<Eigen::Index>(ps.size());
  const double top = ps.back().n;
  Eigen::MatrixXd x(n, 2);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto& p = ps[static_cast<std::size_t>(i)];
    x(i, 0) = 1.0;
    x(i, 1) = p.n / top;
    y[i] = p.y;
  }
  const Eigen::VectorXd se = errors(
      ps, [](const FitPoint& p) { return p.se; }, [](const FitPoint& p) { return p.y; });
  const Lsq f = weighted_fit(x, y, se);
  const Eigen::VectorXd w = se.array().square().inverse();
  const double mean = (w.array() * y.array()).sum() / w.sum();
  const Eigen::VectorXd r = y - x * f.coef;
  const double ss_res = (w.array() * r.array().square()).sum();
  const double ss_tot = (w.array() * (y.array() - mean).square()).sum();
  return ss_tot > 0 ? 1.0 - ss_res / ss_tot : nan;
}

Estimate exponent_trend(std::vector<FitPoint> ps) {
  const auto local = local_exponents(std::move(ps));
  if (local.size() < 3) return {nan, nan, nan};
  const auto n = static_cast<Eigen::Index>(local.size());
  Eigen::MatrixXd x(n, 2);
  Eigen::VectorXd y(n), se(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto& l = local[static_cast<std::size_t>(i)];
    x(i, 0) = 1.0;
    x(i, 1) = std::log2(std::sqrt(l.n_lo * l.n_hi));
    y[i] = l.exponent.mean;
    se[i] = (l.exponent.hi - l.exponent.lo) / (2 * z95);
  }
  if (!(se.minCoeff() > 0)) se.setOnes();
  const Lsq f = weighted_fit(x, y, se);
  const double b = f.coef[1], s = std::sqrt(f.cov(1, 1));
  return {b, b - z95 * s, b + z95 * s};
}

std::vector<LocalExponent> local_exponents(std::vector<FitPoint> ps) {
  by_n(ps);
  std::vector<LocalExponent> out;
  for (std::size_t i = 1; i < ps.size(); ++i) out.push_back({ps[i - 1].n, ps[i].n, power_exponent({ps[i - 1], ps[i]})});
  return out;
}

}  // namespace retrylab::papers::published
