// 4. Sleep distributions: the engine's sleep draws of each strategy against the closed-form law of the
// k-th sleep (analytic/sleep.hpp; a KS test at the case's α), and decorrelated jitter's growth of
// ln s_k against its closed form (analytic/decorrelated.hpp). Declared in validation/catalogue.hpp.
#include "validation/catalogue.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <numeric>
#include <span>

#include "analytic/aloha.hpp"
#include "analytic/amplification.hpp"
#include "analytic/budget.hpp"
#include "analytic/classic.hpp"
#include "analytic/decorrelated.hpp"
#include "analytic/error.hpp"
#include "analytic/fluid_cap.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "analytic/rows.hpp"
#include "analytic/sleep.hpp"
#include "analytic/stats.hpp"
#include "montecarlo/amplification.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/simulate.hpp"
#include "validation/rules.hpp"
#include "validation/statistics.hpp"

namespace retrylab::validation {

using namespace detail;
// ---- 4: sleep distributions ----------------------------------------------------------------------

ValidationCase sleep_case(const Backoff& backoff, int retry, std::int64_t draws) {
  check_sleep(backoff, retry);
  if (draws < 2) throw InputError("draws", fmt::format("must be >= 2 (got {})", draws));
  const bool point = backoff.strategy == Strategy::none || backoff.strategy == Strategy::nojitter;
  const double cost = static_cast<double>(draws) * (backoff.strategy == Strategy::decorrelated ? retry : 1) * 0.05;
  return make_case(
      fmt::format("sleep-{}-k{}", to_string(backoff.strategy), retry),
      fmt::format("{} k={} draws={}", backoff_text(backoff), retry, draws),
      point ? CaseKind::exact : CaseKind::statistical, cost, [backoff, retry, draws, point](const CaseContext& ctx) {
        const SleepDistribution dist(backoff, retry);
        const std::vector<double> x = montecarlo::draw_sleeps(backoff, retry, draws, ctx.seed);
        CaseResult out;
        out.expected = dist.mean();
        out.n = static_cast<std::int64_t>(x.size());
        const MeanSummary m = summarize_mean(x);
        out.observed = m.mean;
        out.ci95 = half_width(m);
        out.rel_error = relative(m.mean, dist.mean());
        if (point) {
          // A point mass: every draw must equal it (w_k = b·2^(k−1) is exact in binary).
          out.kind = CaseKind::exact;
          out.closed_form =
              backoff.strategy == Strategy::none ? "0" : fmt::format("w_k = min(c, b·2^(k−1)) = {}", g(dist.mean()));
          const double tol = 4.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, dist.mean());
          const auto off = std::count_if(x.begin(), x.end(), [&](double s) { return std::abs(s - dist.mean()) > tol; });
          out.tolerance = tol;
          out.verdict = off == 0 ? Verdict::pass : Verdict::fail;
          out.check = fmt::format("{} of {} draws differ from w_k by more than 4 ulp", off, x.size());
          return out;
        }
        out.kind = CaseKind::statistical;
        out.alpha = ctx.alpha;
        // Decorrelated: the law is computed numerically; its CDF error `acc` (decorrelated.hpp:
        // < 2e-7 measured, and the a-posteriori estimate against a 4x finer grid) is taken off D
        // before the p-value, so numerical error cannot raise a false alarm.
        double acc = 0.0;
        std::function<double(double)> left;
        if (backoff.strategy == Strategy::decorrelated) {
          acc = std::max(2e-7, 2.0 * decorrelated_accuracy(backoff, retry));
          const double atom_at = backoff.cap;
          const double atom = DecorrelatedSleep(backoff, retry).atom();
          left = [&dist, atom_at, atom](double t) { return t == atom_at ? dist.cdf(t) - atom : dist.cdf(t); };
          out.closed_form = fmt::format("numerical law (±{:.1g}), mean {}", acc, g(dist.mean()));
        } else {
          switch (backoff.strategy) {
            case Strategy::full:
              out.closed_form = fmt::format("U(0, w_k), w_k = {}", g(window_width(backoff, retry)));
              break;
            case Strategy::equal:
              out.closed_form = fmt::format("w_k/2 + U(0, w_k/2), w_k = {}", g(window_width(backoff, retry)));
              break;
            case Strategy::memoryless:
              out.closed_form = fmt::format("Exp(mean w_k/2), w_k = {}", g(window_width(backoff, retry)));
              break;
            default: out.closed_form = fmt::format("U(0, W), W = {}", g(backoff.window)); break;
          }
        }
        const double d = ks_statistic(
            x, [&dist](double t) { return dist.cdf(t); }, left);
        const double d_eff = std::max(0.0, d - acc);
        const double p = ks_pvalue(out.n, d_eff);
        const double crit = ks_critical(out.n, ctx.alpha) + acc;
        out.tolerance = crit;
        out.verdict = p > ctx.alpha ? Verdict::pass : Verdict::fail;
        out.check =
            fmt::format("KS D {:.3g} {} {:.3g} (p={:.2g})", d, out.verdict == Verdict::pass ? "≤" : ">", crit, p);
        return out;
      });
}

