// `retrylab analytic`: the closed forms of analytic/ (docs/cli.md). Parses, calls the library, formats;
// every range check lives in the library, which names the field (= the flag without "--").
#include <fmt/format.h>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "analytic/aloha.hpp"
#include "analytic/amplification.hpp"
#include "analytic/budget.hpp"
#include "analytic/classic.hpp"
#include "analytic/decorrelated.hpp"
#include "analytic/error.hpp"
#include "analytic/fluid_cap.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "analytic/sleep.hpp"
#include "cli/analytic_models.hpp"
#include "cli/common.hpp"
#include "cli/fluid_cap_band.hpp"

namespace retrylab::cli {

namespace {

using Json = nlohmann::ordered_json;

// ---- output ---------------------------------------------------------------------------------

std::string scalar_text(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  if (v.is_number_integer()) return fmt::format("{}", v.get<std::int64_t>());
  if (v.is_array()) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + scalar_text(v[i]);
    return s + "]";
  }
  return v.dump();
}

// Flattens {"inputs": {"rate": 1}} to ("inputs.rate", 1), keeping the document's order.
void flatten(const Json& doc, const std::string& prefix, std::vector<std::pair<std::string, Json>>& out) {
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it.value().is_object())
      flatten(it.value(), key, out);
    else
      out.emplace_back(key, it.value());
  }
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// The unit of time of a model's document: retry amplification and budgets count calls and tokens.
std::string_view unit_of(const std::string& model) {
  return model == "amplification" || model == "budget" ? units::none : units::attempt_duration;
}

// Nonfinite doubles have no JSON form: they are printed as null there (and "inf" in table/csv).
int print(const Json& doc, OutputFormat format) {
  if (format == OutputFormat::json) {
    Json out = provenance(unit_of(doc.at("model").get<std::string>()));
    out.update(doc);
    std::fputs((out.dump(2) + "\n").c_str(), stdout);
    return 0;
  }
  std::vector<std::pair<std::string, Json>> rows;
  flatten(doc, "", rows);
  if (format == OutputFormat::csv) {
    std::string head, values;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      head += (i ? "," : "") + csv_field(rows[i].first);
      values += (i ? "," : "") + csv_field(scalar_text(rows[i].second));
    }
    std::fputs((head + "\n" + values + "\n").c_str(), stdout);
    return 0;
  }
  std::size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.first.size());
  for (const auto& r : rows)
    std::fputs(fmt::format("{:<{}}  {}\n", r.first, width, scalar_text(r.second)).c_str(), stdout);
  return 0;
}

Json number(double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); }
Json number(const std::optional<double>& x) { return x ? number(*x) : Json(nullptr); }
// A cap is a number, or the string "none" when unbounded (the CLI's own spelling).
Json cap_value(double cap) { return std::isinf(cap) ? Json("none") : Json(cap); }

Json document(const std::string& model, Json inputs, double value) {
  Json doc;
  doc["model"] = model;
  doc["inputs"] = std::move(inputs);
  doc["value"] = number(value);
  return doc;
}

void cite(Json& doc, const std::string& formula, const std::string& assumptions, const std::string& proof) {
  doc["formula"] = formula;
  doc["assumptions"] = assumptions;
  doc["proof"] = proof;
}

// ---- parsing helpers ------------------------------------------------------------------------

Strategy strategy_of(const std::string& flag, const std::string& name) {
  if (auto s = parse_strategy(name)) return *s;
  throw InputError(
      flag, fmt::format("must be one of none|nojitter|full|equal|decorrelated|window|memoryless (got {})", name));
}

Model model_of(const std::string& name) {
  if (auto m = parse_model(name)) return *m;
  throw InputError("--model", fmt::format("must be one of collision|free|shared|ps (got {})", name));
}

// ---- subcommands ----------------------------------------------------------------------------

