// `retrylab validate`: the trust gate (docs/cli.md). Runs the validation catalogue, prints the
// table (or JSON/CSV), writes Markdown/LaTeX/CSV with --out, records a certificate for this build,
// and exits 1 when any case fails. All logic lives in validation/; this file parses and prints.
#include <fmt/format.h>
#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>

#include "analytic/error.hpp"
#include "cli/common.hpp"
#include "montecarlo/progress.hpp"
#include "validation/certificate.hpp"
#include "validation/report.hpp"
#include "validation/suite.hpp"

namespace retrylab::cli {

namespace {

struct ValidateOptions {
  bool quick = false;
  bool full = false;
  std::string out;
  OutputFormat format = OutputFormat::table;
  std::uint64_t seed = validation::default_seed;
  int threads = 0;
  std::string cases;
  bool quiet = false;
};

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

int run_validate(const ValidateOptions& o) {
  if (o.quick && o.full) throw InputError("--full", "cannot be combined with --quick (got both)");
  if (o.threads < 0) throw InputError("--threads", fmt::format("must be >= 0, 0 = all cores (got {})", o.threads));
  validation::SuiteOptions opt;
  opt.scale = o.full ? validation::Scale::full : validation::Scale::quick;
  opt.seed = o.seed;
  opt.threads = o.threads;
  opt.only = split_names(o.cases);
  if (!o.cases.empty() && opt.only.empty())
    throw InputError("--cases", fmt::format("must name at least one case (got \"{}\")", o.cases));

  if (!o.out.empty()) require_writable_folder("--out", o.out);          // before the run, not after it
  if (o.cases.empty()) validation::require_writable_certificate_dir();  // the whole catalogue records one

  std::unique_ptr<montecarlo::Progress> progress;  // made when the number of cases is known
  const auto result = validation::run_suite(opt, [&](const validation::CaseResult& r, std::size_t cases) {
    if (!progress)
      progress = std::make_unique<montecarlo::Progress>(montecarlo::Progress::pick_mode(o.quiet), "cases",
                                                        static_cast<std::int64_t>(cases));
    progress->start_item(fmt::format("{} {}", r.name, validation::to_string(r.verdict)));
    progress->item_done();
  });
  if (progress) progress->finish();

  switch (o.format) {
    case OutputFormat::table: std::cout << validation::format_text(result); break;
    case OutputFormat::json: std::cout << validation::format_json(result, std::string(version)); break;
    case OutputFormat::csv: std::cout << validation::format_csv(result); break;
  }
  std::cout.flush();
  if (!o.out.empty()) {
    for (const auto& p : validation::write_reports(result, o.out))
      if (!o.quiet) std::fprintf(stderr, "retrylab: wrote %s\n", p.string().c_str());
  }
  // A filtered run is not the catalogue: it certifies nothing.
  if (!result.filtered) {
    const auto cert = validation::make_certificate(result, std::string(version));
    validation::write_reports(result, validation::certificate_tables_dir(cert));  // for studies that reuse it
    const auto path = validation::write_certificate(cert);
    if (!o.quiet)
      std::fprintf(stderr, "retrylab: certificate %s (%s) written to %s\n", cert.id.c_str(),
                   cert.passed ? "passed" : "failed", path.string().c_str());
  } else if (!o.quiet) {
    std::fprintf(stderr, "retrylab: --cases ran part of the catalogue: no certificate written\n");
  }
  return result.passed ? 0 : 1;
}

}  // namespace

void add_validate_command(CLI::App& app, Action& action) {
  auto opts = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Run the validation catalogue (engine against closed forms, plus invariants); exit 1 if any case fails");
  cmd->add_flag("--quick", opts->quick, "The quick catalogue (default; under a minute on 2 cores)");
  cmd->add_flag("--full", opts->full, "The full catalogue (a few minutes; what papers cite)");
  cmd->add_option("--out", opts->out, "Folder for validation.md, validation.tex (booktabs) and validation.csv");
  add_format_options(cmd, opts->format);
  cmd->add_option("--seed", opts->seed, "Seed of every case's random streams")->default_val(validation::default_seed);
  cmd->add_option("--threads", opts->threads, "Cases run in parallel on this many threads (0 = all cores)")
      ->default_val(0);
  cmd->add_option("--cases", opts->cases,
                  "Comma-separated substrings: run only the cases whose name contains one (no certificate)");
  cmd->add_flag("--quiet", opts->quiet, "No progress or log lines on stderr");
  cmd->callback([opts, &action] { action = [opts] { return run_validate(*opts); }; });
}

}  // namespace retrylab::cli
