// `retrylab simulate`: one scenario, many runs (docs/cli.md). Parses flags into a Scenario and a RunPlan,
// calls montecarlo::simulate, prints the summary as a table, JSON or CSV. The JSON's "scenario" is
// every input, canonical; the thread count is not in it (it never changes a byte of the output).
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "analytic/error.hpp"
#include "cli/common.hpp"
#include "montecarlo/brooker_preset.hpp"
#include "montecarlo/fields.hpp"
#include "montecarlo/metrics.hpp"
#include "montecarlo/progress.hpp"
#include "montecarlo/resources.hpp"
#include "montecarlo/result.hpp"
#include "montecarlo/scenario.hpp"
#include "montecarlo/simulate.hpp"
#include "montecarlo/trace.hpp"

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
  std::string trace;  // attempt trace file (docs/traces.md); empty = none
  double max_memory = montecarlo::default_max_memory() / (1ull << 30);  // GiB
  double leg_mean = montecarlo::BrookerTest{}.leg_mean;                 // --model brooker only (ms)
  double leg_sd = montecarlo::BrookerTest{}.leg_sd;
  bool server_engine = false;
  OutputFormat format = OutputFormat::table;
  std::vector<std::string> given;  // the flags given on the command line
};

bool was_given(const SimulateOptions& o, const std::string& flag) {
  return std::find(o.given.begin(), o.given.end(), flag) != o.given.end();
}

using montecarlo::flag_of;

// A field's value as typed on the command line, parsed by the field table; errors name the flag.
double parse_flag(const montecarlo::Field& f, const SimulateOptions& o) {
  try {
    return montecarlo::parse_field(f, o.values.at(std::string(f.name)));
  } catch (const InputError& e) {
    throw InputError(flag_of(f), std::string(e.what()).substr(e.field().size() + 1));
  }
}