struct Options {
  OutputFormat format = OutputFormat::table;
  std::optional<double> rate, goodput, load, quantile, sleep;
  double service = 1.0, base = 1.0, window = 0.0, failure = 1.0;
  std::string cap = "1000", strategy, model, preset = "aws-standard";
  int retry = 0, layers = 3, attempts = 3;
  std::int64_t clients = 0;
  std::optional<double> capacity, cost, refund, threshold;
  double successes = 0.0;
  double requests = 0.0;  // budget --preset finagle: requests in the ttl window
};

int run_aloha(const Options& o) {
  if (o.rate && o.goodput) throw InputError("--goodput", "cannot be combined with --rate (give one of them)");
  if (!o.rate && !o.goodput) throw InputError("--rate", "or --goodput is required (got neither)");
  const std::string assumptions =
      "Poisson attempts of duration 1, success iff no overlap (collision model), retries off";
  if (o.rate) {
    const PureAloha m{*o.rate};
    Json doc = document("aloha", Json{{"rate", m.rate}}, goodput(m));
    doc["success_probability"] = success_probability(m);
    doc["argmax"] = aloha_argmax();
    doc["max_goodput"] = aloha_max_goodput();
    cite(doc, "goodput = rate·e^(−2·rate); max 1/(2e) at rate 1/2", assumptions,
         "proofs/Aloha.v: aloha_max (also aloha_increasing, aloha_decreasing, aloha_max_bounds)");
    return print(doc, o.format);
  }
  const AlohaInverse inv = aloha_inverse(*o.goodput);
  Json doc = document("aloha", Json{{"goodput", *o.goodput}}, inv.low);
  doc["low"] = number(inv.low);
  doc["high"] = number(inv.high);
  doc["max_goodput"] = aloha_max_goodput();
  cite(doc, "rate·e^(−2·rate) = goodput: low = −W0(−2·goodput)/2 <= 1/2 <= high = −W−1(−2·goodput)/2 (value = low)",
       assumptions, "proofs/Aloha.v: aloha_inverse_low_unique, aloha_inverse_high_unique");
  return print(doc, o.format);
}

int run_occ(const Options& o) {
  if (!o.rate) throw InputError("--rate", "is required (got nothing)");
  const OccFree m{*o.rate};
  Json doc = document("occ", Json{{"rate", m.rate}}, goodput(m));
  doc["success_probability"] = success_probability(m);
  cite(doc, "goodput = rate/(1 + rate); success probability 1/(1 + rate)",
       "first-commit-wins, failures free (free model = M/D/1/1 loss), Poisson arrivals, attempt duration 1, "
       "retries off",
       "proofs/Occ.v: occ_throughput, occ_success_probability (also occ_bounds, occ_increasing)");
  return print(doc, o.format);
}

int run_ps(const Options& o) {
  if (!o.load) throw InputError("--load", "is required (got nothing)");
  const ProcessorSharing m{*o.load, o.service};
  Json doc = document("ps", Json{{"load", m.load}, {"service", m.service}}, mean_time(m));
  doc["mean_time"] = mean_time(m);
  doc["mean_number"] = mean_number(m);
  cite(doc, "mean time in system = service/(1 − load); mean number = load/(1 − load)",
       "Poisson arrivals, load < 1, steady state; M/G/1-PS insensitivity (Kleinrock 1967; Kelly 1979 §3.3): "
       "holds for any service distribution with that mean, so for deterministic service 1",
       "proofs/Ps.v: ps_mean_time, mm1_mean_number (via mm1_balance)");
  return print(doc, o.format);
}

Backoff backoff_of(const Options& o) {
  Backoff b;
  b.strategy = strategy_of("--strategy", o.strategy);
  b.base = o.base;
  b.cap = parse_cap(o.cap);
  b.window = o.window;
  return b;
}

Json backoff_inputs(const Backoff& b) {
  Json in;
  in["strategy"] = std::string(to_string(b.strategy));
  in["base"] = b.base;
  in["cap"] = cap_value(b.cap);
  if (b.strategy == Strategy::window) in["window"] = b.window;
  return in;
}

