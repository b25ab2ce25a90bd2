// The frontier sweep: the latency frontier of exponential against window backoff.
// Per model and N: each exponential strategy's lowest mean latency over its base/cap grid against the
// best fixed window, over the points where every run finished. No backoff (`none`) counts as the
// window W = 0, the zero-sleep limit of both searches. A best point at its grid's edge is named in the
// "grid edge" column (W = 0 is the physical limit, not an edge to extend); a point stopped by the
// horizon is out of the running, and when the sweep records `unfinished` the note checks that its
// unfinished clients alone bound its mean latency above its strategy's best.
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

// The window family: the window strategy and no backoff (its W = 0).
bool windowish(Strategy s) { return s == Strategy::window || s == Strategy::none; }
double window_of(const montecarlo::Scenario& s) {
  return s.backoff.strategy == Strategy::none ? 0.0 : s.backoff.window;
}

struct Group {
  std::size_t best_w = SIZE_MAX;
  std::map<Strategy, std::size_t> best;
  std::map<Strategy, std::map<double, std::size_t>> by_base;  // the point of least latency over caps, per base
  std::vector<Strategy> strategies;                           // exponential ones, in grid order
};

Group best_points(const SweepSpec& sw, const std::vector<json>& recs, const std::vector<std::size_t>& idx) {
  Group g;
  for (auto i : idx) {
    const auto& s = sw.points[i].scenario;
    const Strategy st = s.backoff.strategy;
    if (!windowish(st) && std::find(g.strategies.begin(), g.strategies.end(), st) == g.strategies.end())
      g.strategies.push_back(st);
    if (!all_finished(recs[i])) continue;
    const double lat = mean_of(recs[i], "latency");
    if (windowish(st)) {
      if (g.best_w == SIZE_MAX || lat < mean_of(recs[g.best_w], "latency")) g.best_w = i;
    } else {
      auto it = g.best.find(st);
      if (it == g.best.end() || lat < mean_of(recs[it->second], "latency")) g.best[st] = i;
      auto& bb = g.by_base[st];
      if (!bb.count(s.backoff.base) || lat < mean_of(recs[bb[s.backoff.base]], "latency")) bb[s.backoff.base] = i;
    }
  }
  return g;
}

// The searched fields of point `b` at the low or (finite) high end of their values among the points
// of the same family in `idx`; "" when none is.
std::string grid_edge(const SweepSpec& sw, const std::vector<std::size_t>& idx, std::size_t b) {
  const auto& sb = sw.points[b].scenario;
  const bool win = windowish(sb.backoff.strategy);
  std::vector<std::pair<std::string, std::vector<double>>> fields;
  if (win)
    fields = {{"W", {}}};
  else
    fields = {{"base", {}}, {"cap", {}}};
  for (auto i : idx) {
    const auto& s = sw.points[i].scenario;
    if (win ? !windowish(s.backoff.strategy) : s.backoff.strategy != sb.backoff.strategy) continue;
    if (win)
      fields[0].second.push_back(window_of(s));
    else
      fields[0].second.push_back(s.backoff.base), fields[1].second.push_back(s.backoff.cap);
  }
  const std::vector<double> mine =
      win ? std::vector<double>{window_of(sb)} : std::vector<double>{sb.backoff.base, sb.backoff.cap};
  std::vector<std::string> out;
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const auto [lo, hi] = std::minmax_element(fields[f].second.begin(), fields[f].second.end());
    if (fields[f].second.empty() || *lo == *hi) continue;
    if (mine[f] == *lo) out.push_back(fmt::format("{} {} (smallest)", fields[f].first, num(mine[f])));
    if (mine[f] == *hi && std::isfinite(mine[f]))
      out.push_back(fmt::format("{} {} (largest)", fields[f].first, num(mine[f])));
  }
  std::string s;
  for (const auto& x : out) s += (s.empty() ? "" : ", ") + x;
  if (win && window_of(sb) == 0.0) return "W = 0 (no sleep: the physical limit)";
  return s;
}

