// `retrylab simulate`: one scenario, many runs (docs/cli.md). Parses flags into a Scenario and a RunPlan,
// calls montecarlo::simulate, prints the summary as a table, JSON or CSV. The JSON's "scenario" is
// every input, canonical; the thread count is not in it (it never changes a byte of the output).
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "analytic/error.hpp"
#include "api/prepare.hpp"
#include "api/scenario.hpp"
#include "api/series.hpp"
#include "api/simulate.hpp"
#include "cli/common.hpp"
#include "montecarlo/brooker_preset.hpp"
#include "montecarlo/fields.hpp"
#include "montecarlo/metrics.hpp"
#include "montecarlo/progress.hpp"
#include "montecarlo/resources.hpp"
#include "montecarlo/result.hpp"
#include "montecarlo/scenario.hpp"
#include "montecarlo/series.hpp"
#include "montecarlo/simulate.hpp"
#include "montecarlo/trace.hpp"
#include "validation/escape.hpp"

namespace retrylab::cli {

namespace {

struct SimulateOptions {
  // The scenario fields (montecarlo/fields.hpp) as typed, by field name; parsed by the table.
  std::map<std::string, std::string, std::less<>> values;
  std::string unit = "attempt";   // attempt | ms | s
  double attempt_duration = 0.0;  // mean attempt time in `unit` (0 = not given)
  std::string list_fields;        // text | markdown | json, when --list-fields is given
  std::string outage;             // START:END[:FRACTION], shorthand for the outage_* fields
  std::int64_t runs = 20;
  std::uint64_t seed = 1;
  int threads = 0;
  bool quiet = false;
  std::string trace;    // attempt trace file (docs/traces.md); empty = none
  double series = 0.0;  // bin width of the time series, in `unit` (when --series is given)
  std::string plot;     // the series as a figure: FILE.svg or FILE.png
  double max_memory = montecarlo::default_max_memory() / (1ull << 30);  // GiB
  double leg_mean = montecarlo::BrookerTest{}.leg_mean;                 // --model brooker only (ms)
  double leg_sd = montecarlo::BrookerTest{}.leg_sd;
  bool server_engine = false;
  std::string policy;         // a client policy file (docs/policies.md), when --policy is given
  std::string policy_select;  // the method, instance or profile of it
  bool strict = false;        // refuse a policy naming what retrylab does not model
  OutputFormat format = OutputFormat::table;
  std::vector<std::string> given;  // the flags given on the command line
};

bool was_given(const SimulateOptions& o, const std::string& flag) {
  return std::find(o.given.begin(), o.given.end(), flag) != o.given.end();
}

using montecarlo::flag_of;

// The simulation as the user asked for it: the flags given, as typed (api/prepare.hpp checks and
// builds it, as for retrylab.simulate()).
api::SimulateRequest request_of(const SimulateOptions& o) {
  api::SimulateRequest r;
  api::ScenarioRequest& sc = r.scenario;
  for (const montecarlo::Field& f : montecarlo::scenario_fields())
    if (was_given(o, flag_of(f))) sc.fields[std::string(f.name)] = o.values.at(std::string(f.name));
  sc.unit = o.unit;
  if (was_given(o, "--attempt-duration")) sc.attempt_duration = o.attempt_duration;
  if (was_given(o, "--outage")) sc.outage = o.outage;
  if (was_given(o, "--leg-mean")) sc.leg_mean = o.leg_mean;
  if (was_given(o, "--leg-sd")) sc.leg_sd = o.leg_sd;
  if (was_given(o, "--policy")) r.policy = o.policy;
  if (was_given(o, "--policy-select")) r.policy_select = o.policy_select;
  r.strict = o.strict;
  r.plan = montecarlo::RunPlan{o.runs, o.seed, o.threads};
  r.plan.server_engine = o.server_engine;
  if (was_given(o, "--series")) r.series = o.series;
  if (was_given(o, "--plot")) r.plot = o.plot;
  if (!(o.max_memory > 0) || !std::isfinite(o.max_memory))
    throw InputError("--max-memory", fmt::format("must be a number of GiB > 0 (got {})", o.max_memory));
  r.max_memory = o.max_memory * (1ull << 30);
  return r;
}

void warn(const std::string& w) { std::fprintf(stderr, "retrylab: warning: %s\n", validation::one_line(w).c_str()); }

int list_fields(const SimulateOptions& o) {
  if (o.list_fields == "text") {
    std::cout << montecarlo::fields_text();
  } else if (o.list_fields == "markdown") {
    std::cout << montecarlo::fields_markdown();
  } else if (o.list_fields == "json") {
    std::cout << api::field_list_json().dump(2) << "\n";
  } else {
    throw InputError("--list-fields", fmt::format("must be text, markdown or json (got {})", o.list_fields));
  }
  return 0;
}

// Before any work, beyond api::prepare's checks: the files the CLI writes can be written.
void check_outputs(const SimulateOptions& o, const api::ResolvedScenario& rs) {
  const montecarlo::Scenario& sc = rs.scenario;
  if (!o.plot.empty()) require_writable_file("--plot", o.plot);
  // A trace (version 3) carries the profile's text on one header line of at most 64 KiB.
  if (!o.trace.empty() && sc.traffic.load_profile.set()) {
    const std::size_t n = montecarlo::trace_profile_text(sc, rs.brooker ? montecarlo::TimeUnit{} : rs.unit).size();
    if (n > montecarlo::trace_max_profile_text)
      throw InputError("--trace", fmt::format("cannot carry this --load-profile: its text has {} characters, a "
                                              "trace's header at most {} (one line of 64 KiB); give fewer points",
                                              n, montecarlo::trace_max_profile_text));
  }
  if (!o.trace.empty() && sc.client.deadline_cancel)  // a row is an attempt's end: a cancelled one has none
    throw InputError("--trace",
                     "cannot be combined with --deadline-cancel on yet: a cancelled attempt has no end to write");
  if (!o.trace.empty()) require_writable_file("--trace", o.trace);
}

int run_simulate(const SimulateOptions& o) {
  // Given at all, --list-fields lists (or refuses its value): --list-fields '' ran a simulation.
  if (!o.list_fields.empty() || std::find(o.given.begin(), o.given.end(), "--list-fields") != o.given.end())
    return list_fields(o);
  api::PreparedSimulation p = api::prepare(request_of(o), api::Spelling::flag, warn);
  check_outputs(o, p.scenario);
  for (const std::string& w : p.warnings) warn(w);

  // Progress on stderr (montecarlo/progress.hpp): runs done, and how far the runs in flight have got.
  montecarlo::Progress progress(montecarlo::Progress::pick_mode(o.quiet), "runs", p.plan.runs);
  p.plan.pulse = progress.pulse();
  const api::Simulation sim = api::simulate(p, [&progress](std::int64_t, std::int64_t) { progress.item_done(); });
  progress.finish();
  for (const std::string& n : api::stop_notes(sim))
    std::fprintf(stderr, "retrylab: note: %s\n", validation::one_line(n).c_str());
  const api::ResolvedScenario& sc = p.scenario;
  if (!o.plot.empty()) api::plot_series(*sim.series, sc, o.plot);
  // The trace replays the same runs in index order on one thread: the file never depends on --threads.
  // It is written in --unit (the Brooker preset's ms are attempt-durations of 1 ms: its trace keeps
  // the plain header, with the same numbers).
  if (!o.trace.empty())
    montecarlo::write_trace(sc.scenario, p.plan.seed, p.plan.runs, o.trace,
                            sc.brooker ? montecarlo::TimeUnit{} : sc.unit);
  switch (o.format) {
    case OutputFormat::json: std::cout << api::simulate_json(sim).dump(2) << "\n"; break;
    case OutputFormat::csv: std::cout << api::simulate_csv(sim); break;
    case OutputFormat::table: std::cout << api::simulate_table(sim); break;
  }
  return 0;
}

// Every scenario field is a flag, from the field table (montecarlo/fields.hpp); values are parsed
// by the table once the command line is read. --model also takes brooker.
void add_field_flags(CLI::App& cmd, SimulateOptions& opts) {
  for (const montecarlo::Field& f : montecarlo::scenario_fields()) {
    std::string help(f.meaning);
    if (f.name == "model")
      help +=
          "; or brooker: a preset for Brooker's 2015 OCC test on the engine, in ms and his terms (--base 5 --cap 2000 "
          "--clients 100 --leg-mean 10 --leg-sd 2 unless given)";
    const std::string_view unit = montecarlo::unit_text(f);
    help +=
        fmt::format(" [{}; default {}{}{}]", montecarlo::range_text(f), montecarlo::default_text(f),
                    unit.empty() ? "" : "; ", unit.empty() ? std::string() : "in --unit, else " + std::string(unit));
    cmd.add_option(flag_of(f), opts.values[std::string(f.name)], help)
        ->type_name(f.kind == montecarlo::FieldKind::choice ? "NAME"
                    : f.kind == montecarlo::FieldKind::text ? "TEXT"
                                                            : "VALUE");
  }
}

}  // namespace

void add_simulate_command(CLI::App& app, Action& action) {
  auto opts = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand("simulate", "Simulate one scenario many times (Monte Carlo) and summarise");
  add_field_flags(*cmd, *opts);
  cmd->add_option("--outage", opts->outage,
                  "Outage window START:END[:FRACTION] in --unit (fraction of attempts failed inside, default 1)");
  cmd->add_option("--unit", opts->unit,
                  "Unit of every time and rate given and printed: attempt (attempt-durations), ms or s")
      ->capture_default_str();
  cmd->add_option("--attempt-duration", opts->attempt_duration,
                  "Mean time of one attempt in --unit (required with ms or s)");
  cmd->add_option(
         "--list-fields", opts->list_fields,
         "Print the scenario field table (name, unit, default, allowed range, meaning): text, markdown or json")
      ->expected(0, 1)
      ->default_str("text");
  cmd->add_option("--runs", opts->runs, "Number of independent runs (>= 1; within --max-memory and the work limit)")
      ->capture_default_str();
  cmd->add_option(
         "--max-memory", opts->max_memory,
         fmt::format(
             "Refuse up front a run whose estimated memory exceeds this many GiB (default: half the "
             "RAM); runs x (clients + rate x horizon) x attempts per client is at most {:g} attempts (the work limit)",
             montecarlo::max_attempts_simulated))
      ->capture_default_str();
  cmd->add_option("--seed", opts->seed, "Seed; a run's randomness is keyed by (seed, scenario, run index)")
      ->capture_default_str();
  cmd->add_option("--threads", opts->threads, "Worker threads (0 = all cores); never changes the output")
      ->capture_default_str();
  cmd->add_flag("--quiet", opts->quiet, "No progress line on stderr");
  cmd->add_option(
      "--trace", opts->trace,
      "Also write every attempt of every run to FILE (docs/traces.md; JSON Lines if FILE ends .jsonl, else CSV)");
  cmd->add_option(
      "--series", opts->series,
      "Also report what happens over time: per bin of this width (in --unit) from 0 to the horizon, the "
      "mean over the runs and its 95% interval of requests offered, attempts, requests answered (successes), "
      "failures, rejections, retries denied, calls refused, the breaker open, requests lost, clients waiting, "
      "attempts in flight, attempts at the server and the p50/p99/p99.9 latency (at most 10^6 bins)");
  cmd->add_option("--plot", opts->plot,
                  "With --series: draw it to FILE.svg or FILE.png (gnuplot; one panel per quantity, the outage shaded; "
                  "the script beside it as FILE.gp)");
  cmd->add_option("--leg-mean", opts->leg_mean, "brooker: mean of each one-way network leg in ms (> 0)")
      ->capture_default_str();
  cmd->add_option(
         "--leg-sd", opts->leg_sd,
         "brooker: sd of each leg in ms (>= 0; 0 = without network delay variance: every leg exactly --leg-mean)")
      ->capture_default_str();
  cmd->add_option("--policy", opts->policy,
                  "Client policy from FILE (docs/policies.md): retrylab TOML, a gRPC service config (.json), an Envoy "
                  "route or resilience4j (.yaml), AWS SDK settings (a config file); flags given keep their values");
  cmd->add_option("--policy-select", opts->policy_select,
                  "With --policy: the gRPC method (service or service/method), resilience4j instance or AWS profile");
  cmd->add_flag("--strict", opts->strict,
                "With --policy: refuse a file that sets what retrylab does not model (else a warning per setting)");
  cmd->add_flag("--server-engine", opts->server_engine,
                "Run on the full tier even without server options (same results; adds latency percentiles)");
  add_format_options(cmd, opts->format);
  cmd->callback([opts, cmd, &action] {
    opts->given.clear();
    for (const CLI::Option* opt : cmd->get_options())
      if (opt->count() > 0) opts->given.push_back(opt->get_name());
    action = [opts] { return run_simulate(*opts); };
  });
}

}  // namespace retrylab::cli