int run_sleep(const Options& o) {
  const Backoff b = backoff_of(o);
  const SleepDistribution d(b, o.retry);
  Json in = backoff_inputs(b);
  in["retry"] = o.retry;
  if (o.quantile) in["quantile"] = *o.quantile;
  const double m = d.mean();
  Json doc = document("sleep", in, o.quantile ? d.quantile(*o.quantile) : m);
  doc["mean"] = m;
  doc["quantile"] = o.quantile ? number(d.quantile(*o.quantile)) : Json(nullptr);
  doc["support"] = Json::array({d.lower(), d.upper()});
  doc["exact"] = d.exact();
  doc["accuracy"] = d.exact() ? Json(nullptr) : Json(decorrelated_accuracy(b, o.retry));
  std::string formula, proof;
  switch (b.strategy) {
    case Strategy::none:
      formula = "sleep = 0";
      proof = "definition (docs/models.md §2): point mass at 0";
      break;
    case Strategy::nojitter:
      formula = "sleep = w_k = min(cap, base·2^(k−1))";
      proof = "definition (docs/models.md §2): point mass at w_k";
      break;
    case Strategy::full:
      formula = "sleep ~ U(0, w_k), w_k = min(cap, base·2^(k−1)); mean w_k/2, quantile q·w_k";
      proof = "proofs/Sleep.v: full_mean, full_quantile";
      break;
    case Strategy::equal:
      formula = "sleep ~ w_k/2 + U(0, w_k/2), w_k = min(cap, base·2^(k−1)); mean 3w_k/4, quantile (1+q)·w_k/2";
      proof = "proofs/Sleep.v: equal_mean, equal_quantile, equal_full_mean";
      break;
    case Strategy::window:
      formula = "sleep ~ U(0, window) for every k; mean window/2, quantile q·window";
      proof = "proofs/Sleep.v: window_mean, window_quantile";
      break;
    case Strategy::memoryless:
      formula =
          "sleep ~ Exp(mean w_k/2), w_k = min(cap, base·2^(k−1)); F(t) = 1 − e^(−2t/w_k), quantile −(w_k/2)·ln(1−q)";
      proof = "definition (an exponential law: its mean and quantile are the textbook ones)";
      break;
    case Strategy::decorrelated:
      formula =
          "s_k = min(cap, U(base, 3·s_(k−1))), s_0 = base: law of s_k propagated numerically "
          "(F_k(t) = F_(k−1)(t/3) + (t − base)·E[1/(3s − base); s > t/3]); accuracy = estimated "
          "sup CDF error (grid 4× finer, Richardson)";
      proof = "numerical (no closed form); the step growth is proofs/Decorrelated.v: decorrelated_step_growth";
      break;
  }
  cite(doc, formula, fmt::format("the sleep before retry k = {} (after the k-th failure)", o.retry), proof);
  return print(doc, o.format);
}

int run_classic(const Options& o) {
  ClassicTest t;
  t.model = model_of(o.model);
  t.backoff = Backoff{strategy_of("--strategy", o.strategy), o.base, parse_cap(o.cap), 0.0};
  t.clients = o.clients;
  const ClassicResult r = classic(t);
  Json in{{"model", std::string(to_string(t.model))},
          {"strategy", std::string(to_string(t.backoff.strategy))},
          {"clients", t.clients},
          {"base", t.backoff.base},
          {"cap", cap_value(t.backoff.cap)}};
  Json doc = document("classic", in, r.makespan ? *r.makespan : NAN);
  doc["attempts_per_client"] = number(r.attempts_per_client);
  doc["makespan"] = number(r.makespan);
  doc["finishes"] = r.finishes;
  std::string formula;
  if (t.model == Model::collision)
    formula = "clients >= 2: every round all clients collide, never finishes; clients = 1: 1 attempt, makespan 1";
  else if (t.backoff.strategy == Strategy::none)
    formula = "attempts per client (N+1)/2, makespan N";
  else
    formula = "attempts per client (N+1)/2, makespan N + Σ_(k=1..N−1) min(cap, base·2^(k−1))";
  cite(doc, formula, "N clients start together at t = 0, attempt duration 1, no jitter (lock-step), no other traffic",
       t.model == Model::collision ? "proofs/Classic.v: classic_collision_never"
       : t.backoff.strategy == Strategy::none
           ? "proofs/Classic.v: classic_makespan_none, classic_attempts_per_client"
           : "proofs/Classic.v: classic_makespan_nojitter, classic_window_sum, classic_attempts_per_client");
  return print(doc, o.format);
}

