#pragma once
// Shared pieces of the thin CLI: how a subcommand registers, the --format option, and the parsing of
// values the library cannot take from CLI11 directly. No domain logic lives here.
// Strict numbers: CLI11 alone reads "" as 0, "0x10" as 16, "-1" and "1e23" as a 64-bit seed of
// 2^64-1 and "nan" as a number. The parsers and validators below accept only plain decimal text
// whose value the target type holds exactly; harden_options() attaches them to every option of
// every subcommand by the option's value type, so no flag reads a value any other way.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analytic/units.hpp"
#include "analytic/version.hpp"

namespace retrylab::cli {

// A subcommand stores what to run once parsing succeeded; main() calls it and maps
// InputError -> exit 2 with one line (docs/cli.md "Exit status").
using Action = std::function<int()>;

enum class OutputFormat { table, json, csv };

// Adds --format table|json|csv, --json and --csv (short for --format json, csv) to a subcommand; one
// spelling of the formats everywhere. csv = false: a command without a CSV form (advise) offers
// table|json only, and neither --csv nor --format csv is accepted.
void add_format_options(CLI::App* cmd, OutputFormat& format, bool csv = true);

// Throws InputError(flag) unless x is a finite number (CLI11 lets "nan" and "inf" through).
void require_finite(const std::string& flag, double x);

// Strict parsers (throw InputError(field, "must be ... (got TEXT)")): a decimal real (optional
// sign, digits, point, exponent; finite), a decimal integer in [lo, hi] (no sign for lo >= 0).
double parse_real(const std::string& field, const std::string& text);
std::int64_t parse_int(const std::string& field, const std::string& text, std::int64_t lo, std::int64_t hi);
std::uint64_t parse_uint64(const std::string& field, const std::string& text);

// The same rules as CLI11 validators (empty message = accepted), for options added one by one.
CLI::Validator strict_real();
CLI::Validator strict_int();   // any value a signed 64-bit integer holds
CLI::Validator strict_uint();  // [0, 2^64 - 1]
CLI::Validator non_empty();

// Walks every option of app and its subcommands: options that take a value get non_empty(), and
// by value type (CLI11's FLOAT, INT, UINT) strict_real(), strict_int() or strict_uint().
void harden_options(CLI::App& app);

// An argument that names no subcommand where one is expected (`retrylab simulat`, `retrylab
// analytic stedy`): one line naming it, the nearest command ("did you mean simulate?") and the list.
std::optional<std::string> unknown_command(const CLI::App& app, int argc, const char* const* argv);

// After a failed parse: a flag the (sub)command parsed does not have ("--capp"), named with its
// nearest flag ("did you mean --cap?"); nullopt when every flag is known (the parser's message stands).
std::optional<std::string> unknown_flag(const CLI::App& app, int argc, const char* const* argv);

// The candidate nearest to `name` by edit distance, if near enough to be a slip (at most a third of
// its letters, and at least one, differ); nullopt otherwise.
std::optional<std::string> nearest(const std::string& name, const std::vector<std::string>& candidates);

// Up front, before any work: `path` names a file whose folder exists and which is absent or a
// regular file (montecarlo/atomic_file.hpp never replaces anything else); else InputError(flag).
void require_writable_file(const std::string& flag, const std::string& path);

// Up front: `path` is (or is created as) a folder a file can be created in (probed with a temporary
// file, so it holds for root too); else InputError(flag) with the reason.
void require_writable_folder(const std::string& flag, const std::string& path);

// Flushes standard output and returns rc; throws OutputError ("cannot write to standard output: ...")
// if any write to it failed (a full disk, a closed pipe), so a lost result is never exit 0.
int finish_stdout(int rc);

// Every subcommand below, then harden_options(app): the whole command line main() parses (and the
// argument-parser fuzz target, fuzz/fuzz_cli.cpp).
void add_commands(CLI::App& app, Action& action);

// Subcommands, one file each.
void add_analytic_command(CLI::App& app, Action& action);
void add_simulate_command(CLI::App& app, Action& action);
void add_policy_command(CLI::App& app, Action& action);  // policy files (docs/policies.md)
void add_validate_command(CLI::App& app, Action& action);
void add_study_commands(CLI::App& app, Action& action);  // run and reproduce
void add_check_command(CLI::App& app, Action& action);   // attempt traces (docs/traces.md)
void add_advise_command(CLI::App& app, Action& action);  // the retry policy for a pile-up (docs/advise.md)

}  // namespace retrylab::cli
