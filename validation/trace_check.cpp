#include "validation/trace_check.hpp"

#include <algorithm>

#include "validation/trace/invariants.hpp"
#include "validation/trace/reader.hpp"
#include "validation/trace/server_rules.hpp"
#include "validation/trace/sleep_rules.hpp"
#include "validation/trace/statistical_rules.hpp"

namespace retrylab::validation {

namespace {

// The collaborators of one check (validation/trace/): the reader hands records to this sink, which
// gives each to the invariants, and to the statistics with the sleeps the invariants found inside
// their support. Neither rule set knows the other or the reader.
class Rules final : public trace::RecordSink {
 public:
  explicit Rules(const montecarlo::Scenario& s)
      : server_(s), sleeps_(s, server_), invariants_(s, server_, sleeps_), stats_(s, server_, sleeps_) {}

  void begin_run(std::int64_t run, std::int64_t line) override {
    invariants_.begin_run(run);
    stats_.begin_run(line);
  }
  void row(const trace::Row& r, std::int64_t line, std::string_view text) override {
    if (const auto sample = invariants_.row(r, line, text)) stats_.sleep(*sample);
    stats_.row(r);
  }
  void end_run(const std::optional<trace::RunEnd>& stop) override {
    const double stop_time = stats_.stop_time(stop);
    invariants_.end_run(stop, stop_time);
    stats_.end_run(stop, stop_time);
  }
  std::vector<TraceCheck> finish() {
    std::vector<TraceCheck> out;
    invariants_.finish(out);
    stats_.finish(out);
    return out;
  }

 private:
  trace::ServerRules server_;
  trace::SleepRules sleeps_;
  trace::InvariantRules invariants_;
  trace::StatisticalRules stats_;
};

}  // namespace

std::string to_string(CheckVerdict v) {
  switch (v) {
    case CheckVerdict::pass: return "pass";
    case CheckVerdict::fail: return "FAIL";
    case CheckVerdict::skipped: return "skipped";
    case CheckVerdict::not_applicable: return "n/a";
  }
  return "";
}

bool TraceReport::passed() const {
  return std::none_of(checks.begin(), checks.end(),
                      [](const TraceCheck& c) { return c.verdict == CheckVerdict::fail; });
}

TraceReport check_trace(std::istream& in) {
  trace::TraceReader reader(in);
  TraceReport report;
  report.format = reader.header().json ? "jsonl" : "csv";
  report.declared = reader.header().declared;
  report.seed = reader.header().seed;
  Rules rules(report.declared);
  const trace::ReadCounts counts = reader.read(rules);
  report.rows = counts.rows;
  report.runs = counts.runs;
  report.checks = rules.finish();
  return report;
}

}  // namespace retrylab::validation