int run_growth(const Options& o) {
  const double cap = parse_cap(o.cap);
  check_backoff(Backoff{Strategy::decorrelated, o.base, cap, 0.0});  // base and cap, even without --sleep
  const double limit = decorrelated_growth_limit();
  std::optional<double> step;
  if (o.sleep) step = decorrelated_step_growth(*o.sleep, o.base, cap);
  Json in{{"base", o.base}, {"cap", cap_value(cap)}, {"sleep", o.sleep ? Json(*o.sleep) : Json(nullptr)}};
  Json doc = document("growth", in, step ? *step : limit);
  doc["limit"] = limit;
  doc["step_growth"] = number(step);
  cite(doc,
       "E[ln(s_k/s_(k−1)) | s_(k−1) = sleep] = (3·ln g − g − r·ln r + r)/(3 − r), r = base/sleep, g = min(3, "
       "cap/sleep); limit ln 3 − 1 as sleep/base → ∞ (value = step growth when --sleep is given, else the limit)",
       "decorrelated jitter s_k = min(cap, U(base, 3·s_(k−1)))",
       "proofs/Decorrelated.v: decorrelated_step_growth, decorrelated_step_growth_limit, log_uniform_integral");
  return print(doc, o.format);
}

// The measured band of the estimate (cli/fluid_cap_band.hpp), or why a strategy has none.
Json fluid_cap_error_band(Strategy s) {
  const auto band = fluid_cap_band(s);
  if (!band) return Json(fluid_cap_unmeasured);
  return Json{{"ratio", "simulated threshold cap / estimate"},
              {"low", band->low},
              {"high", band->high},
              {"measured_at", fmt::format("collision, base 1, rate 0.05, B = {}..{} ({} comparisons)",
                                          band->min_clients, band->max_clients, band->rows)},
              {"source",
               "papers/cap-is-doing-the-work: validation table (fluid-cap cases: cap where half the runs drained) "
               "and burst_caps.csv, burst_long_caps.csv (least cap of a doubling grid where all runs drained)"}};
}

int run_fluid_cap(const Options& o) {
  if (!o.rate)
    throw InputError("--rate",
                     "is required: the steady Poisson load λ in [0, 1/(2e)) under the burst sets the cap "
                     "(--rate 0 for a pure burst, where the estimate is the base)");
  FluidCap f;
  f.clients = o.clients;
  f.rate = *o.rate;
  f.backoff = Backoff{strategy_of("--strategy", o.strategy), o.base, unbounded_cap, 0.0};
  const FluidCapEstimate e = fluid_cap(f);
  Json in{{"clients", f.clients},
          {"rate", f.rate},
          {"strategy", std::string(to_string(f.backoff.strategy))},
          {"base", f.backoff.base}};
  Json doc = document("fluid-cap", in, e.cap);
  doc["cap"] = e.cap;
  doc["upper_root"] = number(e.upper_root);
  doc["required_mean_sleep"] = e.required_mean_sleep;
  doc["mean_sleep_at_cap"] = mean_sleep_at_cap(f.backoff, e.cap);
  doc["estimate"] = true;
  doc["error_band"] = fluid_cap_error_band(f.backoff.strategy);
  cite(doc,
       "least cap c >= base with m(c) >= clients/(G* − rate) − 1, G* = −W−1(−2·rate)/2; m(c) = c (nojitter), c/2 "
       "(full), 3c/4 (equal), (5c² − base²)/(2(3c − base)) (decorrelated)",
       "ESTIMATE from a fluid argument on the collision model: burst clients all at the cap, offered load "
       "rate + clients/(m(c)+1) must stay at or below ALOHA's upper root G*; to be checked against the engine",
       "proofs/FluidCap.v: fluid_upper_root_unique, fluid_drain_criterion, fluid_cap_monotone");
  return print(doc, o.format);
}

