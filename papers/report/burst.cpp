// The burst and drain sweeps: the cap a burst needs to drain, and drain times against cap. No backoff
// (strategy none) sleeps not at all, so its cap means nothing: its line is one point, shown without
// a cap, and drawn in the figures as a dashed level in every panel of its model and load.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analytic/fluid_cap.hpp"
#include "papers/report/common.hpp"
#include "papers/report/sweeps.hpp"

namespace retrylab::papers::report {

double fluid_estimate(Model m, Strategy s, double base, std::int64_t clients, double rate) {
  if (m != Model::collision || s == Strategy::none || s == Strategy::window) return nan;
  if (!(rate < 1.0 / (2.0 * std::exp(1.0)))) return nan;
  return fluid_cap(FluidCap{clients, rate, Backoff{s, base, unbounded_cap, 0.0}}).cap;
}

std::vector<BurstLine> burst_lines(const SweepSpec& sw) {
  std::vector<BurstLine> out;
  for (const auto& [key, idx] : group_by(sw, [](const SweepPoint& p) {
         return fmt::format("{} {} {} {} {} {}", name(p.scenario.model), name(p.scenario.backoff.strategy),
                            p.scenario.backoff.base, p.scenario.traffic.rate, p.scenario.traffic.clients,
                            server_key(p.scenario));
       })) {
    const auto& s = sw.points[idx.front()].scenario;
    BurstLine l{s.model, s.backoff.strategy, s.backoff.base, s.traffic.rate, s.traffic.clients,
                idx,     server_label(s),    server_key(s)};
    std::stable_sort(l.idx.begin(), l.idx.end(), [&](auto a, auto b) {
      return sw.points[a].scenario.backoff.cap < sw.points[b].scenario.backoff.cap;
    });
    out.push_back(std::move(l));
  }
  return out;
}

namespace {

double cap_of(const SweepSpec& sw, std::size_t i) { return sw.points[i].scenario.backoff.cap; }
bool capless(const BurstLine& l) { return l.strategy == Strategy::none; }
Cell server_cell(const BurstLine& l) { return Cell(l.server.empty() ? std::string("–") : l.server); }

// A burst sweep's lines, and whether it runs over server options (a "server" column, and panels per
// configuration too) and records lost requests (client retry limits).
struct BurstView {
  const SweepSpec& sw;
  const std::vector<json>& recs;
  const std::vector<BurstLine>& lines;
  bool by_server, lost;
};

// The cap thresholds: per line, the smallest cap at which every run drained.
void caps_table(const BurstView& v, Out& out) {
  const SweepSpec& sw = v.sw;
  const auto& recs = v.recs;
  const auto& lines = v.lines;
  const bool by_server = v.by_server;
  const bool lost = v.lost;
  Table ct{sw.name + "_caps",
           sw.title + ": cap thresholds, the smallest cap at which every run drained",
           {"model", "strategy", "steady load", "burst B", "cap threshold", "threshold / B", "fluid estimate",
            "drained at smallest cap", "drained at largest cap"},
           {},
           {}};
  if (by_server) ct.columns.insert(ct.columns.begin() + 2, "server");
  if (lost) ct.columns.push_back("lost fraction at threshold");
  for (const auto& l : lines) {
    Cell thr = std::string(capless(l) ? "never drains every run" : "none of the grid"), ratio = std::string("–"),
         lost_at = std::string("–");
    for (auto i : l.idx)
      if (frac_of(recs[i], "drained") == 1.0) {
        thr = capless(l) ? Cell(std::string("no cap (every run drains)")) : Cell(cap_of(sw, i));
        if (!capless(l)) ratio = cap_of(sw, i) / static_cast<double>(l.clients);
        if (lost && recs[i]["summary"].contains("lost_fraction")) lost_at = mean_of(recs[i], "lost_fraction");
        break;
      }
    std::vector<Cell> row = {name(l.model),
                             name(l.strategy),
                             l.rate,
                             static_cast<double>(l.clients),
                             thr,
                             ratio,
                             fluid_estimate(l.model, l.strategy, l.base, l.clients, l.rate),
                             frac_of(recs[l.idx.front()], "drained"),
                             frac_of(recs[l.idx.back()], "drained")};
    if (by_server) row.insert(row.begin() + 2, server_cell(l));
    if (lost) row.push_back(lost_at);
    ct.rows.push_back(std::move(row));
  }
  ct.notes.push_back(fmt::format(
      "Burst of B clients at t = 0 on steady Poisson traffic; horizon {}, collapse K = {}, {} runs per point. "
      "Fluid estimate: analytic/fluid_cap.hpp (collision only; an estimate, not a bound).",
      num(sw.points.front().scenario.measurement.horizon), sw.points.front().scenario.measurement.collapse, sw.runs));
  if (by_server)
    ct.notes.push_back("Server: the server options set away from their defaults (\"–\": paper 1's model).");
  if (std::any_of(lines.begin(), lines.end(), capless))
    ct.notes.push_back("No backoff (none) never sleeps, so it has no cap: its row says whether every run drained.");
  if (lost)
    ct.notes.push_back(
        "With a retry limit a burst client that gives up has left: drained = every burst client succeeded or gave up, "
        "so "
        "read drained with the lost fraction (clients that gave up / clients whose request ended, run mean).");
  out.table(ct);
}

// Every point's drained fraction and drain times.
void drain_table(const BurstView& v, Out& out) {
  const SweepSpec& sw = v.sw;
  const auto& recs = v.recs;
  const auto& lines = v.lines;
  const bool by_server = v.by_server;
  const bool lost = v.lost;
  Table dt{sw.name + "_drain",
           sw.title + ": drained fraction and drain times (last burst client; 99% of the burst)",
           {"model", "strategy", "steady load", "burst B", "cap", "drained", "drain time (last)", "drain time (99%)"},
           {},
           {}};
  if (by_server) dt.columns.insert(dt.columns.begin() + 2, "server");
  const bool unfinished = records(recs, "unfinished") && by_server;
  if (unfinished) dt.columns.push_back("unfinished");
  if (lost) dt.columns.push_back("lost fraction");
  for (const auto& l : lines)
    for (auto i : l.idx) {
      std::vector<Cell> row = {name(l.model),
                               name(l.strategy),
                               l.rate,
                               static_cast<double>(l.clients),
                               capless(l) ? std::string("–") : format_cap(cap_of(sw, i)),
                               frac_of(recs[i], "drained"),
                               est_of(recs[i], "drain_time"),
                               est_of(recs[i], "drain_time_p99")};
      if (by_server) row.insert(row.begin() + 2, server_cell(l));
      if (unfinished) row.push_back(est_of(recs[i], "unfinished"));
      if (lost)
        row.push_back(recs[i]["summary"].contains("lost_fraction") ? Cell(est_of(recs[i], "lost_fraction"))
                                                                   : Cell(std::string("–")));
      dt.rows.push_back(std::move(row));
    }
  dt.notes.push_back(
      "Drain time (last): when the last burst client succeeded, over drained runs. Drain time (99%): when 99% of the "
      "burst had succeeded, over runs where that happened.");
  if (unfinished)
    dt.notes.push_back("Unfinished: clients still waiting when the run stopped (horizon or collapse), run mean.");
  out.table(dt);
}

// One line's plot of a panel: drained fraction (which = 0, with the fluid estimate as a dotted
// arrow) or drain times (which = 1), against cap / B.
void line_parts(Gp& gp, const BurstView& v, const BurstLine& l, const char* c, int which,
                std::vector<std::string>& parts) {
  const SweepSpec& sw = v.sw;
  const auto& recs = v.recs;
  // Per cap: cap / B, drained fraction (Wilson interval), drain time to the last client (interval), to 99%.
  std::vector<std::vector<double>> rows;
  const auto lo_hi = [](const Estimate& e) {
    return std::pair{std::isnan(e.lo) ? e.mean : e.lo, std::isnan(e.hi) ? e.mean : e.hi};
  };
  for (auto i : l.idx) {
    const Estimate d = est_of(recs[i], "drained"), t = est_of(recs[i], "drain_time");
    const auto [dlo, dhi] = lo_hi(d);
    const auto [tlo, thi] = lo_hi(t);
    rows.push_back({cap_of(sw, i) / static_cast<double>(l.clients), frac_of(recs[i], "drained"), dlo, dhi, t.mean, tlo,
                    thi, mean_of(recs[i], "drain_time_p99")});
  }
  const std::string b = gp.block(rows);
  if (capless(l)) {  // a level across the panel: its drained fraction, or its drain time (last; 99% dotted)
    const std::string t = fmt::format("no backoff, B = {}", l.clients);
    if (which == 0)
      parts.push_back(fmt::format("{} with lines dt 2 lw 1.5 lc rgb \"{}\" title {}", rows[0][1], c, gp_quote(t)));
    if (which == 1 && !std::isnan(rows[0][4]))
      parts.push_back(fmt::format("{} with lines dt 2 lw 1.5 lc rgb \"{}\" title {}", rows[0][4], c, gp_quote(t)));
    if (which == 1 && !std::isnan(rows[0][7]))
      parts.push_back(fmt::format("{} with lines dt 3 lw 1.2 lc rgb \"{}\" notitle", rows[0][7], c));
    return;
  }
  if (which == 0) {
    parts.push_back(fmt::format("{} using 1:2:3:4 with yerrorlines pt 7 ps 0.5 lw 1.5 lc rgb \"{}\" title \"B = {}\"",
                                b, c, l.clients));
    const double f = fluid_estimate(l.model, l.strategy, l.base, l.clients, l.rate);
    if (!std::isnan(f))
      gp(fmt::format("set arrow from {}, graph 0 to {}, graph 1 nohead dt 3 lw 1.5 lc rgb \"{}\"",
                     f / static_cast<double>(l.clients), f / static_cast<double>(l.clients), c));
  } else {
    if (has_y(rows, 4))
      parts.push_back(fmt::format("{} using 1:5:6:7 with yerrorlines pt 7 ps 0.5 lw 1.5 lc rgb \"{}\" title \"B = {}\"",
                                  b, c, l.clients));
    if (has_y(rows, 7)) parts.push_back(fmt::format("{} using 1:8 with lines dt 2 lw 1.2 lc rgb \"{}\" notitle", b, c));
  }
}

// Two figures, drained fraction and drain time, of the same panels.
void burst_figures(const BurstView& v, Out& out) {
  const SweepSpec& sw = v.sw;
  const auto& lines = v.lines;
  const bool by_server = v.by_server;
  // Panels: one per (model, rate, strategy) and, over server options, per configuration; lines per burst size.
  auto panels = group_by(sw, [&](const SweepPoint& p) {
    if (p.scenario.backoff.strategy == Strategy::none) return std::string();  // drawn in the others' panels
    std::string k = fmt::format("{} | {} | load {}", name(p.scenario.model), name(p.scenario.backoff.strategy),
                                num(p.scenario.traffic.rate));
    if (by_server) {
      const std::string l = server_label(p.scenario);
      k += " | " + (l.empty() ? std::string("paper 1's model") : l);
    }
    return k;
  });
  if (std::any_of(panels.begin(), panels.end(), [](const auto& p) { return !p.first.empty(); }))
    panels.erase(std::remove_if(panels.begin(), panels.end(), [](const auto& p) { return p.first.empty(); }),
                 panels.end());
  std::vector<std::string> bs;
  for (const auto& l : lines) bs.push_back(std::to_string(l.clients));
  bs = distinct(bs);
  auto bidx = [&](std::int64_t c) {
    return static_cast<std::size_t>(std::find(bs.begin(), bs.end(), std::to_string(c)) - bs.begin());
  };
  // Panel titles naming a server configuration are long: three wider panels per row.
  const std::size_t max_cols = by_server ? 3 : 4;
  const std::size_t cols = std::min<std::size_t>(panels.size(), max_cols);
  const int w = static_cast<int>((by_server ? 560 : 400) * cols),
            h = static_cast<int>(360 * ((panels.size() + cols - 1) / cols) + 40);
  for (int which = 0; which < 2; ++which) {
    Gp gp;
    gp(layout(panels.size(), max_cols,
              which == 0 ? sw.title + ": fraction of runs drained against cap / B (dotted: fluid estimate)"
                         : sw.title + ": drain time against cap / B (solid: last client, dashed: 99%)"));
    gp(which == 0 ? "set grid; set logscale x; set key bottom right font \",8\"; set xlabel \"cap / B\"; set ylabel "
                    "\"fraction drained\"; set yrange [-0.05:1.05]"
                  : "set grid; set logscale x; set logscale y; set key top left font \",8\"; set xlabel \"cap / B\"; "
                    "set ylabel \"drain time (attempt-durations)\"");
    for (const auto& [key, idx] : panels) {
      gp(fmt::format("set title {}{}", gp_quote(key), by_server ? " font \",9\"" : ""));
      gp("unset arrow");
      std::vector<std::string> parts;
      for (const auto& l : lines) {
        const auto& s0 = sw.points[idx.front()].scenario;
        if (l.model != s0.model || (l.strategy != s0.backoff.strategy && !capless(l)) || l.rate != s0.traffic.rate ||
            l.server_key != server_key(s0))
          continue;
        line_parts(gp, v, l, color(bidx(l.clients)), which, parts);
      }
      plot_or_empty(gp, parts, "no run drained", which == 0 ? "set yrange [-0.05:1.05]" : "");
    }
    gp("unset multiplot");
    out.figure(sw.name + (which == 0 ? "_drained" : "_drain_time"), gp, w, h);
  }
}

}  // namespace

void render_burst(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  const auto lines = burst_lines(sw);
  // Sweeps over server options: a "server" column, and panels per configuration too.
  const bool by_server = std::any_of(lines.begin(), lines.end(), [](const BurstLine& l) { return !l.server.empty(); });
  const BurstView v{sw, recs, lines, by_server, records(recs, "lost_fraction")};
  caps_table(v, out);
  drain_table(v, out);
  burst_figures(v, out);
}

void render_drain(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  const auto lines = burst_lines(sw);
  Table t{sw.name,
          sw.title + ": drain time against cap, to the last burst client and to 99% of them",
          {"model", "strategy", "burst B", "steady load", "cap", "drained", "drain time (last)", "drain time (99%)",
           "unfinished"},
          {},
          {}};
  Gp gp;
  gp(fmt::format("set title {} font \",13\"", gp_quote(sw.title + ": drain time against cap (95% CI)")));
  gp("set grid; set logscale x 2; set logscale y; set key top left font \",9\"; set xlabel \"cap\"; set ylabel \"drain "
     "time (attempt-durations)\"");
  std::vector<std::string> parts;
  std::size_t ci = 0;
  for (const auto& l : lines) {
    std::vector<std::vector<double>> rows;
    for (auto i : l.idx) {
      const auto& s = sw.points[i].scenario;
      const Estimate a = est_of(recs[i], "drain_time"), b = est_of(recs[i], "drain_time_p99");
      t.rows.push_back({name(l.model), name(l.strategy), static_cast<double>(l.clients), l.rate,
                        format_cap(s.backoff.cap), frac_of(recs[i], "drained"), a, b, est_of(recs[i], "unfinished")});
      rows.push_back({s.backoff.cap, a.mean, a.lo, a.hi, b.mean, b.lo, b.hi});
    }
    const std::string blk = gp.block(rows);
    const std::string label = fmt::format("{} {} B={}", name(l.model), name(l.strategy), l.clients);
    parts.push_back(fmt::format("{} using 1:2:3:4 with yerrorlines pt 7 ps 0.6 lw 1.5 lc rgb \"{}\" title {}", blk,
                                color(ci), gp_quote(label + ": last client")));
    parts.push_back(fmt::format("{} using 1:5:6:7 with yerrorlines pt 6 ps 0.6 lw 1.5 dt 2 lc rgb \"{}\" title {}", blk,
                                color(ci + 1), gp_quote(label + ": 99% of the burst")));
    ci += 2;
  }
  plot_or_empty(gp, parts, "no data", "");
  t.notes.push_back(fmt::format("Horizon {}, steady load {}, {} runs per cap.",
                                num(sw.points.front().scenario.measurement.horizon),
                                num(sw.points.front().scenario.traffic.rate), sw.runs));
  out.table(t);
  out.figure(sw.name, gp, 800, 550);
}

}  // namespace retrylab::papers::report
