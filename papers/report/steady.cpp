// The steady sweep: collapse thresholds, latency, per-server thresholds and cost, and their figures.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "montecarlo/scenario.hpp"
#include "papers/intervals.hpp"
#include "papers/report/common.hpp"
#include "papers/report/sweeps.hpp"

namespace retrylab::papers::report {

// A short name for a scenario's server options: empty when they are the defaults (the
// original model), "none (limit 10^9)" for a limit so large it never binds, else the mechanisms set.
std::string server_label(const montecarlo::Scenario& o) {
  const montecarlo::Scenario def{};
  const montecarlo::Admission& adm = o.admission;
  const montecarlo::Resource& res = o.resource;
  std::vector<std::string> parts;
  if (res.lock) parts.push_back("FIFO lock");
  if (adm.limit >= montecarlo::max_limit) {
    parts.push_back(adm.limit == montecarlo::max_limit ? std::string("none (limit 10^9, never reached)")
                                                       : fmt::format("none (limit {})", adm.limit));
  } else if (adm.limit > 0) {
    std::string l = fmt::format("limit {}, {}", adm.limit, to_string(adm.overflow));
    if (adm.reject_cost > 0) l += fmt::format(" (cost {})", num(adm.reject_cost));
    parts.push_back(l);
  }
  if (adm.aimd) {
    std::string a = fmt::format("AIMD limit {}..{}", adm.aimd_params.min, adm.aimd_params.max);
    if (adm.aimd_params.initial != adm.aimd_params.min) a += fmt::format(" from {}", adm.aimd_params.initial);
    a += fmt::format(", {}", to_string(adm.overflow));
    if (adm.reject_cost > 0) a += fmt::format(" (cost {})", num(adm.reject_cost));
    parts.push_back(a);
  }
  if (adm.retry_after > 0) {
    std::string r = fmt::format("Retry-After {}", num(adm.retry_after));
    if (adm.retry_after_rule != def.admission.retry_after_rule)
      r += fmt::format(" ({})", to_string(adm.retry_after_rule));
    r += o.client.ignore_retry_after >= 1  ? " ignored"
         : o.client.ignore_retry_after > 0 ? fmt::format(" ignored by {}", num(o.client.ignore_retry_after))
                                           : " honoured";
    parts.push_back(r);
  }
  if (res.rows != def.resource.rows) parts.push_back(fmt::format("{} rows", res.rows));
  if (res.service != def.resource.service)
    parts.push_back(std::string(to_string(res.service)) + " service" +
                    (res.service == montecarlo::ServiceDist::lognormal ? fmt::format(" (cv {})", num(res.service_cv))
                                                                       : std::string()));
  if (res.delay != def.resource.delay)
    parts.push_back(fmt::format(
        "delay {}{}", num(res.delay),
        res.delay_dist != def.resource.delay_dist ? fmt::format(" ({})", to_string(res.delay_dist)) : std::string()));
  if (o.client.mix != def.client.mix)
    parts.push_back(fmt::format("mix {} on {}", num(o.client.mix), name(o.client.mix_backoff.strategy)));
  if (o.client.timeout != def.client.timeout) parts.push_back(fmt::format("timeout {}", num(o.client.timeout)));
  if (o.client.max_attempts != def.client.max_attempts)
    parts.push_back(fmt::format("at most {} attempts", o.client.max_attempts));
  std::string out;
  for (const auto& x : parts) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// The canonical form of a scenario's server options alone: equal for equal options, the same string
// for every scenario with the defaults.
std::string server_key(const montecarlo::Scenario& o) {
  montecarlo::Scenario s;  // the base fields (model, backoff, traffic, window, retries) at their defaults
  s.resource = o.resource;
  s.admission = o.admission;
  s.failures = o.failures;
  s.client = o.client;
  s.client.retries = montecarlo::ClientPolicy{}.retries;
  s.measurement.recovery_window = o.measurement.recovery_window;
  s.measurement.settle = o.measurement.settle;
  return montecarlo::canonical(s);
}

Steady steady_lines(const StudyData& d, std::size_t si) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  Steady st;
  st.ks = sw.thresholds;
  if (st.ks.empty()) st.ks.push_back(sw.points.front().scenario.measurement.collapse);
  std::sort(st.ks.begin(), st.ks.end());
  for (const auto& [key, idx] : group_by(sw, [](const SweepPoint& p) {
         return fmt::format("{} {} {} {} {} {}", name(p.scenario.model), name(p.scenario.backoff.strategy),
                            p.scenario.backoff.base, p.scenario.backoff.cap, p.scenario.measurement.collapse,
                            server_key(p.scenario));
       })) {
    const auto& s0 = sw.points[idx.front()].scenario;
    Steady::Line l{s0.model, s0.backoff.strategy, server_label(s0), idx, {}};
    std::stable_sort(l.idx.begin(), l.idx.end(), [&](auto a, auto b) {
      return sw.points[a].scenario.traffic.rate < sw.points[b].scenario.traffic.rate;
    });
    for (auto k : st.ks) {
      std::vector<double> f;
      for (auto i : l.idx) {
        const json& r = recs[i];
        if (r.contains("per_run") && r["per_run"].contains("max_waiting")) {
          std::int64_t c = 0, n = 0;
          for (const auto& v : r["per_run"]["max_waiting"]) {
            ++n;
            c += jnum(v) >= static_cast<double>(k) ? 1 : 0;
          }
          f.push_back(static_cast<double>(c) / static_cast<double>(n));
        } else if (k == sw.points[i].scenario.measurement.collapse) {
          f.push_back(frac_of(r, "collapsed"));
        } else {
          throw std::runtime_error(
              fmt::format("sweep {}: thresholds other than collapse need per_run = [\"max_waiting\"]", sw.name));
        }
      }
      l.collapsed.push_back(std::move(f));
    }
    st.lines.push_back(std::move(l));
  }
  return st;
}

// Index (into line.idx) of the last load before the first where at least half the runs reached K'; -1 if the first
// already did; size() if none did.
std::ptrdiff_t last_surviving(const std::vector<double>& collapsed) {
  for (std::size_t j = 0; j < collapsed.size(); ++j)
    if (collapsed[j] >= 0.5) return static_cast<std::ptrdiff_t>(j) - 1;
  return static_cast<std::ptrdiff_t>(collapsed.size());
}

bool records(const std::vector<json>& recs, const std::string& m) {
  return std::any_of(recs.begin(), recs.end(),
                     [&](const json& r) { return r.contains("summary") && r["summary"].contains(m); });
}

namespace {

double rate_of(const SweepSpec& sw, std::size_t i) { return sw.points[i].scenario.traffic.rate; }

// The cell of a line's last sustained load, j as last_surviving() gives it: "< first load" when even
// the first load failed, "≥ last load" when none did, else the load.
Cell load_cell(const SweepSpec& sw, const Steady::Line& l, std::ptrdiff_t j) {
  return j < 0                                            ? Cell(fmt::format("< {}", num(rate_of(sw, l.idx.front()))))
         : j == static_cast<std::ptrdiff_t>(l.idx.size()) ? Cell(fmt::format("≥ {}", num(rate_of(sw, l.idx.back()))))
                                                          : Cell(rate_of(sw, l.idx[static_cast<std::size_t>(j)]));
}

// The load of load_cell() as a number (0 when even the first load failed, the last load when none did).
double load_value(const SweepSpec& sw, const Steady::Line& l, std::ptrdiff_t j) {
  return j < 0 ? 0.0
               : rate_of(sw, l.idx[static_cast<std::size_t>(
                                 std::min<std::ptrdiff_t>(j, static_cast<std::ptrdiff_t>(l.idx.size()) - 1))]);
}

// With retry limits a run need not collapse (clients give up): the last load before the first where
// the mean lost fraction exceeds 1% (an undefined one: no request ended, counts as exceeding) or most
// runs collapsed (K = ks[kcol]).
std::ptrdiff_t last_low_loss(const std::vector<json>& recs, const Steady::Line& l, std::size_t kcol) {
  std::vector<double> bad;
  for (std::size_t q = 0; q < l.idx.size(); ++q) {
    const double lf =
        recs[l.idx[q]]["summary"].contains("lost_fraction") ? mean_of(recs[l.idx[q]], "lost_fraction") : 0.0;
    bad.push_back(!(lf <= 0.01) || l.collapsed[kcol][q] >= 0.5 ? 1.0 : 0.0);
  }
  return last_surviving(bad);
}

// Sweeps over server options: per configuration, the sustainable load (last load where most runs
// survived K) and, at the common loads 0.1, 0.3 and 0.5 when on the grid, what the configuration
// costs there: collapsed fraction, goodput, rejected fraction of attempts, mean and p99 latency,
// queue wait (each a run mean; the server-side metrics only when the sweep records them). A sweep over
// several models or strategies gets model and strategy columns (many); one that records lost_fraction
// (client retry limits) gets the lost fraction and the last load with lost fraction <= 1% (lost).
struct Cost {
  const SweepSpec& sw;
  const std::vector<json>& recs;
  const Steady& st;
  std::size_t kcol;
  bool many, lost, p50;

