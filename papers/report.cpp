#include "papers/report.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <regex>
#include <stdexcept>

#include "analytic/aloha.hpp"
#include "analytic/amplification.hpp"
#include "analytic/classic.hpp"
#include "analytic/fluid_cap.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "analytic/sleep.hpp"
#include "montecarlo/brooker.hpp"
#include "montecarlo/dependency.hpp"
#include "papers/intervals.hpp"
#include "papers/render.hpp"

namespace retrylab::papers {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
const char* const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
const char* color(std::size_t i) { return colors[i % 8]; }

double jnum(const json& j) { return j.is_number() ? j.get<double>() : nan; }

const json& metric(const json& rec, const std::string& m) {
  const json& s = rec.at("summary");
  if (!s.contains(m))
    throw std::runtime_error(fmt::format("sweep {} does not keep metric {}, which its report needs: add it to metrics",
                                         rec.at("sweep").get<std::string>(), m));
  return s.at(m);
}
double mean_of(const json& rec, const std::string& m) { return jnum(metric(rec, m).at("mean")); }
double frac_of(const json& rec, const std::string& m) { return jnum(metric(rec, m).at("fraction")); }
std::int64_t n_of(const json& rec, const std::string& m) { return metric(rec, m).at("n").get<std::int64_t>(); }
// The interval respects the quantity (papers/intervals.hpp): no negative bound for a non-negative one.
Estimate est_of(const json& rec, const std::string& m) { return intervals::for_metric(m, metric(rec, m)); }
std::int64_t runs_of(const json& rec) { return rec.at("runs").get<std::int64_t>(); }

std::string name(Model m) { return std::string(to_string(m)); }
std::string name(Strategy s) { return std::string(to_string(s)); }
std::string num(double x) { return format_number(x); }

// Groups point indices by a key, in order of first appearance.
template <class F>
std::vector<std::pair<std::string, std::vector<std::size_t>>> group_by(const SweepSpec& sw, F key) {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> g;
  std::map<std::string, std::size_t> where;
  for (std::size_t i = 0; i < sw.points.size(); ++i) {
    const std::string k = key(sw.points[i]);
    auto it = where.find(k);
    if (it == where.end()) {
      where[k] = g.size();
      g.push_back({k, {i}});
    } else {
      g[it->second].second.push_back(i);
    }
  }
  return g;
}

std::vector<std::string> distinct(const std::vector<std::string>& xs) {
  std::vector<std::string> out;
  for (const auto& x : xs)
    if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  return out;
}

// Accumulates a gnuplot script: datablocks first, then commands.
struct Gp {
  std::string data, cmds;
  int blocks = 0;
  std::map<std::string, std::vector<std::vector<double>>> rows_of;
  std::string block(const std::vector<std::vector<double>>& rows) {
    const std::string n = fmt::format("d{}", blocks++);
    data += datablock(n, rows);
    rows_of["$" + n] = rows;
    return "$" + n;
  }
  // True unless `part` plots column K of a datablock ("$dN using 1:K...") whose column K is all NaN.
  bool has_data(const std::string& part) const {
    if (part.empty() || part[0] != '$') return true;
    const auto sp = part.find(' ');
    const auto it = rows_of.find(part.substr(0, sp));
    const auto u = part.find("using 1:");
    if (it == rows_of.end() || u == std::string::npos) return true;
    const std::size_t col = std::stoul(part.substr(u + 8)) - 1;
    for (const auto& r : it->second)
      if (col < r.size() && std::isfinite(r[col])) return true;
    return false;
  }
  void operator()(const std::string& line) { cmds += readable(line) + "\n"; }
  std::string script() const { return data + cmds; }

  // Every figure command passes through here, so every figure reads at a glance: a decimal log
  // axis is labelled at 1 and 3 of each decade (not only at powers of ten; in gnuplot's own format) and is back on
  // automatic tics when the scale is unset; a legend inside the panel ("set key top left" and the like, which sat on
  // curves) goes below the panel instead.
  static std::string readable(std::string line) {
    static const std::regex log_on("(^|; )set logscale ([xy])(?=;|$)"), log_off("unset logscale ([xy])(?=;|$)"),
        key_inside("set key (top|bottom) (left|right)");
    static const std::string tics = [] {
      std::string t;
      for (int e = -3; e <= 9; ++e)
        for (int m : {1, 3}) t += fmt::format("{}{:g}", t.empty() ? "" : ", ", m * std::pow(10.0, e));
      return "(" + t + ")";
    }();
    line = std::regex_replace(line, log_on, "$1set logscale $2; set $2tics " + tics);
    line = std::regex_replace(line, log_off, "unset logscale $1; set $1tics autofreq");
    return std::regex_replace(line, key_inside, "set key below");
  }
};

struct Out {
  fs::path dir;
  std::vector<std::string> certs;
  std::vector<fs::path> files;
  void table(const Table& t) {
    auto f = write_table(t, dir, certs);
    files.insert(files.end(), f.begin(), f.end());
  }
  void figure(const std::string& n, const Gp& gp, int w, int h) {
    auto f = render_figure(Figure{n, gp.script(), w, h}, dir, certs);
    files.insert(files.end(), f.begin(), f.end());
  }
};

std::string layout(std::size_t n, std::size_t cols, const std::string& title) {
  const std::size_t c = std::min(n, cols);
  const std::size_t r = (n + c - 1) / c;
  return fmt::format("set multiplot layout {},{} title {} font \",13\"", r, c, gp_quote(title));
}

std::string plot_join(const std::vector<std::string>& parts) {
  std::string s = "plot ";
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? ", \\\n     " : "") + parts[i];
  return s;
}

bool has_y(const std::vector<std::vector<double>>& rows, std::size_t col) {
  for (const auto& r : rows)
    if (std::isfinite(r[col])) return true;
  return false;
}

// gnuplot refuses a plot whose points are all undefined: an empty panel says why instead.
// `restore` re-applies the panel settings the placeholder overrode.
void plot_or_empty(Gp& gp, const std::vector<std::string>& all_parts, const std::string& why,
                   const std::string& restore) {
  std::vector<std::string> parts;
  for (const auto& p : all_parts)
    if (gp.has_data(p)) parts.push_back(p);
  if (!parts.empty()) {
    gp(plot_join(parts));
    return;
  }
  gp("set label 998 " + gp_quote(why) + " at graph 0.5, graph 0.5 center");
  gp("set xrange [1:10]; set yrange [1:10]");
  gp("plot 5 with lines lc rgb \"white\" notitle");
  gp("unset label 998; set autoscale x; set autoscale y");
  if (!restore.empty()) gp(restore);
}

