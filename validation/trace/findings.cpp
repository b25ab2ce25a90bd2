#include "validation/trace/findings.hpp"

#include <fmt/format.h>
#include <utility>

namespace retrylab::validation::trace {

TraceCheck make_check(std::string name, std::string kind, std::string expected, std::string observed,
                      CheckVerdict verdict) {
  TraceCheck c;
  c.name = std::move(name);
  c.kind = std::move(kind);
  c.expected = std::move(expected);
  c.observed = std::move(observed);
  c.verdict = verdict;
  return c;
}

Finding::Finding(std::string name, std::string kind, std::string expected)
    : check_(make_check(std::move(name), std::move(kind), std::move(expected))) {}

void Finding::add(std::int64_t line, std::string_view text, const std::string& note) {
  ++check_.count;
  if (check_.lines.size() < 10) check_.lines.push_back(line);
  if (check_.rows.size() < 3)
    check_.rows.push_back(fmt::format("line {}: {}{}", line, text.substr(0, 300), note.empty() ? "" : "  <- " + note));
}

TraceCheck Finding::finish(std::int64_t checked, const std::string& unit) {
  if (checked == 0 && check_.count == 0) {
    check_.verdict = CheckVerdict::skipped;
    check_.observed = "nothing to check";
  } else {
    check_.verdict = check_.count == 0 ? CheckVerdict::pass : CheckVerdict::fail;
    check_.observed = fmt::format("{} of {} {} violate it", check_.count, checked, unit);
  }
  return check_;
}

TraceCheck applies(Finding& f, const std::string& why_not, std::int64_t checked, const std::string& unit) {
  if (why_not.empty()) return f.finish(checked, unit);
  TraceCheck c = f.check();
  c.verdict = CheckVerdict::not_applicable;
  c.count = 0;  // what it would have flagged is no finding
  c.lines.clear();
  c.rows.clear();
  c.observed = "not applicable: " + why_not;
  return c;
}

}  // namespace retrylab::validation::trace
