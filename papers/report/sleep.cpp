// The sleep sweep: simulated sleep quantiles beside the exact distribution (analytic/sleep.hpp).
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analytic/sleep.hpp"
#include "papers/report/common.hpp"
#include "papers/report/sweeps.hpp"

namespace retrylab::papers::report {

namespace {

std::string backoff_label(const Backoff& b) {
  if (b.strategy == Strategy::window) return fmt::format("window W={}", num(b.window));
  return fmt::format("{} (b={}, cap={})", name(b.strategy), num(b.base), format_cap(b.cap));
}

void sleep_panel(Gp& gp, const SleepGroup& g, std::size_t ci, bool legend) {
  const std::string b = gp.block(g.rows);
  std::vector<std::string> parts = {
      fmt::format("{} using 1:2:4 with filledcurves fc rgb \"{}\" fs transparent solid 0.3 noborder title {}", b,
                  color(ci), legend ? "\"simulated 10–90%\"" : "notitle"),
      fmt::format("{} using 1:3 with lines lw 2 lc rgb \"{}\" title {}", b, color(ci),
                  gp_quote(legend ? "simulated median" : name(g.backoff.strategy))),
      fmt::format("{} using 1:6 with lines lw 1.5 dt 2 lc rgb \"black\" title {}", b,
                  legend ? "\"exact median\"" : "notitle"),
  };
  if (legend) {
    parts.push_back(fmt::format("{} using 1:5 with lines lw 1 dt 3 lc rgb \"black\" title \"exact 10%, 90%\"", b));
    parts.push_back(fmt::format("{} using 1:7 with lines lw 1 dt 3 lc rgb \"black\" notitle", b));
  }
  plot_or_empty(gp, parts, "no data", "");
}

}  // namespace

std::vector<SleepGroup> sleep_groups(const StudyData& d, std::size_t si) {
  const SweepSpec& sw = d.spec.sweeps[si];
  std::vector<SleepGroup> gs;
  for (const auto& [key, idx] : group_by(sw, [](const SweepPoint& p) {
         return fmt::format("{} {} {} {}", to_string(p.scenario.backoff.strategy), p.scenario.backoff.base,
                            p.scenario.backoff.cap, p.scenario.backoff.window);
       })) {
    SleepGroup g{sw.points[idx.front()].scenario.backoff, {}};
    for (auto i : idx) {
      const int k = sw.points[i].retry;
      const json& s = d.records[si][i].at("sleep");
      const SleepDistribution exact(g.backoff, k);
      g.rows.push_back({static_cast<double>(k), jnum(s.at("q10")), jnum(s.at("q50")), jnum(s.at("q90")),
                        exact.quantile(0.1), exact.quantile(0.5), exact.quantile(0.9), jnum(s.at("mean")),
                        exact.mean()});
    }
    gs.push_back(std::move(g));
  }
  return gs;
}

void render_sleep(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto gs = sleep_groups(d, si);
  Table t{sw.name,
          fmt::format("{}: sleep before retry k, {} draws per k, against the exact distribution", sw.title, sw.draws),
          {"strategy", "k", "median (sim)", "median (exact)", "10% (sim)", "10% (exact)", "90% (sim)", "90% (exact)",
           "mean (sim)", "mean (exact)"},
          {},
          {}};
  const int shown[] = {1, 2, 5, 10, 11, 15, 20, 30};
  for (const auto& g : gs) {
    double worst = 0;
    for (const auto& r : g.rows) {
      if (r[5] > 0) worst = std::max(worst, std::fabs(r[2] - r[5]) / r[5]);
      if (std::find(std::begin(shown), std::end(shown), static_cast<int>(r[0])) != std::end(shown))
        t.rows.push_back({backoff_label(g.backoff), r[0], r[2], r[5], r[1], r[4], r[3], r[6], r[7], r[8]});
    }
    t.notes.push_back(
        fmt::format("{}: largest relative difference of the simulated median from the exact one over k = 1…{}: {}.",
                    backoff_label(g.backoff), g.rows.size(), num(worst)));
  }
  t.notes.push_back("Exact: analytic/sleep.hpp (decorrelated jitter: numerical law of analytic/decorrelated.hpp).");
  out.table(t);
  std::vector<const SleepGroup*> shown_groups;
  for (const auto& g : gs)
    if (g.backoff.strategy != Strategy::none) shown_groups.push_back(&g);  // sleep 0: nothing on a log axis
  if (shown_groups.empty()) return;
  Gp gp;
  gp(layout(shown_groups.size(), 3, sw.title + ": sleep before retry k (simulated band, exact dashed)"));
  gp("set grid; set logscale y; set yrange [0.05:5000]; set key top left font \",8\"; set xlabel \"retry k\"; set "
     "ylabel \"sleep (attempt-durations)\"");
  for (std::size_t i = 0; i < shown_groups.size(); ++i) {
    gp(fmt::format("set title {}", gp_quote(backoff_label(shown_groups[i]->backoff))));
    sleep_panel(gp, *shown_groups[i], i, true);
  }
  gp("unset multiplot");
  const std::size_t rows = (shown_groups.size() + 2) / 3;
  out.figure(sw.name, gp, 1350, static_cast<int>(420 * rows));
}

}  // namespace retrylab::papers::report
