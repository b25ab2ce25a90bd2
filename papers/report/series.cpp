// The series kind (papers/series_kind.hpp): per client policy, the numbers an incident write-up cites
// (NAME), the series itself per bin and policy (NAME_series.csv), and goodput and backlog over time
// in one panel per policy with the event shaded (NAME_goodput, NAME_backlog). Policy names are text
// from the spec: they reach the files only through write_table and gp_quote.
#include <fmt/format.h>
#include <cmath>
#include <string>
#include <vector>

#include "montecarlo/series.hpp"
#include "papers/report/common.hpp"
#include "papers/report/sweeps.hpp"
#include "papers/series_kind.hpp"

namespace retrylab::papers::report {

namespace {

std::vector<double> numbers(const json& arr) {
  std::vector<double> out;
  for (const auto& x : arr) out.push_back(jnum(x));
  return out;
}

// The unit's name and the event as the tables' notes describe it.
std::string event_note(const SweepSpec& sw) {
  const auto& s = sw.series;
  const double D = sw.attempt_duration;
  const bool outage = !sw.points.empty() && sw.points.front().scenario.failures.outage_end > 0.0;
  return fmt::format("{} {}–{} {}", outage ? "the outage" : "the event", num(s.event_start * D), num(s.event_end * D),
                     sw.unit);
}

// One panel per policy of quantity q (divided by `per`: the bin width for a rate), the event shaded.
void policy_panels(const SweepSpec& sw, const std::vector<json>& recs, const std::string& q, double per,
                   const std::string& what, const std::string& ylabel, Out& out, const std::string& stem) {
  Gp gp;
  gp(layout(recs.size(), 2,
            fmt::format("{}: {} per policy (mean over {} runs, 95% band; {} shaded)", sw.title, what, sw.runs,
                        event_note(sw))));
  gp("set grid lc rgb '#dddddd'; set key off; set xrange [0:*]; set yrange [0:*]; set lmargin 11");
  const double D = sw.attempt_duration;
  gp(fmt::format("set object 1 rect from {},graph 0 to {},graph 1 behind fc rgb '#f4cccc' fs solid 0.5 noborder",
                 sw.series.event_start * D, sw.series.event_end * D));
  gp(fmt::format("set xlabel {}; set ylabel {}", gp_quote(fmt::format("time ({})", sw.unit)), gp_quote(ylabel)));
  for (std::size_t i = 0; i < recs.size(); ++i) {
    const json& r = recs[i];
    const double half = 0.5 * jnum(r.at("bin"));
    const auto t = numbers(r.at("t")), mean = numbers(r.at("series").at(q).at("mean")),
               lo = numbers(r.at("series").at(q).at("lo")), hi = numbers(r.at("series").at(q).at("hi"));
    std::vector<std::vector<double>> rows;
    for (std::size_t k = 0; k < t.size(); ++k) rows.push_back({t[k] + half, mean[k] / per, lo[k] / per, hi[k] / per});
    const std::string b = gp.block(rows);
    gp(fmt::format("set title {}", gp_quote(r.at("policy").get<std::string>())));
    const std::vector<std::string> parts = {
        fmt::format("{} using 1:3:4 with filledcurves fc rgb \"{}\" fs transparent solid 0.25 noborder", b, color(i)),
        fmt::format("{} using 1:2 with lines lw 1.5 lc rgb \"{}\"", b, color(i))};
    plot_or_empty(gp, parts, "no defined bin", "set xrange [0:*]; set yrange [0:*]");
  }
  gp("unset multiplot");
  out.figure(stem, gp, 1000, 220 * static_cast<int>((recs.size() + 1) / 2) + 80);
}

}  // namespace

void render_series(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const std::vector<json>& recs = d.records[si];
  const std::string& u = sw.unit;
  Table t;
  t.name = sw.name;
  t.title =
      fmt::format("{}: per client policy, around {} (mean and 95% CI over {} runs)", sw.title, event_note(sw), sw.runs);
  t.columns = {"policy",
               fmt::format("goodput before (per {})", u),
               fmt::format("goodput during (per {})", u),
               fmt::format("goodput after (per {})", u),
               "recovered (runs)",
               fmt::format("time to recover ({})", u),
               "peak backlog",
               "attempts per request",
               "lost requests",
               "lost fraction"};
  for (const json& r : recs) {
    const json& rec = metric(r, "recovered");
    t.rows.push_back({r.at("policy").get<std::string>(), est_of(r, "goodput_before"), est_of(r, "goodput_during"),
                      est_of(r, "goodput_after"),
                      fmt::format("{}/{}", rec.at("count").get<std::int64_t>(), rec.at("n").get<std::int64_t>()),
                      est_of(r, "recovery_time"), est_of(r, "peak_backlog"), est_of(r, "attempts_per_request"),
                      est_of(r, "lost"), est_of(r, "lost_fraction")});
  }
  const double D = sw.attempt_duration;
  t.notes = {
      fmt::format("Goodput: successful attempts per {} over the whole bins of {} {} inside [warmup, start), [start, "
                  "end) and [end, horizon) of {}.",
                  u, num(sw.series.bin * D), u, event_note(sw)),
      fmt::format("Time to recover: from the end of {} to the first bin from which goodput, averaged over {} {}, is "
                  "back within {}% of goodput before; over the runs that recovered before the horizon (recovered).",
                  event_note(sw), num(sw.series.recover_over * D), u, num(100 * sw.series.recover_within)),
      "Peak backlog: most clients waiting at once in a run. Lost requests: given up (retry limit, budget, quota, "
      "breaker) per run; lost fraction: of the requests that arrived."};
  out.table(t);

  Table s;
  s.name = sw.name + "_series";
  s.title = fmt::format("{}: per bin of {} {} and policy, mean over the runs and 95% interval", sw.title,
                        num(sw.series.bin * D), u);
  s.columns = {fmt::format("t ({})", u), "policy"};
  for (const auto q : series_record_quantities)
    s.columns.emplace_back(montecarlo::series_quantity_defs()[static_cast<std::size_t>(q)].key);
  for (const json& r : recs) {
    const auto t_bins = numbers(r.at("t"));
    for (std::size_t k = 0; k < t_bins.size(); ++k) {
      std::vector<Cell> row = {t_bins[k], r.at("policy").get<std::string>()};
      for (const auto q : series_record_quantities) {
        const json& v =
            r.at("series").at(std::string(montecarlo::series_quantity_defs()[static_cast<std::size_t>(q)].key));
        row.emplace_back(Estimate{jnum(v.at("mean").at(k)), jnum(v.at("lo").at(k)), jnum(v.at("hi").at(k))});
      }
      s.rows.push_back(std::move(row));
    }
  }
  out.csv(s);
  const double bin = sw.series.bin * D;
  policy_panels(sw, recs, "successes", bin, "goodput", fmt::format("successes per {}", u), out, sw.name + "_goodput");
  policy_panels(sw, recs, "backlog", 1.0, "backlog", "clients waiting (bin mean)", out, sw.name + "_backlog");
}

}  // namespace retrylab::papers::report
