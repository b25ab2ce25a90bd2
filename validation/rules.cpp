#include "validation/rules.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

#include "montecarlo/simulate.hpp"
#include "validation/statistics.hpp"

namespace retrylab::validation::detail {

std::string g(double x) { return fmt::format("{:.4g}", x); }

std::string backoff_text(const Backoff& b) {
  switch (b.strategy) {
    case Strategy::none: return "none";
    case Strategy::window: return fmt::format("window W={}", g(b.window));
    default: return fmt::format("{} b={} c={}", to_string(b.strategy), g(b.base), format_cap(b.cap));
  }
}

std::vector<montecarlo::RunResult> run(const montecarlo::Scenario& s, std::int64_t runs, const CaseContext& ctx) {
  montecarlo::RunPlan plan;
  plan.runs = runs;
  plan.seed = ctx.seed;
  plan.threads = std::max(1, ctx.threads);
  return montecarlo::simulate(s, plan);
}

double half_width(const MeanSummary& m) { return (m.ci95.hi - m.ci95.lo) / 2.0; }

double relative(double observed, double expected) {
  return expected != 0.0 ? (observed - expected) / std::abs(expected) : std::numeric_limits<double>::quiet_NaN();
}

// The mean rule: |mean(values) − expected| <= t_(1−α/2, n−1)·sd/√n + floor. `values` holds one
// number per independent run; a NaN (metric undefined in a run) fails the case rather than being
// dropped silently.
void apply_mean_rule(CaseResult& r, std::span<const double> values, double expected, double floor,
                     const std::string& floor_why, double alpha) {
  r.kind = CaseKind::statistical;
  r.alpha = alpha;
  r.expected = expected;
  r.n = static_cast<std::int64_t>(values.size());
  const auto undefined = std::count_if(values.begin(), values.end(), [](double x) { return !std::isfinite(x); });
  if (undefined > 0 || values.size() < 2) {
    r.verdict = Verdict::fail;
    r.check = fmt::format("{} of {} runs gave no value", undefined, values.size());
    return;
  }
  const MeanSummary m = summarize_mean(values);
  const double t = t_two_sided(alpha, static_cast<double>(m.n - 1));
  r.observed = m.mean;
  r.ci95 = half_width(m);
  r.rel_error = relative(m.mean, expected);
  r.tolerance = t * m.sd / std::sqrt(static_cast<double>(m.n)) + floor;
  const double diff = std::abs(m.mean - expected);
  r.verdict = diff <= r.tolerance ? Verdict::pass : Verdict::fail;
  r.check = fmt::format("|Δ| {:.2g} {} {:.2g} = t({:.2f})·sd/√n + floor {:.2g} ({})", diff,
                        r.verdict == Verdict::pass ? "≤" : ">", r.tolerance, t, floor, floor_why);
}

ValidationCase make_case(std::string name, std::string parameters, CaseKind kind, double cost,
                         std::function<CaseResult(const CaseContext&)> body) {
  ValidationCase c{std::move(name), std::move(parameters), kind, cost, {}};
  c.run = [n = c.name, p = c.parameters, kind, body = std::move(body)](const CaseContext& ctx) {
    CaseResult r = body(ctx);
    r.name = n;
    r.parameters = p;
    if (r.kind != CaseKind::statistical) r.alpha = 0.0;
    (void)kind;
    return r;
  };
  return c;
}

}  // namespace retrylab::validation::detail