  static Cell opt(const json& r, const std::string& m) {
    if (!r["summary"].contains(m)) return std::string("–");
    return m == "collapsed" ? Cell(frac_of(r, m)) : Cell(mean_of(r, m));
  }

  std::vector<std::string> columns() const {
    std::vector<std::string> c;
    if (many) c = {"model", "strategy"};
    c.insert(c.end(), {"server", "sustainable load"});
    if (lost) c.push_back("last load with lost fraction ≤ 1%");
    c.insert(c.end(), {"load", "collapsed", "goodput", "rejected fraction"});
    if (lost) c.push_back("lost fraction");
    c.push_back("mean latency");
    if (p50) c.push_back("p50 latency");
    c.insert(c.end(), {"p99 latency", "queue wait"});
    return c;
  }

  std::vector<Cell> row(const Steady::Line& l, std::size_t i, const Cell& sus, const Cell& low_loss) const {
    const json& r = recs[i];
    std::vector<Cell> row;
    if (many) row = {name(l.model), name(l.strategy)};
    row.insert(row.end(), {l.server.empty() ? Cell(std::string("–")) : Cell(l.server), sus});
    if (lost) row.push_back(low_loss);
    row.insert(row.end(), {rate_of(sw, i), opt(r, "collapsed"), opt(r, "goodput"), opt(r, "reject_fraction")});
    if (lost) row.push_back(opt(r, "lost_fraction"));
    row.push_back(opt(r, "latency"));
    if (p50) row.push_back(opt(r, "latency_p50"));
    row.insert(row.end(), {opt(r, "latency_p99"), opt(r, "queue_wait")});
    return row;
  }

