// 17. Replicas behind a load balancer (components/replicas.hpp).
// (a) k independent M/M/c queues (analytic/erlang.hpp, proofs/ErlangC.v: mmc_mean_wait_sum): Poisson arrivals at
// rate λ on model `none`, exponential service of mean 1, k replicas each of limit c with a queue,
// random balancing. Each attempt goes to a replica uniformly and independently of everything else,
// so each replica sees a Poisson stream of rate λ/k (thinning) and is an M/M/c queue of load
// a = λ/k, independent of the others: the mean wait in queue is W = C(c, a)/(c − a) (Erlang C).
// The estimator, per run: no failure and no retry, so the clients waiting are exactly the attempts
// at the replicas, queued or in service, and the time-average number over [T0, T) (mean_waiting)
// has stationary mean λ(W + 1) (Little's law over the k replicas): y = mean_waiting/λ − 1 has mean
// W, a time average with no ratio bias. The start-up transient: the run starts empty; T0 = 20τ
// with τ = 1/(√c − √a)² (the M/M/c relaxation time in heavy traffic, as the lock cases use
// 1/(1 − √ρ)² for M/M/1), so the floor e^(−T0/τ)·λ(W + 1)/λ = e^(−20)(W + 1) is below 10^-8: the rule
// is in effect t·sd/√n alone. "replica-mmc-k<k>-c<c>-l<λ>".
// (b) One hedged request over two independent replicas (analytic/hedge.hpp, proofs/Hedge.v: hedge_mean): one
// request a run (a burst of one, runs i.i.d., so no two requests overlap), 2 replicas each of limit
// 1 with a queue, exponential service, hedge_attempts 2 after delay d, replica_retry other: the
// hedge finds the other replica idle and starts at d, so L = min(S1, d + S2) exactly, the closed
// form of case 13 now with each attempt behind its replica's limit. "replica-hedge-other-…" hold the
// runs' mean latency to 1 − e^(−d)/2 and the fraction a hedge answered to e^(−d)/2. The contrast,
// "replica-hedge-same-latency-d<d>": one server of limit 1 with its queue, the same hedge: the copy
// waits behind its original in the FIFO queue and starts only once the original has answered, so
// L = S1 and the mean latency is 1 whatever d (tests/montecarlo/replicas_test.cpp checks that no
// such hedge ever wins). hedge_cancel is off (a queued copy is not cancelled yet; the request's
// latency is the same either way, and each run is one request). Each is the mean rule at the case's α over i.i.d. runs
// (fixed suite seed), floor 0: every run is one request from an empty system.
#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "analytic/erlang.hpp"
#include "analytic/hedge.hpp"
#include "validation/catalogue.hpp"
#include "validation/rules.hpp"

