#pragma once
// Shared pieces of the thin CLI: how a subcommand registers, the --format option, and the parsing of
// values the library cannot take from CLI11 directly (cap "none"). No domain logic lives here.
#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "analytic/units.hpp"
#include "analytic/version.hpp"

namespace retrylab::cli {

// A subcommand stores what to run once parsing succeeded; main() calls it and maps
// InputError -> exit 2 with one line (docs/cli.md "Exit status").
using Action = std::function<int()>;

enum class OutputFormat { table, json, csv };

// The opening of every JSON document the CLI prints (docs/outputs.md): {"retrylab": version,
// "unit": unit of time}; units:: names the units (analytic/units.hpp).
nlohmann::ordered_json provenance(std::string_view unit);

// Adds --format table|json|csv and --json (short for --format json) to a subcommand.
void add_format_options(CLI::App* cmd, OutputFormat& format);

// "none" (or "inf") -> +inf, else a finite number; throws InputError("cap", ...) otherwise.
double parse_cap(const std::string& text);

// Throws InputError(flag) unless x is a finite number (CLI11 lets "nan" and "inf" through).
void require_finite(const std::string& flag, double x);

// Subcommands, one file each.
void add_analytic_command(CLI::App& app, Action& action);
void add_simulate_command(CLI::App& app, Action& action);
void add_validate_command(CLI::App& app, Action& action);
void add_study_commands(CLI::App& app, Action& action);  // run and reproduce
void add_check_command(CLI::App& app, Action& action);   // attempt traces (docs/traces.md)

}  // namespace retrylab::cli