nlohmann::ordered_json number(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json to_json(const MeanSummary& m) {
  return {{"mean", number(m.mean)}, {"sd", number(m.sd)}, {"n", m.n}, {"ci95", {number(m.ci95.lo), number(m.ci95.hi)}}};
}

nlohmann::ordered_json to_json(const ProportionSummary& p) {
  return {{"count", p.count},
          {"fraction", number(p.fraction)},
          {"n", p.n},
          {"ci95", {number(p.ci95.lo), number(p.ci95.hi)}}};
}

using montecarlo::Dim;
using montecarlo::TimeUnit;

struct NamedMean {
  const char* key;
  std::string label;  // table: metric and unit
  MeanSummary value;  // in the output unit
};

// The metrics simulate prints for the scenario, in the output unit (montecarlo/metrics.hpp).
std::vector<NamedMean> all_metrics(const montecarlo::Scenario& sc, const montecarlo::RunPlan& plan,
                                   const montecarlo::Summary& s, const TimeUnit& u) {
  std::vector<NamedMean> rows;
  for (const montecarlo::Metric* m : montecarlo::shown_metrics(sc, plan.server_engine))
    rows.push_back({m->key, montecarlo::metric_label(*m, u), montecarlo::in_unit(s.*(m->summary), m->dim, u)});
  return rows;
}

// A field's value as JSON, in the output unit: numbers, integers, names, "on"/"off", "none".
nlohmann::ordered_json field_json(const montecarlo::Field& f, double v, const TimeUnit& u) {
  return std::visit([](const auto& x) { return nlohmann::ordered_json(x); }, montecarlo::field_output(f, v, u));
}

// The scenario as an object: exactly the fields canonical() prints (the base fields always, any
// other field when it is not at its default), then runs and seed.
nlohmann::ordered_json scenario_json(const montecarlo::Scenario& sc, const montecarlo::RunPlan& plan,
                                     const TimeUnit& u) {
  nlohmann::ordered_json j, extra;
  for (const montecarlo::Field& f : montecarlo::scenario_fields())
    if (montecarlo::field_shown(f, sc))
      (f.presence == montecarlo::Presence::always ? j : extra)[std::string(f.name)] =
          field_json(f, montecarlo::field_value(f, sc), u);
  j["runs"] = plan.runs;
  j["seed"] = plan.seed;
  for (auto& [k, v] : extra.items()) j[k] = v;
  if (plan.server_engine) j["server_engine"] = true;
  return j;
}

std::string fmt_num(double x) { return std::isfinite(x) ? fmt::format("{:.6g}", x) : std::string("-"); }

// The scenario as canonical() writes it, with its times and rates in the output unit.
// Each field canonical() writes for sc, with its value in the unit u, as name=value or (as_flags)
// as its flag and value, joined by spaces.
std::string fields_in_unit(const montecarlo::Scenario& sc, const TimeUnit& u, bool as_flags) {
  std::string out;
  for (const montecarlo::Field& f : montecarlo::scenario_fields()) {
    if (!montecarlo::field_shown(f, sc)) continue;
    double v = montecarlo::field_value(f, sc);
    if (f.kind == montecarlo::FieldKind::number || f.kind == montecarlo::FieldKind::number_or_none)
      v = u.out(montecarlo::dim_of(f), v);
    const std::string value = montecarlo::format_field(f, v);
    out += (out.empty() ? "" : " ") + (as_flags ? flag_of(f) + " " + value : std::string(f.name) + "=" + value);
  }
  return out;
}

std::string scenario_line(const montecarlo::Scenario& sc, const TimeUnit& u) {
  return u.plain() ? montecarlo::canonical(sc) : fields_in_unit(sc, u, false);
}

void print_table(const montecarlo::Scenario& sc, const montecarlo::RunPlan& plan, const montecarlo::Summary& s,
                 const TimeUnit& u) {
  std::cout << "retrylab simulate: " << scenario_line(sc, u) << " runs=" << plan.runs << " seed=" << plan.seed << "\n";
  if (!u.plain())
    std::cout << fmt::format("unit: {} (times in {}, rates per {}; one attempt-duration = {} {})\n", u.name, u.name,
                             u.singular(), u.attempt_duration, u.name);
  std::cout << fmt::format("stops: finished {}, drained {}, collapsed {}, horizon {}\n\n", s.stops[0], s.stops[1],
                           s.stops[2], s.stops[3]);
  std::cout << fmt::format("{:<42} {:>12} {:>12} {:>6}  {:<27}\n", "metric", "mean", "sd", "n", "95% interval");
  for (const auto& m : all_metrics(sc, plan, s, u)) {
    const MeanSummary& v = m.value;
    const std::string ci =
        std::isfinite(v.ci95.lo) ? fmt::format("[{}, {}]", fmt_num(v.ci95.lo), fmt_num(v.ci95.hi)) : "-";
    std::cout << fmt::format("{:<42} {:>12} {:>12} {:>6}  {:<27}\n", m.label, fmt_num(v.mean), fmt_num(v.sd), v.n, ci);
  }
  std::cout << "\n"
            << fmt::format("{:<42} {:>12} {:>12} {:>6}  {:<27}\n", "yes/no metric", "count", "fraction", "n",
                           "95% interval (Wilson)");
  for (const auto& [key, label, member] : montecarlo::shown_proportions(sc)) {
    const ProportionSummary* p = &(s.*member);
    const std::string ci =
        std::isfinite(p->ci95.lo) ? fmt::format("[{}, {}]", fmt_num(p->ci95.lo), fmt_num(p->ci95.hi)) : "-";
    std::cout << fmt::format("{:<42} {:>12} {:>12} {:>6}  {:<27}\n", label, p->count, fmt_num(p->fraction), p->n, ci);
  }
}

std::string csv_num(double x) { return std::isfinite(x) ? fmt::format("{}", x) : std::string(); }

void print_csv(const montecarlo::Scenario& sc, const montecarlo::RunPlan& plan, const montecarlo::Summary& s,
               const TimeUnit& u) {
  std::cout << "metric,mean,sd,n,ci95_lo,ci95_hi,count,fraction\n";
  for (const auto& m : all_metrics(sc, plan, s, u)) {
    const MeanSummary& v = m.value;
    std::cout << fmt::format("{},{},{},{},{},{},,\n", m.key, csv_num(v.mean), csv_num(v.sd), v.n, csv_num(v.ci95.lo),
                             csv_num(v.ci95.hi));
  }
  for (const auto& [key, label, member] : montecarlo::shown_proportions(sc)) {
    const ProportionSummary* p = &(s.*member);
    std::cout << fmt::format("{},,,{},{},{},{},{}\n", key, p->n, csv_num(p->ci95.lo), csv_num(p->ci95.hi), p->count,
                             csv_num(p->fraction));
  }
}

// ---- --model brooker: a preset for Brooker's classic OCC test (montecarlo/brooker_preset.hpp) ------
// In his own terms: --strategy (required), --base (his: the first window is 2·base; default 5 ms),
// --cap (2000 ms), --window, --clients (100), --leg-mean (10 ms), --leg-sd (2 ms), every time in ms.
// It expands to the engine scenario (model free, one row, normal network legs, a round-trip service,
// the engine's base) and runs like any other: every engine metric, in ms. The table names the
// expanded flags, so anything else is changed by running them instead.

// The engine's fields the preset takes (in Brooker's convention); giving any other is an error.
bool brooker_takes(std::string_view field) {
  return field == "model" || field == "strategy" || field == "base" || field == "cap" || field == "window" ||
         field == "clients";
}

montecarlo::Scenario brooker_from_flags(const SimulateOptions& o) {
  std::vector<std::string> foreign = {"--unit", "--attempt-duration", "--outage"};
  for (const montecarlo::Field& f : montecarlo::scenario_fields())
    if (!brooker_takes(f.name)) foreign.push_back(flag_of(f));
  for (const std::string& flag : foreign)
    if (was_given(o, flag))
      throw InputError(flag,
                       "does not apply to --model brooker (it takes --strategy, --base, --cap, --window, --clients, "
                       "--leg-mean, --leg-sd; to change more, run the engine flags the table prints)");
  if (!was_given(o, "--strategy")) throw InputError("--strategy", "is required with --model brooker");
  require_finite("--leg-mean", o.leg_mean);
  require_finite("--leg-sd", o.leg_sd);
  if (!(o.leg_mean > 0.0))
    throw InputError("--leg-mean", fmt::format("must be > 0 ms: the round trip is made of legs (got {})", o.leg_mean));
  if (!(o.leg_sd >= 0.0)) throw InputError("--leg-sd", fmt::format("must be >= 0 ms (got {})", o.leg_sd));
  // The same parsing as the engine's fields, Brooker's defaults where a field is not given, and
  // check_backoff's rules in his terms before the engine's base is derived.
  const montecarlo::BrookerTest defaults;
  montecarlo::Scenario parsed;
  parsed.backoff = {Strategy::full, defaults.base, defaults.cap, 0.0};
  parsed.clients = defaults.clients;
  for (const montecarlo::Field& f : montecarlo::scenario_fields())
    if (f.name != "model" && brooker_takes(f.name) && was_given(o, flag_of(f))) f.set(parsed, parse_flag(f, o));
  try {
    check_backoff(parsed.backoff);
  } catch (const InputError& e) {
    throw InputError("--" + e.field(), std::string(e.what()).substr(e.field().size() + 1));
  }
  montecarlo::BrookerTest t;
  t.strategy = parsed.backoff.strategy;
  t.base = parsed.backoff.base;
  t.cap = parsed.backoff.cap;
  t.window = parsed.backoff.window;
  t.clients = parsed.clients;
  t.leg_mean = o.leg_mean;
  t.leg_sd = o.leg_sd;
  try {
    return montecarlo::brooker_scenario(t);
  } catch (const InputError& e) {
    const std::string f = e.field();
    const std::string flag = f == "delay" ? "--leg-mean" : f == "delay_sd" ? "--leg-sd" : "--" + f;
    throw InputError(flag, std::string(e.what()).substr(f.size() + 1));
  }
}

// "--model free --strategy full --base 10 ...": the engine flags a scenario expands to, in its unit.
std::string expanded_flags(const montecarlo::Scenario& sc, const TimeUnit& u) {
  return fields_in_unit(sc, u, true) + fmt::format(" --unit {} --attempt-duration {}", u.name, u.attempt_duration);
}

// The unit of --unit/--attempt-duration: every time the user gives is divided by D, every rate
// multiplied by it, so the engine (and the canonical string, and so the random numbers) sees
// attempt-durations; results are converted back.
TimeUnit time_unit(const SimulateOptions& o) {
  return montecarlo::time_unit(o.unit, o.attempt_duration, was_given(o, "--attempt-duration"));
}

montecarlo::Scenario scenario_from_flags(const SimulateOptions& o, const TimeUnit& u) {
  montecarlo::Scenario sc;
  for (const montecarlo::Field& f : montecarlo::scenario_fields()) {
    if (!was_given(o, flag_of(f))) continue;
    double v = parse_flag(f, o);
    if (f.unit == montecarlo::FieldUnit::time) v /= u.attempt_duration;
    if (f.unit == montecarlo::FieldUnit::per_time) v *= u.attempt_duration;
    f.set(sc, v);
  }
  if (was_given(o, "--outage")) {
    for (const char* f : {"--outage-start", "--outage-end", "--outage-fraction"})
      if (was_given(o, f)) throw InputError("--outage", fmt::format("cannot be given with {}", f));
    std::vector<std::string> parts;
    for (std::string_view rest = o.outage;;) {
      const std::size_t colon = rest.find(':');
      parts.emplace_back(rest.substr(0, colon));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
    if (parts.size() < 2 || parts.size() > 3)
      throw InputError("--outage", fmt::format("must be START:END or START:END:FRACTION (got {})", o.outage));
    const char* names[] = {"outage_start", "outage_end", "outage_fraction"};
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const montecarlo::Field& f = *montecarlo::find_field(names[i]);
      double v = 0.0;
      try {
        v = montecarlo::parse_field(f, parts[i]);
      } catch (const InputError& e) {
        throw InputError("--outage", fmt::format("{}: {}", f.name, std::string(e.what()).substr(e.field().size() + 1)));
      }
      f.set(sc, f.unit == montecarlo::FieldUnit::time ? v / u.attempt_duration : v);
    }
  }
  // The controls that keep time need the length of an attempt-duration in ms: from --unit, or from
  // --attempt-ms. Both at once must agree (an --attempt-ms that says otherwise would be silently
  // overruled by one or the other).
  const double unit_ms = u.name == "s" ? 1000.0 * u.attempt_duration : u.attempt_duration;
  const bool disagree = std::abs(sc.server.attempt_ms - unit_ms) > 1e-12 * std::max(sc.server.attempt_ms, unit_ms);
  if (was_given(o, "--attempt-ms") && !u.plain() && disagree)
    throw InputError("--attempt-ms", fmt::format("must agree with --unit {} --attempt-duration {}, which make an "
                                                 "attempt-duration {} ms (got --attempt-ms {})",
                                                 u.name, u.attempt_duration, unit_ms, sc.server.attempt_ms));
  if (montecarlo::needs_clock(sc.server) && !was_given(o, "--attempt-ms") && !u.plain()) sc.server.attempt_ms = unit_ms;
  if (sc.retries && !was_given(o, "--strategy"))
    throw InputError("--strategy",
                     "is required with retries on (one of none, nojitter, full, equal, decorrelated, "
                     "window); with --retries off it may be left out");
  try {
    montecarlo::check_scenario(sc);
  } catch (const InputError& e) {
    // The library names fields with '_' (reject_cost); the flags are spelled with '-' (--reject-cost).
    std::string flag = e.field();
    std::replace(flag.begin(), flag.end(), '_', '-');
    throw InputError("--" + flag, std::string(e.what()).substr(e.field().size() + 1));
  }
  return sc;
}

int list_fields(const SimulateOptions& o) {
  if (o.list_fields == "text") {
    std::cout << montecarlo::fields_text();
  } else if (o.list_fields == "markdown") {
    std::cout << montecarlo::fields_markdown();
  } else if (o.list_fields == "json") {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const montecarlo::Field& f : montecarlo::scenario_fields())
      j.push_back({{"name", f.name},
                   {"flag", flag_of(f)},
                   {"unit", montecarlo::unit_text(f)},
                   {"default", montecarlo::default_text(f)},
                   {"allowed", montecarlo::range_text(f)},
                   {"meaning", f.meaning}});
    std::cout << j.dump(2) << "\n";
  } else {
    throw InputError("--list-fields", fmt::format("must be text, markdown or json (got {})", o.list_fields));
  }
  return 0;
}

