#pragma once
// Finding: one invariant's tally while a trace streams past: how many rows break it, the first
// line numbers (at most 10) and the first offending rows in full (at most 3), then its TraceCheck.
// Invariant: a check with nothing checked and nothing found is "skipped", never "pass".
#include <cstdint>
#include <string>
#include <string_view>

#include "validation/trace_check.hpp"

namespace retrylab::validation::trace {

class Finding {
 public:
  Finding(std::string name, std::string kind, std::string expected);
  void add(std::int64_t line, std::string_view text, const std::string& note = {});
  std::int64_t count() const { return check_.count; }
  TraceCheck& check() { return check_; }
  TraceCheck finish(std::int64_t checked, const std::string& unit);

 private:
  TraceCheck check_;
};

// A check with nothing found yet (count 0, no lines, no power).
TraceCheck make_check(std::string name, std::string kind, std::string expected, std::string observed = {},
                      CheckVerdict verdict = CheckVerdict::pass);

// A rule that holds under the declared options is checked; one that does not (why_not non-empty)
// is reported as not applicable with the reason (never as passed).
TraceCheck applies(Finding& f, const std::string& why_not, std::int64_t checked, const std::string& unit);

}  // namespace retrylab::validation::trace