// Points stopped by the horizon: each one's mean latency is at least (mean unfinished / N) x horizon.
// Returns the note saying how far above its strategy's best that bound is (or which points it does
// not rule out); empty when the sweep does not record `unfinished` or every point finished.
std::string horizon_note(const SweepSpec& sw, const std::vector<json>& recs,
                         const std::vector<std::pair<std::string, std::vector<std::size_t>>>& groups) {
  if (!records(recs, "unfinished")) return {};
  std::size_t stopped = 0;
  double least = INFINITY;
  std::vector<std::string> open;
  for (const auto& [key, idx] : groups) {
    const Group g = best_points(sw, recs, idx);
    for (auto i : idx) {
      if (all_finished(recs[i])) continue;
      ++stopped;
      const auto& s = sw.points[i].scenario;
      const std::size_t b = windowish(s.backoff.strategy)      ? g.best_w
                            : g.best.count(s.backoff.strategy) ? g.best.at(s.backoff.strategy)
                                                               : SIZE_MAX;
      if (b == SIZE_MAX) continue;  // its strategy has no finished point to beat
      // Run r extended: its unfinished clients take longer than the horizon, so at least as long as any
      // finished one; its mean latency is at least that of its finished clients and u_r / N x horizon.
      double bound = mean_of(recs[i], "unfinished") / static_cast<double>(s.traffic.clients) * s.measurement.horizon;
      if (n_of(recs[i], "latency") == runs_of(recs[i])) bound = std::max(bound, mean_of(recs[i], "latency"));
      const double ratio = bound / mean_of(recs[b], "latency");
      least = std::min(least, ratio);
      if (!(ratio > 1.0))
        open.push_back(fmt::format("{} N = {} {} base {} cap {}", name(s.model), s.traffic.clients,
                                   name(s.backoff.strategy), num(s.backoff.base), format_number(s.backoff.cap)));
    }
  }
  if (stopped == 0) return {};
  std::string n = fmt::format(
      "{} {} a run stopped by its horizon. Had they run on, each one's mean latency would be at least the larger "
      "of (mean unfinished / N) × horizon and its finished clients' mean latency (the unfinished ones could only "
      "raise it)",
      stopped, stopped == 1 ? "point had" : "points had");
  if (std::isinf(least)) return n + "; none of their strategies finished anywhere, so there is no best to compare.";
  n += fmt::format(", at least {}× the best latency of its strategy (or window) and N", num(least));
  if (open.empty()) return n + ": a longer horizon could not make one of them the best.";
  return n + fmt::format("; not ruled out by it: {}.", fmt::join(open, "; "));
}

// One figure panel: per exponential strategy its best latency per base, and the best window dashed.
void panel(Gp& gp, const SweepSpec& sw, const std::vector<json>& recs, const Group& g, const montecarlo::Scenario& s0,
           double wl) {
  gp(fmt::format("set title {}", gp_quote(fmt::format("{}, N = {}", name(s0.model), s0.traffic.clients))));
  std::vector<std::string> parts;
  std::size_t ci = 0;
  for (Strategy st : g.strategies) {
    std::vector<std::vector<double>> rows;
    if (g.by_base.count(st))
      for (const auto& [b, i] : g.by_base.at(st)) {
        const Estimate e = est_of(recs[i], "latency");
        rows.push_back({b, e.mean, std::isnan(e.lo) ? e.mean : e.lo, std::isnan(e.hi) ? e.mean : e.hi});
      }
    if (has_y(rows, 1))
      parts.push_back(fmt::format("{} using 1:2:3:4 with yerrorlines pt 7 ps 0.6 lw 1.5 lc rgb \"{}\" title {}",
                                  gp.block(rows), color(ci), gp_quote(name(st))));
    ++ci;
  }
  if (!std::isnan(wl)) {
    const double w = window_of(sw.points[g.best_w].scenario);
    parts.push_back(fmt::format("{} with lines dt 2 lw 2 lc rgb \"black\" title {}", wl,
                                gp_quote(w == 0.0 ? std::string("best window W = 0 (no backoff)")
                                                  : fmt::format("best window W = {}", num(w)))));
  }
  plot_or_empty(gp, parts, "no point where every run finished", "");
}

}  // namespace

