// `retrylab simulate`: one scenario, many runs (cli.md). Parses flags into a Scenario and a RunPlan,
// calls montecarlo::simulate, prints the summary as a table, JSON or CSV. The JSON's "scenario" is
// every input, canonical; the thread count is not in it (it never changes a byte of the output).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <iostream>
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "analytic/error.hpp"
#include "cli/common.hpp"
#include "montecarlo/brooker.hpp"
#include "montecarlo/resources.hpp"
#include "montecarlo/result.hpp"
#include "montecarlo/scenario.hpp"
#include "montecarlo/simulate.hpp"
#include "montecarlo/trace.hpp"

namespace retrylab::cli {

namespace {

struct SimulateOptions {
  std::string model;
  std::string strategy;
  double base = 1.0;
  std::string cap = "1000";
  double window = 0.0;
  std::int64_t clients = 0;
  double rate = 0.0;
  double horizon = 0.0;
  double warmup = 0.0;
  std::int64_t collapse = 3000;
  bool retries = true;
  std::int64_t runs = 20;
  std::uint64_t seed = 1;
  int threads = 0;
  bool quiet = false;
  std::string trace;  // attempt trace file (docs/traces.md); empty = none
  double max_memory = montecarlo::default_max_memory() / (1ull << 30);  // GiB
  double leg_mean = montecarlo::brooker_default_leg_mean;  // --model brooker only (ms)
  double leg_sd = montecarlo::brooker_default_leg_sd;
  // Server-side mechanisms (issue 8; montecarlo/scenario.hpp ServerOptions). Enum names as text.
  montecarlo::ServerOptions server{};
  bool server_engine = false;
  std::string service = "deterministic", delay_dist = "fixed", overflow = "reject", retry_after_rule = "fixed";
  std::string aimd_timeout = "none", mix_strategy = "none", mix_cap = "1000", timeout = "none";
  OutputFormat format = OutputFormat::table;
  std::vector<std::string> given;  // the flags given on the command line (--model brooker checks them)
};

bool was_given(const SimulateOptions& o, const std::string& flag) {
  return std::find(o.given.begin(), o.given.end(), flag) != o.given.end();
}

nlohmann::ordered_json number(double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr); }

nlohmann::ordered_json to_json(const MeanSummary& m) {
  return {{"mean", number(m.mean)}, {"sd", number(m.sd)}, {"n", m.n},
          {"ci95", {number(m.ci95.lo), number(m.ci95.hi)}}};
}

nlohmann::ordered_json to_json(const ProportionSummary& p) {
  return {{"count", p.count}, {"fraction", number(p.fraction)}, {"n", p.n},
          {"ci95", {number(p.ci95.lo), number(p.ci95.hi)}}};
}

struct NamedMean {
  const char* key;
  const char* label;  // table: metric and unit
  const MeanSummary* value;
};

std::vector<NamedMean> mean_metrics(const montecarlo::Summary& s) {
  return {{"attempts_per_client", "attempts per client", &s.attempts_per_client},
          {"makespan", "makespan (attempt-durations)", &s.makespan},
          {"latency", "latency (attempt-durations)", &s.latency},
          {"goodput", "goodput (successes per attempt-duration)", &s.goodput},
          {"attempt_rate", "attempt rate (per attempt-duration)", &s.attempt_rate},
          {"sojourn", "time in system (attempt-durations)", &s.sojourn},
          {"drain_time", "drain time (attempt-durations)", &s.drain_time},
          {"drain_time_p99", "99% drain time (attempt-durations)", &s.drain_time_p99},
          {"unfinished", "unfinished (clients)", &s.unfinished},
          {"max_waiting", "peak backlog (clients)", &s.max_waiting},
          {"mean_waiting", "mean waiting (clients)", &s.mean_waiting},
          {"mean_time_waiting", "mean time waiting (attempt-durations)", &s.mean_time_waiting},
          {"arrival_rate", "arrival rate (per attempt-duration)", &s.arrival_rate},
          {"busy_time", "busy time (attempt-durations)", &s.busy_time},
          {"work_done", "work done (attempt-durations)", &s.work_done}};
}

// Printed only for scenarios with server options (or --server-engine), so every other output keeps its bytes.
std::vector<NamedMean> server_metrics(const montecarlo::Summary& s) {
  return {{"rejected", "rejected attempts (per run)", &s.rejected},
          {"reject_fraction", "rejected / attempts", &s.reject_fraction},
          {"queue_wait", "queue wait at the server (attempt-durations)", &s.queue_wait},
          {"mean_limit", "mean concurrency limit (attempts)", &s.mean_limit},
          {"latency_p50", "median latency (attempt-durations)", &s.latency_p50},
          {"latency_p99", "99th percentile latency (attempt-durations)", &s.latency_p99},
          {"lost", "clients that gave up (per run)", &s.lost},
          {"lost_fraction", "lost / (successes + lost)", &s.lost_fraction},
          {"timed_out", "attempts timed out (per run)", &s.timed_out}};
}

bool shows_server(const montecarlo::Scenario& sc, const montecarlo::RunPlan& plan) {
  return montecarlo::has_server_features(sc) || plan.server_engine;
}

nlohmann::ordered_json server_json(const montecarlo::ServerOptions& o) {
  nlohmann::ordered_json j;
  j["rows"] = o.rows;
  j["service"] = std::string(montecarlo::to_string(o.service));
  j["service_cv"] = o.service_cv;
  j["delay"] = o.delay;
  j["delay_dist"] = std::string(montecarlo::to_string(o.delay_dist));
  j["lock"] = o.lock ? "on" : "off";
  j["limit"] = o.limit;
  j["overflow"] = std::string(montecarlo::to_string(o.overflow));
  j["reject_cost"] = o.reject_cost;
  j["retry_after"] = o.retry_after;
  j["retry_after_rule"] = std::string(montecarlo::to_string(o.retry_after_rule));
  j["ignore_retry_after"] = o.ignore_retry_after;
  j["aimd"] = o.aimd ? "on" : "off";
  if (o.aimd) {
    const auto& a = o.aimd_params;
    j["aimd_initial"] = a.initial;
    j["aimd_min"] = a.min;
    j["aimd_max"] = a.max;
    j["aimd_backoff"] = a.backoff;
    j["aimd_timeout"] = std::isinf(a.timeout) ? nlohmann::ordered_json("none") : nlohmann::ordered_json(a.timeout);
  }
  j["mix"] = o.mix;
  if (o.mix > 0.0) {
    const Backoff& b = o.mix_backoff;
    j["mix_strategy"] = std::string(to_string(b.strategy));
    j["mix_base"] = b.base;
    j["mix_cap"] = std::isinf(b.cap) ? nlohmann::ordered_json("none") : nlohmann::ordered_json(b.cap);
    j["mix_window"] = b.strategy == Strategy::window ? b.window : 0.0;
  }
  j["timeout"] = std::isinf(o.timeout) ? nlohmann::ordered_json("none") : nlohmann::ordered_json(o.timeout);
  j["max_attempts"] = o.max_attempts;
  return j;
}

nlohmann::ordered_json scenario_json(const montecarlo::Scenario& sc, const montecarlo::RunPlan& plan) {
  nlohmann::ordered_json j;
  j["model"] = std::string(to_string(sc.model));
  j["strategy"] = std::string(to_string(sc.backoff.strategy));
  j["base"] = sc.backoff.base;
  j["cap"] = std::isinf(sc.backoff.cap) ? nlohmann::ordered_json("none") : nlohmann::ordered_json(sc.backoff.cap);
  j["window"] = sc.backoff.strategy == Strategy::window ? sc.backoff.window : 0.0;
  j["clients"] = sc.clients;
  j["rate"] = sc.rate;
  j["horizon"] = montecarlo::effective_horizon(sc);
  j["warmup"] = sc.warmup;
  j["collapse"] = sc.collapse;
  j["retries"] = sc.retries ? "on" : "off";
  j["runs"] = plan.runs;
  j["seed"] = plan.seed;
  return j;
}

std::string fmt_num(double x) { return std::isfinite(x) ? fmt::format("{:.6g}", x) : std::string("-"); }

void print_table(const montecarlo::Scenario& sc, const montecarlo::RunPlan& plan, const montecarlo::Summary& s) {
  std::cout << "retrylab simulate: " << montecarlo::canonical(sc) << " runs=" << plan.runs << " seed=" << plan.seed
            << "\n";
  std::cout << fmt::format("stops: finished {}, drained {}, collapsed {}, horizon {}\n\n", s.stops[0], s.stops[1],
                           s.stops[2], s.stops[3]);
  std::cout << fmt::format("{:<42} {:>12} {:>12} {:>6}  {:<27}\n", "metric", "mean", "sd", "n", "95% interval");
  auto rows = mean_metrics(s);
  if (shows_server(sc, plan))
    for (const auto& m : server_metrics(s)) rows.push_back(m);
  for (const auto& m : rows) {
    const MeanSummary& v = *m.value;
    const std::string ci = std::isfinite(v.ci95.lo) ? fmt::format("[{}, {}]", fmt_num(v.ci95.lo), fmt_num(v.ci95.hi)) : "-";
    std::cout << fmt::format("{:<42} {:>12} {:>12} {:>6}  {:<27}\n", m.label, fmt_num(v.mean), fmt_num(v.sd), v.n, ci);
  }
  std::cout << "\n"
            << fmt::format("{:<42} {:>12} {:>12} {:>6}  {:<27}\n", "yes/no metric", "count", "fraction", "n",
                           "95% interval (Wilson)");
  const std::pair<const char*, const ProportionSummary*> props[] = {{"collapsed (runs)", &s.collapsed},
                                                                     {"drained (runs with a burst)", &s.drained}};
  for (const auto& [label, p] : props) {
    const std::string ci = std::isfinite(p->ci95.lo) ? fmt::format("[{}, {}]", fmt_num(p->ci95.lo), fmt_num(p->ci95.hi)) : "-";
    std::cout << fmt::format("{:<42} {:>12} {:>12} {:>6}  {:<27}\n", label, p->count, fmt_num(p->fraction), p->n, ci);
  }
}

std::string csv_num(double x) { return std::isfinite(x) ? fmt::format("{}", x) : std::string(); }

void print_csv(const montecarlo::Summary& s, bool server) {
  std::cout << "metric,mean,sd,n,ci95_lo,ci95_hi,count,fraction\n";
  auto rows = mean_metrics(s);
  if (server)
    for (const auto& m : server_metrics(s)) rows.push_back(m);
  for (const auto& m : rows) {
    const MeanSummary& v = *m.value;
    std::cout << fmt::format("{},{},{},{},{},{},,\n", m.key, csv_num(v.mean), csv_num(v.sd), v.n, csv_num(v.ci95.lo),
                             csv_num(v.ci95.hi));
  }
  const std::pair<const char*, const ProportionSummary*> props[] = {{"collapsed", &s.collapsed}, {"drained", &s.drained}};
  for (const auto& [key, p] : props)
    std::cout << fmt::format("{},,,{},{},{},{},{}\n", key, p->n, csv_num(p->ci95.lo), csv_num(p->ci95.hi), p->count,
                             csv_num(p->fraction));
}

// ---- --model brooker: Brooker's classic OCC test (montecarlo/brooker.hpp), times in ms ----------

// The engine's flags that mean nothing to the Brooker test; giving one is an error, not ignored.
constexpr const char* brooker_foreign_flags[] = {
    "--rate", "--horizon", "--warmup", "--collapse", "--retries", "--trace",
    // server-side mechanisms (issue 8): the engine's only
    "--rows", "--service", "--service-cv", "--delay", "--delay-dist", "--lock", "--limit", "--overflow",
    "--reject-cost", "--retry-after", "--retry-after-rule", "--ignore-retry-after", "--aimd", "--aimd-initial",
    "--aimd-min", "--aimd-max", "--aimd-backoff", "--aimd-timeout", "--mix", "--mix-strategy", "--mix-base",
    "--mix-cap", "--mix-window", "--timeout", "--max-attempts", "--server-engine"};

struct BrookerMetric {
  const char* key;
  const char* label;
  const MeanSummary* value;
};

std::vector<BrookerMetric> brooker_metrics(const montecarlo::BrookerSummary& s) {
  return {{"attempts", "work: write attempts", &s.attempts},
          {"reads", "read requests", &s.reads},
          {"calls", "calls (reads + writes)", &s.calls},
          {"attempts_per_client", "write attempts per client", &s.attempts_per_client},
          {"max_attempts", "most write attempts by one client", &s.max_attempts},
          {"makespan", "time: makespan (ms)", &s.makespan},
          {"latency", "mean client completion (ms)", &s.latency}};
}

// The library names its fields leg_mean/leg_sd; the flags are --leg-mean/--leg-sd.
[[noreturn]] void rethrow_as_flag(const InputError& e) {
  const std::string rest = std::string(e.what()).substr(e.field().size() + 1);
  if (e.field() == "leg_mean") throw InputError("--leg-mean", rest);
  if (e.field() == "leg_sd") throw InputError("--leg-sd", rest);
  throw e;
}

int run_brooker(const SimulateOptions& o) {
  for (const char* flag : brooker_foreign_flags)
    if (was_given(o, flag))
      throw InputError(flag, "does not apply to --model brooker (it takes --strategy, --base, --cap, --window, "
                             "--clients, --leg-mean, --leg-sd, --runs, --seed, --threads)");
  require_finite("--base", o.base);
  require_finite("--window", o.window);
  require_finite("--leg-mean", o.leg_mean);
  require_finite("--leg-sd", o.leg_sd);
  const auto strategy = parse_strategy(o.strategy);
  if (!strategy)
    throw InputError("--strategy",
                     fmt::format("must be none, nojitter, full, equal, decorrelated or window (got {})", o.strategy));
  montecarlo::BrookerScenario sc;
  sc.backoff = {*strategy, was_given(o, "--base") ? o.base : montecarlo::brooker_default_base,
                was_given(o, "--cap") ? parse_cap(o.cap) : montecarlo::brooker_default_cap, o.window};
  sc.clients = was_given(o, "--clients") ? o.clients : 100;
  sc.leg_mean = o.leg_mean;
  sc.leg_sd = o.leg_sd;
  try {
    montecarlo::check_brooker(sc);
  } catch (const InputError& e) {
    rethrow_as_flag(e);
  }
  const montecarlo::RunPlan plan{o.runs, o.seed, o.threads};
  montecarlo::check_run_plan(plan);
  const montecarlo::BrookerSummary s = montecarlo::summarize_brooker(montecarlo::simulate_brooker(sc, plan));
  const auto metrics = brooker_metrics(s);

  switch (o.format) {
    case OutputFormat::json: {
      nlohmann::ordered_json j;
      j["retrylab"] = RETRYLAB_VERSION;
      nlohmann::ordered_json scenario;
      scenario["model"] = "brooker";
      scenario["strategy"] = std::string(to_string(sc.backoff.strategy));
      scenario["base"] = sc.backoff.base;
      scenario["cap"] = sc.backoff.cap;
      scenario["window"] = sc.backoff.strategy == Strategy::window ? sc.backoff.window : 0.0;
      scenario["clients"] = sc.clients;
      scenario["leg_mean"] = sc.leg_mean;
      scenario["leg_sd"] = sc.leg_sd;
      scenario["runs"] = plan.runs;
      scenario["seed"] = plan.seed;
      j["scenario"] = scenario;
      j["unit"] = "ms";  // every time above and below: base, cap, window, legs, makespan, latency
      j["runs"] = s.runs;
      nlohmann::ordered_json m;
      for (const auto& x : metrics) m[x.key] = to_json(*x.value);
      j["metrics"] = m;
      std::cout << j.dump(2) << "\n";
      break;
    }
    case OutputFormat::csv:
      std::cout << "metric,mean,sd,n,ci95_lo,ci95_hi,unit\n";
      for (const auto& x : metrics) {
        const MeanSummary& v = *x.value;
        const bool timed = std::string_view(x.key) == "makespan" || std::string_view(x.key) == "latency";
        std::cout << fmt::format("{},{},{},{},{},{},{}\n", x.key, csv_num(v.mean), csv_num(v.sd), v.n,
                                 csv_num(v.ci95.lo), csv_num(v.ci95.hi), timed ? "ms" : "count");
      }
      break;
    case OutputFormat::table:
      std::cout << "retrylab simulate: " << montecarlo::canonical(sc) << " runs=" << plan.runs << " seed=" << plan.seed
                << "\n";
      std::cout << (sc.leg_sd > 0.0 ? fmt::format("network: each leg |Normal({}, {})| ms\n\n", sc.leg_mean, sc.leg_sd)
                                    : fmt::format("network: no delay variance, each leg exactly {} ms\n\n", sc.leg_mean));
      std::cout << fmt::format("{:<36} {:>12} {:>12} {:>6}  {:<27}\n", "metric", "mean", "sd", "n", "95% interval");
      for (const auto& x : metrics) {
        const MeanSummary& v = *x.value;
        const std::string ci =
            std::isfinite(v.ci95.lo) ? fmt::format("[{}, {}]", fmt_num(v.ci95.lo), fmt_num(v.ci95.hi)) : "-";
        std::cout << fmt::format("{:<36} {:>12} {:>12} {:>6}  {:<27}\n", x.label, fmt_num(v.mean), fmt_num(v.sd), v.n,
                                 ci);
      }
      break;
  }
  return 0;
}

// Before any work: --horizon given is > 0 (0 is not "the default"), the run fits --max-memory and
// the work limit (montecarlo/resources.hpp), and the trace target can be written.
void check_simulate_limits(const SimulateOptions& o, const montecarlo::Scenario& sc, const montecarlo::RunPlan& plan) {
  if (was_given(o, "--horizon") && !(o.horizon > 0))
    throw InputError("--horizon", fmt::format("must be a finite number > 0 (got {})", o.horizon));
  if (!(o.max_memory > 0) || !std::isfinite(o.max_memory))
    throw InputError("--max-memory", fmt::format("must be a number of GiB > 0 (got {})", o.max_memory));
  montecarlo::check_resources(sc, plan, o.max_memory * (1ull << 30));
  if (!o.trace.empty()) require_writable_file("--trace", o.trace);
}

montecarlo::ServerOptions server_options(const SimulateOptions& o) {
  montecarlo::ServerOptions s = o.server;
  for (const auto& [flag, x] : {std::pair<const char*, double>{"--service-cv", s.service_cv}, {"--delay", s.delay},
                                {"--reject-cost", s.reject_cost}, {"--retry-after", s.retry_after},
                                {"--ignore-retry-after", s.ignore_retry_after}, {"--aimd-backoff", s.aimd_params.backoff},
                                {"--mix", s.mix}, {"--mix-base", s.mix_backoff.base}, {"--mix-window", s.mix_backoff.window}})
    require_finite(flag, x);
  const auto service = montecarlo::parse_service_dist(o.service);
  if (!service) throw InputError("--service", fmt::format("must be deterministic, exponential or lognormal (got {})", o.service));
  s.service = *service;
  const auto delay_dist = montecarlo::parse_delay_dist(o.delay_dist);
  if (!delay_dist) throw InputError("--delay-dist", fmt::format("must be fixed or exponential (got {})", o.delay_dist));
  s.delay_dist = *delay_dist;
  const auto overflow = montecarlo::parse_overflow(o.overflow);
  if (!overflow) throw InputError("--overflow", fmt::format("must be reject or queue (got {})", o.overflow));
  s.overflow = *overflow;
  const auto rule = montecarlo::parse_retry_after_rule(o.retry_after_rule);
  if (!rule) throw InputError("--retry-after-rule", fmt::format("must be fixed or uniform (got {})", o.retry_after_rule));
  s.retry_after_rule = *rule;
  if (o.timeout != "none") {
    char* end = nullptr;
    const double v = std::strtod(o.timeout.c_str(), &end);
    if (o.timeout.empty() || *end != '\0' || !(v > 0) || !std::isfinite(v))
      throw InputError("--timeout", fmt::format("must be a number > 0 (attempt-durations) or \"none\" (got {})", o.timeout));
    s.timeout = v;
  }
  if (o.aimd_timeout == "none") {
    s.aimd_params.timeout = HUGE_VAL;
  } else {
    char* end = nullptr;
    const double v = std::strtod(o.aimd_timeout.c_str(), &end);
    if (o.aimd_timeout.empty() || *end != '\0' || !(v > 0) || !std::isfinite(v))
      throw InputError("--aimd-timeout", fmt::format("must be a number > 0 or \"none\" (got {})", o.aimd_timeout));
    s.aimd_params.timeout = v;
  }
  const auto mix_strategy = parse_strategy(o.mix_strategy);
  if (!mix_strategy)
    throw InputError("--mix-strategy", fmt::format("must be none, nojitter, full, equal, decorrelated or window (got {})",
                                                   o.mix_strategy));
  s.mix_backoff.strategy = *mix_strategy;
  try {
    s.mix_backoff.cap = parse_cap(o.mix_cap);
  } catch (const InputError& e) {
    throw InputError("--mix-cap", std::string(e.what()).substr(e.field().size() + 1));
  }
  return s;
}

int run_simulate(const SimulateOptions& o) {
  if (o.model == "brooker") return run_brooker(o);
  for (const char* flag : {"--leg-mean", "--leg-sd"})
    if (was_given(o, flag)) throw InputError(flag, fmt::format("applies only to --model brooker (got --model {})", o.model));
  require_finite("--base", o.base);
  require_finite("--window", o.window);
  require_finite("--rate", o.rate);
  require_finite("--warmup", o.warmup);
  if (std::isnan(o.horizon) || std::isinf(o.horizon))
    throw InputError("--horizon", fmt::format("must be a finite number > 0 (got {})", o.horizon));
  montecarlo::Scenario sc;
  const auto model = parse_model(o.model);
  if (!model) throw InputError("--model", fmt::format("must be collision, free, shared or ps (got {})", o.model));
  const auto strategy = parse_strategy(o.strategy);
  if (!strategy)
    throw InputError("--strategy",
                     fmt::format("must be none, nojitter, full, equal, decorrelated or window (got {})", o.strategy));
  sc.model = *model;
  sc.backoff = {*strategy, o.base, parse_cap(o.cap), o.window};
  sc.clients = o.clients;
  sc.rate = o.rate;
  sc.horizon = o.horizon;
  sc.warmup = o.warmup;
  sc.collapse = o.collapse;
  sc.retries = o.retries;
  sc.server = server_options(o);
  try {
    montecarlo::check_scenario(sc);
  } catch (const InputError& e) {
    // The library names fields with '_' (reject_cost); the flags are spelled with '-' (--reject-cost).
    std::string flag = e.field();
    std::replace(flag.begin(), flag.end(), '_', '-');
    throw InputError("--" + flag, std::string(e.what()).substr(e.field().size() + 1));
  }
  montecarlo::RunPlan plan{o.runs, o.seed, o.threads};
  plan.server_engine = o.server_engine;
  montecarlo::check_run_plan(plan);
  check_simulate_limits(o, sc, plan);

  // A progress line only for people watching a terminal (cli.md "Output formats").
  const bool show_progress = !o.quiet && isatty(fileno(stderr));
  std::mutex progress_mutex;
  std::int64_t shown_percent = -1;
  std::function<void(std::int64_t, std::int64_t)> progress;
  if (show_progress) {
    progress = [&](std::int64_t done, std::int64_t total) {
      const std::lock_guard<std::mutex> lock(progress_mutex);
      const std::int64_t percent = done * 100 / total;
      if (percent == shown_percent) return;
      shown_percent = percent;
      std::fprintf(stderr, "\rsimulate: %lld/%lld runs (%lld%%)", static_cast<long long>(done),
                   static_cast<long long>(total), static_cast<long long>(percent));
      std::fflush(stderr);
    };
  }
  const auto results = montecarlo::simulate(sc, plan, progress);
  if (show_progress) std::fprintf(stderr, "\r\033[K");
  const montecarlo::Summary s = montecarlo::summarize(results);
  // The trace replays the same runs in index order on one thread: the file never depends on --threads.
  if (!o.trace.empty()) montecarlo::write_trace(sc, plan.seed, plan.runs, o.trace);

  switch (o.format) {
    case OutputFormat::json: {
      nlohmann::ordered_json j;
      j["retrylab"] = RETRYLAB_VERSION;
      j["scenario"] = scenario_json(sc, plan);
      if (shows_server(sc, plan)) {
        j["scenario"]["server"] = server_json(sc.server);
        j["scenario"]["server_engine"] = plan.server_engine;
      }
      j["runs"] = s.runs;
      nlohmann::ordered_json metrics;
      for (const auto& m : mean_metrics(s)) metrics[m.key] = to_json(*m.value);
      if (shows_server(sc, plan))
        for (const auto& m : server_metrics(s)) metrics[m.key] = to_json(*m.value);
      metrics["collapsed"] = to_json(s.collapsed);
      metrics["drained"] = to_json(s.drained);
      j["metrics"] = metrics;
      j["stop"] = {{"finished", s.stops[0]}, {"drained", s.stops[1]}, {"collapsed", s.stops[2]}, {"horizon", s.stops[3]}};
      std::cout << j.dump(2) << "\n";
      break;
    }
    case OutputFormat::csv: print_csv(s, shows_server(sc, plan)); break;
    case OutputFormat::table: print_table(sc, plan, s); break;
  }
  return 0;
}

}  // namespace

