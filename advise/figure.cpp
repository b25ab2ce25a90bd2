#include "advise/figure.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <vector>

#include "advise/report.hpp"
#include "advise/search.hpp"

namespace retrylab::advise {

namespace {

// Rows (cap, mean, lo, hi) of one metric over the curve's points that drained in every run.
std::vector<std::vector<double>> rows_of(const Candidate& c, double d, bool attempts) {
  std::vector<std::vector<double>> rows;
  for (const Stats& s : c.curve) {
    if (!s.feasible()) continue;
    const MeanSummary& m = attempts ? s.attempts_per_client : s.drain_time;
    const double k = attempts ? 1.0 : d;
    rows.push_back({s.policy.cap * d, m.mean * k, (std::isnan(m.ci95.lo) ? m.mean : m.ci95.lo) * k,
                    (std::isnan(m.ci95.hi) ? m.mean : m.ci95.hi) * k});
  }
  return rows;
}

std::string marks(const Candidate& c, double d) {
  std::string s;
  if (!c.found) return s;
  s += fmt::format("set arrow 1 from {0}, graph 0 to {0}, graph 1 nohead lw 2 lc rgb \"#d62728\"\n", c.policy.cap * d);
  s += fmt::format("set arrow 2 from {0}, graph 0 to {0}, graph 1 nohead dt 2 lc rgb \"#d62728\"\n",
                   c.policy.cap * margin_factor * d);
  s += fmt::format("set arrow 3 from {0}, graph 0 to {0}, graph 1 nohead dt 2 lc rgb \"#d62728\"\n",
                   c.policy.cap / margin_factor * d);
  s += fmt::format("set arrow 4 from {0}, graph 0 to {0}, graph 1 nohead dt 3 lc rgb \"#777777\"\n", c.least_cap * d);
  return s;
}

}  // namespace

papers::Figure curve_figure(const Advice& a, double d, const std::string& unit, const std::string& name) {
  papers::Figure f;
  f.name = name;
  f.width = 900;
  f.height = 700;
  if (a.candidates.empty()) return f;
  const Candidate& c = a.candidates.front();
  const Request& r = a.request;
  const std::string base = c.ratio == 1.0 ? "base = cap"
                           : c.ratio > 0
                               ? fmt::format("base = cap / {:.4g}", c.ratio)
                               : fmt::format("base {:.4g} {}", (c.found ? c.policy.base : least_base(r)) * d, unit);
  const std::string title = fmt::format("{} clients, {}: {} jitter, {}; {} runs per cap", r.clients,
                                        plain_words(r.model), to_string(c.strategy), base, coarse_runs);
  const auto drain = rows_of(c, d, false), attempts = rows_of(c, d, true);
  std::string s;
  s += papers::datablock("drain", drain);
  s += papers::datablock("attempts", attempts);
  s += fmt::format("set multiplot layout 2,1 title {} font \",11\"\n", papers::gp_quote(title));
  s += "set grid\nset logscale x\nset logscale y\nset key top right font \",9\"\n" + marks(c, d);
  if (!drain.empty())
    s += fmt::format("set xrange [{}:{}]\n", drain.front()[0] / 1.2,
                     std::max(drain.back()[0], c.found ? c.policy.cap / margin_factor * d : 0.0) * 1.2);
  s += fmt::format("set xlabel {}\n", papers::gp_quote("cap (" + unit + ")"));
  // The marks' key entries: lines through no point (NaN), styled as the arrows.
  const std::string keys =
      c.found ? fmt::format(
                    ", NaN with lines lw 2 lc rgb \"#d62728\" title {}, NaN with lines dt 2 lc rgb \"#d62728\" "
                    "title {}, NaN with lines dt 3 lc rgb \"#777777\" title {}",
                    papers::gp_quote("recommended cap"),
                    papers::gp_quote(fmt::format("cap x {0} and cap / {0} (margin)", margin_factor)),
                    papers::gp_quote("least cap that drained"))
              : "";
  for (const bool att : {false, true}) {
    s += fmt::format("set ylabel {}\n", papers::gp_quote(att ? "attempts per client" : "drain time (" + unit + ")"));
    s += fmt::format("plot ${} using 1:2:3:4 with yerrorlines pt 7 ps 0.6 lc rgb \"{}\" title {}{}\n",
                     att ? "attempts" : "drain", att ? "#2ca02c" : "#1f77b4",
                     papers::gp_quote(att ? "mean attempts per client (95% interval)"
                                          : "mean drain time, last client (95% interval)"),
                     keys);
  }
  s += "unset multiplot\n";
  f.script = s;
  return f;
}

}  // namespace retrylab::advise
