// The frontier sweep: the latency frontier of exponential against window backoff.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "papers/report/common.hpp"
#include "papers/report/sweeps.hpp"

namespace retrylab::papers::report {

namespace {

bool all_finished(const json& rec) { return n_of(rec, "makespan") == runs_of(rec); }

}  // namespace

void render_frontier(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  Table t{sw.name,
          sw.title + ": lowest mean latency in the classic test, best exponential against best fixed window",
          {"model", "N", "strategy", "best base", "best cap", "latency", "best window W", "window latency",
           "ratio exp/window"},
          {},
          {}};
  const auto groups = group_by(
      sw, [](const SweepPoint& p) { return fmt::format("{} {}", name(p.scenario.model), p.scenario.clients); });
  Gp gp;
  gp(layout(groups.size(), 2, sw.title + ": latency against base (best cap per base); dashed: best window"));
  gp("set grid; set logscale x 2; set logscale y; set key top left font \",8\"; set xlabel \"base b\"; set ylabel "
     "\"mean latency (attempt-durations)\"");
  for (const auto& [key, idx] : groups) {
    const auto& s0 = sw.points[idx.front()].scenario;
    std::size_t best_w = SIZE_MAX;
    std::map<Strategy, std::size_t> best;
    std::map<Strategy, std::map<double, double>> by_base;  // min latency over caps, per base
    for (auto i : idx) {
      const auto& s = sw.points[i].scenario;
      if (!all_finished(recs[i])) continue;
      const double lat = mean_of(recs[i], "latency");
      if (s.backoff.strategy == Strategy::window) {
        if (best_w == SIZE_MAX || lat < mean_of(recs[best_w], "latency")) best_w = i;
      } else {
        auto it = best.find(s.backoff.strategy);
        if (it == best.end() || lat < mean_of(recs[it->second], "latency")) best[s.backoff.strategy] = i;
        auto& bb = by_base[s.backoff.strategy];
        if (!bb.count(s.backoff.base) || lat < bb[s.backoff.base]) bb[s.backoff.base] = lat;
      }
    }
    const double wl = best_w == SIZE_MAX ? nan : mean_of(recs[best_w], "latency");
    std::vector<Strategy> strategies;
    for (auto i : idx) {
      const Strategy st = sw.points[i].scenario.backoff.strategy;
      if (st != Strategy::window && std::find(strategies.begin(), strategies.end(), st) == strategies.end())
        strategies.push_back(st);
    }
    for (Strategy st : strategies) {
      auto it = best.find(st);
      Cell bw = best_w == SIZE_MAX ? Cell(std::string("–")) : Cell(sw.points[best_w].scenario.backoff.window);
      Cell wlc = best_w == SIZE_MAX ? Cell(std::string("–")) : Cell(est_of(recs[best_w], "latency"));
      if (it == best.end()) {
        t.rows.push_back({name(s0.model), static_cast<double>(s0.clients), name(st), std::string("none finished"),
                          std::string("–"), std::string("–"), bw, wlc, std::string("–")});
      } else {
        const auto& s = sw.points[it->second].scenario;
        t.rows.push_back({name(s0.model), static_cast<double>(s0.clients), name(st), s.backoff.base,
                          format_cap(s.backoff.cap), est_of(recs[it->second], "latency"), bw, wlc,
                          mean_of(recs[it->second], "latency") / wl});
      }
    }
    gp(fmt::format("set title {}", gp_quote(fmt::format("{}, N = {}", name(s0.model), s0.clients))));
    std::vector<std::string> parts;
    std::size_t ci = 0;
    for (Strategy st : strategies) {
      std::vector<std::vector<double>> rows;
      for (const auto& [b, l] : by_base[st]) rows.push_back({b, l});
      if (has_y(rows, 1))
        parts.push_back(fmt::format("{} using 1:2 with linespoints pt 7 ps 0.6 lw 1.5 lc rgb \"{}\" title {}",
                                    gp.block(rows), color(ci), gp_quote(name(st))));
      ++ci;
    }
    if (!std::isnan(wl))
      parts.push_back(
          fmt::format("{} with lines dt 2 lw 2 lc rgb \"black\" title {}", wl,
                      gp_quote(fmt::format("best window W = {}", num(sw.points[best_w].scenario.backoff.window)))));
    plot_or_empty(gp, parts, "no point where every run finished", "");
  }
  gp("unset multiplot");
  t.notes.push_back(
      "Only points where every run finished are eligible (a run stopped by the horizon would report the latency of its "
      "lucky clients only). Ratio below 1: the best exponential strategy beats the best fixed window.");
  out.table(t);
  out.figure(sw.name, gp, 1200, static_cast<int>(450 * ((groups.size() + 1) / 2)));
}

}  // namespace retrylab::papers::report
