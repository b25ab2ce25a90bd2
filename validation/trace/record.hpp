#pragma once
// The records of an attempt trace (docs/traces.md) as the reader hands them to the rules: one
// attempt row, or the end of a run. Invariants: a Row's times are finite; `sleep` is meaningful
// only when `has_sleep` (retry >= 1); rows of a run arrive in order of `end`.
// Also the tolerance every rule compares times with, and the one way a malformed trace is reported.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "analytic/error.hpp"

namespace retrylab::validation::trace {

inline constexpr double inf = std::numeric_limits<double>::infinity();
// Timestamps are printed shortest-round-trip; external ones may be rounded.
inline constexpr double rel_tol = 1e-9;

inline double tol(double x) { return rel_tol * std::max(1.0, std::fabs(x)); }

// A malformed trace: InputError whose field reads "line N: <field>".
[[noreturn]] inline void malformed(std::int64_t line, const std::string& field, const std::string& message) {
  throw InputError(fmt::format("line {}: {}", line, field), message);
}

struct Row {
  std::int64_t run = 0, client = 0, retry = 0;
  double arrival = 0, start = 0, end = 0, sleep = 0;
  bool success = false, has_sleep = false, burst = false;
  bool burst_given = true;  // false: no burst column; `burst` is then inferred from pure traffic
  // Version 3: a failure's kind (index into montecarlo::failure_kind_names: retryable, throttled,
  // fatal); kind_given false in versions 1 and 2 (no kind column: a failure's kind is not known).
  std::uint8_t kind = 0;
  bool kind_given = false;
};

struct RunEnd {
  std::int64_t run = 0;
  std::string stop;
  double stop_time = 0;
};

// A row as a CSV line (times in attempt-durations): how a rule that judges a row after it has
// streamed past shows it.
inline std::string row_text(const Row& r) {
  constexpr const char* kinds[] = {"retryable", "throttled", "fatal"};
  return fmt::format("{},{},{},{},{},{},{},{},{}{}", r.run, r.client, r.arrival, r.start, r.end,
                     r.success ? "success" : "failure", r.retry, r.has_sleep ? fmt::format("{}", r.sleep) : "",
                     r.burst ? 1 : 0,
                     !r.kind_given ? ""
                     : r.success   ? ","
                                   : fmt::format(",{}", kinds[std::min<int>(r.kind, 2)]));
}

}  // namespace retrylab::validation::trace
