// The brooker sweep: work and time per strategy and network, beside the engine's models.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "papers/intervals.hpp"
#include "papers/published/fits.hpp"
#include "papers/report/common.hpp"
#include "papers/report/sweeps.hpp"

namespace retrylab::papers::report {

namespace {

// A point's scenario (Brooker's test on the engine, montecarlo/brooker_preset.hpp) and its network legs, in ms.
const montecarlo::Scenario& test_of(const SweepSpec& sw, std::size_t i) { return sw.points[i].scenario; }

// A brooker point's interval from the spread of its runs (log scale): work and calls are tallies of
// thousands of attempts whose runs vary far less than a Poisson count would, so Garwood's interval
// (intervals.hpp's rule for a count) would be about four times wider than the runs' own spread; calls
// are exactly 2 × attempts in every run, so their interval is exactly twice work's.
Estimate spread_of(const json& rec, const std::string& m) {
  const json& e = metric(rec, m);
  const auto n = e.contains("n") && e.at("n").is_number() ? e.at("n").get<std::int64_t>() : 0;
  return intervals::log_scale(jnum(e.at("mean")), e.contains("sd") ? jnum(e.at("sd")) : 0.0, n);
}

std::string delay_name(const SweepSpec& sw, std::size_t i) {
  const auto& o = test_of(sw, i).resource;
  const double d = sw.attempt_duration;
  if (o.delay_sd == 0) return fmt::format("fixed legs of {} ms", num(o.delay * d));
  return fmt::format("random legs (mean {} ms, sd {} ms)", num(o.delay * d), num(o.delay_sd * d));
}

// "base 10 ms (Brooker's 5 ms: his windows min(cap, base·2^k) start at 2·base), decorrelated 5 ms": the
// engine's bases of the sweep's strategies, read back into Brooker's convention.
std::string bases_note(const SweepSpec& sw) {
  const double d = sw.attempt_duration;
  std::string windowed, decorrelated;
  for (const auto& p : sw.points) {
    const auto& b = p.scenario.backoff;
    if (b.strategy == Strategy::decorrelated && decorrelated.empty())
      decorrelated = fmt::format("decorrelated jitter's floor {} ms (Brooker's base itself)", num(b.base * d));
    const bool window =
        b.strategy == Strategy::nojitter || b.strategy == Strategy::full || b.strategy == Strategy::equal;
    if (window && windowed.empty())
      windowed = fmt::format(
          "engine base {} ms for the windowed strategies, w_k = min(cap, base·2^(k−1)) (Brooker's base {} ms: his "
          "windows min(cap, base·2^k) start at 2·base)",
          num(b.base * d), num(b.base * d / 2));
  }
  if (windowed.empty() || decorrelated.empty()) return windowed + decorrelated;
  return windowed + "; " + decorrelated;
}

// A brooker sweep's records and, in order of first appearance, its strategies, networks (delay_name) and
// client counts.
struct BrookerView {
  const SweepSpec& sw;
  const std::vector<json>& recs;
  std::vector<std::string> strategies, delays;
  std::vector<std::int64_t> clients;
};

// The main table, one row per point; returns the sweep's view.
BrookerView brooker_table(const SweepSpec& sw, const std::vector<json>& recs, Out& out) {
  Table t{sw.name,
          sw.title + ": Brooker's OCC test, work (write attempts) and time (ms) per strategy",
          {"strategy", "network", "clients", "work (write attempts)", "calls (reads + writes)", "time (ms)",
           "mean client latency (ms)", "most attempts by one client"},
          {},
          {}};
  BrookerView v{sw, recs, {}, {}, {}};
  auto& strategies = v.strategies;
  auto& delays = v.delays;
  auto& clients = v.clients;
  for (std::size_t i = 0; i < sw.points.size(); ++i) {
    const auto& b = test_of(sw, i);
    t.rows.push_back({name(b.backoff.strategy), delay_name(sw, i), static_cast<double>(b.traffic.clients),
                      spread_of(recs[i], "attempts"), spread_of(recs[i], "calls"), spread_of(recs[i], "makespan"),
                      spread_of(recs[i], "latency"), spread_of(recs[i], "max_attempts")});
    strategies.push_back(name(b.backoff.strategy));
    delays.push_back(delay_name(sw, i));
    clients.push_back(b.traffic.clients);
  }
  strategies = distinct(strategies);
  delays = distinct(delays);
  clients = distinct_values(clients);
  const auto& b0 = test_of(sw, 0);
  t.notes.push_back(fmt::format(
      "Time in ms (unit \"ms\"): when the last successful write's reply reaches its client. Run on the engine: "
      "model free on one row, the read at the attempt's service start, service = read reply + write request, "
      "the write its commit (montecarlo/brooker_preset.hpp). Calls = reads + writes = 2 × write attempts. Cap {} ms; "
      "{}; {} runs per point. Intervals from the spread of the runs (log scale), not a Poisson count's.",
      format_cap(b0.backoff.cap * sw.attempt_duration), bases_note(sw), sw.runs));
  out.table(t);
  return v;
}

// One client count: work and time per strategy, a series per network.
void brooker_figure(const BrookerView& v, Out& out) {
  const SweepSpec& sw = v.sw;
  const auto& recs = v.recs;
  const auto& strategies = v.strategies;
  const auto& delays = v.delays;
  Gp gp;
  gp(layout(2, 2, sw.title + " (95% CI)"));
  gp("set grid; set key top right font \",9\"");
  for (const char* m : {"attempts", "makespan"}) {
    std::vector<CatSeries> series;
    for (const auto& dl : delays) {
      CatSeries cs{dl, std::vector<Estimate>(strategies.size(), Estimate{nan, nan, nan})};
      for (std::size_t i = 0; i < sw.points.size(); ++i) {
        const auto& b = test_of(sw, i);
        if (delay_name(sw, i) != dl) continue;
        const auto k = static_cast<std::size_t>(
            std::find(strategies.begin(), strategies.end(), name(b.backoff.strategy)) - strategies.begin());
        cs.values[k] = spread_of(recs[i], m);
      }
      series.push_back(std::move(cs));
    }
    const bool work = std::string(m) == "attempts";
    cat_panel(gp, strategies, series, work ? "work: write attempts (all clients)" : "time: last success reply",
              work ? "write attempts" : "ms", true);
  }
  gp("unset multiplot");
  out.figure(sw.name, gp, 1200, 500);
}

// Several client counts: work and time against N, a line per strategy (dashed: the second network).
void brooker_figure_against_n(const BrookerView& v, Out& out) {
  const SweepSpec& sw = v.sw;
  const auto& recs = v.recs;
  const auto& strategies = v.strategies;
  const auto& delays = v.delays;
  Gp gp;
  gp(layout(2, 2, sw.title + (delays.size() > 1 ? " (95% CI; dashed: fixed legs)" : " (95% CI)")));
  gp("set grid; set logscale x; set logscale y; set key top left font \",9\"; set xlabel \"clients (log scale)\"");
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
          const auto& b = test_of(sw, i);
          if (name(b.backoff.strategy) != strategies[k] || delay_name(sw, i) != delays[di]) continue;
          const Estimate e = spread_of(recs[i], m);
          rows.push_back({static_cast<double>(b.traffic.clients), e.mean, std::isnan(e.lo) ? e.mean : e.lo,
                          std::isnan(e.hi) ? e.mean : e.hi});
        }
        if (rows.empty()) continue;
        parts.push_back(fmt::format("{} using 1:2:3:4 with yerrorlines pt 7 ps 0.5 lw 1.5 dt {} lc rgb \"{}\" title {}",
                                    gp.block(rows), di == 0 ? 1 : 2, color(k),
                                    gp_quote(delays.size() > 1 ? strategies[k] + ", " + delays[di] : strategies[k])));
        if (k == 0 && di == 0 && rows.size() > 1)  // the growth the write-up states, through the first line's end
          parts.push_back(fmt::format(
              "{} using 1:({} * ($1 / {})**{}) with lines dt 3 lw 1.2 lc rgb \"black\" title {}", gp.block(rows),
              rows.back()[1], rows.back()[0], work ? 2 : 1, gp_quote(work ? "∝ N²" : "∝ N")));
      }
    plot_or_empty(gp, parts, "no data", "");
  }
  gp("unset multiplot");
  out.figure(sw.name, gp, 1200, 500);
}

