// The series kind (papers/series_kind.hpp): per client policy, the numbers an incident write-up cites
// (NAME), the backlog, the server's queue and the request latency percentiles (NAME_tail), the series
// itself per bin and policy (NAME_series.csv), and goodput, backlog, the server's queue and the
// latency's tail over time in one panel per policy with the event shaded (NAME_goodput, NAME_backlog,
// NAME_server_queue, NAME_latency). Policy names are text from the spec: they reach the files only
// through write_table and gp_quote.
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

// One panel per policy of the quantities qs (divided by `per`: the bin width for a rate; the first in
// the policy's colour with its band, the others thin grey lines), the event shaded.
void policy_panels(const SweepSpec& sw, const std::vector<json>& recs, const std::vector<std::string>& qs, double per,
                   const std::string& what, const std::string& ylabel, Out& out, const std::string& stem) {
  Gp gp;
  // With several quantities `what` names them, and the title stays short enough for the page.
  gp(layout(recs.size(), 2,
            qs.size() > 1 ? fmt::format("{}: {}, mean of {} runs", sw.title, what, sw.runs)
                          : fmt::format("{}: {} per policy (mean over {} runs, 95% band; {} shaded)", sw.title, what,
                                        sw.runs, event_note(sw))));
  gp("set grid lc rgb '#dddddd'; set key off; set xrange [0:*]; set yrange [0:*]; set lmargin 11");
  const double D = sw.attempt_duration;
  gp(fmt::format("set object 1 rect from {},graph 0 to {},graph 1 behind fc rgb '#f4cccc' fs solid 0.5 noborder",
                 sw.series.event_start * D, sw.series.event_end * D));
  gp(fmt::format("set xlabel {}; set ylabel {}", gp_quote(fmt::format("time ({})", sw.unit)), gp_quote(ylabel)));
  for (std::size_t i = 0; i < recs.size(); ++i) {
    const json& r = recs[i];
    const double half = 0.5 * jnum(r.at("bin"));
    const auto t = numbers(r.at("t"));
    std::vector<std::vector<double>> rows(t.size());
    for (const std::string& q : qs) {
      const auto mean = numbers(r.at("series").at(q).at("mean")), lo = numbers(r.at("series").at(q).at("lo")),
                 hi = numbers(r.at("series").at(q).at("hi"));
      for (std::size_t k = 0; k < t.size(); ++k) {
        if (rows[k].empty()) rows[k].push_back(t[k] + half);
        rows[k].insert(rows[k].end(), {mean[k] / per, lo[k] / per, hi[k] / per});
      }
    }
    const std::string b = gp.block(rows);
    gp(fmt::format("set title {}", gp_quote(r.at("policy").get<std::string>())));
    std::vector<std::string> parts = {
        fmt::format("{} using 1:3:4 with filledcurves fc rgb \"{}\" fs transparent solid 0.25 noborder", b, color(i)),
        fmt::format("{} using 1:2 with lines lw 1.5 lc rgb \"{}\"", b, color(i))};
    for (std::size_t j = 1; j < qs.size(); ++j)
      parts.push_back(fmt::format("{} using 1:{} with lines lw 1 dt 1 lc rgb \"#777777\"", b, 2 + 3 * j));
    plot_or_empty(gp, parts, "no defined bin", "set xrange [0:*]; set yrange [0:*]");
  }
  gp("unset multiplot");
  out.figure(stem, gp, 1000, 220 * static_cast<int>((recs.size() + 1) / 2) + 80);
}

// NAME_tail: per policy, clients waiting before, after and at the end, the server's queue and its
// e-folding time, and the request latency percentiles.
void tail_table(const SweepSpec& sw, const std::vector<json>& recs, Out& out) {
  const std::string& u = sw.unit;
  Table tail;
  tail.name = sw.name + "_tail";
  tail.title = fmt::format(
      "{}: per client policy, clients waiting, the server's queue and request latency (mean and "
      "95% CI over {} runs)",
      sw.title, sw.runs);
  tail.columns = {"policy",
                  "backlog before",
                  "backlog after",
                  "backlog at the end",
                  fmt::format("backlog e-folding time ({})", u),
                  "peak server queue",
                  "server queue at the end",
                  fmt::format("queue e-folding time ({})", u),
                  fmt::format("p50 latency ({})", u),
                  fmt::format("p99 latency ({})", u),
                  fmt::format("p99.9 latency ({})", u)};
  for (const json& r : recs)
    tail.rows.push_back({r.at("policy").get<std::string>(), est_of(r, "backlog_before"), est_of(r, "backlog_after"),
                         est_of(r, "backlog_end"), est_of(r, "backlog_decay_time"), est_of(r, "peak_server_queue"),
                         est_of(r, "server_queue_end"), est_of(r, "queue_decay_time"), est_of(r, "latency_p50"),
                         est_of(r, "latency_p99"), est_of(r, "latency_p999")});
  tail.notes = {
      fmt::format("Backlog: clients waiting (bin means) over the bins before and after {}, and in the last bin.",
                  event_note(sw)),
      "E-folding times (backlog, server queue): of the excess over the level before, from the least-squares slope of "
      "its logarithm over the bins from its largest bin after the event where the level is above twice its level "
      "before (at least 5 such bins); '–' when it does not drain there (a slope not below 0) or drains within 5 bins.",
      "Server queue: attempts the dependency holds, queued or in service, whether their client still waits for them "
      "or has timed out and abandoned them (the largest bin mean, and the last bin's).",
      fmt::format("Latency: of the requests answered from the warm-up to the end of the run (arrival to answer), each "
                  "run's percentile by the P² estimate; the lost and the unanswered are not in it."),
  };
  out.table(tail);
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
      fmt::format("Goodput: requests answered (each once, a hedge's late reply not again) per {} over the whole "
                  "bins of {} {} inside [warmup, start), [start, end) and [end, horizon) of {}.",
                  u, num(sw.series.bin * D), u, event_note(sw)),
      fmt::format("Recovered: from some bin after {} to the end of the run, goodput and clients waiting, averaged "
                  "over every {} {}, both stay back within {}% of their level before (clients waiting: within {}% "
                  "plus one client). Time to recover: from the end of {} to that bin, over the runs that recovered.",
                  event_note(sw), num(sw.series.recover_over * D), u, num(100 * sw.series.recover_within),
                  num(100 * sw.series.recover_within), event_note(sw)),
      "Peak backlog: most clients waiting at once in a run. Lost requests: given up (retry limit, budget, quota, "
      "breaker) per run; lost fraction: of the requests that arrived."};
  out.table(t);

  tail_table(sw, recs, out);

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
  policy_panels(sw, recs, {"successes"}, bin, "goodput", fmt::format("requests answered per {}", u), out,
                sw.name + "_goodput");
  policy_panels(sw, recs, {"backlog"}, 1.0, "backlog", "clients waiting (bin mean)", out, sw.name + "_backlog");
  policy_panels(sw, recs, {"server_queue", "in_flight"}, 1.0,
                "attempts at the server (colour, 95% band) and in flight (grey)", "attempts (bin mean)", out,
                sw.name + "_server_queue");
  policy_panels(sw, recs, {"latency_p99", "latency_p50", "latency_p999"}, 1.0,
                "request latency p99 (colour, 95% band), p50 and p99.9 (grey)", fmt::format("latency ({})", u), out,
                sw.name + "_latency");
}

}  // namespace retrylab::papers::report