  std::vector<std::string> notes() const {
    const std::string who = many ? std::string("Each line's model and strategy as named")
                                 : fmt::format("{} {}", name(st.lines.front().model), name(st.lines.front().strategy));
    std::vector<std::string> n = {fmt::format(
        "{}, base {}, cap {}; horizon {}, collapse K = {}, {} runs per point. Sustainable load: the last load of the "
        "grid before the first where at least half the runs collapsed. Each cost is the mean over runs of a run's "
        "value; in collapsed runs latency describes the clients served before the collapse only. Rejected fraction: "
        "rejected attempts / attempts. {}: nearest-rank {} of a run's client latencies.",
        who, num(sw.points.front().scenario.backoff.base), num(sw.points.front().scenario.backoff.cap),
        num(sw.points.front().scenario.measurement.horizon), st.ks[kcol], sw.runs,
        p50 ? "p50 and p99 latency" : "p99 latency", p50 ? "50th and 99th percentiles" : "99th percentile")};
    if (lost)
      n.push_back(
          "Lost fraction: clients that gave up at their retry limit / (clients that succeeded + clients that gave up), "
          "per "
          "run, averaged over runs (undefined in a run where no request ended). With a retry limit a run need not "
          "collapse: "
          "clients give up instead. Last load with lost fraction ≤ 1%: the last load of the grid before the first "
          "where "
          "the "
          "mean lost fraction exceeded 0.01 (or was undefined) or at least half the runs collapsed.");
    return n;
  }
};

// The ceiling figure (one model and strategy, several configurations): each configuration's
// sustainable load as a bar, the last load with at most 1% lost as a point when recorded.
// bars: per line, y, sustainable load, bound?, lost <= 1% load, bound?
void ceiling_figure(const Cost& c, const std::vector<std::vector<double>>& bars, Out& out) {
  const SweepSpec& sw = c.sw;
  const Steady& st = c.st;
  Gp gp;
  const double top = rate_of(sw, st.lines.front().idx.back());
  std::string yt = "set ytics (";
  for (std::size_t i = 0; i < st.lines.size(); ++i)
    yt += fmt::format(
        "{}{} {}", i ? ", " : "",
        gp_quote(st.lines[i].server.empty() ? std::string("default (paper 1's model)") : st.lines[i].server), i);
  gp(yt + ") font \",9\"");
  gp(fmt::format("set title {} font \",12\"",
                 gp_quote(fmt::format("{}: sustainable load per configuration (K = {})", sw.title, st.ks[c.kcol]))));
  gp(
      fmt::format("set yrange [{}:-0.7] noreverse; set xrange [0:{}]; set grid x; set key below vertical maxrows 3 "
                  "font \",9\"; set xlabel \"load λ\"",
                  static_cast<double>(st.lines.size()) - 0.3, top * 1.08));
  const std::string blk = gp.block(bars);
  std::vector<std::string> parts = {fmt::format("{} using ($2/2):1:($2/2):(0.32) with boxxyerror fs solid 0.5 lc rgb "
                                                "\"{}\" title \"last load where most runs survived\"",
                                                blk, color(0)),
                                    fmt::format("{} using ($3 > 0 ? $2 : NaN):1 with points pt 9 ps 1.6 lc rgb \"{}\" "
                                                "title \"no load of the grid collapsed most runs\"",
                                                blk, color(0))};
  if (c.lost) {
    parts.push_back(fmt::format(
        "{} using 4:1 with points pt 7 ps 1.3 lc rgb \"{}\" title \"last load with at most 1% of requests lost\"", blk,
        color(1)));
  }
  gp(plot_join(parts));
  out.figure(sw.name + "_ceiling", gp, 1400, static_cast<int>(28 * st.lines.size() + 240));
}

void render_steady_cost(const StudyData& d, std::size_t si, const Steady& st, std::size_t kcol, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  bool many = false;
  for (const auto& l : st.lines)
    many = many || l.model != st.lines.front().model || l.strategy != st.lines.front().strategy;
  const Cost c{sw, recs, st, kcol, many, records(recs, "lost_fraction"), records(recs, "latency_p50")};
  Table t{sw.name + "_cost", sw.title + ": sustainable load and cost per server configuration", c.columns(), {}, {}};
  std::vector<std::vector<double>> bars;  // y, sustainable, bound?, lost <= 1%, bound?
  for (const auto& l : st.lines) {
    const auto js = last_surviving(l.collapsed[kcol]);
    const Cell sus = load_cell(sw, l, js);
    bars.push_back({static_cast<double>(bars.size()), load_value(sw, l, js),
                    js == static_cast<std::ptrdiff_t>(l.idx.size()) ? 1.0 : 0.0, nan, 0.0});
    Cell low_loss = std::string("–");
    if (c.lost) {
      const auto jl = last_low_loss(recs, l, kcol);
      low_loss = load_cell(sw, l, jl);
      bars.back()[3] = load_value(sw, l, jl);
      bars.back()[4] = jl == static_cast<std::ptrdiff_t>(l.idx.size()) ? 1.0 : 0.0;
    }
    for (double load : {0.1, 0.3, 0.5})
      for (auto i : l.idx)
        if (!(std::abs(rate_of(sw, i) - load) > 1e-9)) t.rows.push_back(c.row(l, i, sus, low_loss));
  }
  t.notes = c.notes();
  out.table(t);
  if (many || st.lines.size() < 2) return;
  ceiling_figure(c, bars, out);
}

// The thresholds table: per line and K, the last load at which most runs survived. Returns those
// loads per line and K for the figure against K (NaN when even the first load collapsed most runs).
std::vector<std::vector<double>> thresholds_table(const SweepSpec& sw, const Steady& st, bool by_server, Out& out) {
  Table th{sw.name + "_thresholds",
           sw.title + ": collapse thresholds, the last load at which most runs survived, for each K",
           {"model", "strategy"},
           {},
           {}};
  if (by_server) th.columns.push_back("server");
  for (auto k : st.ks) th.columns.push_back(fmt::format("K = {}", k));
  std::vector<std::vector<double>> threshold_values;  // per line, per K
  for (const auto& l : st.lines) {
    std::vector<Cell> row = {name(l.model), name(l.strategy)};
    if (by_server) row.push_back(l.server.empty() ? std::string("–") : l.server);
    std::vector<double> vals;
    for (std::size_t ki = 0; ki < st.ks.size(); ++ki) {
      const auto j = last_surviving(l.collapsed[ki]);
      row.push_back(load_cell(sw, l, j));
      vals.push_back(j < 0 ? nan : load_value(sw, l, j));
    }
    th.rows.push_back(std::move(row));
    threshold_values.push_back(std::move(vals));
  }
  th.notes.push_back(fmt::format(
      "A run counts as collapsed at K when its peak backlog (max_waiting) reached K; runs simulated with "
      "collapse K = {} and horizon {}, {} runs per load. \"≥ x\": no load of the grid collapsed most runs.",
      sw.points.front().scenario.measurement.collapse, num(sw.points.front().scenario.measurement.horizon), sw.runs));
  out.table(th);
  return threshold_values;
}

// The full latency table: every point of every line.
void latency_table(const SweepSpec& sw, const std::vector<json>& recs, const Steady& st, bool by_server, Out& out) {
  Table lt{sw.name + "_latency",
           sw.title + ": mean latency and collapsed fraction against load",
           {"model", "strategy", "load", "latency", "collapsed", "goodput"},
           {},
           {}};
  if (by_server) lt.columns.insert(lt.columns.begin() + 2, "server");
  for (const auto& l : st.lines)
    for (std::size_t j = 0; j < l.idx.size(); ++j) {
      const auto i = l.idx[j];
      std::vector<Cell> row = {
          name(l.model),
          name(l.strategy),
          rate_of(sw, i),
          est_of(recs[i], "latency"),
          frac_of(recs[i], "collapsed"),
          recs[i]["summary"].contains("goodput") ? Cell(mean_of(recs[i], "goodput")) : Cell(std::string("–"))};
      if (by_server) row.insert(row.begin() + 2, l.server.empty() ? std::string("–") : l.server);
      lt.rows.push_back(std::move(row));
    }
  lt.notes.push_back(
      "Latency is the mean over clients that succeeded, averaged over runs; in collapsed runs it describes the clients "
      "served before the collapse only.");
  out.table(lt);
}

// The thresholds of every (model, strategy) side by side, one column per configuration: does a
// ranking of strategies survive each configuration? (A sweep over server options and strategies.)
void by_server_table(const SweepSpec& sw, const std::vector<json>& recs, const Steady& st, std::size_t kcol, Out& out) {
  std::vector<std::string> sv;
  for (const auto& l : st.lines) sv.push_back(l.server);
  sv = distinct(sv);
  const bool lost = records(recs, "lost_fraction");
  Table pt{sw.name + "_by_server",
           fmt::format("{}: sustainable load (last load where most runs survived, K = {}{}) per configuration",
                       sw.title, st.ks[kcol], lost ? ", and at most 1% of requests were lost" : ""),
           {"model", "strategy"},
           {},
           {}};
  for (const auto& x : sv) pt.columns.push_back(x.empty() ? std::string("default (paper 1's model)") : x);
  std::vector<std::pair<Model, Strategy>> ms;
  for (const auto& l : st.lines)
    if (std::find(ms.begin(), ms.end(), std::make_pair(l.model, l.strategy)) == ms.end())
      ms.push_back({l.model, l.strategy});
  for (const auto& [m, stg] : ms) {
    std::vector<Cell> row = {name(m), name(stg)};
    for (const auto& x : sv) {
      Cell c = std::string("–");
      for (const auto& l : st.lines) {
        if (l.model != m || l.strategy != stg || l.server != x) continue;
        c = load_cell(sw, l, lost ? last_low_loss(recs, l, kcol) : last_surviving(l.collapsed[kcol]));
      }
      row.push_back(c);
    }
    pt.rows.push_back(std::move(row));
  }
  pt.notes.push_back(fmt::format(
      "The last load of the grid before the first where at least half the runs collapsed (K = {}); horizon {}, "
      "{} runs per load. \"< x\": the first load already collapsed most runs; \"≥ x\": no load of the grid did.",
      st.ks[kcol], num(sw.points.front().scenario.measurement.horizon), sw.runs));
  if (lost)
    pt.notes.push_back(
        "The sweep records lost requests (client retry limits): a load also counts as not sustained when the mean "
        "lost "
        "fraction (clients that gave up / clients whose request ended) exceeded 0.01 or was undefined; without a "
        "retry "
        "limit nothing is lost and the threshold is the collapse threshold.");
  out.table(pt);
}

struct Panel {
  Model model;
  std::string server;
};

// What the steady figures share: their panels and each line's colour and title. A line is coloured
// per strategy, or per server configuration when the sweep varies it (beyond 8 configurations the
// colours repeat, so the 9th.. are dashed). A sweep over server configurations AND several
// strategies (paper 3's limits_lifted: split) draws one panel per (model, configuration), a line per
// strategy coloured as without server options; otherwise a panel per model.
struct SteadyFigures {
  const SweepSpec& sw;
  const std::vector<json>& recs;
  const Steady& st;
  std::size_t kcol;
  bool by_server, split;
  std::vector<Model> models;
  std::vector<Strategy> strategies;
  std::vector<Panel> panels;
  std::size_t servers_per_model = 1;