namespace retrylab::validation {

using namespace detail;

namespace {

struct MmcCase {
  std::int64_t replicas, servers;  // k, c
  double rate;                     // λ, over all replicas
  double horizon;                  // T; T0 = 20τ
  double load() const { return rate / static_cast<double>(replicas); }
  double relaxation() const {
    const double gap = std::sqrt(static_cast<double>(servers)) - std::sqrt(load());
    return 1.0 / (gap * gap);
  }
  double warmup() const { return std::ceil(20.0 * relaxation()); }
};

montecarlo::Scenario mmc_scenario(const MmcCase& m) {
  montecarlo::Scenario s;
  s.model = Model::none;
  s.backoff = Backoff{Strategy::full, 1.0, 1000.0, 0.0};  // never used: nothing fails
  s.traffic.rate = m.rate;
  s.resource.service = montecarlo::ServiceDist::exponential;
  s.admission.limit = m.servers;
  s.admission.overflow = montecarlo::Overflow::queue;
  s.replicas.count = m.replicas;
  s.replicas.balancer = montecarlo::Balancer::random;
  s.measurement.horizon = m.horizon;
  s.measurement.warmup = m.warmup();
  s.measurement.collapse = montecarlo::max_collapse;
  return s;
}

ValidationCase mmc_case(const MmcCase& m, std::int64_t runs) {
  const double expected = mmc_mean_wait(m.servers, m.load());
  const std::string name = fmt::format("replica-mmc-k{}-c{}-l{}", m.replicas, m.servers, g(m.rate));
  const std::string params = fmt::format(
      "model=none service=exponential λ={} replicas={} balancer=random limit={} overflow=queue T={} T0={} runs={}",
      g(m.rate), m.replicas, m.servers, g(m.horizon), g(m.warmup()), runs);
  const double cost = static_cast<double>(runs) * m.rate * m.horizon * 3e-7;
  return make_case(name, params, CaseKind::statistical, cost, [m, expected, runs](const CaseContext& ctx) {
    const auto results = run(mmc_scenario(m), runs, ctx);
    std::vector<double> v;
    v.reserve(results.size());
    for (const auto& r : results) v.push_back(r.mean_waiting / m.rate - 1.0);
    CaseResult out;
    out.closed_form = fmt::format("W = C(c={}, a=λ/k={})/(c − a) = {} (Erlang C; y = mean_waiting/λ − 1)", m.servers,
                                  g(m.load()), g(expected));
    apply_mean_rule(out, v, expected, std::exp(-m.warmup() / m.relaxation()) * (expected + 1.0),
                    "the empty start: e^(−T0/τ)(W + 1), T0 = 20τ, τ = 1/(√c − √a)²", ctx.alpha);
    return out;
  });
}

enum class HedgeOn { other, same };
enum class ReplicaHedgeMetric { latency, won };

montecarlo::Scenario replica_hedge_scenario(HedgeOn on, double delay) {
  montecarlo::Scenario s;
  s.model = Model::none;
  s.backoff = Backoff{Strategy::full, 1.0, 1000.0, 0.0};
  s.traffic.clients = 1;
  s.resource.service = montecarlo::ServiceDist::exponential;
  s.admission.limit = 1;
  s.admission.overflow = montecarlo::Overflow::queue;
  s.client.hedge.attempts = 2;
  s.client.hedge.delay = delay;
  s.client.hedge.cancel = false;  // a queued copy cannot be cancelled today; L is the same either way
  if (on == HedgeOn::other) {
    s.replicas.count = 2;
    s.replicas.retry = montecarlo::ReplicaRetry::other;
  }
  return s;
}

ValidationCase replica_hedge_case(HedgeOn on, ReplicaHedgeMetric metric, double delay, std::int64_t runs) {
  const HedgedOnce h{delay, 1.0};
  check_hedge(h);
  const std::string name = fmt::format("replica-hedge-{}-{}-d{}", on == HedgeOn::other ? "other" : "same",
                                       metric == ReplicaHedgeMetric::latency ? "latency" : "won", g(delay));
  const std::string params = fmt::format(
      "model=none service=exponential N=1 limit=1 overflow=queue {} hedge_attempts=2 hedge_delay={} hedge_cancel=off "
      "runs={}",
      on == HedgeOn::other ? "replicas=2 replica_retry=other" : "replicas=1", g(delay), runs);
  const double cost = static_cast<double>(runs) * 2e-5;
  return make_case(name, params, CaseKind::statistical, cost, [h, on, metric, runs](const CaseContext& ctx) {
    const auto results = run(replica_hedge_scenario(on, h.delay), runs, ctx);
    std::vector<double> v;
    v.reserve(results.size());
    for (const auto& r : results)
      v.push_back(metric == ReplicaHedgeMetric::latency ? r.latency : r.metric("hedge_wins"));
    CaseResult out;
    double expected = 0.0;
    if (on == HedgeOn::same) {
      expected = 1.0;
      out.closed_form = "E[S1] = 1 (the copy never overtakes its original in the FIFO queue)";
    } else if (metric == ReplicaHedgeMetric::latency) {
      expected = hedge_mean_latency(h);
      out.closed_form = fmt::format("E[min(S1, d + S2)] = 1 − e^(−d)/2 = {}", g(expected));
    } else {
      expected = std::exp(-h.delay) / 2.0;
      out.closed_form = fmt::format("P(d + S2 < S1) = e^(−d)/2 = {}", g(expected));
    }
    apply_mean_rule(out, v, expected, 0.0, "none: one request a run, from an empty system", ctx.alpha);
    return out;
  });
}

}  // namespace

std::vector<ValidationCase> replica_cases(Scale scale) {
  const bool full = scale == Scale::full;
  std::vector<ValidationCase> out;
  const std::int64_t mmc_runs = full ? 200 : 48;
  // 4 replicas of M/M/2 at a = 1.5 (ρ = 0.75, W = 1.286); 3 of M/M/1 at a = 0.7 (W = ρ/(1 − ρ) = 2.333).
  out.push_back(mmc_case(MmcCase{4, 2, 6.0, 3000.0}, mmc_runs));
  out.push_back(mmc_case(MmcCase{3, 1, 2.1, 3000.0}, mmc_runs));
  const std::int64_t hedge_runs = full ? 20000 : 4000;
  for (double delay : {0.5, 2.0}) {
    out.push_back(replica_hedge_case(HedgeOn::other, ReplicaHedgeMetric::latency, delay, hedge_runs));
    out.push_back(replica_hedge_case(HedgeOn::other, ReplicaHedgeMetric::won, delay, hedge_runs));
  }
  out.push_back(replica_hedge_case(HedgeOn::same, ReplicaHedgeMetric::latency, 0.5, hedge_runs));
  return out;
}

}  // namespace retrylab::validation