int run_amplification(const Options& o) {
  const RetryAmplification m{o.layers, o.attempts, o.failure};
  Json in{{"layers", m.layers}, {"attempts", m.attempts}, {"failure", m.failure}};
  Json doc = document("amplification", in, expected_bottom_calls(m));
  doc["bound"] = amplification_bound(m);
  doc["top_failure_probability"] = top_failure_probability(m);
  cite(doc,
       "expected bottom calls per top request = Π_(l=0..layers−1) Σ_(i=0..attempts−1) failure^(i·attempts^l) "
       "<= attempts^layers (equality at failure = 1)",
       "every layer makes up to `attempts` attempts, bottom calls fail independently with probability `failure`",
       "proofs/Budget.v: amplification_expected, amplification_bound, amplification_exact");
  return print(doc, o.format);
}

// Finagle's RetryBudget: not a token bucket (deposits and withdrawals expire after
// ttl), so it has its own bound and takes --requests instead of the bucket's flags.
int run_finagle_budget(const Options& o) {
  const char* bucket_only = o.capacity    ? "--capacity"
                            : o.cost      ? "--cost"
                            : o.refund    ? "--refund"
                            : o.threshold ? "--threshold"
                                          : nullptr;
  if (bucket_only)
    throw InputError(bucket_only, "does not apply to --preset finagle (a token bucket's flag; give --requests)");
  if (o.successes != 0.0) throw InputError("--successes", "does not apply to --preset finagle (give --requests)");
  const FinagleBudget f{};
  const double value = finagle_max_retries(f, o.requests);
  Json in{{"preset", o.preset},
          {"ttl", f.ttl},
          {"min_retries_per_sec", f.min_retries_per_sec},
          {"percent_can_retry", f.percent_can_retry},
          {"requests", o.requests}};
  Json doc = document("budget", in, value);
  doc["max_retries"] = value;
  cite(doc,
       "retries in any ttl-long window ending at a retry <= min_retries_per_sec·ttl + percent_can_retry·requests in it",
       "Finagle RetryBudget (ttl 10 s, minRetriesPerSec 10, percentCanRetry 0.2): every request deposits 1000, a "
       "retry withdraws 1000/percentCanRetry while the balance of the last ttl plus the reserve covers it; entries "
       "expire after ttl (finagle-core RetryBudget.scala, TokenRetryBudget)",
       "not yet proved");
  return print(doc, o.format);
}

