// The amplification sweep: simulated bottom calls per request beside the closed form.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analytic/amplification.hpp"
#include "montecarlo/amplification.hpp"
#include "papers/intervals.hpp"
#include "papers/report/common.hpp"
#include "papers/report/sweeps.hpp"

namespace retrylab::papers::report {

namespace {

// The fraction of top requests that failed, over every request of every run: requests are
// independent (each meets an outage or the independent failures on its own), so the count over all
// runs is binomial and Clopper–Pearson's interval is exact; a point where none failed still has an
// upper bound (about 3.7 / requests), not the zero-width interval of per-run means that are all 0.
Estimate top_failure(const json& rec, const montecarlo::LayeredScenario& l) {
  const double n = static_cast<double>(l.requests) * static_cast<double>(runs_of(rec));
  const auto k = static_cast<std::int64_t>(std::llround(mean_of(rec, "top_failure_fraction") * n));
  return intervals::clopper_pearson(k, static_cast<std::int64_t>(n));
}

// Figure: one panel per a; bottom calls per request against L, a line per (p, outage fraction):
// closed form solid, simulated points with their intervals; the worst case a^L dashed.
void amplification_figure(const SweepSpec& sw, const std::vector<json>& recs, Out& out) {
  std::vector<int> as;
  std::vector<std::string> keys;
  for (const auto& p : sw.points) {
    as.push_back(p.layered.attempts);
    keys.push_back(fmt::format("p = {}{}", num(p.layered.failure),
                               p.layered.outage_fraction > 0
                                   ? fmt::format(", outage fraction {}", num(p.layered.outage_fraction))
                                   : std::string()));
  }
  as = distinct_values(as);
  const auto lines = distinct(keys);
  Gp gp;
  gp(layout(as.size(), 3, sw.title + ": simulated (points), closed form (lines)"));
  gp("set grid; set logscale y; set key top left font \",8\"; set xlabel \"layers L\"; set ylabel \"bottom calls per "
     "top request\"; set xtics 1");
  for (int a : as) {
    gp(fmt::format("set title {}", gp_quote(fmt::format("a = {} attempts per layer", a))));
    std::vector<std::string> parts;
    std::vector<std::vector<double>> worst;
    for (const auto& p : sw.points)
      if (p.layered.attempts == a)
        worst.push_back({static_cast<double>(p.layered.layers), std::pow(static_cast<double>(a), p.layered.layers)});
    std::sort(worst.begin(), worst.end());
    worst.erase(std::unique(worst.begin(), worst.end()), worst.end());
    parts.push_back(fmt::format("{} using 1:2 with lines dt 2 lw 1.5 lc rgb \"black\" title \"a^L (worst case)\"",
                                gp.block(worst)));
    for (std::size_t k = 0; k < lines.size(); ++k) {
      std::vector<std::vector<double>> rows;
      for (std::size_t i = 0; i < sw.points.size(); ++i)
        if (keys[i] == lines[k] && sw.points[i].layered.attempts == a) {
          const auto& l = sw.points[i].layered;
          const Estimate e = est_of(recs[i], "bottom_calls_per_request");
          rows.push_back({static_cast<double>(l.layers), e.mean, montecarlo::expected_bottom_calls(l),
                          std::isnan(e.lo) ? e.mean : e.lo, std::isnan(e.hi) ? e.mean : e.hi});
        }
      if (rows.empty()) continue;
      std::sort(rows.begin(), rows.end());
      const std::string b = gp.block(rows);
      parts.push_back(fmt::format("{} using 1:3 with lines lw 1.5 lc rgb \"{}\" notitle", b, color(k)));
      parts.push_back(fmt::format("{} using 1:2:4:5 with yerrorbars pt 7 ps 0.9 lc rgb \"{}\" title {}", b, color(k),
                                  gp_quote(lines[k])));
    }
    plot_or_empty(gp, parts, "no data", "");
  }
  gp("unset multiplot");
  const std::size_t cols = std::min<std::size_t>(as.size(), 3);
  out.figure(sw.name, gp, std::max(1000, static_cast<int>(480 * cols)),
             static_cast<int>(420 * ((as.size() + cols - 1) / cols) + 40));
}

}  // namespace

void render_amplification(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  Table t{sw.name,
          sw.title + ": bottom calls per top request through L layers of a attempts, simulated against the closed form",
          {"layers L", "attempts a", "failure p", "outage fraction", "bottom calls per request", "closed form",
           "worst case a^L", "top failure fraction", "closed form (failure)"},
          {},
          {}};
  std::int64_t outside = 0;
  for (std::size_t i = 0; i < sw.points.size(); ++i) {
    const auto& l = sw.points[i].layered;
    const double exact = montecarlo::expected_bottom_calls(l);
    const double worst = std::pow(static_cast<double>(l.attempts), l.layers);
    const double top_fail = l.outage_fraction + (1 - l.outage_fraction) * top_failure_probability(RetryAmplification{
                                                                              l.layers, l.attempts, l.failure});
    const Estimate e = est_of(recs[i], "bottom_calls_per_request");
    // A run's mean over `requests` i.i.d. requests: zero spread when every request costs the same (p = 0 or 1).
    if (std::isfinite(e.lo) && (exact < e.lo || exact > e.hi) &&
        !(e.lo == e.hi && std::fabs(e.mean - exact) <= 1e-9 * exact))
      ++outside;
    t.rows.push_back({static_cast<double>(l.layers), static_cast<double>(l.attempts), l.failure, l.outage_fraction, e,
                      exact, worst, top_failure(recs[i], l), top_fail});
  }
  t.notes.push_back(fmt::format(
      "Closed form: outage_fraction·a^L + (1 − outage_fraction)·Π_(l<L) Σ_(i<a) p^(i·a^l) (analytic/amplification.hpp, "
      "proofs/Budget.v: amplification_expected); top failure outage_fraction + (1 − outage_fraction)·p^(a^L). "
      "{} requests per run, {} runs per point; closed form outside the simulated 95% interval at {} of {} points. Top "
      "failure: the fraction of all requests of all runs, Clopper–Pearson interval.",
      sw.points.front().layered.requests, sw.runs, outside, sw.points.size()));
  out.table(t);
  amplification_figure(sw, recs, out);
}

}  // namespace retrylab::papers::report
