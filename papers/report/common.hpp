#pragma once
// Report-local helpers shared by the renderers of papers/report/ (one file per family of sweeps):
// reading a record's summary metrics (a missing metric throws, naming the sweep and the metric),
// grouping a sweep's points, and Gp, a gnuplot script accumulated datablocks first, commands second,
// every command made readable on the way in (log axes labelled at 1 and 3 per decade, legends below
// the panel). Out collects the files a report writes. The writers themselves are papers/render.hpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "papers/render.hpp"
#include "papers/spec.hpp"

namespace retrylab::papers::report {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
const char* color(std::size_t i);  // eight colours, repeating

double jnum(const json& j);  // NaN unless a number
const json& metric(const json& rec, const std::string& m);
double mean_of(const json& rec, const std::string& m);
double frac_of(const json& rec, const std::string& m);
std::int64_t n_of(const json& rec, const std::string& m);
// The interval respects the quantity (papers/intervals.hpp): no negative bound for a non-negative one.
Estimate est_of(const json& rec, const std::string& m);
std::int64_t runs_of(const json& rec);

std::string name(Model m);
std::string name(Strategy s);
std::string num(double x);

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

std::vector<std::string> distinct(const std::vector<std::string>& xs);

template <class V>
std::vector<V> distinct_values(std::vector<V> xs) {
  std::vector<V> out;
  for (const auto& x : xs)
    if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  return out;
}

// Accumulates a gnuplot script: datablocks first, then commands.
struct Gp {
  std::string data, cmds;
  int blocks = 0;
  std::map<std::string, std::vector<std::vector<double>>> rows_of;
  std::string block(const std::vector<std::vector<double>>& rows);
  // True unless `part` plots column K of a datablock ("$dN using 1:K...") whose column K is all NaN.
  bool has_data(const std::string& part) const;
  void operator()(const std::string& line) { cmds += readable(line) + "\n"; }
  std::string script() const { return data + cmds; }

  // Every figure command passes through here, so every figure reads at a glance: a decimal log
  // axis is labelled at 1 and 3 of each decade (not only at powers of ten; in gnuplot's own format) and is back on
  // automatic tics when the scale is unset; a legend inside the panel ("set key top left" and the like, which sat on
  // curves) goes below the panel instead; a plot element in a palette colour gets that colour's own point and dash
  // type (common.cpp), so no two series differ by colour alone.
  static std::string readable(std::string line);
};

struct Out {
  fs::path dir;
  std::vector<std::string> certs;
  std::vector<fs::path> files;
  void table(const Table& t) {
    auto f = write_table(t, dir, certs);
    files.insert(files.end(), f.begin(), f.end());
  }
  void csv(const Table& t) {
    auto f = write_table_csv(t, dir, certs);
    files.insert(files.end(), f.begin(), f.end());
  }
  void figure(const std::string& n, const Gp& gp, int w, int h) {
    auto f = render_figure(Figure{.name = n, .script = gp.script(), .width = w, .height = h}, dir, certs);
    files.insert(files.end(), f.begin(), f.end());
  }
};

std::string layout(std::size_t n, std::size_t cols, const std::string& title);
std::string plot_join(const std::vector<std::string>& parts);
bool has_y(const std::vector<std::vector<double>>& rows, std::size_t col);

// gnuplot refuses a plot whose points are all undefined: an empty panel says why instead.
// `restore` re-applies the panel settings the placeholder overrode.
void plot_or_empty(Gp& gp, const std::vector<std::string>& all_parts, const std::string& why,
                   const std::string& restore);

// A categorical panel (x = category, one series per group, 95% CI bars, offset so series do not
// overlap), for paper 2's sweeps.
struct CatSeries {
  std::string title;
  std::vector<Estimate> values;  // one per category (NaN: no value)
};

void cat_panel(Gp& gp, const std::vector<std::string>& cats, const std::vector<CatSeries>& series,
               const std::string& title, const std::string& ylabel, bool logy);

// Mean per request of a per-run count (ratio of means over runs), with the count's CI scaled alike.
Estimate per_request(const json& rec, const std::string& m, double scale);

}  // namespace retrylab::papers::report
