// 15. A fixed limit on retries in flight without contention (analytic/erlang.hpp,
// components/retries_in_flight.hpp): steady Poisson arrivals of rate λ on model `none` (each attempt
// served alone for exactly 1), each attempt failing independently with probability p
// (failure_prob), max_attempts 2 (a request asks at most one retry), retries_in_flight = c. The
// retries asked are the first attempts' failures: a Poisson stream of rate λp (the arrivals shifted
// by 1 and thinned). Each granted retry holds its place from its scheduling through its sleep
// until its attempt ends: holding time sleep + 1, independent of everything else. So the places
// taken are an M/G/c/c loss system and the fraction of retries denied is Erlang B(c, a),
// a = λp·(E[sleep] + 1), whatever the sleep's law (insensitivity: two backoffs of the same mean,
// full jitter base 2 (sleep U(0, 2)) and nojitter base 1 (sleep 1), both a = 2λp).
// The estimator, per run: the retries sent in [T0, T) are (attempt_rate − arrival_rate)·(T − T0)
// (every attempt that is not a first attempt is a retry; first attempts start at their arrival),
// of expected λp(1 − B)(T − T0) in steady state (the send times of a stationary stream of granted
// retries are stationary), so y = 1 − (attempt_rate − arrival_rate)/(λp) has mean B. The run
// starts with no retry in flight; after any stretch of h_max = max sleep + 1 with no retry asked
// every place is free whatever the start, so the run agrees with a stationary one from T0 − h_max on
// unless no such stretch fell in [0, T0 − h_max − 1): probability below
// (1 − e^(−λp·h_max))^⌊(T0 − 4)/h_max⌋ < 10^-7 (λp = 1, h_max <= 3, T0 = 1000). Even then y moves by
// at most the asks from T0 − h_max on over λp(T − T0) (about 1, independent of that event): the
// empty start biases y by less than 2·10^-7. Floor 10^-6.
// "rif-erlang-b-c<c>-<strategy>": the mean rule at the case's α over i.i.d. runs.
#include <fmt/format.h>

#include <vector>

#include "analytic/erlang.hpp"
#include "analytic/sleep.hpp"
#include "validation/catalogue.hpp"
#include "validation/rules.hpp"

namespace retrylab::validation {

using namespace detail;

namespace {

struct LossCase {
  std::int64_t places;  // c
  double rate;          // λ
  double failure_prob;  // p
  Backoff backoff;      // its retry 1's sleep: mean and bound
  double warmup, horizon;
};

montecarlo::Scenario loss_scenario(const LossCase& l) {
  montecarlo::Scenario s;
  s.model = Model::none;  // no contention: each attempt served alone for exactly 1
  s.backoff = l.backoff;
  s.traffic.rate = l.rate;
  s.measurement.horizon = l.horizon;
  s.measurement.warmup = l.warmup;
  s.failures.failure_prob = l.failure_prob;
  s.client.max_attempts = 2;
  s.client.retries_in_flight = l.places;
  return s;
}

ValidationCase loss_case(const LossCase& l, std::int64_t runs) {
  const double mean_sleep = SleepDistribution(l.backoff, 1).mean();
  const double load = retries_in_flight_load(l.rate, l.failure_prob, mean_sleep, 1.0);
  const double expected = erlang_b(l.places, load);
  const std::string name = fmt::format("rif-erlang-b-c{}-{}", l.places, to_string(l.backoff.strategy));
  const std::string params =
      fmt::format("model=none λ={} failure_prob={} max_attempts=2 retries_in_flight={} {} T={} T0={} runs={}",
                  g(l.rate), g(l.failure_prob), l.places, backoff_text(l.backoff), g(l.horizon), g(l.warmup), runs);
  const double cost = static_cast<double>(runs) * l.rate * l.horizon * 3e-7;
  return make_case(name, params, CaseKind::statistical, cost, [l, load, expected, runs](const CaseContext& ctx) {
    const auto results = run(loss_scenario(l), runs, ctx);
    const double asked = l.rate * l.failure_prob;
    std::vector<double> v;
    v.reserve(results.size());
    for (const auto& r : results) v.push_back(1.0 - (r.attempt_rate - r.arrival_rate) / asked);
    CaseResult out;
    out.closed_form = fmt::format("Erlang B(c={}, a=λp·(E[sleep]+1)={}) = {}", l.places, g(load), g(expected));
    apply_mean_rule(out, v, expected, 1e-6,
                    "the empty start, forgotten after T0 except with probability < 10^-7 (an ask-free stretch of "
                    "h_max frees every place)",
                    ctx.alpha);
    return out;
  });
}

}  // namespace

std::vector<ValidationCase> retries_in_flight_cases(Scale scale) {
  const std::int64_t runs = scale == Scale::full ? 1000 : 200;
  const Backoff full{Strategy::full, 2.0, 1000.0, 0.0};       // retry 1 sleeps U(0, 2): mean 1
  const Backoff fixed{Strategy::nojitter, 1.0, 1000.0, 0.0};  // retry 1 sleeps exactly 1
  std::vector<ValidationCase> out;
  out.push_back(loss_case({3, 2.0, 0.5, full, 1000.0, 5000.0}, runs));   // a = 2: B = 4/19
  out.push_back(loss_case({3, 2.0, 0.5, fixed, 1000.0, 5000.0}, runs));  // the same a, another holding law
  out.push_back(loss_case({1, 2.0, 0.5, full, 1000.0, 5000.0}, runs));   // B(1, 2) = 2/3
  return out;
}

}  // namespace retrylab::validation
