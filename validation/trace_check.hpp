#pragma once
// `retrylab check`: reads an attempt trace (docs/traces.md; montecarlo/trace.hpp writes them) in one
// streaming pass and checks it against docs/models.md: invariants of the declared model and strategy,
// and statistics against the closed forms where the declared traffic admits one.
// Memory is bounded: per-client state only for clients still waiting (arrived, not yet succeeded),
// a sliding window of attempts that can still overlap (collision) or tie (free, shared), per-run
// accumulators, and at most `ks_sample_cap` probability-integral-transformed sleeps per KS test.
// A malformed trace (syntax, types, order of rows) throws InputError whose field reads
// "line N: <field>"; anything the model forbids is a failed check (exit 1), never an exception.
// Statistical checks share a false-alarm budget of 0.001 per trace (Bonferroni over the checks run).
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "montecarlo/scenario.hpp"

namespace retrylab::validation {

inline constexpr std::int64_t ks_sample_cap = 200000;
inline constexpr double trace_alpha_total = 1e-3;

// not_applicable: the rule does not hold under the declared server options; `observed`
// says why. Like skipped, it never fails a trace, and it is never reported as passed.
enum class CheckVerdict { pass, fail, skipped, not_applicable };

struct TraceCheck {
  std::string name;      // e.g. "sleep support"
  std::string kind;      // "invariant" or "statistic"
  std::string expected;  // the rule or the closed form
  std::string observed;  // what the trace shows
  CheckVerdict verdict = CheckVerdict::pass;
  std::int64_t count = 0;           // offending rows (invariants)
  std::vector<std::int64_t> lines;  // first offending line numbers (at most 10)
  std::vector<std::string> rows;    // the first offending rows in full (at most 3)
};

struct TraceReport {
  montecarlo::Scenario declared;  // from the header
  std::uint64_t seed = 0;
  std::int64_t rows = 0;
  std::int64_t runs = 0;
  std::string format;  // "csv" or "jsonl"
  std::vector<TraceCheck> checks;
  bool passed() const;
};

// Reads and checks a whole trace. Throws InputError("line N: field", ...) on a malformed trace.
TraceReport check_trace(std::istream& in);

std::string to_string(CheckVerdict v);

}  // namespace retrylab::validation