// ---------------------------------------------------------------- checks
void render_checks(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  Table t{sw.name,
          sw.title + ": engine against closed forms (retries off, Poisson arrivals)",
          {"model", "rate λ", "metric", "simulated", "closed form", "rel. error", "within CI"},
          {},
          {}};
  std::map<Model, std::vector<std::vector<double>>> series;
  double shared_peak = nan, shared_peak_rate = nan;
  for (std::size_t i = 0; i < sw.points.size(); ++i) {
    const auto& s = sw.points[i].scenario;
    const bool ps = s.model == Model::ps;
    const std::string m = ps ? "sojourn" : "goodput";
    double exact = nan;
    if (s.model == Model::collision) exact = goodput(PureAloha{s.rate});
    if (s.model == Model::free) exact = goodput(OccFree{s.rate});
    if (ps && s.rate < 1) exact = mean_time(ProcessorSharing{s.rate, 1.0});
    const Estimate e = est_of(recs[i], m);
    const bool within = e.lo <= exact && exact <= e.hi;
    t.rows.push_back({name(s.model), s.rate, ps ? std::string("time in system") : std::string("goodput"), e, exact,
                      std::isnan(exact) ? nan : (e.mean - exact) / exact,
                      std::isnan(exact) ? std::string("–") : std::string(within ? "yes" : "no")});
    series[s.model].push_back({s.rate, e.mean, e.lo, e.hi});
    if (s.model == Model::shared && !(e.mean <= shared_peak)) {
      shared_peak = e.mean;
      shared_peak_rate = s.rate;
    }
  }
  if (!std::isnan(shared_peak))
    t.notes.push_back(
        fmt::format("`shared` (no closed form): highest simulated goodput {} at arrival rate {} on this grid.",
                    num(shared_peak), num(shared_peak_rate)));
  out.table(t);

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
    const std::string part = fmt::format(
        "{} using 1:2:3:4 with yerrorbars pt 7 ps 0.6 lc rgb \"{}\" title \"{} (simulated)\"", b, color(ci), name(m));
    if (m == Model::ps) {
      ps_plots.push_back(part);
      if (!ps_curve.empty())
        ps_plots.push_back(fmt::format("{} using 1:2 with lines lw 1.5 lc rgb \"{}\" title \"1/(1−ρ)\"",
                                       gp.block(ps_curve), color(ci)));
    } else {
      goodput_plots.push_back(part);
      if (m == Model::collision)
        goodput_plots.push_back(fmt::format("{} using 1:2 with lines lw 1.5 lc rgb \"{}\" title \"λe^{{−2λ}}\"",
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

// ---------------------------------------------------------------- sleep
struct SleepGroup {
  Backoff backoff;
  std::vector<std::vector<double>> rows;  // k, sim q10, q50, q90, exact q10, q50, q90, sim mean, exact mean
};

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

// ---------------------------------------------------------------- classic
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
          rows.push_back({static_cast<double>(s.clients), e.mean, std::isnan(e.lo) ? e.mean : e.lo,
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
      const auto c = classic(ClassicTest{s.model, s.backoff, s.clients});
      ea = c.finishes ? Cell(*c.attempts_per_client) : Cell(std::string("never finishes"));
      em = c.finishes ? Cell(*c.makespan) : Cell(std::string("never finishes"));
    }
    t.rows.push_back({name(s.model), name(s.backoff.strategy), static_cast<double>(s.clients),
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
    ns.push_back(std::to_string(p.scenario.clients));
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
          if (std::to_string(s.clients) != n || name(s.model) != models[mi]) continue;
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

// ---------------------------------------------------------------- frontier
bool all_finished(const json& rec) { return n_of(rec, "makespan") == runs_of(rec); }

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

// ---------------------------------------------------------------- steady
struct Steady {
  std::vector<std::int64_t> ks;  // thresholds, ascending
  struct Line {
    Model model;
    Strategy strategy;
    std::string server;                          // server_label(): empty for the default server options
    std::vector<std::size_t> idx;                // points, by ascending rate
    std::vector<std::vector<double>> collapsed;  // per K', per point: fraction of runs reaching K'
  };
  std::vector<Line> lines;
};

// A short name for a scenario's server options: empty when they are the defaults (the
// original model), "none (limit 10^9)" for a limit so large it never binds, else the mechanisms set.
std::string server_label(const montecarlo::ServerOptions& o) {
  const montecarlo::ServerOptions def{};
  std::vector<std::string> parts;
  if (o.lock) parts.push_back("FIFO lock");
  if (o.limit >= montecarlo::max_limit) {
    parts.push_back(o.limit == montecarlo::max_limit ? std::string("none (limit 10^9, never reached)")
                                                     : fmt::format("none (limit {})", o.limit));
  } else if (o.limit > 0) {
    std::string l = fmt::format("limit {}, {}", o.limit, to_string(o.overflow));
    if (o.reject_cost > 0) l += fmt::format(" (cost {})", num(o.reject_cost));
    parts.push_back(l);
  }
  if (o.aimd) {
    std::string a = fmt::format("AIMD limit {}..{}", o.aimd_params.min, o.aimd_params.max);
    if (o.aimd_params.initial != o.aimd_params.min) a += fmt::format(" from {}", o.aimd_params.initial);
    a += fmt::format(", {}", to_string(o.overflow));
    if (o.reject_cost > 0) a += fmt::format(" (cost {})", num(o.reject_cost));
    parts.push_back(a);
  }
  if (o.retry_after > 0) {
    std::string r = fmt::format("Retry-After {}", num(o.retry_after));
    if (o.retry_after_rule != def.retry_after_rule) r += fmt::format(" ({})", to_string(o.retry_after_rule));
    r += o.ignore_retry_after >= 1  ? " ignored"
         : o.ignore_retry_after > 0 ? fmt::format(" ignored by {}", num(o.ignore_retry_after))
                                    : " honoured";
    parts.push_back(r);
  }
  if (o.rows != def.rows) parts.push_back(fmt::format("{} rows", o.rows));
  if (o.service != def.service)
    parts.push_back(
        std::string(to_string(o.service)) + " service" +
        (o.service == montecarlo::ServiceDist::lognormal ? fmt::format(" (cv {})", num(o.service_cv)) : std::string()));
  if (o.delay != def.delay)
    parts.push_back(
        fmt::format("delay {}{}", num(o.delay),
                    o.delay_dist != def.delay_dist ? fmt::format(" ({})", to_string(o.delay_dist)) : std::string()));
  if (o.mix != def.mix) parts.push_back(fmt::format("mix {} on {}", num(o.mix), name(o.mix_backoff.strategy)));
  if (o.timeout != def.timeout) parts.push_back(fmt::format("timeout {}", num(o.timeout)));
  if (o.max_attempts != def.max_attempts) parts.push_back(fmt::format("at most {} attempts", o.max_attempts));
  std::string out;
  for (const auto& x : parts) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// The canonical form of a scenario's server options alone: equal for equal options, the same string
// for every scenario with the defaults.
std::string server_key(const montecarlo::ServerOptions& o) {
  montecarlo::Scenario s;
  s.server = o;
  return montecarlo::canonical(s);
}

Steady steady_lines(const StudyData& d, std::size_t si) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  Steady st;
  st.ks = sw.thresholds;
  if (st.ks.empty()) st.ks.push_back(sw.points.front().scenario.collapse);
  std::sort(st.ks.begin(), st.ks.end());
  for (const auto& [key, idx] : group_by(sw, [](const SweepPoint& p) {
         return fmt::format("{} {} {} {} {} {}", name(p.scenario.model), name(p.scenario.backoff.strategy),
                            p.scenario.backoff.base, p.scenario.backoff.cap, p.scenario.collapse,
                            server_key(p.scenario.server));
       })) {
    const auto& s0 = sw.points[idx.front()].scenario;
    Steady::Line l{s0.model, s0.backoff.strategy, server_label(s0.server), idx, {}};
    std::stable_sort(l.idx.begin(), l.idx.end(),
                     [&](auto a, auto b) { return sw.points[a].scenario.rate < sw.points[b].scenario.rate; });
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
        } else if (k == sw.points[i].scenario.collapse) {
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

// Sweeps over server options: per configuration, the sustainable load (last load where most runs
// survived K) and, at the common loads 0.1, 0.3 and 0.5 when on the grid, what the configuration
// costs there: collapsed fraction, goodput, rejected fraction of attempts, mean and p99 latency,
// queue wait (each a run mean; the server-side metrics only when the sweep records them). A sweep over
// several models or strategies gets model and strategy columns; one that records lost_fraction
// (client retry limits) gets the lost fraction and the last load with lost fraction <= 1%.
bool records(const std::vector<json>& recs, const std::string& m) {
  return std::any_of(recs.begin(), recs.end(),
                     [&](const json& r) { return r.contains("summary") && r["summary"].contains(m); });
}

void render_steady_cost(const StudyData& d, std::size_t si, const Steady& st, std::size_t kcol, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  auto rate = [&](std::size_t i) { return sw.points[i].scenario.rate; };
  auto opt = [&](const json& r, const std::string& m) -> Cell {
    if (!r["summary"].contains(m)) return std::string("–");
    return m == "collapsed" ? Cell(frac_of(r, m)) : Cell(mean_of(r, m));
  };
  bool many = false;
  for (const auto& l : st.lines)
    many = many || l.model != st.lines.front().model || l.strategy != st.lines.front().strategy;
  const bool lost = records(recs, "lost_fraction");
  Table t{sw.name + "_cost", sw.title + ": sustainable load and cost per server configuration", {}, {}, {}};
  if (many) t.columns = {"model", "strategy"};
  t.columns.insert(t.columns.end(), {"server", "sustainable load"});
  if (lost) t.columns.push_back("last load with lost fraction ≤ 1%");
  t.columns.insert(t.columns.end(), {"load", "collapsed", "goodput", "rejected fraction"});
  if (lost) t.columns.push_back("lost fraction");
  const bool p50 = records(recs, "latency_p50");
  t.columns.push_back("mean latency");
  if (p50) t.columns.push_back("p50 latency");
  t.columns.insert(t.columns.end(), {"p99 latency", "queue wait"});
  auto load_cell = [&](const Steady::Line& l, std::ptrdiff_t j) {
    return j < 0                                            ? Cell(fmt::format("< {}", num(rate(l.idx.front()))))
           : j == static_cast<std::ptrdiff_t>(l.idx.size()) ? Cell(fmt::format("≥ {}", num(rate(l.idx.back()))))
                                                            : Cell(rate(l.idx[static_cast<std::size_t>(j)]));
  };
  // Per line, for the ceiling figure: the load (0 when even the first load failed) and whether
  // it is only a lower bound (no load of the grid failed).
  auto load_value = [&](const Steady::Line& l, std::ptrdiff_t j) {
    return j < 0 ? 0.0
                 : rate(l.idx[static_cast<std::size_t>(
                       std::min<std::ptrdiff_t>(j, static_cast<std::ptrdiff_t>(l.idx.size()) - 1))]);
  };
  std::vector<std::vector<double>> bars;  // y, sustainable, bound?, lost <= 1%, bound?
  for (const auto& l : st.lines) {
    const auto js = last_surviving(l.collapsed[kcol]);
    const Cell sus = load_cell(l, js);
    bars.push_back({static_cast<double>(bars.size()), load_value(l, js),
                    js == static_cast<std::ptrdiff_t>(l.idx.size()) ? 1.0 : 0.0, nan, 0.0});
    Cell low_loss = std::string("–");
    if (lost) {
      // The first load where the mean lost fraction exceeds 1% (an undefined one: no request ended,
      // counts as exceeding) or most runs collapsed; the last load before it.
      std::vector<double> bad;
      for (std::size_t q = 0; q < l.idx.size(); ++q) {
        const double lf =
            recs[l.idx[q]]["summary"].contains("lost_fraction") ? mean_of(recs[l.idx[q]], "lost_fraction") : 0.0;
        bad.push_back(!(lf <= 0.01) || l.collapsed[kcol][q] >= 0.5 ? 1.0 : 0.0);
      }
      const auto jl = last_surviving(bad);
      low_loss = load_cell(l, jl);
      bars.back()[3] = load_value(l, jl);
      bars.back()[4] = jl == static_cast<std::ptrdiff_t>(l.idx.size()) ? 1.0 : 0.0;
    }
    for (double load : {0.1, 0.3, 0.5}) {
      for (auto i : l.idx) {
        if (std::abs(rate(i) - load) > 1e-9) continue;
        const json& r = recs[i];
        std::vector<Cell> row;
        if (many) row = {name(l.model), name(l.strategy)};
        row.insert(row.end(), {l.server.empty() ? Cell(std::string("–")) : Cell(l.server), sus});
        if (lost) row.push_back(low_loss);
        row.insert(row.end(), {rate(i), opt(r, "collapsed"), opt(r, "goodput"), opt(r, "reject_fraction")});
        if (lost) row.push_back(opt(r, "lost_fraction"));
        row.push_back(opt(r, "latency"));
        if (p50) row.push_back(opt(r, "latency_p50"));
        row.insert(row.end(), {opt(r, "latency_p99"), opt(r, "queue_wait")});
        t.rows.push_back(std::move(row));
      }
    }
  }
  const std::string who = many ? std::string("Each line's model and strategy as named")
                               : fmt::format("{} {}", name(st.lines.front().model), name(st.lines.front().strategy));
  t.notes.push_back(fmt::format(
      "{}, base {}, cap {}; horizon {}, collapse K = {}, {} runs per point. Sustainable load: the last load of the "
      "grid before the first where at least half the runs collapsed. Each cost is the mean over runs of a run's "
      "value; in collapsed runs latency describes the clients served before the collapse only. Rejected fraction: "
      "rejected attempts / attempts. {}: nearest-rank {} of a run's client latencies.",
      who, num(sw.points.front().scenario.backoff.base), num(sw.points.front().scenario.backoff.cap),
      num(sw.points.front().scenario.horizon), st.ks[kcol], sw.runs, p50 ? "p50 and p99 latency" : "p99 latency",
      p50 ? "50th and 99th percentiles" : "99th percentile"));
  if (lost)
    t.notes.push_back(
        "Lost fraction: clients that gave up at their retry limit / (clients that succeeded + clients that gave up), "
        "per "
        "run, averaged over runs (undefined in a run where no request ended). With a retry limit a run need not "
        "collapse: "
        "clients give up instead. Last load with lost fraction ≤ 1%: the last load of the grid before the first where "
        "the "
        "mean lost fraction exceeded 0.01 (or was undefined) or at least half the runs collapsed.");
  out.table(t);
  // The ceiling figure (one model and strategy, several configurations): each configuration's
  // sustainable load as a bar, the last load with at most 1% lost as a point when recorded.
  if (many || st.lines.size() < 2) return;
  Gp gp;
  const double top = rate(st.lines.front().idx.back());
  std::string yt = "set ytics (";
  for (std::size_t i = 0; i < st.lines.size(); ++i)
    yt += fmt::format(
        "{}{} {}", i ? ", " : "",
        gp_quote(st.lines[i].server.empty() ? std::string("default (paper 1's model)") : st.lines[i].server), i);
  gp(yt + ") font \",9\"");
  gp(fmt::format("set title {} font \",12\"",
                 gp_quote(fmt::format("{}: sustainable load per configuration (K = {})", sw.title, st.ks[kcol]))));
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
  if (lost) {
    parts.push_back(fmt::format(
        "{} using 4:1 with points pt 7 ps 1.3 lc rgb \"{}\" title \"last load with at most 1% of requests lost\"", blk,
        color(1)));
  }
  gp(plot_join(parts));
  out.figure(sw.name + "_ceiling", gp, 1400, static_cast<int>(28 * st.lines.size() + 240));
}

void render_steady(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  const Steady st = steady_lines(d, si);
  auto rate = [&](std::size_t i) { return sw.points[i].scenario.rate; };
  // Thresholds table.
  // Sweeps over server options get a "server" column and lines coloured per configuration.
  const bool by_server = std::any_of(st.lines.begin(), st.lines.end(), [](const auto& l) { return !l.server.empty(); });
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
      if (j < 0) {
        row.push_back(fmt::format("< {}", num(rate(l.idx.front()))));
        vals.push_back(nan);
      } else if (j == static_cast<std::ptrdiff_t>(l.idx.size())) {
        row.push_back(fmt::format("≥ {}", num(rate(l.idx.back()))));
        vals.push_back(rate(l.idx.back()));
      } else {
        row.push_back(rate(l.idx[static_cast<std::size_t>(j)]));
        vals.push_back(rate(l.idx[static_cast<std::size_t>(j)]));
      }
    }
    th.rows.push_back(std::move(row));
    threshold_values.push_back(std::move(vals));
  }
  th.notes.push_back(
      fmt::format("A run counts as collapsed at K when its peak backlog (max_waiting) reached K; runs simulated with "
                  "collapse K = {} and horizon {}, {} runs per load. \"≥ x\": no load of the grid collapsed most runs.",
                  sw.points.front().scenario.collapse, num(sw.points.front().scenario.horizon), sw.runs));
  out.table(th);
  // Full latency table.
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
          rate(i),
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
  // Figures: latency and collapsed fraction per model; thresholds against K.
  std::vector<Model> models;
  for (const auto& l : st.lines)
    if (std::find(models.begin(), models.end(), l.model) == models.end()) models.push_back(l.model);
  std::vector<Strategy> strategies;
  for (const auto& l : st.lines)
    if (std::find(strategies.begin(), strategies.end(), l.strategy) == strategies.end())
      strategies.push_back(l.strategy);
  auto sidx = [&](Strategy s) {
    return static_cast<std::size_t>(std::find(strategies.begin(), strategies.end(), s) - strategies.begin());
  };
  const std::size_t kmain = static_cast<std::size_t>(
      std::find(st.ks.begin(), st.ks.end(), sw.points.front().scenario.collapse) - st.ks.begin());
  const std::size_t kcol = kmain < st.ks.size() ? kmain : st.ks.size() - 1;
  if (by_server) render_steady_cost(d, si, st, kcol, out);
  // Colour and title of a line: per strategy, or per server configuration when the sweep varies it.
  // Beyond 8 configurations the colours repeat, so the 9th.. are dashed.
  // A sweep over server configurations AND several strategies (paper 3's limits_lifted) draws one
  // panel per (model, configuration), a line per strategy coloured as without server options.
  const bool split = by_server && strategies.size() > 1;
  struct Panel {
    Model model;
    std::string server;
  };
  std::vector<Panel> panels;
  for (const auto& l : st.lines)
    if (std::none_of(panels.begin(), panels.end(),
                     [&](const Panel& p) { return p.model == l.model && (!split || p.server == l.server); }))
      panels.push_back({l.model, split ? l.server : std::string()});
  if (split) {  // a row of panels per model
    std::vector<Model> order;
    for (const auto& p : panels)
      if (std::find(order.begin(), order.end(), p.model) == order.end()) order.push_back(p.model);
    std::stable_sort(panels.begin(), panels.end(), [&](const Panel& a, const Panel& b) {
      return std::find(order.begin(), order.end(), a.model) < std::find(order.begin(), order.end(), b.model);
    });
  }
  std::size_t servers_per_model = 1;
  if (split) {
    std::vector<std::string> sv;
    for (const auto& l : st.lines) sv.push_back(l.server);
    servers_per_model = distinct(sv).size();
  }
  auto in_panel = [&](const Steady::Line& l, const Panel& p) {
    return l.model == p.model && (!split || l.server == p.server);
  };
  auto panel_title = [&](const Panel& p) {
    return gp_quote(!split ? name(p.model)
                           : name(p.model) + ": " +
                                 (p.server.empty() ? std::string("default server (paper 1's model)") : p.server));
  };
  if (split) {
    // The thresholds of every (model, strategy) side by side, one column per configuration: does a
    // ranking of strategies survive each configuration?
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
        for (std::size_t li = 0; li < st.lines.size(); ++li) {
          const auto& l = st.lines[li];
          if (l.model != m || l.strategy != stg || l.server != x) continue;
          // With retry limits a run need not collapse (clients give up): then a load counts as lost
          // when most runs collapsed or the mean lost fraction exceeded 1%.
          std::vector<double> bad = l.collapsed[kcol];
          if (lost)
            for (std::size_t q = 0; q < l.idx.size(); ++q) {
              const json& r = recs[l.idx[q]];
              const double lf = r["summary"].contains("lost_fraction") ? mean_of(r, "lost_fraction") : 0.0;
              if (!(lf <= 0.01)) bad[q] = 1.0;
            }
          const auto j = last_surviving(bad);
          c = j < 0                                            ? Cell(fmt::format("< {}", num(rate(l.idx.front()))))
              : j == static_cast<std::ptrdiff_t>(l.idx.size()) ? Cell(fmt::format("≥ {}", num(rate(l.idx.back()))))
                                                               : Cell(rate(l.idx[static_cast<std::size_t>(j)]));
        }
        row.push_back(c);
      }
      pt.rows.push_back(std::move(row));
    }
    pt.notes.push_back(fmt::format(
        "The last load of the grid before the first where at least half the runs collapsed (K = {}); horizon {}, "
        "{} runs per load. \"< x\": the first load already collapsed most runs; \"≥ x\": no load of the grid did.",
        st.ks[kcol], num(sw.points.front().scenario.horizon), sw.runs));
    if (lost)
      pt.notes.push_back(
          "The sweep records lost requests (client retry limits): a load also counts as not sustained when the mean "
          "lost "
          "fraction (clients that gave up / clients whose request ended) exceeded 0.01 or was undefined; without a "
          "retry "
          "limit nothing is lost and the threshold is the collapse threshold.");
    out.table(pt);
  }
  // At most three panels a row, so the figure fits a screen (12 panels: four rows of three).
  const std::size_t pcols = split ? std::min<std::size_t>(servers_per_model, 3) : 3;
  const std::size_t prows = (panels.size() + std::min(panels.size(), pcols) - 1) / std::min(panels.size(), pcols);
  auto line_color = [&](std::size_t li) {
    if (!by_server || split) return std::string(color(sidx(st.lines[li].strategy)));
    return std::string(color(li)) + (li >= 8 ? "\" dt \"-" : "");
  };
  // With a configuration per line the legend goes beside the panels, which widen to leave it room.
  const std::string key_at = by_server && !split ? "set key outside right top font \",9\"" : "";
  // Many configurations (paper 3's ceiling sweep: 22) have a legend as wide as the panel again.
  const int panel_w = by_server && !split ? (st.lines.size() > 12 ? 1500 : 950) : 480;
  auto line_title = [&](std::size_t li) {
    const auto& l = st.lines[li];
    return gp_quote(!by_server || split ? name(l.strategy)
                    : l.server.empty()  ? name(l.strategy)
                                        : name(l.strategy) + ", " + l.server);
  };
  {
    Gp gp;
    gp(layout(panels.size(), pcols,
              fmt::format("{}: mean latency against load (loads where most runs survived; × = last such load, K = {})",
                          sw.title, st.ks[kcol])));
    gp("set grid; set logscale y; set key top left font \",8\"; set xlabel \"load λ\"; set ylabel \"mean latency "
       "(attempt-durations)\"");
    if (by_server) gp(key_at);
    for (const Panel& pn : panels) {
      gp(fmt::format("set title {}", panel_title(pn)));
      std::vector<std::string> parts;
      for (std::size_t li = 0; li < st.lines.size(); ++li) {
        const auto& l = st.lines[li];
        if (!in_panel(l, pn)) continue;
        std::vector<std::vector<double>> rows, mark;
        const auto j = last_surviving(l.collapsed[kcol]);
        for (std::size_t q = 0; q < l.idx.size(); ++q) {
          const bool ok = static_cast<std::ptrdiff_t>(q) <= j;
          rows.push_back({rate(l.idx[q]), ok ? mean_of(recs[l.idx[q]], "latency") : nan});
          if (static_cast<std::ptrdiff_t>(q) == j && j + 1 < static_cast<std::ptrdiff_t>(l.idx.size()))
            mark.push_back({rate(l.idx[q]), mean_of(recs[l.idx[q]], "latency")});
        }
        parts.push_back(fmt::format("{} using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 lc rgb \"{}\" title {}",
                                    gp.block(rows), line_color(li), line_title(li)));
        if (!mark.empty())
          parts.push_back(fmt::format("{} using 1:2 with points pt 2 ps 2.5 lw 2 lc rgb \"{}\" notitle", gp.block(mark),
                                      line_color(li)));
      }
      plot_or_empty(gp, parts, "no data", "");
    }
    gp("unset multiplot");
    out.figure(sw.name + "_latency", gp, static_cast<int>(panel_w * std::min<std::size_t>(panels.size(), pcols)),
               static_cast<int>(split ? 420 * prows + 40 : 500));
  }
  {
    Gp gp;
    gp(layout(panels.size(), pcols,
              fmt::format("{}: fraction of runs that collapsed (K = {}) against load", sw.title, st.ks[kcol])));
    gp("set grid; set key bottom right font \",8\"; set xlabel \"load λ\"; set ylabel \"fraction collapsed\"; set "
       "yrange [-0.05:1.05]");
    if (by_server) gp(key_at);
    for (const Panel& pn : panels) {
      gp(fmt::format("set title {}", panel_title(pn)));
      std::vector<std::string> parts;
      for (std::size_t li = 0; li < st.lines.size(); ++li) {
        const auto& l = st.lines[li];
        if (!in_panel(l, pn)) continue;
        std::vector<std::vector<double>> rows;
        for (std::size_t q = 0; q < l.idx.size(); ++q) rows.push_back({rate(l.idx[q]), l.collapsed[kcol][q]});
        parts.push_back(fmt::format("{} using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 lc rgb \"{}\" title {}",
                                    gp.block(rows), line_color(li), line_title(li)));
      }
      plot_or_empty(gp, parts, "no data", "");
    }
    gp("unset multiplot");
    out.figure(sw.name + "_collapsed", gp, static_cast<int>(panel_w * std::min<std::size_t>(panels.size(), pcols)),
               static_cast<int>(split ? 380 * prows + 40 : 450));
  }
  if (st.ks.size() > 1) {
    Gp gp;
    gp(layout(models.size(), 3, sw.title + ": collapse threshold (last load where most runs survived) against K"));
    gp("set grid; set logscale x; set key bottom right font \",8\"; set xlabel \"collapse threshold K (waiting "
       "clients)\"; set ylabel \"last surviving load\"");
    for (Model m : models) {
      gp(fmt::format("set title {}", gp_quote(name(m))));
      std::vector<std::string> parts;
      for (std::size_t li = 0; li < st.lines.size(); ++li) {
        if (st.lines[li].model != m) continue;
        std::vector<std::vector<double>> rows;
        for (std::size_t ki = 0; ki < st.ks.size(); ++ki)
          rows.push_back({static_cast<double>(st.ks[ki]), threshold_values[li][ki]});
        parts.push_back(fmt::format("{} using 1:2 with linespoints pt 7 ps 0.6 lw 1.5 lc rgb \"{}\" title {}",
                                    gp.block(rows), line_color(li), line_title(li)));
      }
      plot_or_empty(gp, parts, "no data", "");
    }
    gp("unset multiplot");
    out.figure(sw.name + "_thresholds_vs_k", gp, static_cast<int>(480 * std::min<std::size_t>(models.size(), 3)), 450);
  }
}

// ---------------------------------------------------------------- burst
double fluid_estimate(Model m, Strategy s, double base, std::int64_t clients, double rate) {
  if (m != Model::collision || s == Strategy::none || s == Strategy::window) return nan;
  if (!(rate < 1.0 / (2.0 * std::exp(1.0)))) return nan;
  return fluid_cap(FluidCap{clients, rate, Backoff{s, base, unbounded_cap, 0.0}}).cap;
}

struct BurstLine {
  Model model;
  Strategy strategy;
  double base, rate;
  std::int64_t clients;
  std::vector<std::size_t> idx;  // ascending cap
  std::string server;            // server_label(): empty for the default server options
  std::string server_key;        // server_key(): equal for equal options
};

std::vector<BurstLine> burst_lines(const SweepSpec& sw) {
  std::vector<BurstLine> out;
  for (const auto& [key, idx] : group_by(sw, [](const SweepPoint& p) {
         return fmt::format("{} {} {} {} {} {}", name(p.scenario.model), name(p.scenario.backoff.strategy),
                            p.scenario.backoff.base, p.scenario.rate, p.scenario.clients,
                            server_key(p.scenario.server));
       })) {
    const auto& s = sw.points[idx.front()].scenario;
    BurstLine l{s.model, s.backoff.strategy,     s.backoff.base,      s.rate, s.clients,
                idx,     server_label(s.server), server_key(s.server)};
    std::stable_sort(l.idx.begin(), l.idx.end(), [&](auto a, auto b) {
      return sw.points[a].scenario.backoff.cap < sw.points[b].scenario.backoff.cap;
    });
    out.push_back(std::move(l));
  }
  return out;
}

void render_burst(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  const auto lines = burst_lines(sw);
  auto cap = [&](std::size_t i) { return sw.points[i].scenario.backoff.cap; };
  // Sweeps over server options: a "server" column, and panels per configuration too.
  const bool by_server = std::any_of(lines.begin(), lines.end(), [](const BurstLine& l) { return !l.server.empty(); });
  const bool lost = records(recs, "lost_fraction");
  auto server_cell = [](const BurstLine& l) { return Cell(l.server.empty() ? std::string("–") : l.server); };
  Table ct{sw.name + "_caps",
           sw.title + ": cap thresholds, the smallest cap at which every run drained",
           {"model", "strategy", "steady load", "burst B", "cap threshold", "threshold / B", "fluid estimate",
            "drained at smallest cap", "drained at largest cap"},
           {},
           {}};
  if (by_server) ct.columns.insert(ct.columns.begin() + 2, "server");
  if (lost) ct.columns.push_back("lost fraction at threshold");
  for (const auto& l : lines) {
    Cell thr = std::string("none of the grid"), ratio = std::string("–"), lost_at = std::string("–");
    for (auto i : l.idx)
      if (frac_of(recs[i], "drained") == 1.0) {
        thr = cap(i);
        ratio = cap(i) / static_cast<double>(l.clients);
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
      num(sw.points.front().scenario.horizon), sw.points.front().scenario.collapse, sw.runs));
  if (by_server)
    ct.notes.push_back("Server: the server options set away from their defaults (\"–\": paper 1's model).");
  if (lost)
    ct.notes.push_back(
        "With a retry limit a burst client that gives up has left: drained = every burst client succeeded or gave up, "
        "so "
        "read drained with the lost fraction (clients that gave up / clients whose request ended, run mean).");
  out.table(ct);
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
                               format_cap(cap(i)),
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
  // Panels: one per (model, rate, strategy) and, over server options, per configuration; lines per burst size.
  const auto panels = group_by(sw, [&](const SweepPoint& p) {
    std::string k = fmt::format("{} | {} | load {}", name(p.scenario.model), name(p.scenario.backoff.strategy),
                                num(p.scenario.rate));
    if (by_server) {
      const std::string l = server_label(p.scenario.server);
      k += " | " + (l.empty() ? std::string("paper 1's model") : l);
    }
    return k;
  });
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
        if (l.model != s0.model || l.strategy != s0.backoff.strategy || l.rate != s0.rate ||
            l.server_key != server_key(s0.server))
          continue;
        std::vector<std::vector<double>> rows;
        for (auto i : l.idx)
          rows.push_back({cap(i) / static_cast<double>(l.clients), frac_of(recs[i], "drained"),
                          mean_of(recs[i], "drain_time"), mean_of(recs[i], "drain_time_p99")});
        const std::string b = gp.block(rows);
        const char* c = color(bidx(l.clients));
        if (which == 0) {
          parts.push_back(fmt::format("{} using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 lc rgb \"{}\" title \"B = {}\"",
                                      b, c, l.clients));
          const double f = fluid_estimate(l.model, l.strategy, l.base, l.clients, l.rate);
          if (!std::isnan(f))
            gp(fmt::format("set arrow from {}, graph 0 to {}, graph 1 nohead dt 3 lw 1.5 lc rgb \"{}\"",
                           f / static_cast<double>(l.clients), f / static_cast<double>(l.clients), c));
        } else {
          if (has_y(rows, 2))
            parts.push_back(fmt::format(
                "{} using 1:3 with linespoints pt 7 ps 0.5 lw 1.5 lc rgb \"{}\" title \"B = {}\"", b, c, l.clients));
          if (has_y(rows, 3))
            parts.push_back(fmt::format("{} using 1:4 with lines dt 2 lw 1.2 lc rgb \"{}\" notitle", b, c));
        }
      }
      plot_or_empty(gp, parts, "no run drained", which == 0 ? "set yrange [-0.05:1.05]" : "");
    }
    gp("unset multiplot");
    out.figure(sw.name + (which == 0 ? "_drained" : "_drain_time"), gp, w, h);
  }
}

// ---------------------------------------------------------------- drain
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
  t.notes.push_back(fmt::format("Horizon {}, steady load {}, {} runs per cap.", num(sw.points.front().scenario.horizon),
                                num(sw.points.front().scenario.rate), sw.runs));
  out.table(t);
  out.figure(sw.name, gp, 800, 550);
}

// ---------------------------------------------------------------- generic grid
void render_grid(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  Table t{sw.name, sw.title, {"scenario"}, {}, {}};
  std::vector<std::string> ms;
  if (!recs.empty())
    for (const auto& [k, v] : recs.front().at("summary").items()) ms.push_back(k);
  for (const auto& m : ms) t.columns.push_back(m);
  for (std::size_t i = 0; i < sw.points.size(); ++i) {
    std::vector<Cell> row = {canonical(sw.points[i], sw.kind)};
    for (const auto& m : ms) {
      const json& j = metric(recs[i], m);
      row.push_back(j.contains("fraction") ? Cell(jnum(j.at("fraction"))) : Cell(est_of(recs[i], m)));
    }
    t.rows.push_back(std::move(row));
  }
  out.table(t);
}

// ---------------------------------------------------------------- paper 2
// Shared helpers: a categorical panel (x = category, one series per group, 95% CI bars, offset so
// series do not overlap) and names for the presets of a DependencyScenario.
struct CatSeries {
  std::string title;
  std::vector<Estimate> values;  // one per category (NaN: no value)
};

void cat_panel(Gp& gp, const std::vector<std::string>& cats, const std::vector<CatSeries>& series,
               const std::string& title, const std::string& ylabel, bool logy) {
  std::string xt = "set xtics (";
  for (std::size_t i = 0; i < cats.size(); ++i) xt += fmt::format("{}{} {}", i ? ", " : "", gp_quote(cats[i]), i);
  gp(xt + ") font \",9\"");
  gp(fmt::format("set xrange [-0.5:{}]; set title {}; set ylabel {}; set xlabel \"\"",
                 static_cast<double>(cats.size()) - 0.5, gp_quote(title), gp_quote(ylabel)));
  gp(logy ? "set logscale y" : "unset logscale y");
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < series.size(); ++k) {
    std::vector<std::vector<double>> rows;
    const double off = 0.1 * (static_cast<double>(k) - static_cast<double>(series.size() - 1) / 2.0);
    for (std::size_t i = 0; i < cats.size() && i < series[k].values.size(); ++i) {
      const Estimate& e = series[k].values[i];
      if (!std::isfinite(e.mean) || (logy && !(e.mean > 0))) continue;
      rows.push_back({static_cast<double>(i) + off, e.mean, std::isfinite(e.lo) ? e.lo : e.mean,
                      std::isfinite(e.hi) ? e.hi : e.mean});
    }
    if (rows.empty()) continue;
    parts.push_back(fmt::format("{} using 1:2:3:4 with yerrorbars pt 7 ps 0.9 lw 1.5 lc rgb \"{}\" title {}",
                                gp.block(rows), color(k), gp_quote(series[k].title)));
  }
  plot_or_empty(gp, parts, "no data", fmt::format("set xrange [-0.5:{}]", static_cast<double>(cats.size()) - 0.5));
  gp("unset logscale y");
}

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

