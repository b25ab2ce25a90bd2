#pragma once
// The scenario field table: one row per field of Scenario, with its name, kind, unit, allowed
// range and one-line meaning; the default is the field's value in Scenario{}. Everything that lists
// scenario fields derives from this table: simulate's flags (--name, '_' spelled '-'), the keys of
// study TOML, the JSON scenario object, canonical() (so the RNG key and the trace header), the
// per-field range checks of check_scenario, and `retrylab simulate --list-fields` (which writes
// docs/scenario-fields.md). Adding a field is one row here, a member of Scenario, and the engine
// code that uses it.
// Values travel as doubles: a choice by its index in `choices`, on/off as 1/0, "none" as +inf.
// canonical(): the fields marked `always` in table order, then every other field whose value
// differs from its default (a group — aimd_*, mix_* — prints whole when its switch is on), so a
// field added later never changes the canonical string of a scenario that leaves it at its default.
#include <span>
#include <string>
#include <string_view>

#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo {

enum class FieldKind { number, integer, choice, on_off, number_or_none };
// time: a duration (attempt-durations, or the CLI's --unit); per_time: a rate; none: unitless.
enum class FieldUnit { none, time, per_time };
// When canonical() prints the field: always; when not at its default; with its group's switch.
enum class Presence { always, if_set, with_aimd, with_mix };

struct Field {
  std::string_view name;
  FieldKind kind;
  FieldUnit unit;
  Presence presence;
  double lo, hi;  // allowed values (number, integer, number_or_none), closed unless *_open
  bool lo_open, hi_open;
  std::span<const std::string_view> choices;  // choice: names in enum order
  std::string_view meaning;
  double (*get)(const Scenario&);
  void (*set)(Scenario&, double);
  // The value canonical() and JSON print, when it is not get() (e.g. the window outside the window
  // strategy is 0, the unset horizon is the pure-burst default).
  double (*canonical_value)(const Scenario&) = nullptr;
  std::string_view default_note = {};  // the default when get(Scenario{}) does not say it all
  bool plain_loop = false;             // the original event loop implements it (else a set value needs the full tier)
};

std::span<const Field> scenario_fields() noexcept;
// Whether canonical() prints f for s (Presence above), and the value it prints.
bool field_shown(const Field& f, const Scenario& s);
double field_value(const Field& f, const Scenario& s);
const Field* find_field(std::string_view name) noexcept;

// "--reject-cost" for reject_cost.
std::string flag_of(const Field& f);
// Parses text ("0.5", "none", "on", "lognormal") into the field's value; rejects empty text, hex,
// trailing characters, NaN and values outside the range. Throws InputError(f.name, ...).
double parse_field(const Field& f, std::string_view text);
// Checks a value that is already a double (TOML numbers, grid axes); throws like parse_field.
void check_field(const Field& f, double v);
// The value as canonical() prints it: shortest round-trip decimal, choice name, on/off, none.
std::string format_field(const Field& f, double v);
// "must be in [0, 1]", "must be a number > 0 or \"none\"", ...: the rule both checks above state.
std::string field_rule(const Field& f);
// "[1, 1000000]", "(0, +inf)", "one of collision, free, shared, ps", "on or off", ...
std::string range_text(const Field& f);
std::string_view unit_text(const Field& f) noexcept;  // "attempt-durations", "per attempt-duration", ""
std::string default_text(const Field& f);

// The field table as Markdown (docs/scenario-fields.md) or aligned text (--list-fields).
std::string fields_markdown();
std::string fields_text();

}  // namespace retrylab::montecarlo
