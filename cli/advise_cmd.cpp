// `retrylab advise`: the retry policy for a pile-up of N clients on one contended resource
// (docs/advise.md). Parses flags into an api::AdviseRequest (api/advise.hpp checks it, runs the
// search and writes the table or JSON, as for retrylab.advise()), prints it, and with --plot the
// curve as a figure (advise/figure.hpp). No rule, search or document lives here.
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
#include "analytic/error.hpp"
#include "api/advise.hpp"
#include "api/series.hpp"  // this_builds_certificate
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

// The flags given, as the request api/advise.hpp checks (every rule and message is there).
api::AdviseRequest request_of(const AdviseOptions& o) {
  api::AdviseRequest r;
  if (given(o, "--clients")) r.clients = o.clients;
  if (given(o, "--failed-attempts")) r.failed_attempts = o.failed_attempts;
  r.unit = o.unit;
  if (given(o, "--attempt-duration")) r.attempt_duration = o.attempt_duration;
  if (given(o, "--rate")) r.rate = o.rate;
  if (given(o, "--base")) r.base = o.base;
  if (given(o, "--drain-within")) r.drain_within = o.drain_within;
  r.probability = o.probability;
  r.objective = o.objective;
  if (given(o, "--weight")) r.weight = o.weight;
  if (given(o, "--strategies")) r.strategies = o.strategies;
  r.seed = o.seed;
  r.threads = o.threads;
  return r;
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
  const api::PreparedAdvice p = api::prepare_advise(request_of(o), api::Spelling::flag);
  std::filesystem::path stem;
  if (given(o, "--plot")) {
    stem = plot_stem(o.plot);
    for (const char* ext : {".svg", ".png", ".gp"}) require_writable_file("--plot", stem.string() + ext);
  }
  // Progress on stderr (montecarlo/progress.hpp), one item a strategy's search: at --clients 100000
  // a strategy takes minutes, so a log line every 5 s (a bar on a terminal) says which and how fast.
  montecarlo::Progress progress(montecarlo::Progress::pick_mode(o.quiet), "strategies",
                                static_cast<std::int64_t>(p.request.strategies.size()));
  progress.items_are_not_runs();
  advise::Watch watch;
  watch.pulse = progress.pulse();
  watch.stage = [&progress](const std::string& label) { progress.start_item(label); };
  watch.searched = [&progress] { progress.item_done(); };
  watch.run = [&progress] { progress.run_done(); };
  const advise::Advice a = api::run_advise(p, watch);
  progress.finish();
  if (o.format == OutputFormat::json)
    std::cout << api::advise_json(a, p).dump(2) << "\n";
  else
    std::cout << api::advise_table(a, p);
  if (!stem.empty()) {
    const std::string unit = o.unit == "attempt" ? "attempt-durations" : o.unit;
    papers::render_figure(advise::curve_figure(a, p.attempt_duration, unit, stem.filename().string()),
                          stem.parent_path(), api::this_builds_certificate());
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
  add_format_options(cmd, opts->format, false);
  cmd->callback([opts, cmd, &action] {
    opts->given.clear();
    for (const CLI::Option* opt : cmd->get_options())
      if (opt->count() > 0) opts->given.push_back(opt->get_name());
    action = [opts] { return run_advise(*opts); };
  });
}

}  // namespace retrylab::cli
