#include "analytic/steady.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

#include "analytic/decorrelated.hpp"
#include "analytic/error.hpp"
#include "analytic/sleep.hpp"

namespace retrylab {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr int decorrelated_stages = 150;  // its law settles at the cap well before (c = 1000: ~70)
constexpr double p_max = 1.0 - 1e-12;

}  // namespace

std::vector<double> stage_means(const Backoff& b) {
  std::vector<double> m;
  if (b.strategy == Strategy::none) return {0.0};
  if (b.strategy == Strategy::window) return {0.5 * b.window};
  if (b.strategy == Strategy::decorrelated) {
    // The stage means settle once the law has reached the cap (the spread within a stage is
    // the model's blind spot anyway): stop when three successive means agree to 1e-6, on a grid
    // of 128 cells per factor 3 (mean error ~1e-4 relative, decorrelated.hpp).
    for (int k = 1; k <= decorrelated_stages; ++k) {
      m.push_back(DecorrelatedSleep(b, k, 128).mean());
      const std::size_t z = m.size();
      if (z >= 4 && std::abs(m[z - 1] - m[z - 4]) <= 1e-6 * m[z - 1]) break;
    }
    return m;
  }
  for (int k = 1;; ++k) {
    m.push_back(SleepDistribution(b, k).mean());
    if (window_width(b, k) >= b.cap) return m;
  }
}

double attempt_success(Model model, double G) {
  switch (model) {
    case Model::collision: return std::exp(-2.0 * G);
    case Model::free: return 1.0 / (1.0 + G);
    default: return G < 1.0 ? 1.0 - G : 0.0;  // shared: 1/(1 + G·D) with D = 1/(1−G)
  }
}

namespace {

// A log-spaced grid on [lo, hi].
std::vector<double> log_grid(double lo, double hi, int points) {
  std::vector<double> x(static_cast<std::size_t>(points));
  for (int i = 0; i < points; ++i) x[static_cast<std::size_t>(i)] = lo * std::pow(hi / lo, i / (points - 1.0));
  return x;
}

constexpr double grid_low = 1e-3;
constexpr int grid_points = 600;

}  // namespace

void check_steady_model(const SteadyModel& s) {
  if (s.model != Model::collision && s.model != Model::free && s.model != Model::shared)
    throw InputError("model", fmt::format("must be collision, free or shared for the mean-field model (got {})",
                                          to_string(s.model)));
  check_backoff(s.backoff);
  if (!std::isfinite(s.backoff.cap))
    throw InputError("cap", "must be finite for the mean-field model (got none): the stage means must settle");
}

MeanField::MeanField(const SteadyModel& s) : s_(s) {
  check_steady_model(s);
  m_ = retrylab::stage_means(s.backoff);
}

// M(p) = Σ_(k>=1) p^k m_k, the sleeping part of B(p) = M(p) + D·A(p).
double MeanField::cycle_time(double p, double duration) const {
  double sum = 0.0, pk = 1.0;
  const std::size_t S = m_.size();
  for (std::size_t k = 1; k < S; ++k) {
    pk *= p;
    sum += pk * m_[k - 1];
  }
  pk *= p;
  sum += pk * m_[S - 1] / (1.0 - p);
  return sum + duration / (1.0 - p);
}

// G solves G·B(p, D(G)) = n·A(p): collision/free D = 1, G = nA/(M + A); shared D = 1/(1−G):
// M·G² − (M + A(1+n))·G + nA = 0, its root in [0, 1).
double MeanField::rate_given(double n, double p) const {
  const double A = 1.0 / (1.0 - p);
  const double M = cycle_time(p, 0.0);
  if (s_.model != Model::shared) return n * A / (M + A);
  const double b = M + A * (1.0 + n);
  if (M == 0.0) return n / (1.0 + n);
  return (2.0 * n * A) / (b + std::sqrt(b * b - 4.0 * M * n * A));  // the small root, stably
}