void render_frontier(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  Table t{sw.name,
          sw.title + ": lowest mean latency in the classic test, best exponential against best fixed window",
          {"model", "N", "strategy", "best base", "best cap", "latency", "best window W", "window latency",
           "ratio exp/window", "grid edge"},
          {},
          {}};
  const auto groups = group_by(
      sw, [](const SweepPoint& p) { return fmt::format("{} {}", name(p.scenario.model), p.scenario.traffic.clients); });
  Gp gp;
  gp(layout(groups.size(), 2, sw.title + ": latency against base (best cap per base); dashed: best window"));
  gp("set grid; set logscale x 2; set logscale y; set key top left font \",8\"; set xlabel \"base b\"; set ylabel "
     "\"mean latency (attempt-durations)\"");
  std::vector<std::string> zero;  // groups whose best window is no sleep at all
  for (const auto& [key, idx] : groups) {
    const auto& s0 = sw.points[idx.front()].scenario;
    const Group g = best_points(sw, recs, idx);
    const std::size_t best_w = g.best_w;
    const double wl = best_w == SIZE_MAX ? nan : mean_of(recs[best_w], "latency");
    const std::string wedge = best_w == SIZE_MAX ? std::string() : grid_edge(sw, idx, best_w);
    const auto edge_cell = [&](const std::string& own) {
      std::string c = own;
      if (!wedge.empty()) c += (c.empty() ? "window: " : "; window: ") + wedge;
      return Cell(c.empty() ? std::string("–") : c);
    };
    if (best_w != SIZE_MAX && window_of(sw.points[best_w].scenario) == 0.0) {
      const double bound = (static_cast<double>(s0.traffic.clients) + 1.0) / 2.0;
      zero.push_back(fmt::format("{} N = {}: {} against (N + 1)/2 = {}{}", name(s0.model), s0.traffic.clients, num(wl),
                                 num(bound), std::abs(wl - bound) <= 1e-9 * bound ? ", attained" : ""));
    }
    for (Strategy st : g.strategies) {
      auto it = g.best.find(st);
      Cell bw = best_w == SIZE_MAX ? Cell(std::string("–")) : Cell(window_of(sw.points[best_w].scenario));
      Cell wlc = best_w == SIZE_MAX ? Cell(std::string("–")) : Cell(est_of(recs[best_w], "latency"));
      if (it == g.best.end()) {
        t.rows.push_back({name(s0.model), static_cast<double>(s0.traffic.clients), name(st),
                          std::string("none finished"), std::string("–"), std::string("–"), bw, wlc, std::string("–"),
                          edge_cell("")});
      } else {
        const auto& s = sw.points[it->second].scenario;
        t.rows.push_back({name(s0.model), static_cast<double>(s0.traffic.clients), name(st), s.backoff.base,
                          format_cap(s.backoff.cap), est_of(recs[it->second], "latency"), bw, wlc,
                          mean_of(recs[it->second], "latency") / wl, edge_cell(grid_edge(sw, idx, it->second))});
      }
    }
    panel(gp, sw, recs, g, s0, wl);
  }
  gp("unset multiplot");
  t.notes.push_back(
      "Only points where every run finished are eligible (a run stopped by the horizon would report the latency of its "
      "lucky clients only). Ratio below 1: the best exponential strategy beats the best fixed window. Grid edge: the "
      "best point's searched values at the end of their grid (for its strategy, then for the window), where a search "
      "beyond the grid might do better.");
  if (!zero.empty())
    t.notes.push_back(fmt::format(
        "W = 0 is no backoff (strategy none), the zero-sleep limit of the window and of every exponential search. "
        "Where it is the best window ({}), compare the lower bound (N + 1)/2 on a burst's mean latency in the free "
        "model (two attempts that overlap cannot both succeed, so at most one client finishes per attempt-duration): "
        "where it is attained, no point of any grid can do better.",
        fmt::join(zero, "; ")));
  if (const std::string h = horizon_note(sw, recs, groups); !h.empty()) t.notes.push_back(h);
  out.table(t);
  out.figure(sw.name, gp, 1200, static_cast<int>(450 * ((groups.size() + 1) / 2)));
}

}  // namespace retrylab::papers::report