ValidationCase decorrelated_growth_case(double base, int j, int k, std::int64_t draws) {
  if (!(j >= 1 && k > j)) throw InputError("retry", fmt::format("must satisfy 1 <= J < K (got J={}, K={})", j, k));
  if (draws < 2) throw InputError("draws", fmt::format("must be >= 2 (got {})", draws));
  const Backoff b{Strategy::decorrelated, base, unbounded_cap, 0.0};
  check_backoff(b);
  return make_case(
      "decorrelated-growth", fmt::format("b={} c=none J={} K={} chains={}", g(base), j, k, draws),
      CaseKind::statistical, static_cast<double>(draws) * (j + k) * 0.05, [b, j, k, draws](const CaseContext& ctx) {
        const double limit = decorrelated_growth_limit();
        auto log_mean = [&](int kk, MeanAccumulator& acc) {
          for (double s : montecarlo::draw_sleeps(b, kk, draws, ctx.seed)) acc.add(std::log(s));
        };
        MeanAccumulator aj, ak;
        log_mean(j, aj);
        log_mean(k, ak);
        const double span = static_cast<double>(k - j);
        const double growth = (ak.mean() - aj.mean()) / span;
        const double se =
            std::sqrt(ak.variance() / static_cast<double>(ak.n()) + aj.variance() / static_cast<double>(aj.n())) / span;
        // Floor: the exact step growth δ(s) = decorrelated_step_growth(s, b) exceeds ln 3 − 1 only
        // near b. With ln(s_j/b) ≈ N(j(ln 3 − 1), j) (steps of variance Var ln U(0,1) = 1; the
        // reflection at b only pushes chains up), a step from s < b·e^10 happens with
        // probability <= Φ((10 − J(ln 3 − 1))/√J) and pulls at most max δ − (ln 3 − 1); above
        // b·e^10 the pull is at most δ(b·e^10) − (ln 3 − 1).
        double pull_max = 0.0;
        for (double r = 0.0; r <= 10.0; r += 0.01)
          pull_max = std::max(pull_max, std::abs(decorrelated_step_growth(b.base * std::exp(r), b.base) - limit));
        const double p_low =
            boost::math::cdf(boost::math::normal(), (10.0 - j * limit) / std::sqrt(static_cast<double>(j)));
        const double floor =
            pull_max * p_low + std::abs(decorrelated_step_growth(b.base * std::exp(10.0), b.base) - limit);
        const double t = t_two_sided(ctx.alpha, static_cast<double>(2 * draws - 2));
        CaseResult out;
        out.kind = CaseKind::statistical;
        out.alpha = ctx.alpha;
        out.closed_form = fmt::format("ln 3 − 1 = {}", g(limit));
        out.expected = limit;
        out.observed = growth;
        out.ci95 = t_two_sided(0.05, static_cast<double>(2 * draws - 2)) * se;
        out.rel_error = relative(growth, limit);
        out.tolerance = t * se + floor;
        out.n = draws;
        const double diff = std::abs(growth - limit);
        out.verdict = diff <= out.tolerance ? Verdict::pass : Verdict::fail;
        out.check = fmt::format("|Δ| {:.2g} {} {:.2g} = t({:.2f})·se + floor {:.2g} (pull of b)", diff,
                                out.verdict == Verdict::pass ? "≤" : ">", out.tolerance, t, floor);
        return out;
      });
}

}  // namespace retrylab::validation
