// The failing-dependency sweeps: budget, idempotency and breaker (presets named by their canonical form).
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analytic/budget.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/fields.hpp"
#include "papers/report/common.hpp"
#include "papers/report/sweeps.hpp"

namespace retrylab::papers::report {

namespace {

// A point's scenario (the engine's `none` model, in attempt-durations) and its values in the sweep's
// unit (ms): every time is multiplied by the sweep's attempt_duration.
const montecarlo::Scenario& scenario_of(const SweepSpec& sw, std::size_t i) { return sw.points[i].scenario; }
double ms(const SweepSpec& sw, double t) { return t * sw.attempt_duration; }

std::string budget_name(const montecarlo::Scenario& s) {
  return std::string(montecarlo::budget_preset_names[s.client.budget.preset]);
}
std::string breaker_name(const montecarlo::Scenario& s) {
  return std::string(montecarlo::breaker_preset_names[s.client.breaker.preset]);
}
std::string choice_name(std::string_view field, double v) {
  return montecarlo::format_field(*montecarlo::find_field(field), v);
}
std::string idempotency_name(const montecarlo::Scenario& s) {
  return choice_name("idempotency", static_cast<double>(static_cast<int>(s.client.idempotency)));
}

// A breaker as the breaker table's note describes it, from its configuration: "10 s window, 20 calls,
// 50%, open 5 s, one probe" (a time window) or "last 100 calls, 50%, open 60 s, 10 probes" (a count
// window whose minimum is the window).
std::string breaker_note(const montecarlo::BreakerConfig& c) {
  const auto window = static_cast<std::int64_t>(c.window);
  const std::string w =
      c.window_kind == montecarlo::BreakerWindow::time
          ? fmt::format("{} s window, {} calls", num(c.window / 1000), c.minimum_calls)
          : (c.minimum_calls == window ? fmt::format("last {} calls", window)
                                       : fmt::format("last {} calls (at least {})", window, c.minimum_calls));
  const std::string probes = c.half_open_calls == 1 ? "one probe" : fmt::format("{} probes", c.half_open_calls);
  return fmt::format("{}, {}%, open {} s, {}", w, num(100 * c.failure_threshold), num(c.open_duration / 1000), probes);
}

// Every enabled breaker preset, named: the numbers the breaker table's note prints, read from the presets.
std::string breaker_presets_note() {
  std::string out;
  for (auto n : montecarlo::breaker_preset_names) {
    const auto c = montecarlo::breaker_preset(n);
    if (c.enabled) out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", n, breaker_note(c));
  }
  return out;
}

// A budget preset's bound on retries, from its configuration and the closed forms of
// analytic/budget.hpp: "aws-standard: at most (500 − 0)/5 = 100 retries without a success (50 after
// timeouts), then 0.2 more per success (a successful retry also returns its cost)".
std::string budget_note(std::string_view name) {
  const montecarlo::BudgetConfig b = montecarlo::budget_preset(name);
  switch (b.kind) {
    case montecarlo::BudgetKind::none: return {};
    case montecarlo::BudgetKind::token_bucket: {
      const auto& c = b.token_bucket;
      const TokenBucket& t = c.bucket;
      const bool per_retry = c.charge == montecarlo::Charge::per_retry;
      std::string out = fmt::format("{}: at most ({} − {})/{} = {} retries without a success", name, num(t.capacity),
                                    num(t.threshold), num(t.retry_cost), num(max_retries(t, 0.0)));
      if (per_retry && c.timeout_cost != t.retry_cost) {
        TokenBucket after_timeouts = t;
        after_timeouts.retry_cost = c.timeout_cost;
        out += fmt::format(" ({} after timeouts)", num(max_retries(after_timeouts, 0.0)));
      }
      out += fmt::format(", then {} more per success", num(max_retries(t, 1.0) - max_retries(t, 0.0)));
      if (!per_retry) out += " (every failed attempt takes a token)";
      if (c.refund_mode == montecarlo::Refund::cost_paid) out += " (a successful retry also returns its cost)";
      return out;
    }
    case montecarlo::BudgetKind::finagle: {
      const FinagleBudget& f = b.finagle.budget;
      return fmt::format("{}: at most {} + {} per request retries in any {} s", name, num(finagle_max_retries(f, 0.0)),
                         num(finagle_max_retries(f, 1.0) - finagle_max_retries(f, 0.0)), num(f.ttl));
    }
    case montecarlo::BudgetKind::adaptive:
      return fmt::format(
          "{}: no bound on retries; it rejects attempts locally with probability max(0, (requests − {}·accepts)/"
          "(requests + 1)) over the last {} s",
          name, num(b.adaptive.k), num(b.adaptive.window / 1000));
  }
  return {};
}

// The bounds of the budgets the sweep runs, in its order of first appearance.
std::string budgets_note(const SweepSpec& sw) {
  std::vector<std::string> names, notes;
  for (const auto& p : sw.points) names.push_back(budget_name(p.scenario));
  for (const auto& n : distinct(names))
    if (const std::string note = budget_note(n); !note.empty()) notes.push_back(note);
  std::string out;
  for (const auto& n : notes) out += (out.empty() ? "" : "; ") + n;
  return out;
}

std::string outage_name(const SweepSpec& sw, const montecarlo::Scenario& s) {
  const auto& o = s.failures;
  if (o.outage_end == 0) return fmt::format("no outage, p = {}", num(o.failure_prob));
  const std::string what =
      o.outage_fraction == 1.0 ? "total outage" : fmt::format("partial outage (p = {})", num(o.outage_fraction));
  return fmt::format("{} {}–{} s", what, num(ms(sw, o.outage_start) / 1000), num(ms(sw, o.outage_end) / 1000));
}

std::string timeout_name(const SweepSpec& sw, double t) { return std::isinf(t) ? std::string("none") : num(ms(sw, t)); }

// "exponential with mean 10 ms", "lognormal with mean 10 ms (log-sd 1)" (σ = sqrt(ln(1 + cv²))).
std::string service_name(const SweepSpec& sw, const montecarlo::Scenario& s) {
  const auto& o = s.resource;
  std::string out = fmt::format("{} with mean {} ms", to_string(o.service), num(ms(sw, 1.0)));
  if (o.service == montecarlo::ServiceDist::lognormal)
    out += fmt::format(" (log-sd {})", num(std::sqrt(std::log1p(o.service_cv * o.service_cv))));
  return out;
}

std::string capacity_name(const montecarlo::Scenario& s) {
  return s.admission.limit == 0 ? std::string("unlimited") : fmt::format("{}", s.admission.limit);
}

// The three-panel figure of the failing-dependency sweeps (budget, breaker): load multiplier, success
// fraction and recovery time per category (ckeys[i]: point i's category), one series per group
// (gkeys[i]), categories and groups in order of first appearance.
void dependency_figure(const SweepSpec& sw, const std::vector<json>& recs, const std::vector<std::string>& ckeys,
                       const std::vector<std::string>& gkeys, const std::string& per, Out& out) {
  const auto cats = distinct(ckeys);
  const auto groups = distinct(gkeys);
  Gp gp;
  gp(layout(3, 3, sw.title + ": per " + per + " (95% CI)"));
  gp("set grid; set key top right font \",8\"");
  for (const char* m : {"load_multiplier", "success_fraction", "recovery_time"}) {
    std::vector<CatSeries> series;
    for (const auto& g : groups) {
      CatSeries cs{g, std::vector<Estimate>(cats.size(), Estimate{nan, nan, nan})};
      for (std::size_t i = 0; i < sw.points.size(); ++i)
        if (gkeys[i] == g) {
          const auto k = static_cast<std::size_t>(std::find(cats.begin(), cats.end(), ckeys[i]) - cats.begin());
          cs.values[k] = est_of(recs[i], m);
        }
      series.push_back(std::move(cs));
    }
    const std::string mm = m;
    cat_panel(gp, cats, series,
              mm == "load_multiplier"    ? "load multiplier (attempts per request)"
              : mm == "success_fraction" ? "success fraction"
                                         : "recovery time",
              mm == "recovery_time"     ? "ms after the outage"
              : mm == "load_multiplier" ? "attempts per request"
                                        : "fraction of requests",
              false);
  }
  gp("unset multiplot");
  out.figure(sw.name, gp, 1500, 520);
}

}  // namespace

namespace {

// NAME_warning: the budget's early warning (montecarlo/run_detail.hpp), one row per point whose
// budget can refuse a retry.
void warning_table(const SweepSpec& sw, const std::vector<json>& recs, Out& out) {
  Table t{sw.name + "_warning",
          sw.title + ": the budget's early warning during the outage",
          {"outage", "max attempts", "budget", "first retry refused (ms after the start)",
           "clients' failures at their outage level (ms after the start)", "lead (ms)", "refusal time / failures' time",
           "runs with a refusal"},
          {},
          {}};
  for (std::size_t i = 0; i < sw.points.size(); ++i) {
    const auto& s = scenario_of(sw, i);
    if (!s.client.budget.on() || !recs[i].at("summary").contains("warning_time")) continue;
    t.rows.push_back({outage_name(sw, s), static_cast<double>(s.client.max_attempts), budget_name(s),
                      est_of(recs[i], "warning_time"), est_of(recs[i], "failure_time"), est_of(recs[i], "warning_lead"),
                      est_of(recs[i], "warning_ratio"), static_cast<double>(n_of(recs[i], "warning_time"))});
  }
  if (t.rows.empty()) return;
  t.notes.push_back(fmt::format(
      "Per run, from the outage's start: the first retry the budget refused (its bucket empty: the metric to "
      "emit), and the end of the first {} ms bin in which the fraction of requests lost (as their clients saw it) "
      "reaches its level over the whole outage. Lead = the second minus the first (> 0: the refusal came first), "
      "and the first over the second (< 1: the same), per run; means over the runs with a refusal in the outage, "
      "of {} runs per point.",
      num(ms(sw, 1.0)), sw.runs));
  out.table(t);
}

}  // namespace

void render_budget(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  Table t{sw.name,
          sw.title + ": retry budgets during an outage",
          {"outage", "max attempts", "budget", "load multiplier", "retries per success", "success fraction",
           "retries refused per request", "p99 latency (ms)", "recovery time (ms)", "recovered"},
          {},
          {}};
  std::vector<std::string> budgets, gkeys;  // per point: its budget, its group
  for (std::size_t i = 0; i < sw.points.size(); ++i) {
    const auto& s = scenario_of(sw, i);
    t.rows.push_back({outage_name(sw, s), static_cast<double>(s.client.max_attempts), budget_name(s),
                      est_of(recs[i], "load_multiplier"), est_of(recs[i], "retries_per_success"),
                      est_of(recs[i], "success_fraction"), per_request(recs[i], "retries_blocked", 1.0),
                      est_of(recs[i], "latency_p99"), est_of(recs[i], "recovery_time"), frac_of(recs[i], "recovered")});
    budgets.push_back(budget_name(s));
    gkeys.push_back(fmt::format("{}, max attempts {}", outage_name(sw, s), s.client.max_attempts));
  }
  const auto& s0 = scenario_of(sw, 0);
  t.notes.push_back(fmt::format(
      "Poisson requests at {} per ms for {} ms (then every request resolves); service {}; dependency capacity {} "
      "attempts in flight ({}); timeout {} ms; backoff {} base {} ms cap {} ms; {} runs per point. Load multiplier: "
      "attempts that reached the dependency per request. Recovery time: from the outage's end to the end of the "
      "first {} ms window whose success fraction is back to 95% of the pre-outage one.",
      num(s0.traffic.rate / sw.attempt_duration), num(ms(sw, s0.measurement.horizon)), service_name(sw, s0),
      capacity_name(s0), s0.admission.limit == 0 ? "unlimited" : "full: rejected at once, a failure",
      timeout_name(sw, s0.client.timeout), name(s0.backoff.strategy), num(ms(sw, s0.backoff.base)),
      format_cap(ms(sw, s0.backoff.cap)), sw.runs, num(ms(sw, s0.measurement.recovery_window))));
  t.notes.push_back(
      "Budget bounds (analytic/budget.hpp, from the presets of montecarlo/controls.hpp): " + budgets_note(sw) + ".");
  out.table(t);
  warning_table(sw, recs, out);
  dependency_figure(sw, recs, budgets, gkeys, "budget", out);
}

void render_idempotency(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  Table t{sw.name,
          sw.title + ": duplicate effects when timed-out work completed anyway",
          {"idempotency", "timeout (ms)", "max attempts", "duplicate effects per 1000 requests",
           "hidden effects per 1000 requests", "timeouts per request", "success fraction", "load multiplier"},
          {},
          {}};
  std::vector<std::string> modes, keys;
  for (std::size_t i = 0; i < sw.points.size(); ++i) {
    const auto& s = scenario_of(sw, i);
    t.rows.push_back({idempotency_name(s), timeout_name(sw, s.client.timeout),
                      static_cast<double>(s.client.max_attempts), per_request(recs[i], "duplicate_effects", 1000.0),
                      per_request(recs[i], "hidden_effects", 1000.0), per_request(recs[i], "timeouts", 1.0),
                      est_of(recs[i], "success_fraction"), est_of(recs[i], "load_multiplier")});
    modes.push_back(idempotency_name(s));
    keys.push_back(fmt::format("{}, max attempts {}", idempotency_name(s), s.client.max_attempts));
  }
  const auto lines = distinct(keys);
  t.notes.push_back(fmt::format(
      "Service {}; the client gives up at the timeout but the attempt completes and, if it "
      "succeeds, has its effect. none and per-attempt keys apply every such effect (a fresh key per attempt cannot "
      "be matched); fixed (one key before the first attempt) applies the first only. Hidden effects: requests the "
      "client saw fail that did happen. Per 1000 requests: ratio of the means over {} runs, CI of the count scaled "
      "alike.",
      service_name(sw, scenario_of(sw, 0)), sw.runs));
  out.table(t);
  Gp gp;
  gp(layout(2, 2, sw.title + ": against the client timeout (95% CI)"));
  gp("set grid; set logscale x; set key top right font \",9\"; set xlabel \"client timeout τ (ms)\"");
  for (int which = 0; which < 2; ++which) {
    gp(which == 0
           ? "set title \"duplicate effects per 1000 requests\"; set ylabel \"duplicates per 1000 requests\""
           : "set title \"hidden effects per 1000 requests (client saw a failure)\"; set ylabel \"per 1000 requests\"");
    std::vector<std::string> parts;
    for (std::size_t k = 0; k < lines.size(); ++k) {
      std::vector<std::vector<double>> rows;
      for (std::size_t i = 0; i < sw.points.size(); ++i) {
        const double timeout = scenario_of(sw, i).client.timeout;
        if (keys[i] != lines[k] || std::isinf(timeout)) continue;
        const Estimate e = per_request(recs[i], which == 0 ? "duplicate_effects" : "hidden_effects", 1000.0);
        rows.push_back({ms(sw, timeout), e.mean, std::isnan(e.lo) ? e.mean : e.lo, std::isnan(e.hi) ? e.mean : e.hi});
      }
      std::sort(rows.begin(), rows.end());
      if (rows.empty()) continue;
      parts.push_back(fmt::format("{} using 1:2:3:4 with yerrorlines pt 7 ps 0.6 lw 1.5 dt {} lc rgb \"{}\" title {}",
                                  gp.block(rows), k % 2 == 0 ? 1 : 2, color(k), gp_quote(lines[k])));
    }
    plot_or_empty(gp, parts, "no timeout in the grid", "");
  }
  gp("unset multiplot");
  out.figure(sw.name, gp, 1200, 500);
}

void render_breaker(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  Table t{sw.name,
          sw.title + ": circuit breakers during an outage",
          {"outage", "breaker", "budget", "load multiplier", "success fraction",
           "tries rejected by the breaker per request", "times opened", "mean latency (ms)", "recovery time (ms)",
           "recovered"},
          {},
          {}};
  std::vector<std::string> gkeys, ckeys;  // per point: its group, its category
  for (std::size_t i = 0; i < sw.points.size(); ++i) {
    const auto& s = scenario_of(sw, i);
    t.rows.push_back({outage_name(sw, s), breaker_name(s), budget_name(s), est_of(recs[i], "load_multiplier"),
                      est_of(recs[i], "success_fraction"), per_request(recs[i], "rejected_by_breaker", 1.0),
                      est_of(recs[i], "breaker_opened"), est_of(recs[i], "latency"), est_of(recs[i], "recovery_time"),
                      frac_of(recs[i], "recovered")});
    ckeys.push_back(budget_name(s) == "none" ? breaker_name(s) : breaker_name(s) + " + " + budget_name(s));
    gkeys.push_back(outage_name(sw, s));
  }
  const auto& s0 = scenario_of(sw, 0);
  t.notes.push_back(fmt::format(
      "Poisson requests at {} per ms for {} ms (then every request resolves); service {}; capacity {}; timeout {} "
      "ms; max attempts {}; {} runs per point. {} (montecarlo/controls.hpp). Load multiplier: attempts that reached "
      "the dependency per request.",
      num(s0.traffic.rate / sw.attempt_duration), num(ms(sw, s0.measurement.horizon)), service_name(sw, s0),
      capacity_name(s0), timeout_name(sw, s0.client.timeout), s0.client.max_attempts, sw.runs, breaker_presets_note()));
  out.table(t);
  dependency_figure(sw, recs, ckeys, gkeys, "breaker", out);
}

}  // namespace retrylab::papers::report
