#include "api/series.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "analytic/error.hpp"
#include "api/format.hpp"
#include "api/simulate.hpp"
#include "papers/render.hpp"
#include "validation/certificate.hpp"
#include "validation/escape.hpp"

namespace retrylab::api {

using Json = nlohmann::ordered_json;
using montecarlo::Series;
using montecarlo::SeriesQuantityDef;

namespace {

std::string label(const SeriesQuantityDef& d, const montecarlo::TimeUnit& u) {
  return fmt::format(fmt::runtime(d.label), u.plural());
}
double t_of(const Series& s, std::int64_t k, const montecarlo::TimeUnit& u) {
  return u.out(montecarlo::Dim::time, static_cast<double>(k) * s.bin);
}
std::string dense_num(double x) { return table_number(x, Digits::dense); }

// Bins [from, to) whose centre's load-profile rate is at or above the resource's capacity (its rows
// serve that many attempts per attempt-duration), as stretches of consecutive bins.
std::vector<std::pair<std::int64_t, std::int64_t>> overload_bins(const Series& series, const montecarlo::Scenario& s) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  const montecarlo::LoadProfile& p = s.traffic.load_profile;
  if (!p.set() || s.model == Model::none) return out;
  const double capacity = static_cast<double>(s.resource.rows);
  for (std::int64_t k = 0; k < series.bins; ++k) {
    if (!(p.rate((static_cast<double>(k) + 0.5) * series.bin) >= capacity)) continue;
    if (!out.empty() && out.back().second == k)
      out.back().second = k + 1;
    else
      out.emplace_back(k, k + 1);
  }
  return out;
}

}  // namespace

std::vector<std::string> this_builds_certificate() {
  if (const auto c = validation::find_passing_certificate()) return {c->id};
  return {};
}

double series_bin(double width, const ResolvedScenario& s, Spelling how) {
  const montecarlo::TimeUnit& u = s.unit;
  const double horizon = u.out(montecarlo::Dim::time, montecarlo::effective_horizon(s.scenario));
  if (!(width > 0.0) || !std::isfinite(width))
    throw InputError(spelled("series", how),
                     fmt::format("must be a bin width in {}, a finite number > 0 (got {})", u.plural(), width));
  const double bins = std::ceil(horizon / width);
  if (!(bins <= static_cast<double>(montecarlo::max_series_bins)))
    throw InputError(spelled("series", how),
                     fmt::format("makes {:.0f} bins over the horizon {} {}; at most {}: give a bin >= {} {}{}", bins,
                                 horizon, u.plural(), montecarlo::max_series_bins,
                                 horizon / static_cast<double>(montecarlo::max_series_bins), u.plural(),
                                 s.scenario.measurement.horizon == 0.0
                                     ? " (a burst's horizon is 10^7 attempt-durations unless given: give a horizon)"
                                     : ""));
  return width / u.attempt_duration;  // a time in the unit is attempt-durations × D
}

void check_plot_path(const std::string& file, Spelling how) {
  const std::string ext = std::filesystem::path(file).extension().string();
  if (ext != ".svg" && ext != ".png")
    throw InputError(spelled("plot", how), fmt::format("must name a .svg or .png file (got {})", file));
  // Before any run, as advise --plot: gnuplot cannot name such a file, and the script beside it would
  // be written first.
  if (std::any_of(file.begin(), file.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    throw InputError(spelled("plot", how), "must not hold a control character (gnuplot cannot name such a file)");
}

std::vector<std::size_t> shown_series(const Series& series, const montecarlo::Scenario& s) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < series.quantities.size(); ++i)
    if (series.quantities[i].shown == nullptr || series.quantities[i].shown(s)) out.push_back(i);
  std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) {
    return series.quantities[a].column < series.quantities[b].column;
  });
  return out;
}

Json series_json(const Series& series, const montecarlo::TimeUnit& u) {
  Json j;
  j["bin"] = u.out(montecarlo::Dim::time, series.bin);
  j["bins"] = series.bins;
  Json t = Json::array();
  for (std::int64_t k = 0; k < series.bins; ++k) t.push_back(t_of(series, k, u));
  j["t"] = std::move(t);
  Json qs = Json::object();
  for (std::size_t i = 0; i < series.quantities.size(); ++i) {
    const SeriesQuantityDef& d = series.quantities[i];
    Json mean = Json::array(), lo = Json::array(), hi = Json::array(), n = Json::array();
    for (const MeanSummary& m : series.values[i]) {
      mean.push_back(number(u.out(d.dim, m.mean)));
      lo.push_back(number(u.out(d.dim, m.ci95.lo)));
      hi.push_back(number(u.out(d.dim, m.ci95.hi)));
      n.push_back(m.n);
    }
    qs[std::string(d.key)] = {
        {"label", label(d, u)},    {"unit", d.dim == montecarlo::Dim::time ? u.plural() : "count"},
        {"mean", std::move(mean)}, {"lo", std::move(lo)},
        {"hi", std::move(hi)},     {"n", std::move(n)}};
  }
  j["quantities"] = std::move(qs);
  return j;
}

std::string series_csv(const Series& series, const montecarlo::TimeUnit& u) {
  std::string out = "t";
  for (const auto& d : series.quantities) out += fmt::format(",{0},{0}_lo,{0}_hi", d.key);
  out += '\n';
  for (std::int64_t k = 0; k < series.bins; ++k) {
    out += csv_number(t_of(series, k, u));
    for (std::size_t i = 0; i < series.quantities.size(); ++i) {
      const montecarlo::Dim dim = series.quantities[i].dim;
      const MeanSummary& m = series.values[i][static_cast<std::size_t>(k)];
      out += fmt::format(",{},{},{}", csv_number(u.out(dim, m.mean)), csv_number(u.out(dim, m.ci95.lo)),
                         csv_number(u.out(dim, m.ci95.hi)));
    }
    out += '\n';
  }
  return out;
}

