#include "papers/study.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "analytic/input_file.hpp"
#include "analytic/units.hpp"
#include "analytic/version.hpp"
#include "montecarlo/fields.hpp"
#include "montecarlo/metrics.hpp"
#include "montecarlo/parallel_runs.hpp"
#include "montecarlo/simulate.hpp"
#include "papers/kinds.hpp"
#include "papers/report.hpp"
#include "papers/store.hpp"
#include "papers/summary_json.hpp"

namespace retrylab::papers {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A metric's summary as a record stores it (papers/summary_json.hpp).
json metric_json(const montecarlo::Summary& s, std::string_view key) {
  const montecarlo::Metric* m = montecarlo::find_metric(key);
  if (m == nullptr) throw std::logic_error(fmt::format("no metric named '{}'", key));  // spec.cpp checked the name
  return m->reduce == montecarlo::Reduce::mean ? to_json(m->mean(s)) : to_json(m->proportion(s));
}

// The metrics a record stores: those a sweep names (`metrics`), else the default set
// (docs/study-spec.md), whose bytes every committed record keeps.
json summary_json(const montecarlo::Summary& s, const std::vector<std::string>& keep) {
  static constexpr std::string_view recorded_by_default[] = {
      "attempts_per_client", "makespan",       "latency",    "goodput",     "attempt_rate", "sojourn",
      "drain_time",          "drain_time_p99", "unfinished", "max_waiting", "collapsed",    "drained"};
  json out = json::object();
  if (keep.empty()) {
    for (const std::string_view k : recorded_by_default) out[std::string(k)] = metric_json(s, k);
  } else {
    for (const auto& k : keep) out[k] = metric_json(s, k);
  }
  return out;
}

// A per-run value in the sweep's unit (u: montecarlo/metrics.hpp; attempt-durations when plain): a
// count as an integer, a proportion as true/false, any other as a number (null when undefined).
json per_run_value(const montecarlo::RunResult& r, const std::string& k, const montecarlo::TimeUnit& u) {
  const montecarlo::Metric* m = montecarlo::find_metric(k);
  if (m == nullptr) throw std::logic_error("per_run key not handled: " + k);  // spec.cpp checked the name
  const double v = m->value(r);
  if (m->reduce == montecarlo::Reduce::proportion) return std::isnan(v) ? json(nullptr) : json(v != 0.0);
  if (m->integer && std::isfinite(v)) return static_cast<std::int64_t>(v);
  return number(u.out(m->dim, v));
}

// Inverse empirical CDF: the smallest draw x with F_n(x) >= p.
double sample_quantile(const std::vector<double>& sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  auto i = static_cast<std::size_t>(std::ceil(p * n));
  return sorted[i == 0 ? 0 : i - 1];
}

// The scenario as an object: each key=value of its canonical string, a value that reads whole as an
// integer or a finite number as a JSON number, any other ("on", "none", "full") as a string.
json scenario_object(const std::string& canonical_text) {
  json o = json::object();
  std::string_view rest = canonical_text;
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find(' '), rest.size());
    const std::string_view field = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    const std::size_t eq = field.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view value = field.substr(eq + 1);
    std::int64_t i = 0;
    const auto [iend, iec] = std::from_chars(value.data(), value.data() + value.size(), i);
    if (iec == std::errc() && iend == value.data() + value.size()) {
      o[std::string(field.substr(0, eq))] = i;  // an integer as written ("clients=300")
      continue;
    }
    double x = 0.0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), x);
    const bool number = ec == std::errc() && ptr == value.data() + value.size() && std::isfinite(x);
    o[std::string(field.substr(0, eq))] = number ? json(x) : json(std::string(value));
  }
  return o;
}

// The canonical string a record was made from: "canonical", or "scenario" in records written
// before the scenario became an object (those resume as before).
const json& recorded_canonical(const json& r) {
  static const json none;
  return r.contains("canonical") ? r.at("canonical") : r.contains("scenario") ? r.at("scenario") : none;
}

// The unit a sweep was written in (attempt-durations when it names none).
montecarlo::TimeUnit unit_of(const SweepSpec& sw) {
  montecarlo::TimeUnit u;
  if (!sw.unit.empty()) u = {sw.unit, sw.attempt_duration};
  return u;
}

// The scenario object in the sweep's unit: every time multiplied by its attempt_duration, every rate
// divided (the canonical string stays in attempt-durations: it is the RNG key's input).
json scenario_in_unit(json o, const montecarlo::TimeUnit& u) {
  for (auto& [key, value] : o.items()) {
    const montecarlo::Field* f = montecarlo::find_field(key);
    if (f != nullptr && value.is_number() && montecarlo::dim_of(*f) != montecarlo::Dim::count)
      value = u.out(montecarlo::dim_of(*f), value.get<double>());
  }
  return o;
}

