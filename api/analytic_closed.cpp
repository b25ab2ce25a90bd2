// The closed forms of analytic/ as documents (api/analytic.hpp): value, formula, assumptions and the
// proof that backs it. Every range check is the library's, which names the field.
#include <fmt/format.h>
#include <cmath>
#include <optional>
#include <string>

#include "analytic/aloha.hpp"
#include "analytic/amplification.hpp"
#include "analytic/budget.hpp"
#include "analytic/classic.hpp"
#include "analytic/decorrelated.hpp"
#include "analytic/error.hpp"
#include "analytic/fluid_cap.hpp"
#include "analytic/hedge.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "analytic/sleep.hpp"
#include "api/analytic_parts.hpp"
#include "api/fluid_cap_band.hpp"

namespace retrylab::api::detail {

namespace {

Document backoff_inputs(const Backoff& b) {
  Document in;
  in["strategy"] = std::string(to_string(b.strategy));
  in["base"] = b.base;
  in["cap"] = cap_value(b.cap);
  if (b.strategy == Strategy::window) in["window"] = b.window;
  return in;
}

// The measured band of the estimate (api/fluid_cap_band.hpp), or why a strategy has none.
Document fluid_cap_error_band(Strategy s) {
  const auto band = fluid_cap_band(s);
  if (!band) return Document(fluid_cap_unmeasured);
  return Document{{"ratio", "simulated threshold cap / estimate"},
                  {"low", band->low},
                  {"high", band->high},
                  {"measured_at", fmt::format("collision, base 1, rate 0.05, B = {}..{} ({} comparisons)",
                                              band->min_clients, band->max_clients, band->rows)},
                  {"source",
                   "papers/cap-is-doing-the-work: validation table (fluid-cap cases: cap where half the runs drained) "
                   "and burst_caps.csv, burst_long_caps.csv (least cap of a doubling grid where all runs drained)"}};
}

// Finagle's RetryBudget: not a token bucket (deposits and withdrawals expire after
// ttl), so it has its own bound and takes --requests instead of the bucket's flags.
Document finagle_budget(const AnalyticValues& v) {
  const Options o = options_of(v);
  const char* bucket_only = o.capacity    ? "capacity"
                            : o.cost      ? "cost"
                            : o.refund    ? "refund"
                            : o.threshold ? "threshold"
                                          : nullptr;
  if (bucket_only)
    throw InputError(bucket_only, "does not apply to `preset=finagle` (a token bucket's parameter; give `requests`)");
  if (o.successes != 0.0) throw InputError("successes", "does not apply to `preset=finagle` (give `requests`)");
  const FinagleBudget f{};
  const double value = finagle_max_retries(f, o.requests);
  Document in{{"preset", o.preset},
              {"ttl", f.ttl},
              {"min_retries_per_sec", f.min_retries_per_sec},
              {"percent_can_retry", f.percent_can_retry},
              {"requests", o.requests}};
  Document doc = opening("budget", in, value);
  doc["max_retries"] = value;
  cite(doc,
       "retries in any ttl-long window ending at a retry <= min_retries_per_sec·ttl + percent_can_retry·requests in it",
       "Finagle RetryBudget (ttl 10 s, minRetriesPerSec 10, percentCanRetry 0.2): every request deposits 1000, a "
       "retry withdraws 1000/percentCanRetry while the balance of the last ttl plus the reserve covers it; entries "
       "expire after ttl (finagle-core RetryBudget.scala, TokenRetryBudget)",
       "not yet proved");
  return doc;
}

}  // namespace

Document aloha(const AnalyticValues& v) {
  const Options o = options_of(v);
  if (o.rate && o.goodput) throw InputError("goodput", "cannot be combined with `rate` (give one of them)");
  if (!o.rate && !o.goodput) throw InputError("rate", "or `goodput` is required (got neither)");
  const std::string assumptions =
      "Poisson attempts of duration 1, success iff no overlap (collision model), retries off";
  if (o.rate) {
    const PureAloha m{*o.rate};
    Document doc = opening("aloha", Document{{"rate", m.rate}}, goodput(m));
    doc["success_probability"] = success_probability(m);
    doc["argmax"] = aloha_argmax();
    doc["max_goodput"] = aloha_max_goodput();
    cite(doc, "goodput = rate·e^(−2·rate); max 1/(2e) at rate 1/2", assumptions,
         "proofs/Aloha.v: aloha_max (also aloha_increasing, aloha_decreasing, aloha_max_bounds)");
    return doc;
  }
  const AlohaInverse inv = aloha_inverse(*o.goodput);
  Document doc = opening("aloha", Document{{"goodput", *o.goodput}}, inv.low);
  doc["low"] = number(inv.low);
  doc["high"] = number(inv.high);
  doc["max_goodput"] = aloha_max_goodput();
  cite(doc, "rate·e^(−2·rate) = goodput: low = −W0(−2·goodput)/2 <= 1/2 <= high = −W−1(−2·goodput)/2 (value = low)",
       assumptions, "proofs/Aloha.v: aloha_inverse_low_unique, aloha_inverse_high_unique");
  return doc;
}

Document occ(const AnalyticValues& v) {
  const Options o = options_of(v);
  if (!o.rate) throw InputError("rate", "is required (got nothing)");
  const OccFree m{*o.rate};
  Document doc = opening("occ", Document{{"rate", m.rate}}, goodput(m));
  doc["success_probability"] = success_probability(m);
  cite(doc, "goodput = rate/(1 + rate); success probability 1/(1 + rate)",
       "first-commit-wins, failures free (free model = M/D/1/1 loss), Poisson arrivals, attempt duration 1, "
       "retries off",
       "proofs/Occ.v: occ_throughput, occ_success_probability (also occ_bounds, occ_increasing)");
  return doc;
}

Document hedge(const AnalyticValues& v) {
  const Options o = options_of(v);
  const HedgedOnce h{o.delay, o.service};
  Document doc = opening("hedge", Document{{"delay", h.delay}, {"service", h.service}}, hedge_mean_latency(h));
  doc["mean_latency"] = hedge_mean_latency(h);
  doc["survival_at_delay"] = hedge_survival(h, h.delay);
  if (o.quantile) doc["latency_quantile"] = Document{{"q", *o.quantile}, {"t", hedge_quantile(h, *o.quantile)}};
  cite(doc,
       "latency L = min(S1, delay + S2); P(L > t) = e^(−t/x) for t < delay, e^(−(2t − delay)/x) after; "
       "mean x − x·e^(−delay/x)/2",
       "services independent exponentials of mean x, no contention (model none), no failure or network delay, "
       "hedge_attempts 2; E[L] = ∫ P(L > t) dt cited",
       "proofs/Hedge.v: hedge_survival_product, hedge_head_integral, hedge_tail_integral, hedge_mean");
  return doc;
}

Document ps(const AnalyticValues& v) {
  const Options o = options_of(v);
  if (!o.load) throw InputError("load", "is required (got nothing)");
  const ProcessorSharing m{*o.load, o.service};
  Document doc = opening("ps", Document{{"load", m.load}, {"service", m.service}}, mean_time(m));
  doc["mean_time"] = mean_time(m);
  doc["mean_number"] = mean_number(m);
  cite(doc, "mean time in system = service/(1 − load); mean number = load/(1 − load)",
       "Poisson arrivals, load < 1, steady state; M/G/1-PS insensitivity (Kleinrock 1967; Kelly 1979 §3.3): "
       "holds for any service distribution with that mean, so for deterministic service 1",
       "proofs/Ps.v: ps_mean_time, mm1_mean_number (via mm1_balance)");
  return doc;
}

Document sleep(const AnalyticValues& v) {
  const Options o = options_of(v);
  const Backoff b = backoff_of(o);
  const SleepDistribution d(b, o.retry);
  Document in = backoff_inputs(b);
  in["retry"] = o.retry;
  if (o.quantile) in["quantile"] = *o.quantile;
  const double m = d.mean();
  Document doc = opening("sleep", in, o.quantile ? d.quantile(*o.quantile) : m);
  doc["mean"] = m;
  doc["quantile"] = o.quantile ? number(d.quantile(*o.quantile)) : Document(nullptr);
  doc["support"] = Document::array({d.lower(), d.upper()});
  doc["exact"] = d.exact();
  doc["accuracy"] = d.exact() ? Document(nullptr) : Document(decorrelated_accuracy(b, o.retry));
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
  return doc;
}

Document classic(const AnalyticValues& v) {
  const Options o = options_of(v);
  ClassicTest t;
  t.model = model_of(o.model);
  t.backoff = Backoff{strategy_of(o.strategy), o.base, parse_cap(o.cap), 0.0};
  t.clients = o.clients;
  const ClassicResult r = classic(t);
  Document in{{"model", std::string(to_string(t.model))},
              {"strategy", std::string(to_string(t.backoff.strategy))},
              {"clients", t.clients},
              {"base", t.backoff.base},
              {"cap", cap_value(t.backoff.cap)}};
  Document doc = opening("classic", in, r.makespan ? *r.makespan : NAN);
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
  return doc;
}

Document growth(const AnalyticValues& v) {
  const Options o = options_of(v);
  const double cap = parse_cap(o.cap);
  check_backoff(Backoff{Strategy::decorrelated, o.base, cap, 0.0});  // base and cap, even without --sleep
  const double limit = decorrelated_growth_limit();
  std::optional<double> step;
  if (o.sleep) step = decorrelated_step_growth(*o.sleep, o.base, cap);
  Document in{{"base", o.base}, {"cap", cap_value(cap)}, {"sleep", o.sleep ? Document(*o.sleep) : Document(nullptr)}};
  Document doc = opening("growth", in, step ? *step : limit);
  doc["limit"] = limit;
  doc["step_growth"] = number(step);
  cite(doc,
       "E[ln(s_k/s_(k−1)) | s_(k−1) = sleep] = (3·ln g − g − r·ln r + r)/(3 − r), r = base/sleep, g = min(3, "
       "cap/sleep); limit ln 3 − 1 as sleep/base → ∞ (value = step growth when sleep is given, else the limit)",
       "decorrelated jitter s_k = min(cap, U(base, 3·s_(k−1)))",
       "proofs/Decorrelated.v: decorrelated_step_growth, decorrelated_step_growth_limit, log_uniform_integral");
  return doc;
}

Document fluid_cap(const AnalyticValues& v) {
  const Options o = options_of(v);
  if (!o.rate)
    throw InputError("rate",
                     "is required: the steady Poisson load λ in [0, 1/(2e)) under the burst sets the cap "
                     "(`rate=0` for a pure burst, where the estimate is the base)");
  FluidCap f;
  f.clients = o.clients;
  f.rate = *o.rate;
  f.backoff = Backoff{strategy_of(o.strategy), o.base, unbounded_cap, 0.0};
  const FluidCapEstimate e = fluid_cap(f);
  Document in{{"clients", f.clients},
              {"rate", f.rate},
              {"strategy", std::string(to_string(f.backoff.strategy))},
              {"base", f.backoff.base}};
  Document doc = opening("fluid-cap", in, e.cap);
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
  return doc;
}

Document amplification(const AnalyticValues& v) {
  const Options o = options_of(v);
  const RetryAmplification m{o.layers, o.attempts, o.failure};
  Document in{{"layers", m.layers}, {"attempts", m.attempts}, {"failure", m.failure}};
  Document doc = opening("amplification", in, expected_bottom_calls(m));
  doc["bound"] = amplification_bound(m);
  doc["top_failure_probability"] = top_failure_probability(m);
  cite(doc,
       "expected bottom calls per top request = Π_(l=0..layers−1) Σ_(i=0..attempts−1) failure^(i·attempts^l) "
       "<= attempts^layers (equality at failure = 1)",
       "every layer makes up to `attempts` attempts, bottom calls fail independently with probability `failure`",
       "proofs/Budget.v: amplification_expected, amplification_bound, amplification_exact");
  return doc;
}

Document budget(const AnalyticValues& v) {
  const Options o = options_of(v);
  if (o.preset == "finagle") return finagle_budget(v);
  if (o.requests != 0.0) throw InputError("requests", "applies only to `preset=finagle`");
  TokenBucket t;
  if (o.preset == "aws-standard")
    t = aws_standard();
  else if (o.preset == "aws-standard-timeout")
    t = aws_standard_timeout();
  else if (o.preset == "grpc")
    t = grpc_throttling();
  else if (o.preset != "custom")
    throw InputError(
        "preset",
        fmt::format("must be one of aws-standard|aws-standard-timeout|grpc|finagle|custom (got {})", o.preset));
  if (o.preset == "custom")  // no preset behind it: every bucket parameter is the user's (threshold 0 unless given)
    for (const auto& [flag, given] : {std::pair{"capacity", o.capacity.has_value()},
                                      {"cost", o.cost.has_value()},
                                      {"refund", o.refund.has_value()}})
      if (!given) throw InputError(flag, "is required with `preset=custom` (a custom bucket has no preset values)");
  if (o.capacity) t.capacity = *o.capacity;
  if (o.cost) t.retry_cost = *o.cost;
  if (o.refund) t.refund = *o.refund;
  if (o.threshold) t.threshold = *o.threshold;
  Document in{{"preset", o.preset}, {"capacity", t.capacity},   {"cost", t.retry_cost},
              {"refund", t.refund}, {"threshold", t.threshold}, {"successes", o.successes}};
  Document doc = opening("budget", in, max_retries(t, o.successes));
  doc["max_retries"] = max_retries(t, o.successes);
  cite(doc, "retries <= (capacity − threshold + refund·successes)/cost",
       "token bucket starting full; a retry costs `cost` and needs tokens to stay >= threshold; each success adds "
       "`refund`. aws-standard: 500/5/1 (botocore retries/standard.py); grpc: maxTokens 10, tokenRatio 0.1, "
       "threshold maxTokens/2 (gRFC A6)",
       "proofs/Budget.v: token_bucket_bound");
  return doc;
}

}  // namespace retrylab::api::detail
