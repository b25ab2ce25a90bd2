// 13. One hedge without contention (analytic/hedge.hpp): a burst of N clients on model `none` with
// exponential service (mean 1), hedge_attempts 2 and delay d, held to the closed form of
// L = min(S1, d + S2). Every request succeeds (no failure), so each run holds N i.i.d. latencies:
//  - "hedge-latency-d<d>": the run's mean latency against 1 − e^(−d)/2;
//  - "hedge-sent-d<d>": hedges/N, the fraction of requests still waiting at d, against P(L > d) = e^(−d);
//  - "hedge-won-d<d>": hedge_wins/N against P(d + S2 < S1) = e^(−d)/2;
//  - "hedge-cdf-p50-d<d>", "hedge-cdf-p99-d<d>": the closed form's CDF at the run's nearest-rank
//    quantile X_(k), k = ⌈p·N⌉ (latency_p50, latency_p99). For a continuous F, F(X_(k)) is the k-th
//    order statistic of N uniforms, Beta(k, N − k + 1), of mean k/(N + 1) exactly: a test of the
//    closed form's CDF at two points without binning.
// Each is the mean rule at the case's α over i.i.d. runs (fixed suite seed), floor 0: no edge effect.
#include <fmt/format.h>
#include <cmath>
#include <vector>

#include "analytic/hedge.hpp"
#include "validation/catalogue.hpp"
#include "validation/rules.hpp"

namespace retrylab::validation {

using namespace detail;

namespace {

enum class HedgeMetric { latency, sent, won, cdf_p50, cdf_p99 };

montecarlo::Scenario hedge_scenario(double delay, std::int64_t clients) {
  montecarlo::Scenario s;
  s.model = Model::none;
  s.backoff = Backoff{Strategy::full, 1.0, 1000.0, 0.0};
  s.traffic.clients = clients;
  s.resource.service = montecarlo::ServiceDist::exponential;
  s.client.hedge.attempts = 2;
  s.client.hedge.delay = delay;
  return s;
}

ValidationCase hedge_case(double delay, HedgeMetric metric, std::int64_t clients, std::int64_t runs) {
  const HedgedOnce h{delay, 1.0};
  check_hedge(h);
  const char* key = metric == HedgeMetric::latency   ? "latency"
                    : metric == HedgeMetric::sent    ? "sent"
                    : metric == HedgeMetric::won     ? "won"
                    : metric == HedgeMetric::cdf_p50 ? "cdf-p50"
                                                     : "cdf-p99";
  const std::string name = fmt::format("hedge-{}-d{}", key, g(delay));
  const std::string params = fmt::format("model=none service=exponential N={} hedge_attempts=2 hedge_delay={} runs={}",
                                         clients, g(delay), runs);
  const double cost = static_cast<double>(runs * clients) * 2e-4;
  return make_case(name, params, CaseKind::statistical, cost, [h, metric, clients, runs](const CaseContext& ctx) {
    const auto results = run(hedge_scenario(h.delay, clients), runs, ctx);
    const auto n = static_cast<double>(clients);
    const double p = metric == HedgeMetric::cdf_p50 ? 0.5 : 0.99;
    const double k = std::ceil(p * n);
    std::vector<double> v;
    v.reserve(results.size());
    for (const auto& r : results) {
      switch (metric) {
        case HedgeMetric::latency: v.push_back(r.latency); break;
        case HedgeMetric::sent: v.push_back(r.metric("hedges") / n); break;
        case HedgeMetric::won: v.push_back(r.metric("hedge_wins") / n); break;
        case HedgeMetric::cdf_p50: v.push_back(1.0 - hedge_survival(h, r.metric("latency_p50"))); break;
        case HedgeMetric::cdf_p99: v.push_back(1.0 - hedge_survival(h, r.metric("latency_p99"))); break;
      }
    }
    const double e = std::exp(-h.delay);
    CaseResult out;
    double expected = 0.0;
    switch (metric) {
      case HedgeMetric::latency:
        expected = hedge_mean_latency(h);
        out.closed_form = fmt::format("E[min(S1, d + S2)] = 1 − e^(−d)/2 = {}", g(expected));
        break;
      case HedgeMetric::sent:
        expected = hedge_survival(h, h.delay);
        out.closed_form = fmt::format("P(L > d) = e^(−d) = {}", g(expected));
        break;
      case HedgeMetric::won:
        expected = e / 2.0;
        out.closed_form = fmt::format("P(d + S2 < S1) = e^(−d)/2 = {}", g(expected));
        break;
      default:
        expected = k / (n + 1.0);
        out.closed_form = fmt::format("E[F(X_(k))] = k/(N+1) = {} (k = {}, F the closed-form CDF)", g(expected), k);
        break;
    }
    apply_mean_rule(out, v, expected, 0.0, "none: i.i.d. requests, no edge effect", ctx.alpha);
    return out;
  });
}

}  // namespace

std::vector<ValidationCase> hedge_cases(Scale scale) {
  const std::int64_t runs = scale == Scale::full ? 2000 : 400;
  std::vector<ValidationCase> out;
  for (double delay : {0.5, 2.0})
    for (HedgeMetric m :
         {HedgeMetric::latency, HedgeMetric::sent, HedgeMetric::won, HedgeMetric::cdf_p50, HedgeMetric::cdf_p99})
      out.push_back(hedge_case(delay, m, 1000, runs));
  return out;
}

}  // namespace retrylab::validation