int run_budget(const Options& o) {
  if (o.preset == "finagle") return run_finagle_budget(o);
  if (o.requests != 0.0) throw InputError("--requests", "applies only to --preset finagle");
  TokenBucket t;
  if (o.preset == "aws-standard")
    t = aws_standard();
  else if (o.preset == "aws-standard-timeout")
    t = aws_standard_timeout();
  else if (o.preset == "grpc")
    t = grpc_throttling();
  else if (o.preset != "custom")
    throw InputError(
        "--preset",
        fmt::format("must be one of aws-standard|aws-standard-timeout|grpc|finagle|custom (got {})", o.preset));
  if (o.preset == "custom")  // no preset behind it: every bucket parameter is the user's (threshold 0 unless given)
    for (const auto& [flag, given] : {std::pair{"--capacity", o.capacity.has_value()},
                                      {"--cost", o.cost.has_value()},
                                      {"--refund", o.refund.has_value()}})
      if (!given) throw InputError(flag, "is required with --preset custom (a custom bucket has no preset values)");
  if (o.capacity) t.capacity = *o.capacity;
  if (o.cost) t.retry_cost = *o.cost;
  if (o.refund) t.refund = *o.refund;
  if (o.threshold) t.threshold = *o.threshold;
  Json in{{"preset", o.preset}, {"capacity", t.capacity},   {"cost", t.retry_cost},
          {"refund", t.refund}, {"threshold", t.threshold}, {"successes", o.successes}};
  Json doc = document("budget", in, max_retries(t, o.successes));
  doc["max_retries"] = max_retries(t, o.successes);
  cite(doc, "retries <= (capacity − threshold + refund·successes)/cost",
       "token bucket starting full; a retry costs `cost` and needs tokens to stay >= threshold; each success adds "
       "`refund`. aws-standard: 500/5/1 (botocore retries/standard.py); grpc: maxTokens 10, tokenRatio 0.1, "
       "threshold maxTokens/2 (gRFC A6)",
       "proofs/Budget.v: token_bucket_bound");
  return print(doc, o.format);
}

// ---- registration ---------------------------------------------------------------------------

using Runner = int (*)(const Options&);

}  // namespace

int print_analytic(const nlohmann::ordered_json& doc, OutputFormat format) { return print(doc, format); }