// The points of one strategy on the first network, as fit points (clients, mean, standard error).
std::vector<published::FitPoint> fit_points(const BrookerView& v, const std::string& strategy, const char* m) {
  std::vector<published::FitPoint> out;
  for (std::size_t i = 0; i < v.sw.points.size(); ++i) {
    const auto& b = test_of(v.sw, i);
    if (name(b.backoff.strategy) != strategy || delay_name(v.sw, i) != v.delays.front()) continue;
    const double n = static_cast<double>(n_of(v.recs[i], m)), sd = jnum(metric(v.recs[i], m).at("sd"));
    out.push_back({static_cast<double>(b.traffic.clients), mean_of(v.recs[i], m), n > 0 ? sd / std::sqrt(n) : 0.0});
  }
  return out;
}

// NAME_exponents: how work and time grow with N, per strategy: the local exponent between
// neighbouring client counts; NAME_fits: the fits over the whole range (papers/published/fits.hpp).
void exponent_tables(const BrookerView& v, Out& out) {
  Table t{v.sw.name + "_exponents",
          v.sw.title + ": local exponent of work and time between neighbouring N (" + v.delays.front() + ")",
          {"strategy", "N from", "N to", "work: local exponent", "time: local exponent"},
          {},
          {}};
  Table f{v.sw.name + "_fits",
          v.sw.title + ": growth over the whole range of N (" + v.delays.front() + ")",
          {"strategy", "N from", "N to", "work: exponent of a power law",
           "work: share of N² in a + bN + cN² at the largest N", "time: exponent of a power law",
           "time: share of N² in a + bN + cN² at the largest N"},
          {},
          {}};
  for (const auto& st : v.strategies) {
    const auto work = fit_points(v, st, "attempts"), time = fit_points(v, st, "makespan");
    const auto lw = published::local_exponents(work), lt = published::local_exponents(time);
    for (std::size_t k = 0; k < lw.size() && k < lt.size(); ++k)
      t.rows.push_back({st, lw[k].n_lo, lw[k].n_hi, lw[k].exponent, lt[k].exponent});
    if (work.empty()) continue;
    f.rows.push_back({st, work.front().n, work.back().n, published::power_exponent(work),
                      published::quadratic_share(work), published::power_exponent(time),
                      published::quadratic_share(time)});
  }
  t.notes.push_back(
      "Local exponent between N1 and N2: ln(y2 / y1) / ln(N2 / N1) of the means, its interval from their "
      "standard errors. 2 everywhere is N²; 1 is linear.");
  f.notes.push_back(
      "Weighted least squares (1/se²), the interval widened by chi²/dof when the model does not fit "
      "(papers/published/fits.hpp). Share of N²: c·N²/(a + bN + cN²) of the fitted curve at the "
      "largest N (near 1: the quadratic term is the work; near 0 or below: linear or slower).");
  out.table(t);
  out.table(f);
}

