// 8, 9. A failing dependency: retry amplification through layers (analytic/amplification.hpp) and the
// retry budgets (token buckets, Finagle's RetryBudget) through an outage (analytic/budget.hpp), the
// simulated counts against the closed forms. Declared in validation/catalogue.hpp.
#include "validation/catalogue.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
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
using montecarlo::RunPlan;

namespace {}  // namespace

// ---- 8, 9: amplification and budgets -------------------------------------------------------

ValidationCase amplification_case(int layers, int attempts, double failure, std::int64_t requests, std::int64_t runs) {
  const montecarlo::LayeredScenario scenario{layers, attempts, failure, 0.0, requests};
  montecarlo::check_layered(scenario);
  if (runs < 2) throw InputError("runs", fmt::format("must be >= 2 for a spread (got {})", runs));
  const bool total = failure == 1.0;
  return make_case(fmt::format("amplification-L{}-a{}-p{}", layers, attempts, g(failure)),
                   fmt::format("L={} a={} p={} requests={} runs={}", layers, attempts, g(failure), requests, runs),
                   total ? CaseKind::exact : CaseKind::statistical,
                   static_cast<double>(requests * runs) * montecarlo::expected_bottom_calls(scenario) * 1e-6,
                   [scenario, runs, total](const CaseContext& ctx) {
                     RunPlan plan;
                     plan.runs = runs;
                     plan.seed = ctx.seed;
                     plan.threads = std::max(1, ctx.threads);
                     const auto res = montecarlo::simulate_layered(scenario, plan);
                     const RetryAmplification m{scenario.layers, scenario.attempts, scenario.failure};
                     CaseResult out;
                     if (total) {
                       // Every bottom call fails: each request makes exactly a^L of them (an integer count).
                       const double exact = amplification_bound(m);
                       out.kind = CaseKind::exact;
                       out.closed_form = fmt::format("a^L = {}", g(exact));
                       out.expected = exact;
                       out.tolerance = 0.0;
                       out.n = runs;
                       std::int64_t bad = 0;
                       MeanAccumulator acc;
                       for (const auto& r : res) {
                         acc.add(r.bottom_calls_per_request);
                         bad += (static_cast<double>(r.bottom_calls) == exact * static_cast<double>(r.requests) &&
                                 r.top_failures == r.requests)
                                    ? 0
                                    : 1;
                       }
                       out.observed = acc.mean();
                       out.rel_error = relative(out.observed, exact);
                       out.check = fmt::format("{} of {} runs differ from a^L bottom calls per request", bad, runs);
                       out.verdict = bad == 0 ? Verdict::pass : Verdict::fail;
                       return out;
                     }
                     const double exact = expected_bottom_calls(m);
                     out.closed_form = fmt::format("E_L = {}", g(exact));
                     std::vector<double> v;
                     v.reserve(res.size());
                     for (const auto& r : res) v.push_back(r.bottom_calls_per_request);
                     apply_mean_rule(out, v, exact, 0.0, "none: i.i.d. requests", ctx.alpha);
                     return out;
                   });
}

ValidationCase budget_outage_case(std::string_view preset, std::int64_t runs) {
  // The engine's `none` model in attempt-durations of 10 ms (the mean service), so in ms: a request
  // every 20 ms, arrivals for 9000 ms (within Finagle's 10 s ttl: every deposit and withdrawal of
  // the run counts), every attempt failing, full jitter base 10 ms cap 1000 ms; settle: the run goes
  // on until every request has resolved.
  montecarlo::Scenario s;
  s.model = Model::none;
  s.traffic.rate = 0.5;
  s.measurement.horizon = 900.0;
  s.measurement.collapse = montecarlo::max_collapse;
  s.backoff = Backoff{Strategy::full, 1.0, 100.0, 0.0};
  s.failures.failure_prob = 1.0;
  s.client.max_attempts = 1000;
  s.measurement.settle = true;
  s.client.attempt_ms = 10.0;
  s.client.budget.preset = static_cast<int>(
      std::find(std::begin(montecarlo::budget_preset_names), std::end(montecarlo::budget_preset_names), preset) -
      std::begin(montecarlo::budget_preset_names));
  if (s.client.budget.preset >= static_cast<int>(std::size(montecarlo::budget_preset_names)))
    throw InputError("budget", fmt::format("must be a budget preset (got {})", preset));
  montecarlo::check_scenario(s);
  if (runs < 1) throw InputError("runs", fmt::format("must be >= 1 (got {})", runs));
  const std::string name(preset);
  return make_case(
      fmt::format("budget-{}-outage", name), fmt::format("p=1 λ=0.05/ms T=9000 ms attempts<=1000 runs={}", runs),
      CaseKind::exact, static_cast<double>(runs) * 0.05, [s, name, runs](const CaseContext& ctx) {
        RunPlan plan;
        plan.runs = runs;
        plan.seed = ctx.seed;
        plan.threads = std::max(1, ctx.threads);
        const auto res = montecarlo::simulate(s, plan);
        CaseResult out;
        out.kind = CaseKind::exact;
        out.n = runs;
        out.tolerance = 0.0;
        std::int64_t bad = 0;
        double worst = 0.0, bound_shown = std::numeric_limits<double>::quiet_NaN();
        MeanAccumulator acc, bounds;
        for (const auto& r : res) {
          // Tries after each request's first (no local rejection: none of these budgets throttles).
          const double retries = static_cast<double>(r.attempts - r.clients_arrived);
          acc.add(retries);
          bool ok = r.successes == 0;
          if (name == "aws-standard") {
            bound_shown = max_retries(aws_standard(), 0.0);
            ok = ok && retries == bound_shown;  // the budget binds: every one of the 100 is taken
          } else if (name == "grpc") {
            bound_shown = max_retries(grpc_throttling(), 0.0);
            ok = ok && retries <= bound_shown;
          } else {
            const double b = finagle_max_retries(FinagleBudget{}, static_cast<double>(r.clients_arrived));
            bounds.add(b);  // each run against its own bound; the table shows their mean
            bound_shown = bounds.mean();
            ok = ok && retries <= b;
          }
          worst = std::max(worst, retries);
          bad += ok ? 0 : 1;
        }
        out.expected = bound_shown;
        out.observed = acc.mean();
        out.rel_error = relative(out.observed, out.expected);
        if (name == "aws-standard") {
          out.closed_form = fmt::format("retries = (B − 0)/c = {}", g(bound_shown));
        } else if (name == "grpc") {
          out.closed_form = fmt::format("retries <= (max − max/2)/1 = {}", g(bound_shown));
        } else {
          out.closed_form = fmt::format("retries <= 100 + 0.2·requests (per run; mean {})", g(bound_shown));
        }
        out.check = fmt::format("{} of {} runs broke the bound (most retries in a run {})", bad, runs, g(worst));
        out.verdict = bad == 0 ? Verdict::pass : Verdict::fail;
        return out;
      });
}

}  // namespace retrylab::validation
