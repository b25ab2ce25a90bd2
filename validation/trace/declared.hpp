#pragma once
// The scenario an attempt trace declares (docs/traces.md): its header's key=value pairs (CSV
// comments, the JSON header object, or the keys given with in-memory rows) read into a Scenario in
// attempt-durations. time_unit=ms|s with attempt_duration=D rescales every time (/ D) and rate
// (* D) of the header, server options included, before their ranges are checked. Every error is
// InputError("line N: <key>", ...) naming the key's line (the header's last when it has none).
// Also the number parsing the reader shares with it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "validation/trace/reader.hpp"

namespace retrylab::validation::trace {

// A finite double / an integer spelled exactly (no leading '+', spaces or trailing text).
std::optional<double> to_double(std::string_view s);
std::optional<std::int64_t> to_int(std::string_view s);
// The same, or InputError("line N: field", ...) naming the rule.
double need_double(std::string_view s, std::int64_t line, const char* field);
std::int64_t need_int(std::string_view s, std::int64_t line, const char* field);

struct HeaderKeys {
  std::map<std::string, std::string> kv;
  std::map<std::string, std::int64_t> key_line;  // where each key was given (CSV: its own line)
  std::int64_t line = 1;                         // the header's last line (-1: in-memory rows)
};

// Fills h.declared, h.seed, h.unit, h.attempt_duration and h.runs from the keys.
void declare(const HeaderKeys& keys, TraceHeader& h);

}  // namespace retrylab::validation::trace
