#pragma once
// The JSON of a trace check (`retrylab check --json` and the Python module's check()): the one
// writer of its keys, in order: trace, format, declared (the canonical scenario), seed, rows, runs,
// passed, and per check its name, kind, expected, observed, verdict, count, lines and rows.
// Header-only: its includers link nlohmann-json themselves (the validation library keeps it private).
#include <nlohmann/json.hpp>
#include <string>

#include "montecarlo/scenario.hpp"
#include "validation/trace_check.hpp"

namespace retrylab::validation {

inline nlohmann::ordered_json trace_report_json(const TraceReport& r, const std::string& trace) {
  nlohmann::ordered_json j;
  j["trace"] = trace;
  j["format"] = r.format;
  j["declared"] = montecarlo::canonical(r.declared);
  j["seed"] = r.seed;
  j["rows"] = r.rows;
  j["runs"] = r.runs;
  j["passed"] = r.passed();
  j["checks"] = nlohmann::ordered_json::array();
  for (const auto& c : r.checks)
    j["checks"].push_back({{"check", c.name},
                           {"kind", c.kind},
                           {"expected", c.expected},
                           {"observed", c.observed},
                           {"verdict", to_string(c.verdict)},
                           {"count", c.count},
                           {"lines", c.lines},
                           {"rows", c.rows}});
  return j;
}

}  // namespace retrylab::validation
