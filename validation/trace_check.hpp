#pragma once
// `retrylab check`: reads an attempt trace (docs/traces.md; montecarlo/trace.hpp writes them) in one
// streaming pass and checks it against docs/models.md: invariants of the declared model and strategy,
// and statistics against the closed forms where the declared traffic admits one.
// Memory is bounded: per-client state only for clients still waiting (arrived, not yet succeeded),
// a sliding window of attempts that can still overlap (collision) or tie (free, shared), per-run
// accumulators, and at most `ks_sample_cap` probability-integral-transformed sleeps per KS test.
// A malformed trace (syntax, types, order of rows) throws InputError whose field reads
// "line N: <field>"; anything the model forbids is a failed check (exit 1), never an exception.
// Statistical checks share a false-alarm budget of 0.001 per trace (Bonferroni over the checks run);
// each states its power: the smallest deviation it detects with probability >= 0.9 at this trace's
// size (docs/traces.md, "Power").
// Two entry points: a stream (a file: CSV or JSON Lines), and in-memory rows (arrays, a DataFrame's
// columns) with the header as key=value pairs. Both run the same rules in one pass.
#include <cstdint>
#include <istream>
#include <limits>
#include <map>
#include <span>
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
  // Statistics: the smallest deviation detected with probability >= 0.9 at this check's sample size
  // and false-alarm rate (NaN for an invariant, an exact check or one that did not run), in the
  // check's own measure (`power` says which: a CDF distance, a relative difference of a mean).
  double detectable = std::numeric_limits<double>::quiet_NaN();
  std::string power;
};

struct TraceReport {
  montecarlo::Scenario declared;  // from the header
  std::uint64_t seed = 0;
  std::int64_t rows = 0;
  std::int64_t runs = 0;
  std::string format;                     // "csv", "jsonl" or "rows" (in memory)
  std::string unit = "attempt-duration";  // the trace's time_unit; the checks read attempt-durations
  double attempt_duration = 1.0;          // one attempt-duration in `unit`
  std::vector<TraceCheck> checks;
  bool passed() const;
};

// Reads and checks a whole trace. Throws InputError("line N: field", ...) on a malformed trace.
TraceReport check_trace(std::istream& in);

// In-memory rows: one entry per attempt row, all spans of the same length, in a trace's order (runs
// in increasing order; within a run, rows in order of end); times in the header's unit. sleep is NaN
// on retry-0 rows; success and burst hold 0 or 1; burst may be empty (no burst column). kind (version 3
// only, else empty): a failure's kind, 0 retryable, 1 throttled, 2 fatal (montecarlo::failure_kind_names),
// trace_no_kind on a success.
inline constexpr std::uint8_t trace_no_kind = 255;
struct TraceColumns {
  std::span<const std::int64_t> run, client, retry;
  std::span<const double> arrival, start, end, sleep;
  std::span<const std::uint8_t> success, burst;
  std::span<const std::uint8_t> kind = {};
};
// A run_end record: run `run` stopped (finished, drained, collapsed or horizon) at stop_time.
struct TraceRunEnd {
  std::int64_t run = 0;
  std::string stop;
  double stop_time = 0;
};

// Checks in-memory rows. `header` holds the keys of a CSV header without the '#' (version, model,
// strategy, retries, base, cap, ..., time_unit, attempt_duration, seed, runs); run_ends, in
// increasing run order, are optional as in a file. The report's line numbers are row indices (from
// 0). Throws InputError("header: key", ...) or InputError("row N: field", ...) on malformed input.
TraceReport check_trace(const std::map<std::string, std::string>& header, const TraceColumns& rows,
                        std::span<const TraceRunEnd> run_ends = {});

std::string to_string(CheckVerdict v);

}  // namespace retrylab::validation