// The study's classic sweep, beside which a brooker sweep over N is shown: its models and the point
// of a (model, strategy, N).
struct Classic {
  const SweepSpec& cs;
  const std::vector<json>& crecs;
  std::vector<std::string> models;
  std::optional<std::size_t> at(const std::string& model, const std::string& strategy, std::int64_t n) const {
    for (std::size_t i = 0; i < cs.points.size(); ++i) {
      const auto& s = cs.points[i].scenario;
      if (name(s.model) == model && name(s.backoff.strategy) == strategy && s.traffic.clients == n) return i;
    }
    return std::nullopt;
  }
};

// NAME_models: at N = 100 (else the middle client count), Brooker's test beside each engine model.
void models_table(const BrookerView& v, const Classic& c, Out& out) {
  const SweepSpec& sw = v.sw;
  const auto& recs = v.recs;
  const auto& strategies = v.strategies;
  const auto& delays = v.delays;
  const auto& clients = v.clients;
  const SweepSpec& cs = c.cs;
  const auto& crecs = c.crecs;
  const auto& models = c.models;
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
  for (const auto& st : strategies) {
    std::vector<Cell> row = {st};
    std::optional<std::size_t> bi;
    for (std::size_t i = 0; i < sw.points.size(); ++i)
      if (name(test_of(sw, i).backoff.strategy) == st && test_of(sw, i).traffic.clients == n_table &&
          delay_name(sw, i) == delays.front())
        bi = i;
    row.push_back(bi ? Cell(est_of(recs[*bi], "attempts_per_client")) : Cell(std::string("–")));
    row.push_back(bi ? Cell(est_of(recs[*bi], "makespan")) : Cell(std::string("–")));
    for (const auto& m : models) {
      const auto i = c.at(m, st, n_table);
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
}

// NAME_models figure: attempts per client against N, a panel per strategy.
void models_figure(const BrookerView& v, const Classic& c, Out& out) {
  const SweepSpec& sw = v.sw;
  const auto& recs = v.recs;
  const auto& strategies = v.strategies;
  const auto& delays = v.delays;
  const auto& clients = v.clients;
  const auto& crecs = c.crecs;
  const auto& models = c.models;
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
      const auto& b = test_of(sw, i);
      if (name(b.backoff.strategy) == st && delay_name(sw, i) == delays.front())
        rows.push_back({static_cast<double>(b.traffic.clients), mean_of(recs[i], "attempts_per_client")});
    }
    parts.push_back(fmt::format("{} using 1:2 with linespoints pt 7 ps 0.5 lw 2 lc rgb \"black\" title \"brooker\"",
                                g2.block(rows)));
    for (std::size_t mi = 0; mi < models.size(); ++mi) {
      std::vector<std::vector<double>> mrows;
      for (auto n : clients)
        if (const auto i = c.at(models[mi], st, n))
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

}  // namespace

void render_brooker(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const BrookerView v = brooker_table(sw, d.records[si], out);
  if (v.clients.size() == 1)
    brooker_figure(v, out);
  else
    brooker_figure_against_n(v, out);
  if (v.clients.size() >= 4) exponent_tables(v, out);
  // Beside the engine's models: the study's classic sweep (same strategies and client counts).
  std::optional<std::size_t> ci;
  for (std::size_t i = 0; i < d.spec.sweeps.size(); ++i)
    if (d.spec.sweeps[i].kind == SweepKind::classic && !ci) ci = i;
  if (!ci || v.clients.size() < 2) return;
  Classic c{d.spec.sweeps[*ci], d.records[*ci], {}};
  for (const auto& p : c.cs.points) c.models.push_back(name(p.scenario.model));
  c.models = distinct(c.models);
  models_table(v, c, out);
  models_figure(v, c, out);
}

}  // namespace retrylab::papers::report