  // At most three panels a row, so the figure fits a screen (12 panels: four rows of three).
  std::size_t pcols() const { return split ? std::min<std::size_t>(servers_per_model, 3) : 3; }
  std::size_t prows() const {
    return (panels.size() + std::min(panels.size(), pcols()) - 1) / std::min(panels.size(), pcols());
  }
  // With a configuration per line the legend goes beside the panels, which widen to leave it room.
  std::string key_at() const { return by_server && !split ? "set key outside right top font \",9\"" : ""; }
  // Many configurations (paper 3's ceiling sweep: 22) have a legend as wide as the panel again.
  int panel_w() const { return by_server && !split ? (st.lines.size() > 12 ? 1500 : 950) : 480; }
  int width() const { return static_cast<int>(panel_w() * std::min<std::size_t>(panels.size(), pcols())); }

  bool in_panel(const Steady::Line& l, const Panel& p) const {
    return l.model == p.model && (!split || l.server == p.server);
  }
  // Each panel in turn: its title, plot(line, line index, parts) for each line in it, the plot.
  template <class Plot>
  void each_panel(Gp& gp, Plot plot) const {
    if (by_server) gp(key_at());
    for (const Panel& pn : panels) {
      gp(fmt::format("set title {}", panel_title(pn)));
      std::vector<std::string> parts;
      for (std::size_t li = 0; li < st.lines.size(); ++li)
        if (in_panel(st.lines[li], pn)) plot(st.lines[li], li, parts);
      plot_or_empty(gp, parts, "no data", "");
    }
  }
  std::string panel_title(const Panel& p) const {
    return gp_quote(!split ? name(p.model)
                           : name(p.model) + ": " +
                                 (p.server.empty() ? std::string("default server (paper 1's model)") : p.server));
  }
  std::string line_color(std::size_t li) const {
    if (!by_server || split) {
      const auto s = std::find(strategies.begin(), strategies.end(), st.lines[li].strategy) - strategies.begin();
      return std::string(color(static_cast<std::size_t>(s)));
    }
    return std::string(color(li)) + (li >= 8 ? "\" dt \"-" : "");
  }
  std::string line_title(std::size_t li) const {
    const auto& l = st.lines[li];
    return gp_quote(!by_server || split ? name(l.strategy)
                    : l.server.empty()  ? name(l.strategy)
                                        : name(l.strategy) + ", " + l.server);
  }
};

SteadyFigures steady_figures(const SweepSpec& sw, const std::vector<json>& recs, const Steady& st, std::size_t kcol,
                             bool by_server) {
  std::vector<Model> models;
  for (const auto& l : st.lines)
    if (std::find(models.begin(), models.end(), l.model) == models.end()) models.push_back(l.model);
  std::vector<Strategy> strategies;
  for (const auto& l : st.lines)
    if (std::find(strategies.begin(), strategies.end(), l.strategy) == strategies.end())
      strategies.push_back(l.strategy);
  const bool split = by_server && strategies.size() > 1;
  SteadyFigures f{sw, recs, st, kcol, by_server, split, models, strategies, {}};
  for (const auto& l : st.lines)
    if (std::none_of(f.panels.begin(), f.panels.end(),
                     [&](const Panel& p) { return p.model == l.model && (!split || p.server == l.server); }))
      f.panels.push_back({l.model, split ? l.server : std::string()});
  if (split) {  // a row of panels per model
    std::vector<Model> order;
    for (const auto& p : f.panels)
      if (std::find(order.begin(), order.end(), p.model) == order.end()) order.push_back(p.model);
    std::stable_sort(f.panels.begin(), f.panels.end(), [&](const Panel& a, const Panel& b) {
      return std::find(order.begin(), order.end(), a.model) < std::find(order.begin(), order.end(), b.model);
    });
    std::vector<std::string> sv;
    for (const auto& l : st.lines) sv.push_back(l.server);
    f.servers_per_model = distinct(sv).size();
  }
  return f;
}

void latency_figure(const SteadyFigures& f, Out& out) {
  const auto& st = f.st;
  Gp gp;
  gp(layout(f.panels.size(), f.pcols(),
            fmt::format("{}: mean latency against load (loads where most runs survived; × = last such load, K = {})",
                        f.sw.title, st.ks[f.kcol])));
  gp("set grid; set logscale y; set key top left font \",8\"; set xlabel \"load λ\"; set ylabel \"mean latency "
     "(attempt-durations)\"");
  f.each_panel(gp, [&](const Steady::Line& l, std::size_t li, std::vector<std::string>& parts) {
    std::vector<std::vector<double>> rows, mark;
    const auto j = last_surviving(l.collapsed[f.kcol]);
    for (std::size_t q = 0; q < l.idx.size(); ++q) {
      const bool ok = static_cast<std::ptrdiff_t>(q) <= j;
      const Estimate e = ok ? est_of(f.recs[l.idx[q]], "latency") : Estimate{nan, nan, nan};
      rows.push_back(
          {rate_of(f.sw, l.idx[q]), e.mean, std::isnan(e.lo) ? e.mean : e.lo, std::isnan(e.hi) ? e.mean : e.hi});
      if (static_cast<std::ptrdiff_t>(q) == j && j + 1 < static_cast<std::ptrdiff_t>(l.idx.size()))
        mark.push_back({rate_of(f.sw, l.idx[q]), mean_of(f.recs[l.idx[q]], "latency")});
    }
    parts.push_back(fmt::format("{} using 1:2:3:4 with yerrorlines pt 7 ps 0.5 lw 1.5 lc rgb \"{}\" title {}",
                                gp.block(rows), f.line_color(li), f.line_title(li)));
    if (!mark.empty())
      parts.push_back(fmt::format("{} using 1:2 with points pt 2 ps 2.5 lw 2 lc rgb \"{}\" notitle", gp.block(mark),
                                  f.line_color(li)));
  });
  gp("unset multiplot");
  out.figure(f.sw.name + "_latency", gp, f.width(), static_cast<int>(f.split ? 420 * f.prows() + 40 : 500));
}

void collapsed_figure(const SteadyFigures& f, Out& out) {
  const auto& st = f.st;
  Gp gp;
  gp(layout(f.panels.size(), f.pcols(),
            fmt::format("{}: fraction of runs that collapsed (K = {}) against load", f.sw.title, st.ks[f.kcol])));
  gp("set grid; set key bottom right font \",8\"; set xlabel \"load λ\"; set ylabel \"fraction collapsed\"; set "
     "yrange [-0.05:1.05]");
  f.each_panel(gp, [&](const Steady::Line& l, std::size_t li, std::vector<std::string>& parts) {
    std::vector<std::vector<double>> rows;
    for (std::size_t q = 0; q < l.idx.size(); ++q) {  // a fraction of runs: Wilson's interval
      const std::int64_t n = runs_of(f.recs[l.idx[q]]);
      const Estimate w = intervals::wilson(std::llround(l.collapsed[f.kcol][q] * static_cast<double>(n)), n);
      rows.push_back({rate_of(f.sw, l.idx[q]), l.collapsed[f.kcol][q], w.lo, w.hi});
    }
    parts.push_back(fmt::format("{} using 1:2:3:4 with yerrorlines pt 7 ps 0.5 lw 1.5 lc rgb \"{}\" title {}",
                                gp.block(rows), f.line_color(li), f.line_title(li)));
  });
  gp("unset multiplot");
  out.figure(f.sw.name + "_collapsed", gp, f.width(), static_cast<int>(f.split ? 380 * f.prows() + 40 : 450));
}

void thresholds_vs_k_figure(const SteadyFigures& f, const std::vector<std::vector<double>>& threshold_values,
                            Out& out) {
  const auto& st = f.st;
  Gp gp;
  gp(layout(f.models.size(), 3, f.sw.title + ": collapse threshold (last load where most runs survived) against K"));
  gp("set grid; set logscale x; set key bottom right font \",8\"; set xlabel \"collapse threshold K (waiting "
     "clients)\"; set ylabel \"last surviving load\"");
  for (Model m : f.models) {
    gp(fmt::format("set title {}", gp_quote(name(m))));
    std::vector<std::string> parts;
    for (std::size_t li = 0; li < st.lines.size(); ++li) {
      if (st.lines[li].model != m) continue;
      std::vector<std::vector<double>> rows;
      for (std::size_t ki = 0; ki < st.ks.size(); ++ki)
        rows.push_back({static_cast<double>(st.ks[ki]), threshold_values[li][ki]});
      parts.push_back(fmt::format("{} using 1:2 with linespoints pt 7 ps 0.6 lw 1.5 lc rgb \"{}\" title {}",
                                  gp.block(rows), f.line_color(li), f.line_title(li)));
    }
    plot_or_empty(gp, parts, "no data", "");
  }
  gp("unset multiplot");
  out.figure(f.sw.name + "_thresholds_vs_k", gp, static_cast<int>(480 * std::min<std::size_t>(f.models.size(), 3)),
             450);
}

}  // namespace

void render_steady(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  const Steady st = steady_lines(d, si);
  // Sweeps over server options get a "server" column and lines coloured per configuration.
  const bool by_server = std::any_of(st.lines.begin(), st.lines.end(), [](const auto& l) { return !l.server.empty(); });
  const auto threshold_values = thresholds_table(sw, st, by_server, out);
  latency_table(sw, recs, st, by_server, out);
  // Figures: latency and collapsed fraction per model at the simulated K (else the largest); thresholds against K.
  const std::size_t kmain = static_cast<std::size_t>(
      std::find(st.ks.begin(), st.ks.end(), sw.points.front().scenario.measurement.collapse) - st.ks.begin());
  const std::size_t kcol = kmain < st.ks.size() ? kmain : st.ks.size() - 1;
  if (by_server) render_steady_cost(d, si, st, kcol, out);
  const SteadyFigures f = steady_figures(sw, recs, st, kcol, by_server);
  if (f.split) by_server_table(sw, recs, st, kcol, out);
  latency_figure(f, out);
  collapsed_figure(f, out);
  if (st.ks.size() > 1) thresholds_vs_k_figure(f, threshold_values, out);
}

}  // namespace retrylab::papers::report
