// 11. Small systems exactly: the engine's classic test with the memoryless strategy and
// exponential service against the Markov chain's exact expectations (analytic/markov.hpp).
#include <fmt/format.h>
#include <vector>

#include "analytic/error.hpp"
#include "analytic/markov.hpp"
#include "validation/catalogue.hpp"
#include "validation/rules.hpp"

namespace retrylab::validation {

using namespace detail;

std::string_view to_string(MarkovMetric m) noexcept { return m == MarkovMetric::attempts ? "attempts" : "makespan"; }

montecarlo::Scenario markov_scenario(const MarkovBurst& m) {
  montecarlo::Scenario s;
  s.model = m.model;
  s.backoff = m.backoff;
  s.traffic.clients = m.clients;
  s.resource.service = montecarlo::ServiceDist::exponential;
  return s;
}

ValidationCase markov_case(const MarkovBurst& m, MarkovMetric metric, std::int64_t runs) {
  check_markov(m);
  if (runs < 2) throw InputError("runs", fmt::format("must be >= 2 for a spread (got {})", runs));
  const std::string name =
      fmt::format("markov-{}-N{}-c{}-{}", to_string(m.model), m.clients, g(m.backoff.cap), to_string(metric));
  const std::string params =
      fmt::format("{} N={} service=exponential runs={}", backoff_text(m.backoff), m.clients, runs);
  // Cost: runs × N² × stages, roughly (contention grows with N, sleeps with the cap).
  const double cost = static_cast<double>(runs * m.clients * m.clients) * 0.05;
  return make_case(name, params, CaseKind::statistical, cost, [m, metric, runs](const CaseContext& ctx) {
    const MarkovSolution exact = solve_markov(m);
    const auto results = run(markov_scenario(m), runs, ctx);
    std::vector<double> v;
    v.reserve(results.size());
    for (const auto& r : results) v.push_back(metric == MarkovMetric::attempts ? r.attempts_per_client : r.makespan);
    const double expected = metric == MarkovMetric::attempts ? exact.attempts_per_client : exact.makespan;
    CaseResult out;
    out.closed_form = fmt::format("Markov chain E[{}] = {} ({} states, residual {:.1e})",
                                  metric == MarkovMetric::attempts ? "attempts/N" : "makespan", g(expected),
                                  exact.states, exact.residual);
    // Runs are i.i.d. copies of the chain (no warm-up, no window): no edge effect. The solve's
    // residual bounds its error relative to the solution's scale, far below the statistical term.
    apply_mean_rule(out, v, expected, 0.0, "none: exact chain, i.i.d. runs", ctx.alpha);
    return out;
  });
}

}  // namespace retrylab::validation
