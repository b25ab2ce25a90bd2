// The failing-dependency sweeps: budget, idempotency and breaker (presets named by their canonical form).
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "montecarlo/dependency.hpp"
#include "papers/report/common.hpp"
#include "papers/report/sweeps.hpp"

namespace retrylab::papers::report {

namespace {

std::string budget_name(const montecarlo::BudgetConfig& b) {
  for (auto n : montecarlo::budget_preset_names)
    if (montecarlo::canonical(montecarlo::budget_preset(n)) == montecarlo::canonical(b)) return std::string(n);
  return "custom";
}

std::string breaker_name(const montecarlo::BreakerConfig& b) {
  for (auto n : montecarlo::breaker_preset_names)
    if (montecarlo::canonical(montecarlo::breaker_preset(n)) == montecarlo::canonical(b)) return std::string(n);
  return "custom";
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

std::string outage_name(const montecarlo::DependencyScenario& s) {
  if (s.outages.empty()) return fmt::format("no outage, p = {}", num(s.failure));
  const auto& o = s.outages.front();
  const std::string what = o.failure == 1.0 ? "total outage" : fmt::format("partial outage (p = {})", num(o.failure));
  return fmt::format("{} {}–{} s", what, num(o.start / 1000), num(o.end / 1000));
}

std::string timeout_name(double t) { return std::isinf(t) ? std::string("none") : num(t); }

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
    const auto& s = sw.points[i].dependency;
    t.rows.push_back({outage_name(s), static_cast<double>(s.max_attempts), budget_name(s.budget),
                      est_of(recs[i], "load_multiplier"), est_of(recs[i], "retries_per_success"),
                      est_of(recs[i], "success_fraction"), per_request(recs[i], "retries_blocked", 1.0),
                      est_of(recs[i], "latency_p99"), est_of(recs[i], "recovery_time"), frac_of(recs[i], "recovered")});
    budgets.push_back(budget_name(s.budget));
    gkeys.push_back(fmt::format("{}, max attempts {}", outage_name(s), s.max_attempts));
  }
  const auto& s0 = sw.points.front().dependency;
  t.notes.push_back(fmt::format(
      "Poisson requests at {} per ms for {} ms; service {} with mean {} ms; dependency capacity {} attempts in flight "
      "({}); timeout {} ms; backoff {} base {} ms cap {} ms; {} runs per point. Load multiplier: attempts that "
      "reached the dependency per request. Recovery time: from the outage's end to the end of the first {} ms "
      "window whose success fraction is back to 95% of the pre-outage one.",
      num(s0.rate), num(s0.horizon), to_string(s0.service), num(s0.service_mean), s0.capacity,
      s0.capacity == 0 ? "unlimited" : "full: rejected at once, a failure", timeout_name(s0.timeout),
      name(s0.backoff.strategy), num(s0.backoff.base), format_cap(s0.backoff.cap), sw.runs, num(s0.recovery_window)));
  t.notes.push_back(
      "Budget bounds (analytic/budget.hpp): aws-standard allows at most 500/5 = 100 retries without a success (50 "
      "after timeouts), "
      "then 1 more per success; grpc at most 5 + 0.1 per success; finagle at most 10/s·10 s + 0.2 per request in any "
      "10 s; "
      "sre-adaptive has no bound on retries, it rejects attempts locally.");
  out.table(t);
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
    const auto& s = sw.points[i].dependency;
    t.rows.push_back({std::string(to_string(s.idempotency)), timeout_name(s.timeout),
                      static_cast<double>(s.max_attempts), per_request(recs[i], "duplicate_effects", 1000.0),
                      per_request(recs[i], "hidden_effects", 1000.0), per_request(recs[i], "timeouts", 1.0),
                      est_of(recs[i], "success_fraction"), est_of(recs[i], "load_multiplier")});
    modes.push_back(std::string(to_string(s.idempotency)));
    keys.push_back(fmt::format("{}, max attempts {}", to_string(s.idempotency), s.max_attempts));
  }
  const auto lines = distinct(keys);
  const auto& s0 = sw.points.front().dependency;
  t.notes.push_back(fmt::format(
      "Service {} with mean {} ms{}; the client gives up at the timeout but the attempt completes and, if it "
      "succeeds, has its effect. none and per-attempt keys apply every such effect (a fresh key per attempt cannot "
      "be matched); fixed (one key before the first attempt) applies the first only. Hidden effects: requests the "
      "client saw fail that did happen. Per 1000 requests: ratio of the means over {} runs, CI of the count scaled "
      "alike.",
      to_string(s0.service), num(s0.service_mean),
      s0.service == montecarlo::ServiceDistribution::lognormal ? fmt::format(" (log-sd {})", num(s0.service_sigma))
                                                               : std::string(),
      sw.runs));
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
        if (keys[i] != lines[k] || std::isinf(sw.points[i].dependency.timeout)) continue;
        const Estimate e = per_request(recs[i], which == 0 ? "duplicate_effects" : "hidden_effects", 1000.0);
        rows.push_back({sw.points[i].dependency.timeout, e.mean, std::isnan(e.lo) ? e.mean : e.lo,
                        std::isnan(e.hi) ? e.mean : e.hi});
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
    const auto& s = sw.points[i].dependency;
    t.rows.push_back({outage_name(s), breaker_name(s.breaker), budget_name(s.budget),
                      est_of(recs[i], "load_multiplier"), est_of(recs[i], "success_fraction"),
                      per_request(recs[i], "rejected_by_breaker", 1.0), est_of(recs[i], "breaker_opened"),
                      est_of(recs[i], "latency"), est_of(recs[i], "recovery_time"), frac_of(recs[i], "recovered")});
    ckeys.push_back(budget_name(s.budget) == "none" ? breaker_name(s.breaker)
                                                    : breaker_name(s.breaker) + " + " + budget_name(s.budget));
    gkeys.push_back(outage_name(s));
  }
  const auto& s0 = sw.points.front().dependency;
  t.notes.push_back(fmt::format(
      "Poisson requests at {} per ms for {} ms; service {} mean {} ms; capacity {}; timeout {} ms; max attempts {}; "
      "{} runs per point. {} (montecarlo/controls.hpp). Load multiplier: attempts that reached the dependency "
      "per request.",
      num(s0.rate), num(s0.horizon), to_string(s0.service), num(s0.service_mean),
      s0.capacity == 0 ? std::string("unlimited") : std::to_string(s0.capacity), timeout_name(s0.timeout),
      s0.max_attempts, sw.runs, breaker_presets_note()));
  out.table(t);
  dependency_figure(sw, recs, ckeys, gkeys, "breaker", out);
}

}  // namespace retrylab::papers::report