std::string series_table(const Series& series, const ResolvedScenario& s, const std::vector<double>& collapses) {
  const montecarlo::TimeUnit& u = s.unit;
  const std::vector<std::size_t> shown = shown_series(series, s.scenario);
  std::string out = fmt::format("\nseries: mean over the runs per bin of {} {} ({} or {} for the 95% intervals)\n",
                                u.out(montecarlo::Dim::time, series.bin), u.plural(), spelled("json", Spelling::flag),
                                spelled("csv", Spelling::flag));
  if (!collapses.empty())
    out += fmt::format(
        "collapsed: runs the collapse rule ({} clients waiting) had stopped by the bin's end; a "
        "stopped run is left out of the means after it\n",
        s.scenario.measurement.collapse);
  out += fmt::format("{:>12}", "t");
  for (const std::size_t q : shown) out += fmt::format(" {:>12}", series.quantities[q].key.substr(0, 12));
  if (!collapses.empty()) out += fmt::format(" {:>12}", "collapsed");
  out += '\n';
  for (std::int64_t k = 0; k < series.bins; ++k) {
    out += fmt::format("{:>12}", table_number(t_of(series, k, u), Digits::bin_start));
    for (const std::size_t q : shown)
      out += fmt::format(
          " {:>12}", dense_num(u.out(series.quantities[q].dim, series.values[q][static_cast<std::size_t>(k)].mean)));
    if (!collapses.empty()) {
      const double end = static_cast<double>(k + 1) * series.bin;
      const auto stopped = std::count_if(collapses.begin(), collapses.end(), [end](double t) { return t < end; });
      out += fmt::format(" {:>12}", stopped == 0 ? std::string("-") : fmt::format("{}", stopped));
    }
    out += '\n';
  }
  return out;
}

void plot_series(const Series& series, const ResolvedScenario& s, const std::filesystem::path& file) {
  check_plot_path(file.string(), Spelling::flag);
  const std::string ext = file.extension().string();
  const montecarlo::TimeUnit& u = s.unit;
  const std::vector<std::size_t> shown = shown_series(series, s.scenario);
  std::vector<std::vector<double>> rows;
  for (std::int64_t k = 0; k < series.bins; ++k) {
    std::vector<double> r{t_of(series, k, u) + 0.5 * u.out(montecarlo::Dim::time, series.bin)};  // bin centre
    for (const std::size_t q : shown) {
      const MeanSummary& m = series.values[q][static_cast<std::size_t>(k)];
      for (const double x : {m.mean, m.ci95.lo, m.ci95.hi}) r.push_back(u.out(series.quantities[q].dim, x));
    }
    rows.push_back(std::move(r));
  }
  const auto columns = static_cast<int>(shown.size() > 4 ? 2 : 1);
  const auto panels = static_cast<int>(shown.size());
  const int panel_rows = (panels + columns - 1) / columns;
  std::string gp = papers::datablock("series", rows);
  gp += fmt::format(
      "set multiplot layout {},{} title {}\n", panel_rows, columns,
      papers::gp_quote(fmt::format("{}, {} backoff: per bin of {} {}, the mean over the runs and its 95% band",
                                   to_string(s.scenario.model), to_string(s.scenario.backoff.strategy),
                                   u.out(montecarlo::Dim::time, series.bin), u.plural())));
  gp = "# scenario: " + validation::one_line(fields_in_unit(s, true)) + "\n" + gp;
  gp += "set grid lc rgb '#dddddd'\nset key off\nset xrange [0:*]\n";
  const montecarlo::Failures& f = s.scenario.failures;
  if (f.outage_end > f.outage_start)
    gp += fmt::format("set object 1 rect from {},graph 0 to {},graph 1 behind fc rgb '#f4cccc' fs solid 0.5 noborder\n",
                      u.out(montecarlo::Dim::time, f.outage_start), u.out(montecarlo::Dim::time, f.outage_end));
  int object = 2;  // a load profile's overload: each stretch of bins whose centre's rate is at capacity or above
  for (const auto& [from, to] : overload_bins(series, s.scenario))
    gp +=
        fmt::format("set object {} rect from {},graph 0 to {},graph 1 behind fc rgb '#fde0b2' fs solid 0.5 noborder\n",
                    object++, t_of(series, from, u), t_of(series, to, u));
  gp += fmt::format("set xlabel {}\n", papers::gp_quote(fmt::format("time ({})", u.plural())));
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const int c = 2 + 3 * static_cast<int>(i);
    gp += fmt::format("set title {}\n", papers::gp_quote(label(series.quantities[shown[i]], u)));
    gp += fmt::format(
        "plot $series using 1:{}:{} with filledcurves fc rgb '#9ecae1' fs transparent solid 0.5 noborder, "
        "$series using 1:{} with lines lw 1.5 lc rgb '#08519c'\n",
        c + 1, c + 2, c);
  }
  gp += "unset multiplot\n";
  papers::Figure fig;
  fig.name = file.stem().string();
  fig.script = gp;
  fig.width = 1000;
  fig.height = 260 * panel_rows + 60;
  fig.formats = {ext.substr(1)};
  const std::vector<std::string> certs = this_builds_certificate();
  fig.stamp = certs.empty() ? "simulated; no validation certificate (docs/validation.md: retrylab validate)"
                            : "simulated on a build with validation certificate " + certs.front();
  const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  papers::render_figure(fig, dir, certs);
}

}  // namespace retrylab::api