json record_head(const SweepSpec& sw, std::int64_t index, const std::string& certificate_id) {
  const SweepPoint& p = sw.points[static_cast<std::size_t>(index)];
  // Provenance (docs/outputs.md): the version that computed the record, the unit of its times, the
  // scenario as an object and its canonical string (the input of the RNG key).
  const std::string text = canonical(p, sw.kind);
  json head = {{"sweep", sw.name},    {"point", index},       {"scenario", scenario_object(text)},
               {"canonical", text},   {"seed", sw.seed},      {"certificate", certificate_id},
               {"retrylab", version}, {"unit", time_unit(sw)}};
  if (!sw.unit.empty()) {  // written in ms or s: the scenario in that unit, and the length of an attempt-duration
    head["scenario"] = scenario_in_unit(head["scenario"], unit_of(sw));
    head["attempt_duration"] = sw.attempt_duration;
    if (p.scenario.traffic.load_profile.set())  // its text too, back from attempt-durations
      head["scenario"]["load_profile"] = p.scenario.traffic.load_profile.scaled(1.0 / sw.attempt_duration).text();
  }
  return head;
}

void add_runs(json& rec, const SweepSpec& sw, std::int64_t point, const std::vector<montecarlo::RunResult>& results) {
  rec["runs"] = sw.runs;
  montecarlo::Summary summary = montecarlo::summarize(results);
  const montecarlo::TimeUnit u = unit_of(sw);
  if (!u.plain()) montecarlo::summary_in_unit(summary, u);
  rec["summary"] = summary_json(summary, sw.metrics);
  if (!sw.per_run.empty()) {
    json pr = json::object();
    for (const auto& k : sw.per_run) {
      json arr = json::array();
      for (const auto& r : results) arr.push_back(per_run_value(r, k, u));
      pr[k] = std::move(arr);
    }
    rec["per_run"] = std::move(pr);
  }
}

// A record --resume reuses must be a whole one of its point, as the run writes it: a damaged or
// edited line (no summary) made the report fail afterwards (exit 3).
void check_recorded(const json& r, const SweepSpec& sw, std::size_t i, const fs::path& file) {
  const auto bad = [&](const std::string& what) {
    throw InputError("--resume", fmt::format("cannot use {}: the record of point {} of sweep {} {} (the file is "
                                             "damaged; remove it to start afresh)",
                                             file.string(), i, sw.name, what));
  };
  if (sw.kind == SweepKind::sleep) {
    if (!r.contains("sleep") || !r["sleep"].is_object()) bad("has no sleep quantiles");
    for (const char* q : {"q10", "q50", "q90", "mean"})
      if (!r["sleep"].contains(q) || !r["sleep"][q].is_number()) bad(fmt::format("has no number sleep.{}", q));
    return;
  }
  if (is_extension_kind(sw.kind)) return;
  if (!r.contains("runs") || r["runs"] != sw.runs) bad(fmt::format("does not hold this sweep's {} runs", sw.runs));
  if (!r.contains("summary") || !r["summary"].is_object()) bad("has no summary");
  for (const auto& [metric, value] : r["summary"].items())
    if (!value.is_object()) bad(fmt::format("has a summary entry {} that is not a metric's", metric.substr(0, 40)));
  for (const char* m : required_metrics(sw.kind, sw.points[i].scenario.model))
    if (!r["summary"].contains(m)) bad(fmt::format("has no {} in its summary", m));
}

// The store, its resume check and the count of points already recorded: what both run_study
// variants start with.
struct OpenedStudy {
  std::unique_ptr<ResultsStore> store;
  std::int64_t resumed = 0;
};

