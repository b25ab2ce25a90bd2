// The classic sweep: attempts per client and makespan against the closed forms; against N when
// the sweep has many client counts.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analytic/classic.hpp"
#include "papers/report/common.hpp"
#include "papers/report/sweeps.hpp"

namespace retrylab::papers::report {

namespace {

// Many client counts (paper 2's sweep over N): one panel per model and metric, x = N, a line per strategy.
void render_classic_against_n(const SweepSpec& sw, const std::vector<json>& recs,
                              const std::vector<std::string>& models, const std::vector<std::string>& strategies,
                              Out& out) {
  Gp gp;
  gp(layout(2 * models.size(), models.size(),
            sw.title + ": mean over runs against N (95% CI; a missing point: no run finished)"));
  gp("set grid; set logscale y; set key top left font \",8\"; set xlabel \"clients N\"");
  for (const char* m : {"attempts_per_client", "makespan"}) {
    for (const auto& model : models) {
      gp(fmt::format("set title {}; set ylabel {}", gp_quote(model),
                     gp_quote(std::string(m) == "makespan" ? "makespan (attempt-durations)" : "attempts per client")));
      std::vector<std::string> parts;
      for (std::size_t k = 0; k < strategies.size(); ++k) {
        std::vector<std::vector<double>> rows;
        for (std::size_t i = 0; i < sw.points.size(); ++i) {
          const auto& s = sw.points[i].scenario;
          if (name(s.model) != model || name(s.backoff.strategy) != strategies[k]) continue;
          Estimate e = est_of(recs[i], m);
          if (n_of(recs[i], "makespan") < runs_of(recs[i]))
            e = {nan, nan, nan};  // unfinished runs: counts up to the horizon only
          rows.push_back({static_cast<double>(s.traffic.clients), e.mean, std::isnan(e.lo) ? e.mean : e.lo,
                          std::isnan(e.hi) ? e.mean : e.hi});
        }
        if (has_y(rows, 1))
          parts.push_back(fmt::format("{} using 1:2:3:4 with yerrorlines pt 7 ps 0.5 lw 1.5 lc rgb \"{}\" title {}",
                                      gp.block(rows), color(k), gp_quote(strategies[k])));
      }
      plot_or_empty(gp, parts, "no run finished", "");
    }
  }
  gp("unset multiplot");
  out.figure(sw.name, gp, static_cast<int>(500 * models.size()), 800);
}

}  // namespace

void render_classic(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  Table t{sw.name,
          sw.title + ": N clients start together, each needs one success",
          {"model", "strategy", "N", "attempts per client", "makespan", "finished runs", "exact attempts per client",
           "exact makespan"},
          {},
          {}};
  for (std::size_t i = 0; i < sw.points.size(); ++i) {
    const auto& s = sw.points[i].scenario;
    Cell ea = std::string("–"), em = std::string("–");
    if (has_classic_closed_form(s.model, s.backoff.strategy)) {
      const auto c = classic(ClassicTest{s.model, s.backoff, s.traffic.clients});
      ea = c.finishes ? Cell(*c.attempts_per_client) : Cell(std::string("never finishes"));
      em = c.finishes ? Cell(*c.makespan) : Cell(std::string("never finishes"));
    }
    t.rows.push_back({name(s.model), name(s.backoff.strategy), static_cast<double>(s.traffic.clients),
                      est_of(recs[i], "attempts_per_client"), est_of(recs[i], "makespan"),
                      fmt::format("{}/{}", n_of(recs[i], "makespan"), runs_of(recs[i])), ea, em});
  }
  t.notes.push_back(
      fmt::format("Runs that hit the horizon (runs not finished) count in attempts per client up to the horizon; "
                  "makespan is over finished runs only. Exact values: analytic/classic.hpp."));
  out.table(t);
  // Figure: rows attempts / makespan, one column per N; x = strategy, one series per model.
  std::vector<std::string> ns, models, strategies;
  for (const auto& p : sw.points) {
    ns.push_back(std::to_string(p.scenario.traffic.clients));
    models.push_back(name(p.scenario.model));
    strategies.push_back(name(p.scenario.backoff.strategy));
  }
  ns = distinct(ns);
  models = distinct(models);
  strategies = distinct(strategies);
  if (ns.size() > 4) {
    render_classic_against_n(sw, recs, models, strategies, out);
    return;
  }
  Gp gp;
  gp(fmt::format("set multiplot layout 2,{} title {} font \",13\"", ns.size(),
                 gp_quote(sw.title + ": mean over runs with 95% CI")));
  std::string xt = "set xtics (";
  for (std::size_t i = 0; i < strategies.size(); ++i)
    xt += fmt::format("{}{} {}", i ? ", " : "", gp_quote(strategies[i]), i);
  gp(xt + ") rotate by -30 font \",9\"");
  gp(fmt::format("set xrange [-0.5:{}]; set grid; set logscale y; set key top left font \",8\"",
                 static_cast<double>(strategies.size()) - 0.5));
  for (const char* m : {"attempts_per_client", "makespan"}) {
    for (const auto& n : ns) {
      gp(fmt::format("set title {}; set ylabel {}", gp_quote(fmt::format("N = {}", n)),
                     gp_quote(std::string(m) == "makespan" ? "makespan (attempt-durations)" : "attempts per client")));
      std::vector<std::string> parts;
      for (std::size_t mi = 0; mi < models.size(); ++mi) {
        std::vector<std::vector<double>> rows;
        for (std::size_t i = 0; i < sw.points.size(); ++i) {
          const auto& s = sw.points[i].scenario;
          if (std::to_string(s.traffic.clients) != n || name(s.model) != models[mi]) continue;
          const auto x = std::find(strategies.begin(), strategies.end(), name(s.backoff.strategy)) - strategies.begin();
          const Estimate e = est_of(recs[i], m);
          rows.push_back(
              {static_cast<double>(x) + 0.12 * (static_cast<double>(mi) - static_cast<double>(models.size() - 1) / 2.0),
               e.mean, std::isnan(e.lo) ? e.mean : e.lo, std::isnan(e.hi) ? e.mean : e.hi});
        }
        if (!rows.empty())
          parts.push_back(fmt::format("{} using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lc rgb \"{}\" title {}",
                                      gp.block(rows), color(mi), gp_quote(models[mi])));
      }
      plot_or_empty(gp, parts, "no run finished",
                    fmt::format("set xrange [-0.5:{}]", static_cast<double>(strategies.size()) - 0.5));
    }
  }
  gp("unset multiplot");
  out.figure(sw.name, gp, static_cast<int>(550 * ns.size()), 800);
}

}  // namespace retrylab::papers::report
