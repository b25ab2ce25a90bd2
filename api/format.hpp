#pragma once
// The one number formatter of every document api/ writes (docs/outputs.md "Numbers"): tables, CSV,
// JSON and the sentences of warnings. A front end never formats a number itself.
//  - table: `digits` significant digits (%g), "-" when not finite (an undefined metric). Two widths,
//    named: a summary row (simulate's metrics) has 6, a dense row (a series bin's values, advise's
//    curve and candidates) 4, a series bin's start 8 (bins may be much finer than the horizon);
//  - csv: the shortest text that reads back as the same double, empty when not finite;
//  - json: the double itself (nlohmann writes it to round-trip), null when not finite;
//  - text: a number inside a sentence: the shortest round-trip text, "inf"/"nan" as such.
// Invariant: csv and text round-trip (parse(csv(x)) == x for every finite x).
#include <fmt/format.h>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace retrylab::api {

enum class Digits { summary = 6, dense = 4, bin_start = 8 };

inline std::string table_number(double x, Digits digits) {
  if (!std::isfinite(x)) return "-";
  return fmt::format("{:.{}g}", x, static_cast<int>(digits));
}
inline std::string csv_number(double x) { return std::isfinite(x) ? fmt::format("{}", x) : std::string(); }
inline nlohmann::ordered_json json_number(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr);
}
inline std::string number_text(double x) { return fmt::format("{}", x); }

}  // namespace retrylab::api