double MeanField::failure_probability(double n) const {
  if (!(n >= 0.0)) throw InputError("backlog", fmt::format("must be >= 0 (got {})", n));
  auto success = [&](double G) { return attempt_success(s_.model, G); };

  // f(p) = 1 − P(G(n, p)) − p decreases from f(0) >= 0 to f(1−) < 0: one root, by bisection.
  double lo = 0.0, hi = p_max;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = 0.5 * (lo + hi);
    (1.0 - success(rate_given(n, mid)) - mid > 0.0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double MeanField::attempt_rate(double n) const { return rate_given(n, failure_probability(n)); }

double MeanField::success_rate(double n) const {
  const double p = failure_probability(n);
  return rate_given(n, p) * (1.0 - p);
}

std::vector<FixedPoint> MeanField::fixed_points(double rate, double n_max) const {
  std::vector<FixedPoint> out;
  const auto x = log_grid(grid_low, n_max, grid_points);
  double prev = drift(x[0], rate);
  for (std::size_t i = 1; i < x.size(); ++i) {
    const double d = drift(x[i], rate);
    if ((prev > 0.0) != (d > 0.0)) {
      double lo = x[i - 1], hi = x[i];
      for (int it = 0; it < 80; ++it) {
        const double mid = 0.5 * (lo + hi);
        ((drift(mid, rate) > 0.0) == (prev > 0.0) ? lo : hi) = mid;
      }
      out.push_back({0.5 * (lo + hi), prev > 0.0});  // drift + then −: stable
    }
    prev = d;
  }
  return out;
}

std::optional<double> MeanField::fold_load(double n_max) const {
  const auto x = log_grid(grid_low, n_max, grid_points);
  double best = success_rate(x[0]);
  for (std::size_t i = 1; i < x.size(); ++i) {
    const double s = success_rate(x[i]);
    if (s < best) {
      // First descent: refine the maximum on [x[i−2], x[i]] by golden section.
      double a = x[i >= 2 ? i - 2 : 0], b = x[i];
      const double r = (std::sqrt(5.0) - 1.0) / 2.0;
      for (int it = 0; it < 100; ++it) {
        const double c = b - r * (b - a), d = a + r * (b - a);
        (success_rate(c) > success_rate(d) ? b : a) = success_rate(c) > success_rate(d) ? d : c;
      }
      return std::max(best, success_rate(0.5 * (a + b)));
    }
    best = s;
  }
  return std::nullopt;
}

double MeanField::climb_time(double from, double to, double rate) const {
  if (!(to > from)) return 0.0;
  const auto x = log_grid(std::max(from, grid_low), to, 400);
  double t = 0.0, prev = 1.0 / drift(x[0], rate);
  if (!(prev > 0.0)) return inf;
  for (std::size_t i = 1; i < x.size(); ++i) {
    const double d = drift(x[i], rate);
    if (!(d > 0.0)) return inf;
    t += 0.5 * (prev + 1.0 / d) * (x[i] - x[i - 1]);
    prev = 1.0 / d;
  }
  return t;
}

double mean_passage_time(const std::vector<double>& down, double up, double stop) {
  if (!(up > 0.0)) throw InputError("rate", fmt::format("must be > 0 for a passage time (got {})", up));
  double tau = 1.0 / up, total = tau;
  for (double d : down) {
    if (total > stop) return inf;
    tau = (1.0 + d * tau) / up;
    total += tau;
  }
  return total > stop ? inf : total;
}

namespace {

// S(n) at n = 1..K−1 from its values on the log grid x (linear in log n; S(x_0) below x_0).
std::vector<double> success_at_integers(const std::vector<double>& x, const std::vector<double>& S, double collapse) {
  std::vector<double> out;
  const auto K = static_cast<std::size_t>(collapse);
  out.reserve(K > 0 ? K - 1 : 0);
  std::size_t i = 0;
  for (std::size_t n = 1; n < K; ++n) {
    const double v = static_cast<double>(n);
    while (i + 1 < x.size() && x[i + 1] < v) ++i;
    if (i + 1 >= x.size() || v <= x[i]) {
      out.push_back(v <= x[i] ? S[i] : S.back());
      continue;
    }
    const double w = std::log(v / x[i]) / std::log(x[i + 1] / x[i]);
    out.push_back(S[i] + w * (S[i + 1] - S[i]));
  }
  return out;
}

}  // namespace

double backlog_passage_time(const MeanField& f, double level, double rate) {
  if (!(level >= 1.0) || !std::isfinite(level))
    throw InputError("level", fmt::format("must be a finite number >= 1 (got {})", level));
  const auto x = log_grid(grid_low, std::max(level, 2.0 * grid_low), grid_points);
  std::vector<double> S(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) S[i] = f.success_rate(x[i]);
  return mean_passage_time(success_at_integers(x, S, std::floor(level)), rate, inf);
}

CollapseLoads collapse_loads(const MeanField& f, double collapse, double horizon, double step) {
  if (!(collapse >= 1.0)) throw InputError("collapse", fmt::format("must be >= 1 (got {})", collapse));
  if (!(horizon > 0.0) || !std::isfinite(horizon))
    throw InputError("horizon", fmt::format("must be a finite number > 0 (got {})", horizon));
  // S(n) on one grid, shared by every load.
  const auto x = log_grid(grid_low, collapse, grid_points);
  std::vector<double> S(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) S[i] = f.success_rate(x[i]);
  // Time to climb from grid point i to K at load λ (+inf where the drift is <= 0).
  auto climb = [&](std::size_t from, double rate) {
    double t = 0.0;
    for (std::size_t i = from + 1; i < x.size(); ++i) {
      const double d0 = rate - S[i - 1], d1 = rate - S[i];
      if (!(d0 > 0.0) || !(d1 > 0.0)) return inf;
      t += 0.5 * (1.0 / d0 + 1.0 / d1) * (x[i] - x[i - 1]);
    }
    return t;
  };
  CollapseLoads out{inf, inf, inf};
  const std::vector<double> down = success_at_integers(x, S, std::floor(collapse));
  // Loads i·step (not a running sum, whose rounding would print 0.20000000000000004).
  for (int k = 1; k * step < 1.0 && std::isinf(out.passage); ++k)
    if (mean_passage_time(down, k * step, horizon) <= horizon) out.passage = k * step;
  for (int k = 1; k * step < 1.0 && (std::isinf(out.escape) || std::isinf(out.no_escape)); ++k) {
    const double rate = k * step;
    // The first grid point with drift <= 0 (the stable point), then the next with drift > 0 (past
    // the unstable point: one client past it, the climb's integrand is finite).
    std::size_t stable = x.size();
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!(rate - S[i] > 0.0)) {
        stable = i;
        break;
      }
    bool escape = false, drift_up = false;
    if (stable == x.size()) {
      drift_up = escape = climb(0, rate) <= horizon;
    } else {
      const double past = x[stable] + 1.0;
      for (std::size_t i = stable; i < x.size(); ++i)
        if (x[i] >= past && rate - S[i] > 0.0) {
          escape = climb(i, rate) <= horizon;
          break;
        }
    }
    if (escape && std::isinf(out.escape)) out.escape = rate;
    if (drift_up && std::isinf(out.no_escape)) out.no_escape = rate;
  }
  return out;
}

}  // namespace retrylab