void add_analytic_command(CLI::App& app, Action& action) {
  CLI::App* analytic =
      app.add_subcommand("analytic", "Closed forms: value, formula, assumptions and the proof that backs it");
  analytic->require_subcommand(1);

  // Each subcommand gets its own Options, owned by its callback.
  auto make = [&](const std::string& name, const std::string& help, Runner run) {
    auto opts = std::make_shared<Options>();
    CLI::App* sub = analytic->add_subcommand(name, help);
    add_format_options(sub, opts->format);
    sub->callback([opts, run, &action] { action = [opts, run] { return run(*opts); }; });
    return std::pair{sub, opts};
  };

  {
    auto [sub, o] =
        make("aloha", "Pure ALOHA goodput rate·e^(−2·rate), or its inverse (both branches, Lambert W)", run_aloha);
    sub->add_option("--rate", o->rate, "Offered load λ >= 0 (attempts per attempt-duration)");
    sub->add_option("--goodput", o->goodput,
                    "Goodput S in [0, 1/(2e)] to invert: prints the low (<= 1/2) and high (>= 1/2) loads");
  }
  {
    auto [sub, o] = make("occ", "First-commit-wins, failures free (M/D/1/1 loss): goodput rate/(1+rate)", run_occ);
    sub->add_option("--rate", o->rate, "Arrival rate λ >= 0 (required)");
  }
  {
    auto [sub, o] =
        make("ps", "Processor sharing: mean time in system service/(1−load), mean number load/(1−load)", run_ps);
    sub->add_option("--load", o->load, "Load ρ in [0, 1) (required)");
    sub->add_option("--service", o->service, "Mean service requirement x > 0")->capture_default_str();
  }
  {
    auto [sub, o] =
        make("sleep", "Exact distribution of the sleep before retry k (decorrelated: numerical, accuracy stated)",
             run_sleep);
    sub->add_option("--strategy", o->strategy, "none|nojitter|full|equal|decorrelated|window|memoryless (required)")
        ->required();
    sub->add_option(
           "--retry", o->retry,
           fmt::format("Retry index k in [1, {}] (the sleep after the k-th failure; required)", max_sleep_retry))
        ->required();
    sub->add_option("--base", o->base, "Base b > 0")->capture_default_str();
    sub->add_option("--cap", o->cap, "Cap c >= base, or \"none\" (unbounded)")->capture_default_str();
    sub->add_option("--window", o->window, "Window W > 0 (window strategy only)")->capture_default_str();
    sub->add_option("--quantile", o->quantile, "Quantile level q in [0, 1]: value is then the quantile, else the mean");
  }
  {
    auto [sub, o] =
        make("classic", "Classic test (N clients together): exact attempts per client and makespan", run_classic);
    sub->add_option("--model", o->model, "free|collision (required)")->required();
    sub->add_option("--strategy", o->strategy, "none|nojitter (required; jitter has no closed form)")->required();
    sub->add_option("--clients", o->clients, "N in [1, 1e15] (required)")->required();
    sub->add_option("--base", o->base, "Base b > 0 (nojitter)")->capture_default_str();
    sub->add_option("--cap", o->cap, "Cap c >= base, or \"none\" (nojitter)")->capture_default_str();
  }
  {
    auto [sub, o] =
        make("growth", "Decorrelated jitter: ln 3 − 1 and the exact one-step log growth at a given sleep", run_growth);
    o->cap = "none";
    sub->add_option("--sleep", o->sleep,
                    "Current sleep s in [base, cap]: prints E[ln(s_k/s_(k−1)) | s_(k−1) = s] (optional)");
    sub->add_option("--base", o->base, "Base b > 0")->capture_default_str();
    sub->add_option("--cap", o->cap, "Cap c >= base, or \"none\" (unbounded)")->capture_default_str();
  }
  {
    auto [sub, o] = make("fluid-cap",
                         "ESTIMATE of the least cap that lets a burst drain on collision (fluid argument, Lambert W−1)",
                         run_fluid_cap);
    o->strategy = "full";
    sub->add_option("--clients", o->clients, "Burst size B in [1, 1e9] (required)")->required();
    sub->add_option("--rate", o->rate,
                    "Steady Poisson rate λ in [0, 1/(2e)) under the burst (required; 0 = a pure burst)");
    sub->add_option("--strategy", o->strategy, "nojitter|full|equal|decorrelated")->capture_default_str();
    sub->add_option("--base", o->base, "Base b > 0")->capture_default_str();
  }
  {
    auto [sub, o] = make("amplification",
                         "Retry amplification over layers: expected bottom calls per top request (<= attempts^layers)",
                         run_amplification);
    sub->add_option("--layers", o->layers, "Layers L in [1, 1000]")->capture_default_str();
    sub->add_option("--attempts", o->attempts, "Attempts per call a in [1, 10000] (first try included)")
        ->capture_default_str();
    sub->add_option("--failure", o->failure, "Failure probability p in [0, 1] of one bottom call")
        ->capture_default_str();
  }
  {
    auto [sub, o] =
        make("budget", "Retry budget: most retries allowed (aws-standard, grpc, finagle, custom)", run_budget);
    sub->add_option("--preset", o->preset,
                    "aws-standard (500, cost 5, refund 1) | aws-standard-timeout (cost 10) | grpc (maxTokens 10, "
                    "tokenRatio 0.1, threshold 5) | finagle (ttl 10 s, minRetriesPerSec 10, percentCanRetry 0.2) | "
                    "custom (--capacity, --cost and --refund required; --threshold 0 unless given)")
        ->capture_default_str();
    sub->add_option("--capacity", o->capacity, "Bucket capacity B > 0 (overrides the preset)");
    sub->add_option("--cost", o->cost, "Token cost of a retry > 0 (overrides the preset)");
    sub->add_option("--refund", o->refund, "Tokens returned per success >= 0 (overrides the preset)");
    sub->add_option("--threshold", o->threshold,
                    "Retries only while tokens stay >= threshold, in [0, capacity) (overrides the preset)");
    sub->add_option("--successes", o->successes, "Successes S >= 0 so far")->capture_default_str();
    sub->add_option("--requests", o->requests, "finagle only: requests >= 0 in the ttl window")->capture_default_str();
  }
  add_analytic_model_commands(analytic, action);
}

}  // namespace retrylab::cli
