#pragma once
// The scenario field table: one row per field of Scenario, with its name, group, kind, unit,
// allowed range and one-line meaning; the default is the field's value in Scenario{}. Everything that
// lists scenario fields derives from this table: simulate's flags (--name, '_' spelled '-'), the keys
// of study TOML, the JSON scenario object, canonical() (so the RNG key and the trace header), the
// per-field range checks of check_scenario, and `retrylab simulate --list-fields` (which writes
// docs/scenario-fields.md). A field is declared once, by whoever reads it: the core's rows in
// fields.cpp, a component's parameters in its own file (its `fields`). Adding a parameter to a
// component is its member in its group of Scenario (scenario.hpp) and its row in the component.
// Values travel as doubles: a choice by its index in `choices`, on/off as 1/0, "none" as +inf; a
// text field (the load profile) travels as its text, through its own parser (TextAccess below).
// canonical(): the fields marked `always` in table order, then every other field whose value
// differs from its default (a group — aimd_*, mix_* — prints whole when its switch is on), so a
// field added later never changes the canonical string of a scenario that leaves it at its default.
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo {

enum class FieldKind { number, integer, choice, on_off, number_or_none, text };
// time: a duration (attempt-durations, or the CLI's --unit); per_time: a rate; none: unitless.
enum class FieldUnit { none, time, per_time };
// When canonical() prints the field: always; when not at its default; with its group's switch.
enum class Presence { always, if_set, with_aimd, with_mix };
// The scenario's groups (Scenario's members; docs/scenario-fields.md lists the fields group by group).
enum class FieldGroup { resource, backoff, traffic, measurement, admission, client, failures };

// How a field reads and writes its member of Scenario, as a double: a choice by its index (an enum,
// or an int index into a preset list), on/off as 1/0, an integer exactly (|v| < 2^53).
struct FieldAccess {
  double (*get)(const Scenario&);
  void (*set)(Scenario&, double);
};
namespace field_detail {
template <class T>
constexpr double to_double(const T& x) {
  if constexpr (std::is_same_v<T, bool>)
    return x ? 1.0 : 0.0;
  else if constexpr (std::is_enum_v<T>)
    return static_cast<double>(static_cast<int>(x));
  else
    return static_cast<double>(x);
}
template <class T>
constexpr T from_double(double v) {
  if constexpr (std::is_same_v<T, bool>)
    return v != 0.0;
  else if constexpr (std::is_enum_v<T>)
    return static_cast<T>(static_cast<int>(v));
  else
    return static_cast<T>(v);
}
}  // namespace field_detail
// The member at the end of a path of member pointers: member<&Scenario::client, &ClientPolicy::timeout>().
template <auto... Path>
constexpr FieldAccess member() {
  return {[](const Scenario& s) { return field_detail::to_double((s.*....*Path)); },
          [](Scenario& s, double v) {
            auto& m = (s.*....*Path);
            m = field_detail::from_double<std::remove_cvref_t<decltype(m)>>(v);
          }};
}

// How a text field (FieldKind::text) reads and writes its member. Its text is untrusted: `set`
// parses and validates it (InputError naming the field, the allowed forms in its message) before
// the scenario holds it, and "" leaves the field unset (its default); `get` gives the canonical
// text ("" when unset); `scale` turns the value from the user's unit into attempt-durations in place
// (times / d, rates x d: d is the attempt-duration in that unit). A text field has no number: its
// `access` is no_number (std::logic_error), so a reader that forgets the kind fails loudly.
struct TextAccess {
  bool (*is_set)(const Scenario&) = nullptr;
  std::string (*get)(const Scenario&) = nullptr;
  void (*set)(Scenario&, std::string_view) = nullptr;
  void (*scale)(Scenario&, double d) = nullptr;
  std::string_view forms = {};  // the allowed forms, as the rule and `allowed` print them
};
[[noreturn]] void text_field_has_no_number();
inline constexpr FieldAccess no_number{[](const Scenario&) -> double { text_field_has_no_number(); },
                                       [](Scenario&, double) { text_field_has_no_number(); }};

// One row of the field table. The core declares its own (montecarlo/fields.cpp) and each component
// its parameters (its `fields` array, montecarlo/components/*.hpp); the table is all of them in
// rank order (scenario_fields()).
struct Field {
  std::string_view name;
  FieldGroup group;
  // Position in the canonical string, which is also the order in which a study grid expands
  // (outermost first). A new field takes a rank above every other, so every earlier scenario keeps
  // its canonical string, RNG key and points.
  int rank;
  FieldKind kind;
  FieldUnit unit = FieldUnit::none;
  Presence presence = Presence::if_set;
  double lo = 0.0, hi = 0.0;  // allowed values (number, integer, number_or_none), closed unless *_open
  bool lo_open = false, hi_open = false;
  std::span<const std::string_view> choices = {};  // choice: names in enum order
  std::string_view meaning;
  FieldAccess access;
  // The value canonical() and JSON print, when it is not get() (e.g. the window outside the window
  // strategy is 0, the unset horizon is the pure-burst default).
  double (*canonical_value)(const Scenario&) = nullptr;
  std::string_view default_note = {};  // the default when get(Scenario{}) does not say it all
  bool plain_loop = false;             // the original event loop implements it (else a set value needs the full tier)
  TextAccess text = {};                // a text field's reader and parser (kind text only)

  double get(const Scenario& s) const { return access.get(s); }
  void set(Scenario& s, double v) const { access.set(s, v); }
};

std::span<const Field> scenario_fields() noexcept;
// Every component's rules between its parameters and the rest of the scenario (its check(s)), in
// the order of the full build's list (montecarlo/builds.hpp). check_scenario calls it.
void check_component_rules(const Scenario& s);
// The first field of the first component s turns on that may refuse a call locally (its
// refuses_locally trait, component.hpp), or "" when none may.
std::string_view first_refusing_component(const Scenario& s);
// Whether canonical() prints f for s (Presence above), and the value it prints.
bool field_shown(const Field& f, const Scenario& s);
double field_value(const Field& f, const Scenario& s);
const Field* find_field(std::string_view name) noexcept;
// Any field's value as canonical() prints it (format_field of field_value, or a text field's text),
// and any field set from text as typed (parse_field and set, or a text field's parser): the text
// form of every kind, for the front ends that carry values as text.
std::string field_text(const Field& f, const Scenario& s);
void set_field_text(const Field& f, Scenario& s, std::string_view text);

// "--reject-cost" for reject_cost.
std::string flag_of(const Field& f);
// Parses text ("0.5", "none", "on", "lognormal") into the field's value; rejects empty text, hex,
// trailing characters, NaN and values outside the range. Throws InputError(f.name, ...). A text
// field has no double value: set_field_text parses it.
double parse_field(const Field& f, std::string_view text);
// Checks a value that is already a double (TOML numbers, grid axes); throws like parse_field (a
// text field refuses every number, naming its forms).
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
