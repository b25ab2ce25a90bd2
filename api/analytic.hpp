#pragma once
// The registry of analytic commands (docs/cli.md "analytic", docs/python.md): every closed form and
// model of analytic/ as a command with a name, a one-line meaning, its parameters (kind, range and
// unit in the help line, default) and the function that computes its result document. The CLI
// registers `retrylab analytic NAME` and its flags from it; the Python module makes one function per
// command from it. Neither computes nor formats anything itself, so the same values give the same
// document, byte for byte.
// Invariants: a parameter is named as its field (`find_cap`: --find-cap, find_cap=); a value is given
// in its parameter's kind; analytic_document() refuses, before any work, a value it could not finish
// (InputError naming the field and the largest value that would run: the limits below), then every
// range check is the library's, naming the field.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace retrylab::api {

enum class ParamKind { real, integer, text, flag };

struct AnalyticParam {
  std::string_view name;  // the field: "find_cap" (flag --find-cap, keyword find_cap)
  ParamKind kind;
  std::string_view help;      // the meaning with its allowed range (what --help prints)
  std::string_view unit;      // "attempt-duration", "per attempt-duration", or "" (a count, a probability, a name)
  std::string_view fallback;  // the default as typed ("1000", "none", "full"); "" = none (optional or required)
  bool required = false;
};

// A parameter's value: real (double), integer (int64), text (string), flag (bool).
using AnalyticValue = std::variant<double, std::int64_t, std::string, bool>;
using AnalyticValues = std::map<std::string, AnalyticValue, std::less<>>;
using Document = nlohmann::ordered_json;

struct AnalyticCommand {
  std::string_view name;     // "fluid-cap" (Python: fluid_cap)
  std::string_view meaning;  // one line
  std::span<const AnalyticParam> params;
  // The document (model, inputs, value, ...), from the values with every fallback filled in; throws
  // InputError naming the field.
  Document (*compute)(const AnalyticValues& values);
  std::string_view unit;  // the unit of time of the document (units::none for counts of calls and tokens)
};

std::span<const AnalyticCommand> analytic_commands() noexcept;
const AnalyticCommand* find_analytic(std::string_view name) noexcept;

// The limits analytic_document() checks before any work (docs/cli.md "analytic": measured costs).
// markov on collision: the most stages (cap <= base·2^(stages−1)) per client count, index N, and the
// states of that chain; past it the sparse LU solve takes minutes and gigabytes.
struct MarkovLimit {
  int stages;
  std::int64_t states;
};
inline constexpr MarkovLimit markov_collision_limits[] = {
    {0, 0}, {40, 2}, {40, 5002}, {40, 129562}, {16, 80906}, {10, 73726}, {7, 55897}, {7, 167010}, {6, 186612}};
// burst: the horizon in units of the first stage's mean sleep (the ODE's steps grow with it).
inline constexpr double burst_max_sleeps = 1e6;
// steady: --collapse (its passage sums go over every backlog level up to it).
inline constexpr double steady_max_collapse = 1e7;

// The unit the values are given and the document printed in (--unit, --attempt-duration, as
// simulate's): a command with times (unit attempt-duration) takes ms or s with the length of one
// attempt; its times given are divided by it, its rates multiplied, every time and rate of the
// document converted back (the parameters' units and the table of outputs in analytic.cpp), and a
// value given is printed as given. The defaults stay in attempt-durations (as simulate's fields).
struct AnalyticUnit {
  std::string unit = "attempt";            // attempt | ms | s
  std::optional<double> attempt_duration;  // in `unit`; required with ms and s
};

// The command's document (model, inputs, value, ...): fills in the fallbacks, checks the up-front
// limits, then computes. Throws InputError naming the field (a value of the wrong kind, a required
// one missing, an unknown name, a value out of range; --unit on a command without times).
Document analytic_document(const AnalyticCommand& command, AnalyticValues values, const AnalyticUnit& unit = {});
// As `retrylab analytic NAME --json` prints it: {"retrylab", "unit"} (and "attempt_duration" in ms
// or s), then the document.
Document analytic_json(const AnalyticCommand& command, const Document& doc, const AnalyticUnit& unit = {});
// Whether the command has times (and so takes a unit).
bool has_times(const AnalyticCommand& command) noexcept;
// As `--format table` (a row per leaf, "inputs.rate  0.3") and `--format csv` (a header of leaf
// names, one row). A nonfinite number is null in JSON, inf in these.
std::string analytic_table(const Document& doc);
std::string analytic_csv(const Document& doc);

// A fallback text as a value of the parameter's kind.
AnalyticValue fallback_value(const AnalyticParam& p);

// "none" -> +inf, else a decimal number > 0; InputError("cap") otherwise.
double parse_cap(const std::string& text);
// Plain decimal text only (optional sign, digits, point, exponent; at most 400 characters) whose
// value is finite; nullopt otherwise (no hex, "inf", "nan", spaces or trailing text).
std::optional<double> decimal_real(const std::string& text);

}  // namespace retrylab::api
