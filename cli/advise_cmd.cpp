// `retrylab advise`: the retry policy for a pile-up of N clients on one contended resource
// (docs/advise.md). Parses flags into an advise::Request in attempt-durations, calls advise::advise,
// prints the answer in the user's unit as a table or JSON. No search logic lives here.
#include <fmt/format.h>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "advise/advise.hpp"
#include "advise/report.hpp"
#include "analytic/error.hpp"
#include "cli/common.hpp"

namespace retrylab::cli {

namespace {

struct AdviseOptions {
  std::string clients;            // N, or a range LOW:HIGH
  std::string failed_attempts;    // free | use-capacity | collide
  std::string unit = "attempt";   // attempt | ms | s
  double attempt_duration = 0.0;  // in `unit`
  double rate = 0.0;              // steady load per `unit`
  double base = 0.0;              // in `unit`; 0 = one attempt-duration
  double drain_within = 0.0;      // in `unit`; 0 = 60,000 attempt-durations
  double probability = 0.99;
  std::string strategies;  // comma-separated; empty = all with a cap
  std::uint64_t seed = 1;
  int threads = 0;
  OutputFormat format = OutputFormat::table;
  std::vector<std::string> given;
};

bool given(const AdviseOptions& o, const std::string& flag) {
  return std::find(o.given.begin(), o.given.end(), flag) != o.given.end();
}

// What a failed attempt costs, in plain terms, and the contention model it names (docs/models.md §1).
Model model_of(const std::string& failed) {
  if (failed == "free") return Model::free;
  if (failed == "use-capacity") return Model::shared;
  if (failed == "collide") return Model::collision;
  throw InputError("--failed-attempts", fmt::format("must be free, use-capacity or collide (got {})", failed));
}

// D: the length of one attempt-duration in the user's unit (1 with --unit attempt).
double attempt_length(const AdviseOptions& o) {
  if (o.unit == "attempt") {
    if (given(o, "--attempt-duration") && o.attempt_duration != 1.0)
      throw InputError("--attempt-duration",
                       fmt::format("must be 1 (or left out) with --unit attempt (got {})", o.attempt_duration));
    return 1.0;
  }
  if (o.unit != "ms" && o.unit != "s")
    throw InputError("--unit", fmt::format("must be attempt, ms or s (got {})", o.unit));
  if (!given(o, "--attempt-duration"))
    throw InputError("--attempt-duration",
                     fmt::format("is required with --unit {}: the mean time of one attempt in {}", o.unit, o.unit));
  if (!(o.attempt_duration > 0.0) || !std::isfinite(o.attempt_duration))
    throw InputError("--attempt-duration", fmt::format("must be a finite number > 0 (got {})", o.attempt_duration));
  return o.attempt_duration;
}

std::vector<Strategy> strategies_of(const std::string& text) {
  if (text.empty()) return advise::capped_strategies();
  std::vector<Strategy> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto s = parse_strategy(name);
    if (!s)
      throw InputError(
          "--strategies",
          fmt::format("must be a comma-separated list of nojitter, full, equal, decorrelated, memoryless (got {})",
                      name));
    out.push_back(*s);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

advise::Request request_of(const AdviseOptions& o, double d) {
  if (!given(o, "--clients")) throw InputError("--clients", "is required: the number of clients that pile up at once");
  if (!given(o, "--failed-attempts"))
    throw InputError("--failed-attempts", "is required: free, use-capacity or collide");
  advise::Request r;
  r.model = model_of(o.failed_attempts);
  const std::size_t colon = o.clients.find(':');
  if (colon == std::string::npos) {
    r.clients = parse_int("--clients", o.clients, 0, std::numeric_limits<std::int64_t>::max());
  } else {
    r.clients_low = parse_int("--clients", o.clients.substr(0, colon), 0, std::numeric_limits<std::int64_t>::max());
    r.clients = parse_int("--clients", o.clients.substr(colon + 1), 0, std::numeric_limits<std::int64_t>::max());
  }
  for (const auto& [flag, v] : {std::pair{"--rate", o.rate}, std::pair{"--base", o.base},
                                std::pair{"--drain-within", o.drain_within}, std::pair{"--probability", o.probability}})
    require_finite(flag, v);
  r.rate = o.rate * d;  // per unit -> per attempt-duration
  if (given(o, "--base")) r.base = o.base / d;
  if (given(o, "--drain-within")) r.drain_within = o.drain_within / d;
  r.probability = o.probability;
  r.strategies = strategies_of(o.strategies);
  r.seed = o.seed;
  r.threads = o.threads;
  if (given(o, "--base") && !(o.base > 0.0))
    throw InputError("--base", fmt::format("must be a number > 0 (got {})", o.base));
  if (r.rate < 0.0 || r.rate >= 1.0)
    throw InputError(
        "--rate", fmt::format("must be >= 0 and below one attempt per attempt-duration ({} per {}) (got {})", 1.0 / d,
                              o.unit, o.rate));
  if (given(o, "--drain-within") && !(r.drain_within > r.base && r.drain_within <= 1e7))
    throw InputError("--drain-within",
                     fmt::format("must be above --base and at most 1e7 attempt-durations ({} {}) (got {})", 1e7 * d,
                                 o.unit, o.drain_within));
  advise::check_request(r);
  return r;
}

std::string num(double x) { return std::isfinite(x) ? fmt::format("{:.4g}", x) : std::string("-"); }

std::string interval(const MeanSummary& m, double d) {
  return fmt::format("{} [{}, {}]", num(m.mean * d), num(m.ci95.lo * d), num(m.ci95.hi * d));
}

void print_json(const advise::Advice& a, const std::string& unit, double d) {
  nlohmann::ordered_json j = provenance(unit == "attempt" ? "attempt-duration" : unit);
  if (unit != "attempt") j["attempt_duration"] = d;
  const nlohmann::ordered_json body = advise::advice_json(a, d);
  for (auto& [k, v] : body.items()) j[k] = v;
  std::cout << j.dump(2) << "\n";
}

void print_table(const advise::Advice& a, const std::string& unit, double d) {
  const advise::Request& r = a.request;
  const std::string u = unit == "attempt" ? "attempt-durations" : unit;
  std::cout << fmt::format(
      "retrylab advise: {} clients at once, {} ({}), steady load {} per {}, drain within {} {}, "
      "probability {}, seed {}\n",
      r.clients_low > 0 ? fmt::format("{} to {}", r.clients_low, r.clients) : std::to_string(r.clients),
      advise::plain_words(r.model), to_string(r.model), num(r.rate / d), unit == "attempt" ? "attempt-duration" : unit,
      num(r.drain_within * d), u, r.probability, r.seed);
  if (unit != "attempt") std::cout << fmt::format("unit: {} (one attempt = {} {})\n", unit, d, unit);
  if (!a.candidates.empty() && a.candidates.front().confirmed) {
    const advise::Candidate& c = a.candidates.front();
    std::cout << fmt::format("\nrecommended: {} jitter, base {} {}, cap {} {}\n", to_string(c.strategy),
                             num(r.base * d), u, num(c.cap * d), u);
    std::cout << fmt::format("  drained within {} {}: {} of {} independent runs ({}, 95% Wilson [{}, {}])\n",
                             num(r.drain_within * d), u, c.drained.count, c.drained.n, num(c.drained.fraction),
                             num(c.drained.ci95.lo), num(c.drained.ci95.hi));
    std::cout << fmt::format("  drain time, last client ({}): {}  (mean [95% interval])\n", u,
                             interval(c.drain_time, d));
    std::cout << fmt::format("  drain time, 99% of clients ({}): {}\n", u, interval(c.drain_time_p99, d));
    std::cout << fmt::format("  attempts per client: {}\n", interval(c.attempts_per_client, 1.0));
    if (c.low_end_run)
      std::cout << fmt::format(
          "  at the low end, {} clients: drained {} of {} runs; drain time ({}) {}; 99% {}; attempts per client {}\n",
          r.clients_low, c.low_drained.count, c.low_drained.n, u, interval(c.low_drain_time, d),
          interval(c.low_drain_time_p99, d), interval(c.low_attempts_per_client, 1.0));
    std::cout << fmt::format("  sustainable steady load (mean-field estimate): {}\n",
                             std::isfinite(c.sustainable_rate) ? num(c.sustainable_rate / d) + " per " +
                                                                     (unit == "attempt" ? "attempt-duration" : unit)
                                                               : "no fold: up to the resource's own rate");
    std::cout << fmt::format("  first guess: {} {} ({}); least cap the search drained: {} {}\n",
                             c.guess.cap ? num(*c.guess.cap * d) : "-", u, c.guess.source, num(c.search_cap * d), u);
  } else {
    std::cout
        << "\nno recommendation: no strategy's cap drained the burst within the objective in every confirming run\n";
  }
  std::cout
      << "\ncandidates (numbers of the confirming runs for the recommended one, of the 20 search runs for the others):";
  std::cout << fmt::format("\n{:<13} {:>10} {:>9}  {:<32} {:<32} {:<22} {:>8}\n", "strategy", "cap (" + u + ")",
                           "drained", "drain time (" + u + ")", "99% drain time (" + u + ")", "attempts per client",
                           "runs");
  for (const auto& c : a.candidates) {
    if (!c.found) {
      std::cout << fmt::format("{:<13} {:>10} {:>9}  {:<32} {:<32} {:<22} {:>8}\n", to_string(c.strategy), "-", "none",
                               "-", "-", "-", c.runs_simulated);
      continue;
    }
    std::cout << fmt::format("{:<13} {:>10} {:>9}  {:<32} {:<32} {:<22} {:>8}\n", to_string(c.strategy), num(c.cap * d),
                             fmt::format("{}/{}", c.drained.count, c.drained.n), interval(c.drain_time, d),
                             interval(c.drain_time_p99, d), interval(c.attempts_per_client, 1.0), c.runs_simulated);
  }
  for (const auto& w : advise::warnings(a)) std::cout << "\nwarning: " << w << "\n";
}

int run_advise(const AdviseOptions& o) {
  const double d = attempt_length(o);
  const advise::Request r = request_of(o, d);
  const advise::Advice a = advise::advise(r);
  if (o.format == OutputFormat::json)
    print_json(a, o.unit, d);
  else if (o.format == OutputFormat::table)
    print_table(a, o.unit, d);
  else
    throw InputError("--format", "must be table or json for advise");
  return 0;
}

}  // namespace

void add_advise_command(CLI::App& app, Action& action) {
  auto opts = std::make_shared<AdviseOptions>();
  CLI::App* cmd = app.add_subcommand(
      "advise", "Recommend the strategy, base and cap that drain a pile-up of clients, with drain times");
  cmd->add_option("--clients", opts->clients,
                  "Clients that pile up at once (the burst N), 2 .. 100000, or a range LOW:HIGH (advised for HIGH, "
                  "confirmed at LOW too) (required)");
  cmd->add_option("--failed-attempts", opts->failed_attempts,
                  "What a failed attempt costs: free (free), use-capacity (shared) or collide (collision) (required)");
  cmd->add_option("--unit", opts->unit, "Unit of every time and rate given and printed: attempt, ms or s")
      ->capture_default_str();
  cmd->add_option("--attempt-duration", opts->attempt_duration,
                  "Mean time of one attempt in --unit (required with ms or s)");
  cmd->add_option("--rate", opts->rate, "Steady load on top of the burst, new clients per --unit (default 0)");
  cmd->add_option("--base", opts->base, "Base of every strategy in --unit (default one attempt-duration)");
  cmd->add_option(
      "--drain-within", opts->drain_within,
      "Drain-time objective in --unit: the burst counts as drained only within it (default 60000 attempt-durations)");
  cmd->add_option("--probability", opts->probability, "Fraction of runs the burst must drain in, 0.5 .. 0.999")
      ->capture_default_str();
  cmd->add_option("--strategies", opts->strategies,
                  "Strategies you can deploy, comma-separated (default: nojitter,full,equal,decorrelated,memoryless)");
  cmd->add_option("--seed", opts->seed, "Seed of the search (the confirming runs use seed + 1)")->capture_default_str();
  cmd->add_option("--threads", opts->threads, "Worker threads (0 = all cores); never changes the output")
      ->capture_default_str();
  add_format_options(cmd, opts->format);
  cmd->callback([opts, cmd, &action] {
    opts->given.clear();
    for (const CLI::Option* opt : cmd->get_options())
      if (opt->count() > 0) opts->given.push_back(opt->get_name());
    action = [opts] { return run_advise(*opts); };
  });
}

}  // namespace retrylab::cli
