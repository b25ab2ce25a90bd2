// `retrylab check TRACE`: checks an attempt trace (docs/traces.md) from any simulator against the
// declared model's invariants and closed forms (validation/trace_check.hpp), and prints the table.
// Exit 0 all checks pass, 1 a check failed, 2 a malformed trace (one line naming line and field) or
// one without attempt rows ("nothing to check": no check ran, so it can neither pass nor fail).
// --power adds what each statistical check could have missed: the smallest deviation it catches
// with probability >= 0.9 at this trace's size (validation/trace/power.hpp).
#include <fmt/format.h>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "analytic/error.hpp"
#include "api/format.hpp"
#include "api/simulate.hpp"  // provenance
#include "cli/common.hpp"
#include "montecarlo/scenario.hpp"
#include "validation/escape.hpp"
#include "validation/trace_check.hpp"
#include "validation/trace_json.hpp"

namespace retrylab::cli {

namespace {

struct CheckOptions {
  std::string trace;
  OutputFormat format = OutputFormat::table;
  bool power = false;
};

std::string join_lines(const std::vector<std::int64_t>& lines, std::int64_t count) {
  std::string s;
  for (std::size_t i = 0; i < lines.size(); ++i) s += (i ? "," : "") + std::to_string(lines[i]);
  if (count > static_cast<std::int64_t>(lines.size())) s += ",...";
  return s.empty() ? "-" : s;
}

// A cell (a check's name, what it observed in the trace): quoted when it holds a comma, a quote or a
// newline; every other control byte but a tab a space, so no escape sequence reaches a terminal.
std::string csv_field(std::string s) {
  for (char& c : s)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == '\x7f') c = ' ';
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// The detectable size in the CSV: every digit, empty when undefined (api/format.hpp).
std::string fmt_detectable(double d) { return api::csv_number(d); }

void print_table(const validation::TraceReport& r, const CheckOptions& o) {
  std::cout << "retrylab check: " << o.trace << " (" << r.format << ", " << r.rows << " attempts, " << r.runs
            << " runs)\ndeclared: " << montecarlo::canonical(r.declared) << " seed=" << r.seed << "\n";
  if (r.unit != "attempt-duration")
    std::cout << fmt::format(
        "unit: {} (one attempt-duration = {} {}; declared above and checked in attempt-durations)\n", r.unit,
        r.attempt_duration, r.unit);
  std::cout << fmt::format("\n{:<34} {:<10} {:<8} {:<16} {}\n", "check", "kind", "verdict", "lines", "observed");
  for (const auto& c : r.checks)
    std::cout << fmt::format("{:<34} {:<10} {:<8} {:<16} {}\n", c.name, c.kind, validation::to_string(c.verdict),
                             join_lines(c.lines, c.count).substr(0, 60), c.observed);
  bool any = false;
  for (const auto& c : r.checks) {
    if (c.verdict != validation::CheckVerdict::fail) continue;
    if (!any) std::cout << "\nfindings:\n";
    any = true;
    std::cout << fmt::format("- {} ({}): expected {}; {}\n", c.name, c.kind, c.expected, c.observed);
    for (const auto& row : c.rows) std::cout << "    " << row << "\n";
  }
  if (o.power) {
    std::cout << "\npower (a deviation smaller than this could have been missed; invariants are exact: every row "
                 "they judge is held to them):\n";
    for (const auto& c : r.checks)
      if (!c.power.empty()) std::cout << fmt::format("- {}: {}\n", c.name, c.power);
  }
  std::cout << "\n" << (r.passed() ? "PASS" : "FAIL") << "\n";
}

int run_check(const CheckOptions& o) {
  std::error_code ec;
  if (std::filesystem::is_directory(o.trace, ec)) {
    std::fprintf(stderr, "retrylab: check: TRACE must be a file, not a folder (got %s)\n",
                 validation::one_line(o.trace).c_str());
    return 2;
  }
  std::ifstream in(o.trace, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "retrylab: check: TRACE must be a readable file (got %s)\n",
                 validation::one_line(o.trace).c_str());
    return 2;
  }
  validation::TraceReport r;
  try {
    r = validation::check_trace(in);
  } catch (const InputError& e) {
    // "<file> line N: field must be ..." (the field already carries the line).
    std::fprintf(stderr, "retrylab: check: %s\n", validation::one_line(o.trace + " " + e.what()).c_str());
    return 2;
  }
  if (r.rows == 0) {  // nothing was checked: neither PASS (0) nor a failed check (1), but unusable input
    std::fprintf(stderr, "retrylab: check: %s has a header but no attempt rows: nothing to check\n",
                 validation::one_line(o.trace).c_str());
    return 2;
  }
  switch (o.format) {
    case OutputFormat::json: {
      nlohmann::ordered_json j = api::provenance(units::attempt_duration);  // traces are of the paper models
      // A named object: iterating items() of the temporary itself read it after it was destroyed.
      nlohmann::ordered_json report = validation::trace_report_json(r, o.trace);
      if (o.power)
        for (std::size_t i = 0; i < r.checks.size(); ++i) {
          const double d = r.checks[i].detectable;
          report["checks"][i]["detectable"] = std::isnan(d) ? nlohmann::ordered_json() : nlohmann::ordered_json(d);
          report["checks"][i]["power"] = r.checks[i].power;
        }
      for (const auto& [key, value] : report.items()) j[key] = value;
      std::cout << j.dump(2) << "\n";
      break;
    }
    case OutputFormat::csv:
      std::cout << "check,kind,expected,observed,verdict,count,lines" << (o.power ? ",detectable,power" : "") << "\n";
      for (const auto& c : r.checks)
        std::cout << fmt::format("{},{},{},{},{},{},{}{}\n", csv_field(c.name), c.kind, csv_field(c.expected),
                                 csv_field(c.observed), validation::to_string(c.verdict), c.count,
                                 csv_field(join_lines(c.lines, c.count)),
                                 o.power ? "," + fmt_detectable(c.detectable) + "," + csv_field(c.power) : "");
      break;
    case OutputFormat::table: print_table(r, o); break;
  }
  return r.passed() ? 0 : 1;
}

}  // namespace

void add_check_command(CLI::App& app, Action& action) {
  auto opts = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Check an attempt trace (docs/traces.md) against the declared model's invariants and closed forms; exit 0 "
      "pass, 1 a check failed, 2 a malformed trace or one with no attempt rows (nothing to check)");
  cmd->add_option("trace", opts->trace, "Trace file (CSV, or JSON Lines if it starts with '{')")->required();
  add_format_options(cmd, opts->format);
  cmd->add_flag("--power", opts->power,
                "Also print, for each statistical check, the smallest deviation it catches with probability >= 0.9 "
                "at this trace's size: what the trace could have missed");
  cmd->callback([opts, &action] { action = [opts] { return run_check(*opts); }; });
}

}  // namespace retrylab::cli
