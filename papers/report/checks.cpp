// The checks sweep: the validation checks table and its figure.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analytic/aloha.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "papers/report/common.hpp"
#include "papers/report/sweeps.hpp"

namespace retrylab::papers::report {

namespace {

using Series = std::map<Model, std::vector<std::vector<double>>>;  // per model: rate, mean, lo, hi

// The table: each point's simulated metric against its closed form; returns the simulated series.
Series checks_table(const SweepSpec& sw, const std::vector<json>& recs, Out& out) {
  Table t{sw.name,
          sw.title + ": engine against closed forms (retries off, Poisson arrivals)",
          {"model", "rate λ", "metric", "simulated", "closed form", "rel. error", "within CI"},
          {},
          {}};
  Series series;
  double shared_peak = nan, shared_peak_rate = nan;
  for (std::size_t i = 0; i < sw.points.size(); ++i) {
    const auto& s = sw.points[i].scenario;
    const bool ps = s.model == Model::ps;
    const std::string m = ps ? "sojourn" : "goodput";
    double exact = nan;
    if (s.model == Model::collision) exact = goodput(PureAloha{s.traffic.rate});
    if (s.model == Model::free) exact = goodput(OccFree{s.traffic.rate});
    if (ps && s.traffic.rate < 1) exact = mean_time(ProcessorSharing{s.traffic.rate, 1.0});
    const Estimate e = est_of(recs[i], m);
    const bool within = e.lo <= exact && exact <= e.hi;
    t.rows.push_back({name(s.model), s.traffic.rate, ps ? std::string("time in system") : std::string("goodput"), e,
                      exact, std::isnan(exact) ? nan : (e.mean - exact) / exact,
                      std::isnan(exact) ? std::string("–") : std::string(within ? "yes" : "no")});
    series[s.model].push_back({s.traffic.rate, e.mean, e.lo, e.hi});
    if (s.model == Model::shared && !(e.mean <= shared_peak)) {
      shared_peak = e.mean;
      shared_peak_rate = s.traffic.rate;
    }
  }
  if (!std::isnan(shared_peak))
    t.notes.push_back(
        fmt::format("`shared` (no closed form): highest simulated goodput {} at arrival rate {} on this grid.",
                    num(shared_peak), num(shared_peak_rate)));
  out.table(t);
  return series;
}

// The figure: goodput and the ps time in system, simulated against the closed-form curves.
void checks_figure(const SweepSpec& sw, const Series& series, Out& out) {
  Gp gp;
  std::vector<std::string> goodput_plots, ps_plots;
  double max_rate = 0, max_ps = 0;
  for (const auto& [m, rows] : series)
    for (const auto& r : rows)
      (m == Model::ps ? max_ps : max_rate) = std::max(m == Model::ps ? max_ps : max_rate, r[0]);
  std::vector<std::vector<double>> aloha_curve, occ_curve, ps_curve;
  for (int i = 0; i <= 200; ++i) {
    const double x = max_rate * i / 200.0;
    aloha_curve.push_back({x, goodput(PureAloha{x})});
    occ_curve.push_back({x, goodput(OccFree{x})});
    const double y = max_ps * i / 200.0;
    if (y < 1) ps_curve.push_back({y, mean_time(ProcessorSharing{y, 1.0})});
  }
  std::size_t ci = 0;
  for (const auto& [m, rows] : series) {
    const std::string b = gp.block(rows);
    const std::string part = fmt::format("{} using 1:2:3:4 with yerrorbars pt 7 ps 0.6 lc rgb \"{}\" title {}", b,
                                         color(ci), gp_quote(name(m) + " (simulated)"));
    if (m == Model::ps) {
      ps_plots.push_back(part);
      if (!ps_curve.empty())
        ps_plots.push_back(fmt::format("{} using 1:2 with lines lw 1.5 lc rgb \"{}\" title \"1/(1−ρ)\"",
                                       gp.block(ps_curve), color(ci)));
    } else {
      goodput_plots.push_back(part);
      if (m == Model::collision)
        goodput_plots.push_back(fmt::format("{} using 1:2 with lines lw 1.5 lc rgb \"{}\" title \"λ·exp(−2λ)\"",
                                            gp.block(aloha_curve), color(ci)));
      if (m == Model::free)
        goodput_plots.push_back(fmt::format("{} using 1:2 with lines lw 1.5 lc rgb \"{}\" title \"λ/(1+λ)\"",
                                            gp.block(occ_curve), color(ci)));
    }
    ++ci;
  }
  const std::size_t panels = (goodput_plots.empty() ? 0 : 1) + (ps_plots.empty() ? 0 : 1);
  if (panels == 0) return;
  gp(layout(panels, 2, sw.title + ": simulated (95% CI) against closed forms"));
  gp("set grid; set key top left font \",9\"");
  if (!goodput_plots.empty()) {
    gp("set title \"goodput, retries off\"; set xlabel \"arrival rate λ (per attempt-duration)\"; set ylabel \"goodput "
       "(successes per attempt-duration)\"");
    gp(plot_join(goodput_plots));
  }
  if (!ps_plots.empty()) {
    gp("set title \"ps: mean time in system\"; set xlabel \"load ρ\"; set ylabel \"time in system "
       "(attempt-durations)\"; set logscale y");
    gp(plot_join(ps_plots));
    gp("unset logscale y");
  }
  gp("unset multiplot");
  out.figure(sw.name, gp, panels == 2 ? 1200 : 700, 550);
}

}  // namespace

void render_checks(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  checks_figure(sw, checks_table(sw, d.records[si], out), out);
}

}  // namespace retrylab::papers::report