void add_simulate_command(CLI::App& app, Action& action) {
  auto opts = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand("simulate", "Simulate one scenario many times (Monte Carlo) and summarise");
  std::vector<std::string> models, strategies;
  for (Model m : all_models) models.emplace_back(to_string(m));
  models.emplace_back("brooker");  // Brooker's OCC test: its own simulator (montecarlo/brooker.hpp), not a Model
  for (Strategy s : all_strategies) strategies.emplace_back(to_string(s));
  std::map<std::string, bool> on_off{{"on", true}, {"off", false}};

  cmd->add_option("--model", opts->model,
                  "Contention model: collision|free|shared|ps, or brooker (Brooker's 2015 OCC test, times in ms: "
                  "--base 5 --cap 2000 --clients 100 unless given)")
      ->required()
      ->check(CLI::IsMember(models));
  cmd->add_option("--strategy", opts->strategy, "Backoff: none|nojitter|full|equal|decorrelated|window")
      ->required()
      ->check(CLI::IsMember(strategies));
  cmd->add_option("--base", opts->base, "Base b of the backoff (> 0)")->capture_default_str();
  cmd->add_option("--cap", opts->cap, "Cap c (>= base), or \"none\" for unbounded")->capture_default_str();
  cmd->add_option("--window", opts->window, "Window W of the window strategy (> 0, required with it)");
  cmd->add_option("--clients", opts->clients, fmt::format("Burst of N clients at t = 0 [0, {}]", montecarlo::max_clients))->capture_default_str();
  cmd->add_option("--rate", opts->rate, "Steady Poisson arrival rate per attempt-duration (>= 0)")
      ->capture_default_str();
  cmd->add_option("--horizon", opts->horizon,
                  fmt::format("Stop time T (> 0; required with --rate > 0; pure bursts default to {:g}, then unfinished); "
                              "runs x (clients + rate x T) at most {:g}", montecarlo::default_burst_horizon,
                              montecarlo::max_clients_simulated));
  cmd->add_option("--warmup", opts->warmup, "Rates are measured over [warmup, stop) (0 <= warmup < horizon)")
      ->capture_default_str();
  cmd->add_option("--collapse", opts->collapse, fmt::format("K: a run collapses when K clients wait at once [1, {}]", montecarlo::max_collapse))
      ->capture_default_str();
  cmd->add_option("--retries", opts->retries, "on: retry until success; off: one attempt per client")
      ->transform(CLI::CheckedTransformer(on_off))
      ->default_str("on");
  cmd->add_option("--runs", opts->runs, "Number of independent runs (>= 1; within --max-memory and the work limit of --horizon)")->capture_default_str();
  cmd->add_option("--seed", opts->seed, "Seed; a run's randomness is keyed by (seed, scenario, run index)")
      ->capture_default_str();
  cmd->add_option("--threads", opts->threads, "Worker threads (0 = all cores); never changes the output")
      ->capture_default_str();
  cmd->add_option("--max-memory", opts->max_memory,
                  "Refuse up front a run whose estimated memory exceeds this many GiB (default: half the RAM)")
      ->capture_default_str();
  cmd->add_flag("--quiet", opts->quiet, "No progress line on stderr");
  cmd->add_option("--trace", opts->trace,
                  "Also write every attempt of every run to FILE (docs/traces.md; JSON Lines if FILE ends .jsonl, else CSV)");
  cmd->add_option("--leg-mean", opts->leg_mean, "brooker: mean of each one-way network leg in ms (>= 0)")
      ->capture_default_str();
  cmd->add_option("--leg-sd", opts->leg_sd,
                  "brooker: sd of each leg in ms (>= 0; 0 = without network delay variance: every leg exactly --leg-mean)")
      ->capture_default_str();
  // Server-side mechanisms (issue 8, montecarlo/scenario.hpp): every default reproduces the model above.
  cmd->add_option("--rows", opts->server.rows, fmt::format("M rows, each attempt on one at random; conflicts only within a row [1, {}]", montecarlo::max_rows))
      ->capture_default_str();
  cmd->add_option("--service", opts->service, "Attempt service time, mean 1: deterministic|exponential|lognormal")
      ->capture_default_str();
  cmd->add_option("--service-cv", opts->server.service_cv, fmt::format("Coefficient of variation of lognormal service (0, {:g}]", montecarlo::max_service_cv));
  cmd->add_option("--delay", opts->server.delay, "One-way network delay each way, client to server and back (>= 0)")
      ->capture_default_str();
  cmd->add_option("--delay-dist", opts->delay_dist, "Network delay: fixed, or exponential with mean --delay")
      ->capture_default_str();
  cmd->add_option("--lock", opts->server.lock, "on: a FIFO lock per row (attempts wait, then run alone)")
      ->transform(CLI::CheckedTransformer(on_off))
      ->default_str("off");
  cmd->add_option("--limit", opts->server.limit, fmt::format("Concurrency limit: at most L attempts admitted at once [0, {}] (0 = none)", montecarlo::max_limit))
      ->capture_default_str();
  cmd->add_option("--overflow", opts->overflow, "Above the limit: reject at once, or queue (FIFO)")->capture_default_str();
  cmd->add_option("--reject-cost", opts->server.reject_cost, "Work of a rejection, fraction of an attempt's [0, 1]")
      ->capture_default_str();
  cmd->add_option("--retry-after", opts->server.retry_after, "Retry-After sent with rejections (0 = none)")
      ->capture_default_str();
  cmd->add_option("--retry-after-rule", opts->retry_after_rule,
                  "fixed: exactly --retry-after; uniform: U(0, 2 x --retry-after)")
      ->capture_default_str();
  cmd->add_option("--ignore-retry-after", opts->server.ignore_retry_after,
                  "Fraction of clients that ignore Retry-After [0, 1]")
      ->capture_default_str();
  cmd->add_option("--aimd", opts->server.aimd, "on: adaptive concurrency limit (Netflix AIMDLimit rules)")
      ->transform(CLI::CheckedTransformer(on_off))
      ->default_str("off");
  cmd->add_option("--aimd-initial", opts->server.aimd_params.initial, "AIMD initial limit [--aimd-min, --aimd-max]")->capture_default_str();
  cmd->add_option("--aimd-min", opts->server.aimd_params.min, fmt::format("AIMD minimum limit [1, {}]", montecarlo::max_limit))->capture_default_str();
  cmd->add_option("--aimd-max", opts->server.aimd_params.max, fmt::format("AIMD maximum limit [--aimd-min, {}]", montecarlo::max_limit))->capture_default_str();
  cmd->add_option("--aimd-backoff", opts->server.aimd_params.backoff, "AIMD decrease ratio [0.5, 1)")
      ->capture_default_str();
  cmd->add_option("--aimd-timeout", opts->aimd_timeout, "AIMD: time since admission counted as a drop, or \"none\"")
      ->capture_default_str();
  cmd->add_option("--mix", opts->server.mix, "Fraction of clients on --mix-strategy [0, 1]")->capture_default_str();
  cmd->add_option("--mix-strategy", opts->mix_strategy, "Backoff of the mixed-in clients")->capture_default_str();
  cmd->add_option("--mix-base", opts->server.mix_backoff.base, "Base of the mixed-in clients' backoff")
      ->capture_default_str();
  cmd->add_option("--mix-cap", opts->mix_cap, "Cap of the mixed-in clients' backoff, or \"none\"")->capture_default_str();
  cmd->add_option("--mix-window", opts->server.mix_backoff.window, "Window of the mixed-in clients (window strategy)");
  cmd->add_option("--timeout", opts->timeout,
                  "Client timeout per attempt (attempt-durations), or \"none\"; the server still does the work")
      ->capture_default_str();
  cmd->add_option("--max-attempts", opts->server.max_attempts,
                  fmt::format("Retry limit: a client gives up (lost) after this many attempts fail [1, {}] (0 = unlimited)",
                              montecarlo::max_limit))
      ->capture_default_str();
  cmd->add_flag("--server-engine", opts->server_engine,
                "Run on the server engine even without server options (same results; adds latency percentiles)");
  add_format_options(cmd, opts->format);
  cmd->callback([opts, cmd, &action] {
    opts->given.clear();
    for (const CLI::Option* opt : cmd->get_options())
      if (opt->count() > 0) opts->given.push_back(opt->get_name());
    action = [opts] { return run_simulate(*opts); };
  });
}

}  // namespace retrylab::cli