OpenedStudy open_study(StudySpec& spec, const StudyOptions& opt) {
  if (opt.seed) reseed(spec, *opt.seed);
  fs::create_directories(opt.out);
  remove_stale_temporaries(opt.out);
  json seeds = json::array();
  for (const auto& sw : spec.sweeps) seeds.push_back(sw.seed);
  const json header = {{"retrylab_results", 1}, {"study", spec.name},
                       {"scale", spec.scale},   {"spec_hash", fmt::format("{:016x}", spec.source_hash)},
                       {"seeds", seeds},        {"certificate", opt.certificate_id}};
  OpenedStudy o{std::make_unique<ResultsStore>(opt.out, header, opt.resume), 0};
  for (const auto& sw : spec.sweeps)
    for (std::size_t i = 0; i < sw.points.size(); ++i)
      if (const json* r = o.store->find(sw.name, static_cast<std::int64_t>(i))) {
        if (recorded_canonical(*r) != canonical(sw.points[i], sw.kind))
          throw InputError("--resume", fmt::format("recorded point {} of sweep {} is a different scenario ({})", i,
                                                   sw.name, recorded_canonical(*r).dump().substr(0, 200)));
        check_recorded(*r, sw, i, o.store->path());
        ++o.resumed;
      }
  // A record of no point of this study (edited in, or of another spec with the same header) is not
  // carried along into the new results.
  if (o.resumed != o.store->size())
    for (const auto& record : o.store->records()) {
      const auto& key = record.first;  // not a structured binding: clang 14 cannot capture one
      const auto sw =
          std::find_if(spec.sweeps.begin(), spec.sweeps.end(), [&](const SweepSpec& w) { return w.name == key.first; });
      if (sw == spec.sweeps.end() || key.second < 0 || key.second >= static_cast<std::int64_t>(sw->points.size()))
        throw InputError("--resume",
                         fmt::format("cannot use {}: it records point {} of sweep \"{}\", which this study does not "
                                     "have (a foreign record; remove the file to start afresh)",
                                     o.store->path().string(), key.second, printable(key.first.substr(0, 80))));
    }
  return o;
}

// The log lines of a study beside the progress display (log mode only, as before).
void note_resumed(Progress& progress, const StudySpec& spec, std::int64_t resumed) {
  if (resumed > 0)
    progress.note(fmt::format("resuming: {} of {} points already recorded", resumed, spec.total_points()));
}

void note_sweep(Progress& progress, const SweepSpec& sw, std::int64_t to_run) {
  progress.note(fmt::format("sweep {}: {} points ({} to run)", sw.name, sw.points.size(), to_run));
}

}  // namespace

bool is_splittable(const SweepSpec& sw) noexcept { return !is_extension_kind(sw.kind) && sw.kind != SweepKind::sleep; }

std::vector<montecarlo::RunResult> run_range(const SweepSpec& sw, std::int64_t point, std::int64_t first,
                                             std::int64_t last, int threads, const std::function<void()>& run_done) {
  if (!is_splittable(sw) || point < 0 || point >= static_cast<std::int64_t>(sw.points.size()) || first < 0 ||
      last > sw.runs || first > last)
    throw std::logic_error(
        fmt::format("run_range: no runs [{}, {}) of point {} of sweep {}", first, last, point, sw.name));
  const montecarlo::Scenario& s = sw.points[static_cast<std::size_t>(point)].scenario;
  const std::int64_t n = last - first;
  // simulate_run is a pure function of (scenario, seed, run index): the same result that
  // montecarlo::simulate puts at index first + i.
  return montecarlo::detail::run_in_order<montecarlo::RunResult>(
      n, threads,
      [&](std::uint64_t i) { return montecarlo::simulate_run(s, sw.seed, static_cast<std::uint64_t>(first) + i); },
      [&run_done](std::int64_t, std::int64_t) {
        if (run_done) run_done();
      });
}

json point_record(const SweepSpec& sw, std::int64_t point, const std::string& certificate_id,
                  const std::vector<montecarlo::RunResult>& results) {
  if (!is_splittable(sw) || static_cast<std::int64_t>(results.size()) != sw.runs)
    throw std::logic_error(
        fmt::format("point_record: sweep {} point {} needs {} runs (got {})", sw.name, point, sw.runs, results.size()));
  json rec = record_head(sw, point, certificate_id);
  add_runs(rec, sw, point, results);
  return rec;
}

json run_whole_point(const SweepSpec& sw, std::int64_t index, const StudyOptions& opt,
                     const std::function<void()>& run_done, montecarlo::Pulse* pulse) {
  const SweepPoint& p = sw.points[static_cast<std::size_t>(index)];
  json rec = record_head(sw, index, opt.certificate_id);
  auto done = [&run_done] {
    if (run_done) run_done();
  };
  if (is_extension_kind(sw.kind)) {
    rec.update(run_extension_point(sw, index, opt.threads, done));
    return rec;
  }
  if (sw.kind == SweepKind::sleep) {
    std::vector<double> xs = montecarlo::draw_sleeps(p.scenario.backoff, p.retry, sw.draws, sw.seed);
    double sum = 0;
    for (double x : xs) sum += x;  // in draw order: a pure function of the draws
    std::sort(xs.begin(), xs.end());
    rec["draws"] = sw.draws;
    rec["sleep"] = {{"q10", sample_quantile(xs, 0.1)},
                    {"q50", sample_quantile(xs, 0.5)},
                    {"q90", sample_quantile(xs, 0.9)},
                    {"mean", sum / static_cast<double>(xs.size())}};
    done();
    return rec;
  }
  montecarlo::RunPlan plan{sw.runs, sw.seed, opt.threads};
  plan.pulse = pulse;
  const auto results = montecarlo::simulate(p.scenario, plan, [&done](std::int64_t, std::int64_t) { done(); });
  add_runs(rec, sw, index, results);
  return rec;
}