// Before any work: the run fits --max-memory and the work limit (montecarlo/resources.hpp), and
// the trace target can be written.
void check_simulate_limits(const SimulateOptions& o, const montecarlo::Scenario& sc, const montecarlo::RunPlan& plan) {
  if (!(o.max_memory > 0) || !std::isfinite(o.max_memory))
    throw InputError("--max-memory", fmt::format("must be a number of GiB > 0 (got {})", o.max_memory));
  montecarlo::check_resources(sc, plan, o.max_memory * (1ull << 30));
  if (!o.trace.empty()) require_writable_file("--trace", o.trace);
}

int run_simulate(const SimulateOptions& o) {
  if (!o.list_fields.empty()) return list_fields(o);
  if (!was_given(o, "--model"))
    throw InputError(
        "--model",
        "is required: collision, free, shared, ps or none (or the preset brooker); --list-fields lists every "
        "field");
  const bool brooker = o.values.at("model") == "brooker";
  if (!brooker)
    for (const char* flag : {"--leg-mean", "--leg-sd"})
      if (was_given(o, flag))
        throw InputError(flag, fmt::format("applies only to --model brooker (got --model {})", o.values.at("model")));
  const TimeUnit unit = brooker ? montecarlo::time_unit("ms", 1.0, true) : time_unit(o);
  const montecarlo::Scenario sc = brooker ? brooker_from_flags(o) : scenario_from_flags(o, unit);
  montecarlo::RunPlan plan{o.runs, o.seed, o.threads};
  plan.server_engine = o.server_engine;
  montecarlo::check_run_plan(plan);
  check_simulate_limits(o, sc, plan);

  // Progress on stderr (montecarlo/progress.hpp): runs done, and how far the runs in flight have got.
  montecarlo::Progress progress(montecarlo::Progress::pick_mode(o.quiet), "runs", plan.runs);
  plan.pulse = progress.pulse();
  const auto results =
      montecarlo::simulate(sc, plan, [&progress](std::int64_t, std::int64_t) { progress.item_done(); });
  progress.finish();
  const montecarlo::Summary s = montecarlo::summarize(results);
  // The trace replays the same runs in index order on one thread: the file never depends on --threads.
  // It is written in --unit (the Brooker preset's ms are attempt-durations of 1 ms: its trace keeps
  // the plain header, with the same numbers).
  if (!o.trace.empty()) montecarlo::write_trace(sc, plan.seed, plan.runs, o.trace, brooker ? TimeUnit{} : unit);

  switch (o.format) {
    case OutputFormat::json: {
      nlohmann::ordered_json j = provenance(unit.singular());  // attempt-duration, or ms / s with --unit
      if (!unit.plain()) j["attempt_duration"] = unit.attempt_duration;
      if (brooker) j["preset"] = "brooker";
      j["scenario"] = scenario_json(sc, plan, unit);
      j["runs"] = s.runs;
      nlohmann::ordered_json metrics;
      for (const auto& m : all_metrics(sc, plan, s, unit)) metrics[m.key] = to_json(m.value);
      for (const auto& p : montecarlo::shown_proportions(sc)) metrics[p.key] = to_json(s.*(p.summary));
      j["metrics"] = metrics;
      j["stop"] = {
          {"finished", s.stops[0]}, {"drained", s.stops[1]}, {"collapsed", s.stops[2]}, {"horizon", s.stops[3]}};
      std::cout << j.dump(2) << "\n";
      break;
    }
    case OutputFormat::csv: print_csv(sc, plan, s, unit); break;
    case OutputFormat::table:
      if (brooker) std::cout << "preset brooker: " << expanded_flags(sc, unit) << "\n";
      print_table(sc, plan, s, unit);
      break;
  }
  return 0;
}

}  // namespace

void add_simulate_command(CLI::App& app, Action& action) {
  auto opts = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand("simulate", "Simulate one scenario many times (Monte Carlo) and summarise");
  // Every scenario field is a flag, from the field table (montecarlo/fields.hpp); values are
  // parsed by the table once the command line is read. --model also takes brooker.
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
    cmd->add_option(flag_of(f), opts->values[std::string(f.name)], help)
        ->type_name(f.kind == montecarlo::FieldKind::choice ? "NAME" : "VALUE");
  }
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
  cmd->add_option("--leg-mean", opts->leg_mean, "brooker: mean of each one-way network leg in ms (> 0)")
      ->capture_default_str();
  cmd->add_option(
         "--leg-sd", opts->leg_sd,
         "brooker: sd of each leg in ms (>= 0; 0 = without network delay variance: every leg exactly --leg-mean)")
      ->capture_default_str();
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