std::string outage_name(const montecarlo::DependencyScenario& s) {
  if (s.outages.empty()) return fmt::format("no outage, p = {}", num(s.failure));
  const auto& o = s.outages.front();
  const std::string what = o.failure == 1.0 ? "total outage" : fmt::format("partial outage (p = {})", num(o.failure));
  return fmt::format("{} {}–{} s", what, num(o.start / 1000), num(o.end / 1000));
}

std::string timeout_name(double t) { return std::isinf(t) ? std::string("none") : num(t); }

// Mean per request of a per-run count (ratio of means over runs), with the count's CI scaled alike.
Estimate per_request(const json& rec, const std::string& m, double scale) {
  const Estimate e = est_of(rec, m);
  const double r = mean_of(rec, "requests");
  return {scale * e.mean / r, scale * e.lo / r, scale * e.hi / r};
}

template <class V>
std::vector<V> distinct_values(std::vector<V> xs) {
  std::vector<V> out;
  for (const auto& x : xs)
    if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  return out;
}

// ---------------------------------------------------------------- brooker
std::string delay_name(const montecarlo::BrookerScenario& b) {
  if (b.leg_sd == 0) return fmt::format("fixed legs of {} ms", num(b.leg_mean));
  return fmt::format("random legs (mean {} ms, sd {} ms)", num(b.leg_mean), num(b.leg_sd));
}

