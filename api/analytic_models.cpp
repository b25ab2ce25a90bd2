// The models of analytic/ that predict what the engine finds, as documents (api/analytic.hpp):
// markov (exact), steady and burst (estimates). Every range check is the library's, which names the
// field; the limits on work (a chain too large, a horizon or threshold too far) are checked before.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <string>

#include "analytic/burst.hpp"
#include "analytic/error.hpp"
#include "analytic/markov.hpp"
#include "analytic/steady.hpp"
#include "analytic/strategy.hpp"
#include "api/analytic_parts.hpp"

namespace retrylab::api::detail {

namespace {

Document inputs_of(const Options& o, const Backoff& b) {
  Document in{{"model", o.model},
              {"strategy", std::string(to_string(b.strategy))},
              {"base", b.base},
              {"cap", std::isinf(b.cap) ? Document("none") : Document(b.cap)}};
  if (b.strategy == Strategy::window) in["window"] = b.window;
  return in;
}

// ---- the limits on work, checked before any (api/analytic.hpp) ------------------------------

// The chain's stages: the first k with w_k = min(cap, base·2^(k−1)) = cap (analytic/markov.cpp).
int stages(const Backoff& b) {
  int k = 1;
  while (window_width(b, k) < b.cap && k <= 40) ++k;
  return k;
}

// On collision the chain of N clients outgrows a solve of seconds past these many stages; on free
// it stays under 4,100 states at any N and stage (docs/cli.md "analytic markov").
void check_markov_work(const MarkovBurst& m) {
  if (m.model != Model::collision || m.clients < 1 || m.clients > markov_max_clients) return;
  const MarkovLimit& l = markov_collision_limits[static_cast<std::size_t>(m.clients)];
  if (stages(m.backoff) <= l.stages) return;
  throw InputError(
      "cap", fmt::format("must be <= {} for analytic markov on collision with {} clients (base {}: {} "
                         "stages, a chain of {} states; each stage more multiplies the states and "
                         "the solve's time and memory)",
                         m.backoff.base * std::exp2(l.stages - 1), m.clients, m.backoff.base, l.stages, l.states));
}

// The ODE's step is at most about the shortest mean sleep (the first stage's; its phases are
// faster still), so a horizon of many of them cannot finish.
void check_burst_work(const BurstModel& m) {
  const double shortest = stage_means(m.backoff).front();
  if (m.horizon <= burst_max_sleeps * shortest) return;
  throw InputError("horizon", fmt::format("must be <= {} for analytic burst with this backoff (the first stage's "
                                          "mean sleep is {}: {:g} of them at most, the ODE's steps grow with "
                                          "horizon / sleep) (got {})",
                                          burst_max_sleeps * shortest, shortest, burst_max_sleeps, m.horizon));
}

}  // namespace

Document markov(const AnalyticValues& v) {
  const Options o = options_of(v);
  const MarkovBurst m{model_of(o.model), backoff_of(o), o.clients};
  check_markov(m);
  check_markov_work(m);
  const MarkovSolution s = solve_markov(m);
  Document in = inputs_of(o, m.backoff);
  in["clients"] = m.clients;
  Document doc{{"model", "markov"}, {"inputs", in}};
  doc["attempts_per_client"] = s.attempts_per_client;
  doc["makespan"] = s.makespan;
  doc["states"] = s.states;
  doc["transitions"] = s.transitions;
  doc["stages"] = s.stages;
  doc["row_sum_error"] = s.row_sum_error;
  doc["residual"] = s.residual;
  doc["kind"] = "exact";
  doc["assumptions"] =
      "N clients start together at t = 0, alone (no steady load), retries on; memoryless sleeps Exp(mean w_k/2); "
      "exponential attempt durations of mean 1 (the engine's service = exponential)";
  doc["accuracy"] = "exact up to the sparse LU solve: residual as printed (relative)";
  doc["proof"] =
      "proofs/Markov.v: generator_rows_sum_zero, generator_assembled_rows_sum_zero (each generator row, as assembled "
      "from its triplets, sums to 0; row_sum_error checks it)";
  return doc;
}

Document steady(const AnalyticValues& v) {
  const Options o = options_of(v);
  if (o.rate && !(*o.rate >= 0.0 && *o.rate < 1.0))
    throw InputError("rate", fmt::format("must be in [0, 1) (got {})", *o.rate));
  // Its passage sums run over every backlog level up to K, 8 bytes a level (1e8: 11 s and 0.8 GB).
  if (o.collapse > steady_max_collapse)
    throw InputError("collapse", fmt::format("must be <= {:g} for analytic steady (the passage times sum over every "
                                             "backlog level up to it) (got {})",
                                             steady_max_collapse, o.collapse));
  const SteadyModel sm{model_of(o.model), backoff_of(o)};
  const MeanField f(sm);
  Document in = inputs_of(o, sm.backoff);
  if (o.rate) in["rate"] = *o.rate;
  in["collapse"] = o.collapse;
  in["horizon"] = o.horizon;
  Document doc{{"model", "steady"}, {"inputs", in}};
  doc["fold_load"] = number(f.fold_load(1e6).value_or(NAN));
  const CollapseLoads c = collapse_loads(f, o.collapse, o.horizon);
  doc["collapse_load_escape"] = number(c.escape);
  doc["collapse_load_no_escape"] = number(c.no_escape);
  doc["collapse_load_passage"] = number(c.passage);
  if (o.rate) {
    Document points = Document::array();
    for (const FixedPoint& p : f.fixed_points(*o.rate, 1e6))
      points.push_back({{"backlog", p.backlog}, {"stable", p.stable}, {"attempt_rate", f.attempt_rate(p.backlog)}});
    doc["fixed_points"] = points;
    // The metastable picture at this load: the mean time of the birth–death backlog from 0 to K, and
    // to the unstable point (the escape over the barrier), if there is one below K.
    if (*o.rate > 0.0) {
      doc["passage_time"] = number(backlog_passage_time(f, o.collapse, *o.rate));
      for (const FixedPoint& p : f.fixed_points(*o.rate, 1e6))
        if (!p.stable && p.backlog < o.collapse) {
          doc["escape_time"] = number(backlog_passage_time(f, std::max(1.0, std::ceil(p.backlog)), *o.rate));
          break;
        }
    }
  }
  doc["kind"] = "estimate";
  doc["assumptions"] =
      "mean field: independent failures with one probability p, backlog spread over the stages as in the renewal, "
      "attempts a Poisson stream of rate G(n) = n·A(p)/B(p); S(n) = G(1−p); collapse when the backlog reaches "
      "collapse within horizon (escape: over the unstable point at once; no_escape: by the drift alone; passage: "
      "the backlog as a birth-death chain, up at the load and down at S(n), whose mean first-passage time from 0 to "
      "collapse is at most horizon)";
  doc["accuracy"] = "an estimate: see analytic/README.md for its errors against paper 1's simulated thresholds";
  doc["proof"] =
      "of the model's equations, not of its accuracy: proofs/Steady.v: mean_field_attempt_rate, "
      "mean_field_collision_fixed_points, mean_field_free_fixed_point, mean_field_shared_fixed_points (one attempt "
      "rate per backlog; two fixed points below the peak, stable then unstable; one on free; none above)";
  return doc;
}

Document burst(const AnalyticValues& v) {
  const Options o = options_of(v);
  BurstModel m{model_of(o.model), backoff_of(o), o.clients, o.rate.value_or(0.05), o.horizon, o.collapse};
  check_burst_model(m);
  check_burst_work(m);
  const BurstPrediction p = predict_burst(m);
  Document in = inputs_of(o, m.backoff);
  in["clients"] = m.clients;
  in["rate"] = m.rate;
  in["horizon"] = m.horizon;
  in["collapse"] = m.collapse;
  Document doc{{"model", "burst"}, {"inputs", in}};
  doc["drained"] = p.drained;
  doc["collapsed"] = p.collapsed;
  doc["drain_time"] = number(p.drain_time);
  doc["drain_time_p99"] = number(p.drain_time_p99);
  doc["peak_backlog"] = p.peak_backlog;
  doc["burst_left"] = p.burst_left;
  doc["conservation_error"] = std::abs(p.burst_left + p.burst_successes - static_cast<double>(m.clients));
  if (o.find_cap) doc["cap_threshold"] = number(burst_cap_threshold(m).value_or(NAN));
  doc["kind"] = "estimate";
  doc["assumptions"] =
      "stage ODEs: a stage-k client retries at rate 1/m_k (mean sleep), attempts a Poisson stream of rate G, "
      "success P(G); attempt durations neglected; drained when under 1/2 burst client remains (99%: B/100); "
      "find_cap: the smallest cap base·2^(i/8) that drains";
  doc["accuracy"] =
      "an estimate: see analytic/README.md for its errors against paper 1's simulated cap thresholds "
      "and drain times; blind to lock-step (nojitter)";
  doc["proof"] =
      "of the model's equations, not of its accuracy: proofs/Stages.v: stage_model_conservation (no client is "
      "created or lost; conservation_error checks it)";
  return doc;
}

}  // namespace retrylab::api::detail
