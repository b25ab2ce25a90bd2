// `retrylab advise`: the retry policy for a pile-up of N clients on one contended resource
// (docs/advise.md). Parses flags into an advise::Request in attempt-durations, calls advise::advise,
// prints the answer in the user's unit as a table or JSON, and with --plot the curve as a figure
// (advise/figure.hpp). No search logic lives here.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "advise/advise.hpp"
#include "advise/figure.hpp"
#include "advise/report.hpp"
#include "advise/search.hpp"
#include "advise/sustainable.hpp"
#include "analytic/error.hpp"
#include "cli/common.hpp"
#include "montecarlo/progress.hpp"

namespace retrylab::cli {

namespace {

struct AdviseOptions {
  std::string clients;            // N, or a range LOW:HIGH
  std::string failed_attempts;    // free | use-capacity | collide
  std::string unit = "attempt";   // attempt | ms | s
  double attempt_duration = 0.0;  // in `unit`
  double rate = 0.0;              // steady load per `unit`
  double base = 0.0;              // in `unit`; not given = searched
  double drain_within = 0.0;      // in `unit`; 0 = 60,000 attempt-durations
  double probability = 0.99;
  std::string objective = "drain-time";  // drain-time | attempts | weighted
  double weight = 0.0;                   // weighted: `unit`s of drain time one attempt per client is worth
  std::string plot;                      // a file stem: PLOT.svg, PLOT.png, PLOT.gp
  std::string strategies;                // comma-separated; empty = all with a cap
  std::uint64_t seed = 1;
  int threads = 0;
  bool quiet = false;
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

// --objective and --weight, checked in the user's words and unit.
void objective_of(const AdviseOptions& o, double d, advise::Request& r) {
  const auto obj = advise::parse_objective(o.objective);
  if (!obj)
    throw InputError("--objective", fmt::format("must be drain-time, attempts or weighted (got {})", o.objective));
  r.objective = *obj;
  if (r.objective == advise::Objective::attempts && !given(o, "--drain-within"))
    throw InputError("--drain-within",
                     "is required with --objective attempts: the deadline within which the burst must drain");
  if (r.objective == advise::Objective::weighted) {
    const std::string u = o.unit == "attempt" ? "attempt-durations" : o.unit;
    if (!given(o, "--weight") || !(o.weight > 0.0))
      throw InputError("--weight",
                       given(o, "--weight")
                           ? fmt::format("must be a number > 0, in {} of drain time per attempt (got {})", u, o.weight)
                           : fmt::format("is required with --objective weighted: the {} of drain time one attempt "
                                         "per client is worth",
                                         u));
    r.weight = o.weight / d;
  } else if (given(o, "--weight")) {
    throw InputError("--weight", fmt::format("applies to --objective weighted only (got --objective {})", o.objective));
  }
}

advise::Request request_of(const AdviseOptions& o, double d) {
  if (!given(o, "--clients")) throw InputError("--clients", "is required: the number of clients that pile up at once");
  if (!given(o, "--failed-attempts"))
    throw InputError("--failed-attempts", "is required: free, use-capacity or collide");
  advise::Request r;
  r.model = model_of(o.failed_attempts);
  const std::size_t colon = o.clients.find(':');
  try {  // a number's range is checked with the request (check_request): [2, 100000]
    if (colon == std::string::npos) {
      r.clients = parse_int("--clients", o.clients, 0, std::numeric_limits<std::int64_t>::max());
    } else {
      r.clients_low = parse_int("--clients", o.clients.substr(0, colon), 0, std::numeric_limits<std::int64_t>::max());
      r.clients = parse_int("--clients", o.clients.substr(colon + 1), 0, std::numeric_limits<std::int64_t>::max());
    }
  } catch (const InputError&) {  // not an integer: say the range advise takes, not int64's
    throw InputError("--clients",
                     fmt::format("must be an integer in [2, 100000] or a range LOW:HIGH (got \"{}\")", o.clients));
  }
  for (const auto& [flag, v] :
       {std::pair{"--rate", o.rate}, std::pair{"--base", o.base}, std::pair{"--drain-within", o.drain_within},
        std::pair{"--probability", o.probability}, std::pair{"--weight", o.weight}})
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
  if (given(o, "--drain-within") && !(r.drain_within > advise::least_base(r) && r.drain_within <= 1e7))
    throw InputError("--drain-within",
                     fmt::format("must be above --base ({:g} {}) and at most 1e7 attempt-durations ({:g} {}) (got {})",
                                 advise::least_base(r) * d, o.unit, 1e7 * d, o.unit, o.drain_within));
  objective_of(o, d, r);
  advise::check_request(r);
  return r;
}

std::string num(double x) { return std::isfinite(x) ? fmt::format("{:.4g}", x) : std::string("-"); }

std::string interval(const MeanSummary& m, double d) {
  if (m.n == 0) return "-";
  return fmt::format("{} [{}, {}]", num(m.mean * d), num(m.ci95.lo * d), num(m.ci95.hi * d));
}

void print_json(const advise::Advice& a, const std::string& unit, double d) {
  nlohmann::ordered_json j = provenance(unit == "attempt" ? "attempt-duration" : unit);
  if (unit != "attempt") j["attempt_duration"] = d;
  const nlohmann::ordered_json body = advise::advice_json(a, d);
  for (auto& [k, v] : body.items()) j[k] = v;
  std::cout << j.dump(2) << "\n";
}

// The objective in words, with its unit.
std::string objective_words(const advise::Request& r, const std::string& u, double d) {
  switch (r.objective) {
    case advise::Objective::attempts: return "least mean attempts per client (attempts)";
    case advise::Objective::weighted:
      return fmt::format("least mean of drain time + {} {} x attempts per client (weighted)", num(r.weight * d), u);
    default: return "least mean drain time of the last client (drain-time)";
  }
}

void print_recommended(const advise::Advice& a, const std::string& u, double d) {
  const advise::Request& r = a.request;
  const advise::Candidate& c = a.candidates.front();
  const advise::Stats& h = c.confirm;
  std::cout << fmt::format("\nrecommended: {} jitter, base {} {}, cap {} {}\n", to_string(c.strategy),
                           num(c.policy.base * d), u, num(c.policy.cap * d), u);
  std::cout << fmt::format("  drained within {} {}: {} of {} independent runs ({}, 95% Wilson [{}, {}])\n",
                           num(r.drain_within * d), u, h.drained.count, h.drained.n, num(h.drained.fraction),
                           num(h.drained.ci95.lo), num(h.drained.ci95.hi));
  std::cout << fmt::format("  drain time, last client ({}): {}  (mean [95% interval])\n", u, interval(h.drain_time, d));
  std::cout << fmt::format("  drain time, 99% of clients ({}): {}\n", u, interval(h.drain_time_p99, d));
  std::cout << fmt::format("  attempts per client: {}\n", interval(h.attempts_per_client, 1.0));
  std::cout << fmt::format("  margin: cap {} {} drained {} of {}, cap {} {} drained {} of {} (cap x {} and cap / {})\n",
                           num(c.lower.policy.cap * d), u, c.lower.drained.count, c.lower.drained.n,
                           num(c.upper.policy.cap * d), u, c.upper.drained.count, c.upper.drained.n,
                           advise::margin_factor, advise::margin_factor);
  const std::string per = u == "attempt-durations" ? "attempt-duration" : u;
  const std::string rule =
      fmt::format("fewer than half of {} runs reach {} waiting clients within {} {}", advise::sustainable_runs,
                  advise::sustainable_collapse, num(advise::sustainable_horizon * d), u);
  if (c.sustainable_whole_range)
    std::cout << fmt::format(
        "  sustainable steady load: {} per {} and above (even there {}: paper 1's collapse rule)\n",
        num(c.sustainable_rate / d), per, rule);
  else
    std::cout << fmt::format("  sustainable steady load: {} per {}, {} collapsed ({}: paper 1's collapse rule)\n",
                             num(c.sustainable_rate / d), per, num(c.sustainable_collapsed_at / d), rule);
  if (c.low_end_run)
    std::cout << fmt::format(
        "  at the low end, {} clients: drained {} of {} runs; drain time ({}) {}; 99% {}; attempts per client {}\n",
        r.clients_low, c.low_end.drained.count, c.low_end.drained.n, u, interval(c.low_end.drain_time, d),
        interval(c.low_end.drain_time_p99, d), interval(c.low_end.attempts_per_client, 1.0));
  std::cout << fmt::format("  first guess: {} {} ({}); least cap that drained: {} {}\n",
                           c.guess.cap ? num(*c.guess.cap * d) : "-", u, c.guess.source, num(c.least_cap * d), u);
}

// The recommended strategy's curve, the chosen policy's own row in its place by cap.
void print_curve(const advise::Advice& a, const std::string& u, double d) {
  const advise::Candidate& c = a.candidates.front();
  const double k = advise::objective_scale(a.request, d);
  std::cout << fmt::format(
      "\ncurve: {} jitter, {}; {} runs per cap on common random numbers (recommended: {} runs)\n",
      to_string(c.strategy),
      c.ratio == 1.0 ? std::string("base = cap")
      : c.ratio > 0  ? fmt::format("base = cap / {}", num(c.ratio))
                     : fmt::format("base {} {}", num(c.curve.empty() ? 0.0 : c.curve.front().policy.base * d), u),
      advise::coarse_runs, advise::refine_runs);
  std::cout << fmt::format("{:>10} {:>10} {:>8}  {:<32} {:<24} {:<32}\n", "cap (" + u + ")", "base", "drained",
                           "drain time (" + u + ")", "attempts per client", "objective");
  std::vector<std::pair<const advise::Stats*, std::string>> rows;
  for (const advise::Stats& s : c.curve)
    rows.emplace_back(&s, s.policy.cap == c.least_cap ? "least cap that drained" : "");
  if (c.found) rows.emplace_back(&c.search, "<- recommended");
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& x, const auto& y) { return x.first->policy.cap < y.first->policy.cap; });
  std::size_t skipped = 0;  // leading caps never run: one line for all of them
  while (skipped < rows.size() && rows[skipped].first->drained.n == 0) ++skipped;
  if (skipped > 0)
    std::cout << fmt::format("{:>10} .. {}: not run (below a cap that drained none of its runs)\n",
                             num(rows.front().first->policy.cap * d), num(rows[skipped - 1].first->policy.cap * d));
  for (std::size_t i = skipped; i < rows.size(); ++i) {
    const auto& [s, mark] = rows[i];
    if (s->drained.n == 0) {
      std::cout << fmt::format("{:>10} {:>10} {:>8}  not run\n", num(s->policy.cap * d), num(s->policy.base * d), "-");
      continue;
    }
    std::cout << fmt::format("{:>10} {:>10} {:>8}  {:<32} {:<24} {:<32} {}\n", num(s->policy.cap * d),
                             num(s->policy.base * d), fmt::format("{}/{}", s->drained.count, s->drained.n),
                             interval(s->drain_time, d), interval(s->attempts_per_client, 1.0),
                             s->feasible() ? interval(s->objective, k) : "-", mark);
  }
}

void print_runner_ups(const advise::Advice& a, const std::string& u, double d) {
  const advise::Candidate& c = a.candidates.front();
  const double k = advise::objective_scale(a.request, d);
  std::cout << fmt::format(
      "\nrunner-ups near the optimum ({} runs each; difference in {} from the recommended, paired run by run):\n",
      advise::refine_runs, to_string(a.request.objective));
  std::cout << fmt::format("{:>10} {:>10}  {:<32} {:<32} {}\n", "cap (" + u + ")", "base (" + u + ")", "objective",
                           "difference", "margin");
  for (const advise::RunnerUp& x : c.runner_ups)
    std::cout << fmt::format("{:>10} {:>10}  {:<32} {:<32} {}\n", num(x.stats.policy.cap * d),
                             num(x.stats.policy.base * d), interval(x.stats.objective, k), interval(x.difference, k),
                             to_string(x.margin));
}

void print_candidates(const advise::Advice& a, const std::string& u, double d) {
  std::cout << fmt::format("\ncandidates (the recommended one: its confirming runs; the others: {} search runs):",
                           advise::refine_runs);
  std::cout << fmt::format("\n{:<13} {:>10} {:>10} {:>9}  {:<32} {:<22} {:>8}\n", "strategy", "base (" + u + ")",
                           "cap (" + u + ")", "drained", "drain time (" + u + ")", "attempts per client", "runs");
  for (const auto& c : a.candidates) {
    if (!c.found) {
      std::cout << fmt::format("{:<13} {:>10} {:>10} {:>9}  {:<32} {:<22} {:>8}\n", to_string(c.strategy), "-", "-",
                               "none", "-", "-", c.runs_simulated);
      continue;
    }
    const advise::Stats& h = advise::headline(c);
    std::cout << fmt::format("{:<13} {:>10} {:>10} {:>9}  {:<32} {:<22} {:>8}\n", to_string(c.strategy),
                             num(c.policy.base * d), num(c.policy.cap * d),
                             fmt::format("{}/{}", h.drained.count, h.drained.n), interval(h.drain_time, d),
                             interval(h.attempts_per_client, 1.0), c.runs_simulated);
  }
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
  std::cout << fmt::format("objective: {}, among policies whose burst drains in every run; caps {} .. {} {}, base {}\n",
                           objective_words(r, u, d), num(advise::least_base(r) * d), num(advise::max_cap(r) * d), u,
                           r.base > 0.0 ? fmt::format("{} {} (given)", num(r.base * d), u) : "searched");
  const bool any = !a.candidates.empty() && a.candidates.front().confirmed;
  if (any)
    print_recommended(a, u, d);
  else
    std::cout << "\nno recommendation: no strategy's policy drained the burst within the objective in every "
                 "confirming run, with its margin\n";
  if (!a.candidates.empty()) print_curve(a, u, d);
  if (any) print_runner_ups(a, u, d);
  print_candidates(a, u, d);
  for (const auto& n : advise::notes(a)) std::cout << "\nnote: " << n << "\n";
  for (const auto& w : advise::warnings(a)) std::cout << "\nwarning: " << w << "\n";
}

// --plot PATH: PATH.svg, PATH.png and PATH.gp (an extension .svg, .png or .gp given is dropped).
std::filesystem::path plot_stem(const std::string& path) {
  std::filesystem::path p(path);
  const std::string ext = p.extension().string();
  if (ext == ".svg" || ext == ".png" || ext == ".gp") p.replace_extension();
  if (p.filename().empty() || p.filename() == "." || p.filename() == "..")
    throw InputError("--plot", fmt::format("must name a file (got {})", path));
  if (std::any_of(path.begin(), path.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    throw InputError("--plot", "must not hold a control character (gnuplot cannot name such a file)");
  if (p.parent_path().empty()) p = std::filesystem::path(".") / p;
  return p;
}

int run_advise(const AdviseOptions& o) {
  const double d = attempt_length(o);
  const advise::Request r = request_of(o, d);
  if (o.format == OutputFormat::csv) throw InputError("--format", "must be table or json for advise");
  std::filesystem::path stem;
  if (given(o, "--plot")) {
    stem = plot_stem(o.plot);
    for (const char* ext : {".svg", ".png", ".gp"}) require_writable_file("--plot", stem.string() + ext);
  }
  // Progress on stderr (montecarlo/progress.hpp), one item a strategy's search: at --clients 100000
  // a strategy takes minutes, so a log line every 5 s (a bar on a terminal) says which and how fast.
  montecarlo::Progress progress(montecarlo::Progress::pick_mode(o.quiet), "strategies",
                                static_cast<std::int64_t>(r.strategies.size()));
  progress.items_are_not_runs();
  advise::Request watched = r;
  watched.watch.pulse = progress.pulse();
  watched.watch.stage = [&progress](const std::string& label) { progress.start_item(label); };
  watched.watch.searched = [&progress] { progress.item_done(); };
  watched.watch.run = [&progress] { progress.run_done(); };
  const advise::Advice a = advise::advise(watched);
  progress.finish();
  if (o.format == OutputFormat::json)
    print_json(a, o.unit, d);
  else
    print_table(a, o.unit, d);
  if (!stem.empty()) {
    const std::string unit = o.unit == "attempt" ? "attempt-durations" : o.unit;
    papers::render_figure(advise::curve_figure(a, d, unit, stem.filename().string()), stem.parent_path(), {});
  }
  return 0;
}

}  // namespace

void add_advise_command(CLI::App& app, Action& action) {
  auto opts = std::make_shared<AdviseOptions>();
  CLI::App* cmd = app.add_subcommand(
      "advise", "Recommend the strategy, base and cap that serve a pile-up of clients best, with the curve behind it");
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
  cmd->add_option("--base", opts->base,
                  "Base of every strategy in --unit (default: searched, from one attempt-duration up to the cap)");
  cmd->add_option("--drain-within", opts->drain_within,
                  "The burst must drain within it, in --unit (the runs' horizon; default 60000 attempt-durations; "
                  "required with --objective attempts)");
  cmd->add_option("--probability", opts->probability, "Fraction of runs the burst must drain in, 0.5 .. 0.999")
      ->capture_default_str();
  cmd->add_option("--objective", opts->objective,
                  "What the policy minimises among those that drain: drain-time (mean drain time), attempts (mean "
                  "attempts per client) or weighted (drain time + --weight x attempts)")
      ->capture_default_str();
  cmd->add_option("--weight", opts->weight,
                  "With --objective weighted: the drain time, in --unit, one attempt per client is worth");
  cmd->add_option("--plot", opts->plot,
                  "Write the curve (drain time and attempts per client against the cap) as PLOT.svg, PLOT.png and "
                  "the gnuplot script PLOT.gp");
  cmd->add_option("--strategies", opts->strategies,
                  "Strategies you can deploy, comma-separated (default: nojitter,full,equal,decorrelated,memoryless)");
  cmd->add_option("--seed", opts->seed,
                  "Seed of the search (the confirming runs use seed + 1, the sustainable load seed + 2)")
      ->capture_default_str();
  cmd->add_option("--threads", opts->threads, "Worker threads (0 = all cores); never changes the output")
      ->capture_default_str();
  cmd->add_flag("--quiet", opts->quiet, "No progress line on stderr");
  add_format_options(cmd, opts->format);
  cmd->callback([opts, cmd, &action] {
    opts->given.clear();
    for (const CLI::Option* opt : cmd->get_options())
      if (opt->count() > 0) opts->given.push_back(opt->get_name());
    action = [opts] { return run_advise(*opts); };
  });
}

}  // namespace retrylab::cli