void render_brooker(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  Table t{sw.name,
          sw.title + ": Brooker's OCC test, work (write attempts) and time (ms) per strategy",
          {"strategy", "network", "clients", "work (write attempts)", "calls (reads + writes)", "time (ms)",
           "mean client latency (ms)", "most attempts by one client"},
          {},
          {}};
  std::vector<std::string> strategies, delays;
  std::vector<std::int64_t> clients;
  for (std::size_t i = 0; i < sw.points.size(); ++i) {
    const auto& b = sw.points[i].brooker;
    t.rows.push_back({name(b.backoff.strategy), delay_name(b), static_cast<double>(b.clients),
                      est_of(recs[i], "attempts"), est_of(recs[i], "calls"), est_of(recs[i], "makespan"),
                      est_of(recs[i], "latency"), est_of(recs[i], "max_attempts")});
    strategies.push_back(name(b.backoff.strategy));
    delays.push_back(delay_name(b));
    clients.push_back(b.clients);
  }
  strategies = distinct(strategies);
  delays = distinct(delays);
  clients = distinct_values(clients);
  const auto& b0 = sw.points.front().brooker;
  t.notes.push_back(fmt::format(
      "Time in ms (unit \"ms\"): when the last successful write's reply reaches its client. Base {} ms, cap {} ms, "
      "windows min(cap, base·2^k) for the k-th failure (the first is 2·base); {} runs per point.",
      num(b0.backoff.base), num(b0.backoff.cap), sw.runs));
  out.table(t);
  Gp gp;
  if (clients.size() == 1) {
    gp(layout(2, 2, sw.title + " (95% CI)"));
    gp("set grid; set key top right font \",9\"");
    for (const char* m : {"attempts", "makespan"}) {
      std::vector<CatSeries> series;
      for (const auto& dl : delays) {
        CatSeries cs{dl, std::vector<Estimate>(strategies.size(), Estimate{nan, nan, nan})};
        for (std::size_t i = 0; i < sw.points.size(); ++i) {
          const auto& b = sw.points[i].brooker;
          if (delay_name(b) != dl) continue;
          const auto k = static_cast<std::size_t>(
              std::find(strategies.begin(), strategies.end(), name(b.backoff.strategy)) - strategies.begin());
          cs.values[k] = est_of(recs[i], m);
        }
        series.push_back(std::move(cs));
      }
      const bool work = std::string(m) == "attempts";
      cat_panel(gp, strategies, series, work ? "work: write attempts (all clients)" : "time: last success reply",
                work ? "write attempts" : "ms", true);
    }
    gp("unset multiplot");
    out.figure(sw.name, gp, 1200, 500);
  } else {
    gp(layout(2, 2, sw.title + (delays.size() > 1 ? " (95% CI; dashed: fixed legs)" : " (95% CI)")));
    gp("set grid; set logscale y; set key top left font \",9\"; set xlabel \"clients\"");
    for (const char* m : {"attempts", "makespan"}) {
      const bool work = std::string(m) == "attempts";
      gp(fmt::format("set title {}; set ylabel {}",
                     gp_quote(work ? "work: write attempts" : "time: last success reply (ms)"),
                     gp_quote(work ? "write attempts" : "ms")));
      std::vector<std::string> parts;
      for (std::size_t k = 0; k < strategies.size(); ++k)
        for (std::size_t di = 0; di < delays.size(); ++di) {
          std::vector<std::vector<double>> rows;
          for (std::size_t i = 0; i < sw.points.size(); ++i) {
            const auto& b = sw.points[i].brooker;
            if (name(b.backoff.strategy) != strategies[k] || delay_name(b) != delays[di]) continue;
            const Estimate e = est_of(recs[i], m);
            rows.push_back({static_cast<double>(b.clients), e.mean, std::isnan(e.lo) ? e.mean : e.lo,
                            std::isnan(e.hi) ? e.mean : e.hi});
          }
          if (rows.empty()) continue;
          parts.push_back(
              fmt::format("{} using 1:2:3:4 with yerrorlines pt 7 ps 0.5 lw 1.5 dt {} lc rgb \"{}\" title {}",
                          gp.block(rows), di == 0 ? 1 : 2, color(k),
                          gp_quote(delays.size() > 1 ? strategies[k] + ", " + delays[di] : strategies[k])));
        }
      plot_or_empty(gp, parts, "no data", "");
    }
    gp("unset multiplot");
    out.figure(sw.name, gp, 1200, 500);
  }
  // Beside the engine's models: the study's classic sweep (same strategies and client counts).
  std::optional<std::size_t> ci;
  for (std::size_t i = 0; i < d.spec.sweeps.size(); ++i)
    if (d.spec.sweeps[i].kind == SweepKind::classic && !ci) ci = i;
  if (!ci || clients.size() < 2) return;
  const SweepSpec& cs = d.spec.sweeps[*ci];
  const auto& crecs = d.records[*ci];
  std::vector<std::string> models;
  for (const auto& p : cs.points) models.push_back(name(p.scenario.model));
  models = distinct(models);
  const std::int64_t n_table =
      std::find(clients.begin(), clients.end(), 100) != clients.end() ? 100 : clients[clients.size() / 2];
  Table mt{sw.name + "_models",
           fmt::format("{} beside the engine's models ({}), N = {}: attempts per client and time", sw.title, cs.name,
                       n_table),
           {"strategy", "brooker: attempts per client", "brooker: time (ms)"},
           {},
           {}};
  for (const auto& m : models) {
    mt.columns.push_back(m + ": attempts per client");
    mt.columns.push_back(m + ": makespan (attempt-durations)");
  }
  auto classic_at = [&](const std::string& model, const std::string& strategy,
                        std::int64_t n) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < cs.points.size(); ++i) {
      const auto& s = cs.points[i].scenario;
      if (name(s.model) == model && name(s.backoff.strategy) == strategy && s.clients == n) return i;
    }
    return std::nullopt;
  };
  for (const auto& st : strategies) {
    std::vector<Cell> row = {st};
    std::optional<std::size_t> bi;
    for (std::size_t i = 0; i < sw.points.size(); ++i)
      if (name(sw.points[i].brooker.backoff.strategy) == st && sw.points[i].brooker.clients == n_table &&
          delay_name(sw.points[i].brooker) == delays.front())
        bi = i;
    row.push_back(bi ? Cell(est_of(recs[*bi], "attempts_per_client")) : Cell(std::string("–")));
    row.push_back(bi ? Cell(est_of(recs[*bi], "makespan")) : Cell(std::string("–")));
    for (const auto& m : models) {
      const auto i = classic_at(m, st, n_table);
      if (!i) {
        row.push_back(std::string("–"));
        row.push_back(std::string("–"));
        continue;
      }
      const bool finished = n_of(crecs[*i], "makespan") == runs_of(crecs[*i]);
      const std::string unfinished =
          fmt::format("{} of {} runs unfinished", runs_of(crecs[*i]) - n_of(crecs[*i], "makespan"), runs_of(crecs[*i]));
      row.push_back(finished ? Cell(est_of(crecs[*i], "attempts_per_client")) : Cell(unfinished));
      row.push_back(finished ? Cell(est_of(crecs[*i], "makespan")) : Cell(unfinished));
    }
    mt.rows.push_back(std::move(row));
  }
  const auto& e0 = cs.points.front().scenario.backoff;
  mt.notes.push_back(fmt::format(
      "Brooker's test with {}; the engine's classic test (docs/models.md) with base {} and cap {} attempt-durations "
      "({} runs per point, horizon {}). \"unfinished\": runs stopped by the horizon (collision without jitter: "
      "clients that start together collide forever; with jitter, a cap too small for N).",
      delays.front(), num(e0.base), format_cap(e0.cap), cs.runs, num(effective_horizon(cs.points.front().scenario))));
  out.table(mt);
  Gp g2;
  g2(layout(strategies.size(), 3,
            fmt::format("Attempts per client against N: Brooker's test ({}) and the engine's models", delays.front())));
  g2("set grid; set logscale y; set key top left font \",8\"; set xlabel \"clients N\"; set ylabel \"attempts per "
     "client\"");
  for (const auto& st : strategies) {
    g2(fmt::format("set title {}", gp_quote(st)));
    std::vector<std::string> parts;
    std::vector<std::vector<double>> rows;
    for (std::size_t i = 0; i < sw.points.size(); ++i) {
      const auto& b = sw.points[i].brooker;
      if (name(b.backoff.strategy) == st && delay_name(b) == delays.front())
        rows.push_back({static_cast<double>(b.clients), mean_of(recs[i], "attempts_per_client")});
    }
    parts.push_back(fmt::format("{} using 1:2 with linespoints pt 7 ps 0.5 lw 2 lc rgb \"black\" title \"brooker\"",
                                g2.block(rows)));
    for (std::size_t mi = 0; mi < models.size(); ++mi) {
      std::vector<std::vector<double>> mrows;
      for (auto n : clients)
        if (const auto i = classic_at(models[mi], st, n))
          mrows.push_back({static_cast<double>(n), n_of(crecs[*i], "makespan") == runs_of(crecs[*i])
                                                       ? mean_of(crecs[*i], "attempts_per_client")
                                                       : nan});
      if (has_y(mrows, 1))
        parts.push_back(fmt::format("{} using 1:2 with linespoints pt 6 ps 0.5 lw 1.5 dt 2 lc rgb \"{}\" title {}",
                                    g2.block(mrows), color(mi), gp_quote(models[mi])));
    }
    plot_or_empty(g2, parts, "no data", "");
  }
  g2("unset multiplot");
  const std::size_t cols = std::min<std::size_t>(strategies.size(), 3);
  out.figure(sw.name + "_models", g2, static_cast<int>(450 * cols),
             static_cast<int>(380 * ((strategies.size() + cols - 1) / cols) + 40));
}