StudyOutcome run_study(StudySpec spec, const StudyOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  OpenedStudy opened = open_study(spec, opt);
  ResultsStore& store = *opened.store;
  const std::int64_t resumed = opened.resumed;
  Progress progress(Progress::pick_mode(opt.quiet), "points", spec.total_points(), resumed);
  note_resumed(progress, spec, resumed);
  StudyOutcome outcome;
  outcome.points_resumed = resumed;
  for (const auto& sw : spec.sweeps) {
    std::int64_t to_run = 0;
    for (std::size_t i = 0; i < sw.points.size(); ++i)
      to_run += store.has(sw.name, static_cast<std::int64_t>(i)) ? 0 : 1;
    note_sweep(progress, sw, to_run);
    for (std::size_t i = 0; i < sw.points.size(); ++i) {
      const auto idx = static_cast<std::int64_t>(i);
      if (store.has(sw.name, idx)) continue;
      progress.start_item(fmt::format("{} #{}", sw.name, idx), sw.kind == SweepKind::sleep ? 1 : sw.runs);
      store.append(run_whole_point(
          sw, idx, opt, [&progress] { progress.run_done(); }, progress.pulse()));
      progress.item_done();
      ++outcome.points_run;
    }
  }
  progress.finish();
  if (opt.render) outcome.outputs = render_study(spec, opt.out);
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return outcome;
}

StudyOutcome run_study(StudySpec spec, const StudyOptions& opt, const PointDriver& driver) {
  const auto t0 = std::chrono::steady_clock::now();
  OpenedStudy opened = open_study(spec, opt);
  ResultsStore& store = *opened.store;
  Progress progress(Progress::pick_mode(opt.quiet), "points", spec.total_points(), opened.resumed);
  note_resumed(progress, spec, opened.resumed);
  StudyOutcome outcome;
  outcome.points_resumed = opened.resumed;
  std::vector<PendingPoint> todo;
  for (std::size_t s = 0; s < spec.sweeps.size(); ++s)
    for (std::size_t i = 0; i < spec.sweeps[s].points.size(); ++i)
      if (!store.has(spec.sweeps[s].name, static_cast<std::int64_t>(i)))
        todo.push_back({s, static_cast<std::int64_t>(i)});
  // Sweep log lines as the records reach each sweep (a driver runs several sweeps at once).
  std::size_t next_sweep = 0;
  auto announce_until = [&](std::size_t last) {
    for (; next_sweep <= last && next_sweep < spec.sweeps.size(); ++next_sweep) {
      const auto& sw = spec.sweeps[next_sweep];
      std::int64_t to_run = 0;
      for (const auto& p : todo) to_run += p.sweep == next_sweep ? 1 : 0;
      note_sweep(progress, sw, to_run);
    }
  };
  std::size_t expected = 0;
  driver(spec, todo, opt, progress, [&](const json& rec) {
    if (expected >= todo.size() || rec.at("sweep") != spec.sweeps[todo[expected].sweep].name ||
        rec.at("point") != todo[expected].point)
      throw std::logic_error("study driver: a record out of order (" + rec.value("sweep", std::string()) + ")");
    announce_until(todo[expected].sweep);
    store.append(rec);
    progress.item_done();
    ++expected;
    ++outcome.points_run;
  });
  if (expected != todo.size())
    throw std::logic_error(fmt::format("study driver: {} of {} points recorded", expected, todo.size()));
  announce_until(spec.sweeps.size());
  progress.finish();
  if (opt.render) outcome.outputs = render_study(spec, opt.out);
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return outcome;
}

std::vector<fs::path> render_study(const StudySpec& spec, const fs::path& out) {
  const auto records = read_results(out / "results.jsonl");
  StudyData data{spec, {}, {}};
  for (const auto& sw : spec.sweeps) {
    std::vector<json> recs;
    for (std::size_t i = 0; i < sw.points.size(); ++i) {
      auto it = records.find({sw.name, static_cast<std::int64_t>(i)});
      if (it == records.end())
        throw std::runtime_error(fmt::format("{}: point {} of sweep {} is missing; run again with --resume",
                                             (out / "results.jsonl").string(), i, sw.name));
      recs.push_back(it->second);
      const std::string cert = it->second.value("certificate", "");
      if (std::find(data.certificates.begin(), data.certificates.end(), cert) == data.certificates.end())
        data.certificates.push_back(cert);
    }
    data.records.push_back(std::move(recs));
  }
  return render_reports(data, out);
}

}  // namespace retrylab::papers
