// `retrylab analytic markov|steady|burst`: the models that predict what the engine finds
// (analytic/markov.hpp exact; analytic/steady.hpp and analytic/burst.hpp estimates). Parses, calls
// the library, formats; the library checks every range and names the field.
#include <fmt/format.h>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "analytic/burst.hpp"
#include "analytic/error.hpp"
#include "analytic/markov.hpp"
#include "analytic/steady.hpp"
#include "cli/analytic_models.hpp"

namespace retrylab::cli {

namespace {

using Json = nlohmann::ordered_json;

Json number(double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); }

struct ModelOptions {
  OutputFormat format = OutputFormat::table;
  std::string model = "collision", strategy = "full", cap = "1000";
  double base = 1.0, window = 0.0, collapse = 3000.0, horizon = 20000.0;
  std::optional<double> rate;
  std::int64_t clients = 0;
  bool find_cap = false;
};

Model model_of(const std::string& name) {
  if (auto m = parse_model(name)) return *m;
  throw InputError("model", fmt::format("must be one of collision|free|shared|ps (got {})", name));
}

Strategy strategy_of(const std::string& name) {
  if (auto s = parse_strategy(name)) return *s;
  throw InputError(
      "strategy", fmt::format("must be one of none|nojitter|full|equal|decorrelated|window|memoryless (got {})", name));
}

Backoff backoff_of(const ModelOptions& o) {
  return Backoff{strategy_of(o.strategy), o.base, parse_cap(o.cap), o.window};
}

Json inputs(const ModelOptions& o, const Backoff& b) {
  Json in{{"model", o.model},
          {"strategy", std::string(to_string(b.strategy))},
          {"base", b.base},
          {"cap", std::isinf(b.cap) ? Json("none") : Json(b.cap)}};
  if (b.strategy == Strategy::window) in["window"] = b.window;
  return in;
}

int run_markov(const ModelOptions& o) {
  const MarkovBurst m{model_of(o.model), backoff_of(o), o.clients};
  const MarkovSolution s = solve_markov(m);
  Json in = inputs(o, m.backoff);
  in["clients"] = m.clients;
  Json doc{{"model", "markov"}, {"inputs", in}};
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
      "exponential attempt durations of mean 1 (simulate with --service exponential)";
  doc["accuracy"] = "exact up to the sparse LU solve: residual as printed (relative)";
  doc["proof"] =
      "proofs/Markov.v: generator_rows_sum_zero, generator_assembled_rows_sum_zero (each generator row, as assembled "
      "from its triplets, sums to 0; row_sum_error checks it)";
  return print_analytic(doc, o.format);
}

int run_steady(const ModelOptions& o) {
  if (o.rate && !(*o.rate >= 0.0 && *o.rate < 1.0))
    throw InputError("rate", fmt::format("must be in [0, 1) (got {})", *o.rate));
  const SteadyModel sm{model_of(o.model), backoff_of(o)};
  const MeanField f(sm);
  Json in = inputs(o, sm.backoff);
  if (o.rate) in["rate"] = *o.rate;
  in["collapse"] = o.collapse;
  in["horizon"] = o.horizon;
  Json doc{{"model", "steady"}, {"inputs", in}};
  doc["fold_load"] = number(f.fold_load(1e6).value_or(NAN));
  const CollapseLoads c = collapse_loads(f, o.collapse, o.horizon);
  doc["collapse_load_escape"] = number(c.escape);
  doc["collapse_load_no_escape"] = number(c.no_escape);
  doc["collapse_load_passage"] = number(c.passage);
  if (o.rate) {
    Json points = Json::array();
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
      "--collapse within --horizon (escape: over the unstable point at once; no_escape: by the drift alone; passage: "
      "the backlog as a birth-death chain, up at the load and down at S(n), whose mean first-passage time from 0 to "
      "--collapse is at most --horizon)";
  doc["accuracy"] = "an estimate: see analytic/README.md for its errors against paper 1's simulated thresholds";
  doc["proof"] =
      "of the model's equations, not of its accuracy: proofs/Steady.v: mean_field_attempt_rate, "
      "mean_field_collision_fixed_points, mean_field_free_fixed_point, mean_field_shared_fixed_points (one attempt "
      "rate per backlog; two fixed points below the peak, stable then unstable; one on free; none above)";
  return print_analytic(doc, o.format);
}

int run_burst(const ModelOptions& o) {
  BurstModel m{model_of(o.model), backoff_of(o), o.clients, o.rate.value_or(0.05), o.horizon, o.collapse};
  const BurstPrediction p = predict_burst(m);
  Json in = inputs(o, m.backoff);
  in["clients"] = m.clients;
  in["rate"] = m.rate;
  in["horizon"] = m.horizon;
  in["collapse"] = m.collapse;
  Json doc{{"model", "burst"}, {"inputs", in}};
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
      "--find-cap: the smallest cap base·2^(i/8) that drains";
  doc["accuracy"] =
      "an estimate: see analytic/README.md for its errors against paper 1's simulated cap thresholds "
      "and drain times; blind to lock-step (nojitter)";
  doc["proof"] =
      "of the model's equations, not of its accuracy: proofs/Stages.v: stage_model_conservation (no client is "
      "created or lost; conservation_error checks it)";
  return print_analytic(doc, o.format);
}

void common_options(CLI::App* sub, ModelOptions& o) {
  sub->add_option("--model", o.model, "collision|free (markov), collision|free|shared (steady)")->capture_default_str();
  sub->add_option("--strategy", o.strategy, "Backoff strategy")->capture_default_str();
  sub->add_option("--base", o.base, "Base b > 0")->capture_default_str();
  sub->add_option("--cap", o.cap, "Cap c >= base (finite)")->capture_default_str();
  sub->add_option("--window", o.window, "Window W > 0 (window strategy only)")->capture_default_str();
}

}  // namespace

void add_analytic_model_commands(CLI::App* analytic, Action& action) {
  auto make = [&](const std::string& name, const std::string& help, int (*run)(const ModelOptions&)) {
    auto opts = std::make_shared<ModelOptions>();
    CLI::App* sub = analytic->add_subcommand(name, help);
    add_format_options(sub, opts->format);
    common_options(sub, *opts);
    sub->callback([opts, run, &action] { action = [opts, run] { return run(*opts); }; });
    return std::pair{sub, opts};
  };
  {
    auto [sub, o] = make(
        "markov", "EXACT classic test of N <= 8 clients as a Markov chain (memoryless sleeps, exponential service)",
        run_markov);
    o->strategy = "memoryless";
    o->cap = "8";
    sub->add_option("--clients", o->clients, "N in [1, 8] (required)")->required();
  }
  {
    auto [sub, o] =
        make("steady", "ESTIMATE (mean field) of steady traffic: fixed points of the backlog, fold and collapse loads",
             run_steady);
    sub->add_option("--rate", o->rate, "Load λ in [0, 1): prints the fixed points of the backlog at this load");
    sub->add_option("--collapse", o->collapse, "Collapse threshold K >= 1")->capture_default_str();
    sub->add_option("--horizon", o->horizon, "Horizon T > 0 of the runs")->capture_default_str();
  }
  {
    auto [sub, o] =
        make("burst", "ESTIMATE (stage ODEs) of a burst on steady load: drain, drain time, smallest draining cap",
             run_burst);
    o->horizon = 60000.0;
    sub->add_option("--clients", o->clients, "Burst size B in [2, 1e9] (required)")->required();
    sub->add_option("--rate", o->rate, "Steady load λ in [0, 1) (default 0.05)");
    sub->add_option("--collapse", o->collapse, "Collapse threshold K >= 1")->capture_default_str();
    sub->add_option("--horizon", o->horizon, "Horizon T > 0")->capture_default_str();
    sub->add_flag("--find-cap", o->find_cap,
                  "Also search the smallest cap base·2^(i/8) that drains (--cap is then ignored for it)");
  }
}

}  // namespace retrylab::cli
