#include "papers/report/common.hpp"

#include <fmt/format.h>
#include <cctype>
#include <cmath>
#include <regex>
#include <stdexcept>

#include "papers/intervals.hpp"

namespace retrylab::papers::report {

namespace {
const char* const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
}  // namespace

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
Estimate est_of(const json& rec, const std::string& m) { return intervals::for_metric(m, metric(rec, m)); }
std::int64_t runs_of(const json& rec) { return rec.at("runs").get<std::int64_t>(); }

std::string name(Model m) { return std::string(to_string(m)); }
std::string name(Strategy s) { return std::string(to_string(s)); }
std::string num(double x) { return format_number(x); }

std::vector<std::string> distinct(const std::vector<std::string>& xs) {
  std::vector<std::string> out;
  for (const auto& x : xs)
    if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  return out;
}

std::string Gp::block(const std::vector<std::vector<double>>& rows) {
  const std::string n = fmt::format("d{}", blocks++);
  data += datablock(n, rows);
  rows_of["$" + n] = rows;
  return "$" + n;
}

bool Gp::has_data(const std::string& part) const {
  if (part.empty() || part[0] != '$') return true;
  const auto sp = part.find(' ');
  const auto it = rows_of.find(part.substr(0, sp));
  const auto u = part.find("using 1:");
  if (it == rows_of.end() || u == std::string::npos || !std::isdigit(static_cast<unsigned char>(part[u + 8])))
    return true;  // not a plain column (an expression such as 1:(2 * $1)): drawn as given
  const std::size_t col = std::stoul(part.substr(u + 8)) - 1;
  for (const auto& r : it->second)
    if (col < r.size() && std::isfinite(r[col])) return true;
  return false;
}

namespace {

// Series are told apart by more than colour: each palette colour has its own point type (filled
// and open) and dash type, put on any plot element drawn in it that uses the generic circle (pt 7
// filled, pt 6 open) or a line without a dash type of its own. Other point types (the × of a last
// surviving load) and explicit dash types keep their meaning.
constexpr int filled_points[] = {7, 5, 9, 11, 13, 15, 7, 5};
constexpr int open_points[] = {6, 4, 8, 10, 12, 14, 6, 4};
constexpr int dash_types[] = {1, 2, 4, 5, 3, 1, 2, 4};

std::string with_marks(const std::string& element) {
  static const std::regex colour("lc rgb \"(#[0-9a-f]{6})\"");
  std::smatch m;
  if (!std::regex_search(element, m, colour)) return element;
  const auto it = std::find(std::begin(colors), std::end(colors), m[1].str());
  if (it == std::end(colors)) return element;
  const auto i = static_cast<std::size_t>(it - std::begin(colors));
  std::string e = std::regex_replace(element, std::regex("\\bpt 7\\b"), fmt::format("pt {}", filled_points[i]));
  e = std::regex_replace(e, std::regex("\\bpt 6\\b"), fmt::format("pt {}", open_points[i]));
  const bool lines = e.find("with lines") != std::string::npos || e.find("with linespoints") != std::string::npos ||
                     e.find("with yerrorlines") != std::string::npos;
  if (lines && e.find(" dt ") == std::string::npos && e.find("set arrow") == std::string::npos)
    e = std::regex_replace(e, colour, fmt::format("dt {} $&", dash_types[i]), std::regex_constants::format_first_only);
  return e;
}

}  // namespace

std::string Gp::readable(std::string line) {
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
  line = std::regex_replace(line, key_inside, "set key below");
  if (line.rfind("plot ", 0) != 0) return line;
  std::string out;  // one plot element a line ("plot a, \\\n     b")
  std::size_t start = 0;
  for (std::size_t nl = line.find('\n'); start <= line.size(); nl = line.find('\n', start)) {
    const std::size_t end = nl == std::string::npos ? line.size() : nl;
    out += with_marks(line.substr(start, end - start));
    if (nl == std::string::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return out;
}

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

Estimate per_request(const json& rec, const std::string& m, double scale) {
  const Estimate e = est_of(rec, m);
  const double r = mean_of(rec, "requests");
  return {scale * e.mean / r, scale * e.lo / r, scale * e.hi / r};
}

}  // namespace retrylab::papers::report
