#include "papers/study.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "montecarlo/simulate.hpp"
#include "papers/kinds.hpp"
#include "papers/progress.hpp"
#include "papers/report.hpp"
#include "papers/store.hpp"

namespace retrylab::papers {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json number(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

json to_json(const MeanSummary& s) {
  return {{"mean", number(s.mean)}, {"sd", number(s.sd)}, {"n", s.n}, {"ci95", {number(s.ci95.lo), number(s.ci95.hi)}}};
}

json to_json(const ProportionSummary& s) {
  return {{"count", s.count}, {"fraction", number(s.fraction)}, {"n", s.n}, {"ci95", {number(s.ci95.lo), number(s.ci95.hi)}}};
}

json summary_json(const montecarlo::Summary& s, const std::vector<std::string>& keep) {
  json all = {{"attempts_per_client", to_json(s.attempts_per_client)},
              {"makespan", to_json(s.makespan)},
              {"latency", to_json(s.latency)},
              {"goodput", to_json(s.goodput)},
              {"attempt_rate", to_json(s.attempt_rate)},
              {"sojourn", to_json(s.sojourn)},
              {"drain_time", to_json(s.drain_time)},
              {"drain_time_p99", to_json(s.drain_time_p99)},
              {"unfinished", to_json(s.unfinished)},
              {"max_waiting", to_json(s.max_waiting)},
              {"collapsed", to_json(s.collapsed)},
              {"drained", to_json(s.drained)}};
  if (keep.empty()) return all;
  json out = json::object();
  for (const auto& k : keep) out[k] = all.at(k);
  return out;
}

json per_run_value(const montecarlo::RunResult& r, const std::string& k) {
  if (k == "attempts_per_client") return number(r.attempts_per_client);
  if (k == "makespan") return number(r.makespan);
  if (k == "latency") return number(r.latency);
  if (k == "goodput") return number(r.goodput);
  if (k == "drain_time") return number(r.drain_time);
  if (k == "drain_time_p99") return number(r.drain_time_p99);
  if (k == "max_waiting") return r.max_waiting;
  if (k == "unfinished") return r.unfinished;
  if (k == "collapsed") return r.collapsed;
  if (k == "drained") return r.drained;
  throw std::logic_error("per_run key not handled: " + k);
}

// Inverse empirical CDF: the smallest draw x with F_n(x) >= p.
double sample_quantile(const std::vector<double>& sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  auto i = static_cast<std::size_t>(std::ceil(p * n));
  return sorted[i == 0 ? 0 : i - 1];
}

json run_point(const SweepSpec& sw, std::int64_t index, const StudyOptions& opt, Progress& progress) {
  const SweepPoint& p = sw.points[static_cast<std::size_t>(index)];
  json rec = {{"sweep", sw.name}, {"point", index}, {"scenario", canonical(p, sw.kind)}, {"seed", sw.seed},
              {"certificate", opt.certificate_id}};
  if (is_extension_kind(sw.kind)) {
    rec.update(run_extension_point(sw, index, opt.threads, [&progress] { progress.run_done(); }));
    return rec;
  }
  if (sw.kind == SweepKind::sleep) {
    std::vector<double> xs = montecarlo::draw_sleeps(p.scenario.backoff, p.retry, sw.draws, sw.seed);
    double sum = 0;
    for (double x : xs) sum += x;  // in draw order: a pure function of the draws
    std::sort(xs.begin(), xs.end());
    rec["draws"] = sw.draws;
    rec["sleep"] = {{"q10", sample_quantile(xs, 0.1)}, {"q50", sample_quantile(xs, 0.5)},
                    {"q90", sample_quantile(xs, 0.9)}, {"mean", sum / static_cast<double>(xs.size())}};
    progress.run_done();
    return rec;
  }
  montecarlo::RunPlan plan{sw.runs, sw.seed, opt.threads};
  const auto results = montecarlo::simulate(p.scenario, plan, [&progress](std::int64_t, std::int64_t) { progress.run_done(); });
  rec["runs"] = sw.runs;
  rec["summary"] = summary_json(montecarlo::summarize(results), sw.metrics);
  if (!sw.per_run.empty()) {
    json pr = json::object();
    for (const auto& k : sw.per_run) {
      json arr = json::array();
      for (const auto& r : results) arr.push_back(per_run_value(r, k));
      pr[k] = std::move(arr);
    }
    rec["per_run"] = std::move(pr);
  }
  return rec;
}

}  // namespace

StudyOutcome run_study(StudySpec spec, const StudyOptions& opt) {
  if (opt.seed)
    for (auto& sw : spec.sweeps) sw.seed = *opt.seed;
  const auto t0 = std::chrono::steady_clock::now();
  fs::create_directories(opt.out);
  remove_stale_temporaries(opt.out);
  json seeds = json::array();
  for (const auto& sw : spec.sweeps) seeds.push_back(sw.seed);
  const json header = {{"retrylab_results", 1},      {"study", spec.name},
                       {"scale", spec.scale},       {"spec_hash", fmt::format("{:016x}", spec.source_hash)},
                       {"seeds", seeds},            {"certificate", opt.certificate_id}};
  ResultsStore store(opt.out, header, opt.resume);
  std::int64_t resumed = 0;
  for (const auto& sw : spec.sweeps)
    for (std::size_t i = 0; i < sw.points.size(); ++i)
      if (const json* r = store.find(sw.name, static_cast<std::int64_t>(i))) {
        if (r->at("scenario") != canonical(sw.points[i], sw.kind))
          throw InputError("--resume", fmt::format("recorded point {} of sweep {} is a different scenario ({})", i,
                                                   sw.name, r->at("scenario").dump()));
        ++resumed;
      }
  Progress progress(Progress::pick_mode(opt.quiet), spec.total_points(), resumed);
  StudyOutcome outcome;
  outcome.points_resumed = resumed;
  for (const auto& sw : spec.sweeps) {
    std::int64_t to_run = 0;
    for (std::size_t i = 0; i < sw.points.size(); ++i) to_run += store.has(sw.name, static_cast<std::int64_t>(i)) ? 0 : 1;
    progress.start_sweep(sw.name, static_cast<std::int64_t>(sw.points.size()), to_run);
    for (std::size_t i = 0; i < sw.points.size(); ++i) {
      const auto idx = static_cast<std::int64_t>(i);
      if (store.has(sw.name, idx)) continue;
      progress.start_point(fmt::format("{} #{}", sw.name, idx));
      store.append(run_point(sw, idx, opt, progress));
      progress.point_done();
      ++outcome.points_run;
    }
  }
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
