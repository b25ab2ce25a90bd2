// Paper 1's figure 1: sleeps, steady load and bursts side by side.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "papers/report/common.hpp"
#include "papers/report/sweeps.hpp"

namespace retrylab::papers::report {

namespace {

// (a) sleep distributions of the exponential strategies.
void panel_sleeps(Gp& gp, const StudyData& d, std::size_t sl) {
  gp("set title \"(a) sleep before retry k: simulated median and 10–90% band; exact median dashed\"");
  gp("set logscale y; set yrange [0.05:5000]; set xlabel \"retry k\"; set ylabel \"sleep (attempt-durations)\"; set "
     "key top left");
  std::vector<std::string> parts;
  std::size_t ci = 0;
  for (const auto& g : sleep_groups(d, sl)) {
    if (g.backoff.strategy == Strategy::none || g.backoff.strategy == Strategy::window) continue;
    const std::string b = gp.block(g.rows);
    parts.push_back(fmt::format(
        "{} using 1:2:4 with filledcurves fc rgb \"{}\" fs transparent solid 0.2 noborder notitle", b, color(ci)));
    parts.push_back(fmt::format("{} using 1:3 with lines lw 2 lc rgb \"{}\" title {}", b, color(ci),
                                gp_quote(name(g.backoff.strategy))));
    parts.push_back(fmt::format("{} using 1:6 with lines lw 1.2 dt 2 lc rgb \"black\" {}", b,
                                ci == 0 ? "title \"exact median\"" : "notitle"));
    ++ci;
  }
  plot_or_empty(gp, parts, "no data", "");
}

// (b) latency against load per model, full jitter (solid) and no backoff (dashed).
void panel_latency(Gp& gp, const StudyData& d, std::size_t stdy) {
  const SweepSpec& sw = d.spec.sweeps[stdy];
  const auto& recs = d.records[stdy];
  const Steady st = steady_lines(d, stdy);
  const std::size_t kmain = static_cast<std::size_t>(
      std::find(st.ks.begin(), st.ks.end(), sw.points.front().scenario.measurement.collapse) - st.ks.begin());
  const std::size_t kcol = kmain < st.ks.size() ? kmain : st.ks.size() - 1;
  gp(fmt::format("set title {}",
                 gp_quote(fmt::format("(b) mean latency against load; × = last load where most runs survive (K = {})",
                                      st.ks[kcol]))));
  gp("set autoscale y; set xlabel \"load λ\"; set ylabel \"mean latency (attempt-durations)\"; set key top left");
  std::vector<std::string> parts;
  std::vector<Model> models;
  for (const auto& l : st.lines)
    if (std::find(models.begin(), models.end(), l.model) == models.end()) models.push_back(l.model);
  for (const auto& l : st.lines) {
    if (l.strategy != Strategy::full && l.strategy != Strategy::none) continue;
    const auto mi = static_cast<std::size_t>(std::find(models.begin(), models.end(), l.model) - models.begin());
    std::vector<std::vector<double>> rows, mark;
    const auto j = last_surviving(l.collapsed[kcol]);
    for (std::size_t q = 0; q < l.idx.size(); ++q) {
      const double r = sw.points[l.idx[q]].scenario.traffic.rate;
      rows.push_back({r, static_cast<std::ptrdiff_t>(q) <= j ? mean_of(recs[l.idx[q]], "latency") : nan});
      if (static_cast<std::ptrdiff_t>(q) == j && j + 1 < static_cast<std::ptrdiff_t>(l.idx.size()))
        mark.push_back({r, mean_of(recs[l.idx[q]], "latency")});
    }
    parts.push_back(fmt::format(
        "{} using 1:2 with linespoints pt 7 ps 0.4 lw 1.8 {} lc rgb \"{}\" title {}", gp.block(rows),
        l.strategy == Strategy::none ? "dt 2" : "dt 1", color(mi),
        gp_quote(fmt::format("{}, {}", name(l.model), l.strategy == Strategy::none ? "no backoff" : "full jitter"))));
    if (!mark.empty())
      parts.push_back(
          fmt::format("{} using 1:2 with points pt 2 ps 2.5 lw 2 lc rgb \"{}\" notitle", gp.block(mark), color(mi)));
  }
  plot_or_empty(gp, parts, "no data", "");
}

// (c) fraction drained against cap / B, full jitter, per model (solid collision, dashed shared).
void panel_bursts(Gp& gp, const StudyData& d, std::size_t bu) {
  const SweepSpec& sw = d.spec.sweeps[bu];
  const auto& recs = d.records[bu];
  gp("unset logscale y; set logscale x; set yrange [-0.05:1.05]; set xlabel \"cap / burst size B\"; set ylabel "
     "\"fraction of runs drained\"; set key bottom right");
  gp("set title \"(c) bursts on 5% load, full jitter: drained fraction; dotted = fluid estimate (collision)\"");
  std::vector<std::string> parts, bs;
  const auto lines = burst_lines(sw);
  for (const auto& l : lines) bs.push_back(std::to_string(l.clients));
  bs = distinct(bs);
  for (const auto& l : lines) {
    if (l.strategy != Strategy::full) continue;
    const auto bi = static_cast<std::size_t>(std::find(bs.begin(), bs.end(), std::to_string(l.clients)) - bs.begin());
    std::vector<std::vector<double>> rows;
    for (auto i : l.idx)
      rows.push_back({sw.points[i].scenario.backoff.cap / static_cast<double>(l.clients), frac_of(recs[i], "drained")});
    parts.push_back(fmt::format("{} using 1:2 with linespoints pt 7 ps 0.4 lw 1.8 {} lc rgb \"{}\" title {}",
                                gp.block(rows), l.model == Model::collision ? "dt 1" : "dt 2", color(bi),
                                gp_quote(fmt::format("{}, B = {}", name(l.model), l.clients))));
    const double f = fluid_estimate(l.model, l.strategy, l.base, l.clients, l.rate);
    if (!std::isnan(f))
      gp(fmt::format("set arrow from {}, graph 0 to {}, graph 1 nohead dt 3 lw 1.5 lc rgb \"{}\"",
                     f / static_cast<double>(l.clients), f / static_cast<double>(l.clients), color(bi)));
  }
  plot_or_empty(gp, parts, "no burst sweep with full jitter", "");
}

}  // namespace

void render_figure1(const StudyData& d, Out& out) {
  std::optional<std::size_t> sl, stdy, bu;
  for (std::size_t i = 0; i < d.spec.sweeps.size(); ++i) {
    const auto k = d.spec.sweeps[i].kind;
    if (k == SweepKind::sleep && !sl) sl = i;
    if (k == SweepKind::steady && !stdy) stdy = i;
    if (k == SweepKind::burst && !bu) {
      for (const auto& p : d.spec.sweeps[i].points)
        if (p.scenario.model == Model::collision) bu = i;
    }
  }
  if (!sl || !stdy || !bu) return;
  Gp gp;
  gp("set multiplot layout 1,3 title \"The cap is doing the work: sleeps, steady load, bursts\" font \",14\"");
  gp("set grid; set key font \",8\"");
  panel_sleeps(gp, d, *sl);
  panel_latency(gp, d, *stdy);
  panel_bursts(gp, d, *bu);
  gp("unset multiplot");
  out.figure("figure1", gp, 1800, 600);
}

}  // namespace retrylab::papers::report