// ---------------------------------------------------------------- amplification
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
                      exact, worst, est_of(recs[i], "top_failure_fraction"), top_fail});
  }
  t.notes.push_back(fmt::format(
      "Closed form: outage_fraction·a^L + (1 − outage_fraction)·Π_(l<L) Σ_(i<a) p^(i·a^l) (analytic/amplification.hpp, "
      "proofs/Budget.v: amplification_expected); top failure outage_fraction + (1 − outage_fraction)·p^(a^L). "
      "{} requests per run, {} runs per point; closed form outside the simulated 95% interval at {} of {} points.",
      sw.points.front().layered.requests, sw.runs, outside, sw.points.size()));
  out.table(t);
  // Figure: one panel per a; bottom calls per request against L, a line per (p, outage fraction):
  // closed form solid, simulated points; the worst case a^L dashed.
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
          rows.push_back({static_cast<double>(l.layers), mean_of(recs[i], "bottom_calls_per_request"),
                          montecarlo::expected_bottom_calls(l)});
        }
      if (rows.empty()) continue;
      std::sort(rows.begin(), rows.end());
      const std::string b = gp.block(rows);
      parts.push_back(fmt::format("{} using 1:3 with lines lw 1.5 lc rgb \"{}\" notitle", b, color(k)));
      parts.push_back(
          fmt::format("{} using 1:2 with points pt 7 ps 0.9 lc rgb \"{}\" title {}", b, color(k), gp_quote(lines[k])));
    }
    plot_or_empty(gp, parts, "no data", "");
  }
  gp("unset multiplot");
  const std::size_t cols = std::min<std::size_t>(as.size(), 3);
  out.figure(sw.name, gp, std::max(1000, static_cast<int>(480 * cols)),
             static_cast<int>(420 * ((as.size() + cols - 1) / cols) + 40));
}

