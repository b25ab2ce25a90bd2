#include "analytic/decorrelated.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "analytic/error.hpp"

namespace retrylab {

namespace {

constexpr int max_retry = 1'000'000;
constexpr int max_retry_uncapped = 100;
// Node-steps allowed per 1024 cells per factor 3 (about 0.1 s): bounds the work of one law.
constexpr double work_budget_per_1024_cells = 1.2e7;

void check_decorrelated(const Backoff& backoff, int retry, int cells) {
  Backoff b = backoff;
  b.strategy = Strategy::decorrelated;
  check_backoff(b);
  if (retry < 1 || retry > max_retry)
    throw InputError("retry", fmt::format("must be an integer in [1, {}] (got {})", max_retry, retry));
  if (std::isinf(b.cap) && retry > max_retry_uncapped)
    throw InputError("retry", fmt::format("must be <= {} for decorrelated jitter with cap none (got {})",
                                          max_retry_uncapped, retry));
  if (cells < 2 || cells > 100'000)
    throw InputError("cells", fmt::format("must be an integer in [2, 100000] (got {})", cells));
}

// The state of s_(k−1) as seen by one step: CDF values at nodes, densities per cell, and the
// suffix sums of E[1/(3s−b)] per cell (plus the atom's term).
struct StepView {
  const std::vector<double>& x;
  const std::vector<double>& g;
  std::vector<double> dens;    // per cell i in [x_i, x_(i+1)]
  std::vector<double> suffix;  // suffix[i] = ∫_{s > x_i} dG/(3s−b) + atom/(3c−b); size n+1
  double base;
};

StepView make_view(const std::vector<double>& x, const std::vector<double>& g, double atom, double base, double cap) {
  const std::size_t n = x.size() - 1;
  StepView v{x, g, std::vector<double>(n), std::vector<double>(n + 1), base};
  v.suffix[n] = atom > 0.0 ? atom / (3.0 * cap - base) : 0.0;
  for (std::size_t i = n; i-- > 0;) {
    v.dens[i] = (g[i + 1] - g[i]) / (x[i + 1] - x[i]);
    // ∫_{x_i}^{x_(i+1)} d/(3s−b) ds = d/3 · ln((3x_(i+1)−b)/(3x_i−b)), written with log1p for small cells.
    const double cell = v.dens[i] / 3.0 * std::log1p(3.0 * (x[i + 1] - x[i]) / (3.0 * x[i] - base));
    v.suffix[i] = v.suffix[i + 1] + cell;
  }
  return v;
}

}  // namespace

DecorrelatedSleep::DecorrelatedSleep(const Backoff& backoff, int retry, int cells_per_factor3) : retry_(retry) {
  check_decorrelated(backoff, retry, cells_per_factor3);
  const double b = backoff.base;
  const double c = backoff.cap;
  const double reach = b * std::pow(3.0, retry);  // b·3^k: finite for k <= 300 and for capped use
  const double top = std::min(c, reach);
  const bool capped = c <= reach;  // the atom at c can carry mass
  if (c == b) {                    // every sleep is min(b, U(b, 3b)) = b: all mass in the atom
    nodes_ = {b, b};
    cdf_ = {0.0, 0.0};
    atom_ = 1.0;
    return;
  }

  // Nodes b·3^(j/m) below top, then top itself (a node within a relative 1e-12 is snapped to top).
  const double m = cells_per_factor3;
  for (int j = 0;; ++j) {
    const double xj = b * std::pow(3.0, j / m);
    if (xj >= top * (1.0 - 1e-12)) break;
    nodes_.push_back(xj);
  }
  nodes_.push_back(top);
  const std::size_t n = nodes_.size() - 1;

  // s_1 = min(c, U(b, 3b)): exact on this grid (linear on [b, 3b], and 3b is a node or above top).
  cdf_.resize(n + 1);
  for (std::size_t i = 0; i <= n; ++i) cdf_[i] = std::min(1.0, (nodes_[i] - b) / (2.0 * b));
  atom_ = capped ? 1.0 - cdf_[n] : 0.0;
  if (!capped) cdf_[n] = 1.0;

  std::vector<double> next(n + 1);
  const double budget = work_budget_per_1024_cells * (m / 1024.0);
  double work = 0.0;
  for (int k = 2; k <= retry; ++k) {
    work += static_cast<double>(n + 1);
    if (work > budget)
      throw InputError("retry", fmt::format("must be smaller for the numerical decorrelated law with cap/base = {}: "
                                            "step {} exceeds the work budget before the law is stationary (got {})",
                                            format_cap(c / b), k, retry));
    const StepView v = make_view(nodes_, cdf_, atom_, b, c);
    std::size_t cell = 0;  // the cell holding u = x_i/3, nondecreasing in i
    for (std::size_t i = 0; i <= n; ++i) {
      const double t = nodes_[i];
      const double u = t / 3.0;
      double g_u = 0.0, h_u = v.suffix[0];
      if (u > b) {
        while (cell + 1 < n && nodes_[cell + 1] <= u) ++cell;
        const double xl = nodes_[cell], xr = nodes_[cell + 1];
        g_u = cdf_[cell] + v.dens[cell] * (u - xl);
        h_u = v.dens[cell] / 3.0 * std::log1p(3.0 * (xr - u) / (3.0 * u - b)) + v.suffix[cell + 1];
      }
      next[i] = std::min(1.0, g_u + (t - b) * h_u);
    }
    double new_atom = 0.0;
    if (capped)
      new_atom = std::max(0.0, 1.0 - next[n]);
    else
      next[n] = 1.0;
    double change = std::abs(new_atom - atom_);
    for (std::size_t i = 0; i <= n; ++i) change = std::max(change, std::abs(next[i] - cdf_[i]));
    cdf_.swap(next);
    atom_ = new_atom;
    if (capped && reach > 3.0 * c && change < 1e-15) break;  // stationary to double precision
  }
}

double DecorrelatedSleep::cdf(double t) const {
  if (std::isnan(t)) throw InputError("t", "must be a number (got nan)");
  if (t < nodes_.front()) return 0.0;
  if (t >= nodes_.back()) return 1.0;  // top = c (atom included) or b·3^k (end of the support)
  const auto it = std::upper_bound(nodes_.begin(), nodes_.end(), t);
  const std::size_t i = static_cast<std::size_t>(it - nodes_.begin()) - 1;
  const double w = (t - nodes_[i]) / (nodes_[i + 1] - nodes_[i]);
  return cdf_[i] + w * (cdf_[i + 1] - cdf_[i]);
}

double DecorrelatedSleep::quantile(double q) const {
  if (!(q >= 0.0 && q <= 1.0)) throw InputError("quantile", fmt::format("must be in [0, 1] (got {})", q));
  if (q <= 0.0) return nodes_.front();
  if (q > cdf_.back()) return nodes_.back();  // inside the atom at c (or rounding at the top)
  const auto it = std::lower_bound(cdf_.begin(), cdf_.end(), q);
  const std::size_t j = static_cast<std::size_t>(it - cdf_.begin());
  if (j == 0) return nodes_.front();
  const double f = (q - cdf_[j - 1]) / (cdf_[j] - cdf_[j - 1]);
  return nodes_[j - 1] + f * (nodes_[j] - nodes_[j - 1]);
}

double DecorrelatedSleep::mean() const {
  // Piecewise-uniform density: each cell contributes its mass times its midpoint.
  double m = atom_ * nodes_.back();
  for (std::size_t i = 0; i + 1 < nodes_.size(); ++i) m += (cdf_[i + 1] - cdf_[i]) * 0.5 * (nodes_[i] + nodes_[i + 1]);
  return m;
}

double decorrelated_accuracy(const Backoff& backoff, int retry, int cells_per_factor3, int refine) {
  if (refine < 2 || refine > 64) throw InputError("refine", fmt::format("must be in [2, 64] (got {})", refine));
  const DecorrelatedSleep coarse(backoff, retry, cells_per_factor3);
  const DecorrelatedSleep fine(backoff, retry, cells_per_factor3 * refine);
  double worst = std::abs(coarse.atom() - fine.atom());
  const double lo = coarse.lower(), hi = coarse.upper();
  const int samples = 4000;
  for (int i = 0; i <= samples; ++i) {
    const double t = lo * std::pow(hi / lo, static_cast<double>(i) / samples);
    worst = std::max(worst, std::abs(coarse.cdf(t) - fine.cdf(t)));
  }
  const double r2 = static_cast<double>(refine) * refine;
  return worst * r2 / (r2 - 1.0);
}

double decorrelated_step_growth(double sleep, double base, double cap) {
  if (!(base > 0.0) || !std::isfinite(base))
    throw InputError("base", fmt::format("must be a finite number > 0 (got {})", base));
  if (std::isnan(cap) || cap < base)
    throw InputError("cap", fmt::format("must be >= base or \"none\" (got cap={}, base={})", cap, base));
  if (!(sleep >= base) || !(sleep <= cap) || !std::isfinite(sleep))
    throw InputError("sleep", fmt::format("must be a finite number in [base, cap] = [{}, {}] (got {})", base,
                                          format_cap(cap), sleep));
  const double r = base / sleep;
  const double g = std::min(3.0, cap / sleep);
  return (3.0 * std::log(g) - g - r * std::log(r) + r) / (3.0 - r);
}

double decorrelated_growth_limit() noexcept { return std::log(3.0) - 1.0; }

}  // namespace retrylab