// ---------------------------------------------------------------- budget
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

// ---------------------------------------------------------------- idempotency
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

// ---------------------------------------------------------------- breaker
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
      "{} runs per point. hystrix: 10 s window, 20 calls, 50%, open 5 s, one probe; resilience4j: last 100 calls, "
      "50%, open 60 s, 10 probes (montecarlo/controls.hpp). Load multiplier: attempts that reached the dependency "
      "per request.",
      num(s0.rate), num(s0.horizon), to_string(s0.service), num(s0.service_mean),
      s0.capacity == 0 ? std::string("unlimited") : std::to_string(s0.capacity), timeout_name(s0.timeout),
      s0.max_attempts, sw.runs));
  out.table(t);
  dependency_figure(sw, recs, ckeys, gkeys, "breaker", out);
}

// ---------------------------------------------------------------- figure 1
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
  // (a) sleep distributions of the exponential strategies.
  gp("set title \"(a) sleep before retry k: simulated median and 10–90% band; exact median dashed\"");
  gp("set logscale y; set yrange [0.05:5000]; set xlabel \"retry k\"; set ylabel \"sleep (attempt-durations)\"; set "
     "key top left");
  {
    std::vector<std::string> parts;
    std::size_t ci = 0;
    for (const auto& g : sleep_groups(d, *sl)) {
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
  {
    const SweepSpec& sw = d.spec.sweeps[*stdy];
    const auto& recs = d.records[*stdy];
    const Steady st = steady_lines(d, *stdy);
    const std::size_t kmain = static_cast<std::size_t>(
        std::find(st.ks.begin(), st.ks.end(), sw.points.front().scenario.collapse) - st.ks.begin());
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
        const double r = sw.points[l.idx[q]].scenario.rate;
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
  {
    const SweepSpec& sw = d.spec.sweeps[*bu];
    const auto& recs = d.records[*bu];
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
        rows.push_back(
            {sw.points[i].scenario.backoff.cap / static_cast<double>(l.clients), frac_of(recs[i], "drained")});
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
  gp("unset multiplot");
  out.figure("figure1", gp, 1800, 600);
}

}  // namespace

// The metrics each engine kind's tables read unconditionally (the others are shown when kept).
std::vector<const char*> required_metrics(SweepKind kind) {
  switch (kind) {
    case SweepKind::classic: return {"attempts_per_client", "makespan"};
    case SweepKind::frontier: return {"latency", "makespan"};
    case SweepKind::steady: return {"collapsed", "latency"};
    case SweepKind::burst: return {"drained", "drain_time", "drain_time_p99"};
    case SweepKind::drain: return {"drained", "drain_time", "drain_time_p99", "unfinished"};
    default: return {};
  }
}

std::vector<fs::path> render_reports(const StudyData& data, const fs::path& out_dir) {
  Out out{out_dir, data.certificates, {}};
  for (std::size_t i = 0; i < data.spec.sweeps.size(); ++i) {
    switch (data.spec.sweeps[i].kind) {
      case SweepKind::checks: render_checks(data, i, out); break;
      case SweepKind::sleep: render_sleep(data, i, out); break;
      case SweepKind::classic: render_classic(data, i, out); break;
      case SweepKind::frontier: render_frontier(data, i, out); break;
      case SweepKind::steady: render_steady(data, i, out); break;
      case SweepKind::burst: render_burst(data, i, out); break;
      case SweepKind::drain: render_drain(data, i, out); break;
      case SweepKind::grid: render_grid(data, i, out); break;
      case SweepKind::brooker: render_brooker(data, i, out); break;
      case SweepKind::amplification: render_amplification(data, i, out); break;
      case SweepKind::budget: render_budget(data, i, out); break;
      case SweepKind::idempotency: render_idempotency(data, i, out); break;
      case SweepKind::breaker: render_breaker(data, i, out); break;
    }
  }
  render_figure1(data, out);
  return out.files;
}

}  // namespace retrylab::papers
