#include "validation/trace_check.hpp"

#include <algorithm>

#include "analytic/error.hpp"
#include "validation/trace/invariants.hpp"
#include "validation/trace/ps_rules.hpp"
#include "validation/trace/reader.hpp"
#include "validation/trace/server_rules.hpp"
#include "validation/trace/sleep_rules.hpp"
#include "validation/trace/statistical_rules.hpp"
#include "validation/trace/traffic_rules.hpp"

namespace retrylab::validation {

namespace {

// The collaborators of one check (validation/trace/): the reader hands records to this sink, which
// gives each to the invariants, the service and traffic rules, and to the statistics with the
// sleeps the invariants found inside their support. No rule set knows another or the reader; the
// statistics of all of them share one false-alarm budget (settle_statistics).
class Rules final : public trace::RecordSink {
 public:
  explicit Rules(const montecarlo::Scenario& s)
      : server_(s),
        sleeps_(s, server_),
        invariants_(s, server_, sleeps_),
        service_(s, server_),
        traffic_(s, server_),
        stats_(s, server_, sleeps_) {}

  void begin_run(std::int64_t run, std::int64_t line) override {
    invariants_.begin_run(run);
    traffic_.begin_run(run, line);
    stats_.begin_run(line);
  }
  void row(const trace::Row& r, std::int64_t line, std::string_view text) override {
    if (const auto sample = invariants_.row(r, line, text)) stats_.sleep(*sample);
    service_.row(r, line);
    traffic_.row(r, line, text);
    stats_.row(r);
  }
  void end_run(const std::optional<trace::RunEnd>& stop) override {
    const double stop_time = stats_.stop_time(stop);
    invariants_.end_run(stop, stop_time);
    service_.end_run(stop);
    traffic_.end_run(stop);
    stats_.end_run(stop, stop_time);
  }
  std::vector<TraceCheck> finish() {
    std::vector<TraceCheck> out;
    std::vector<trace::StatCheck> stats;
    invariants_.finish(out);
    service_.finish(out);
    traffic_.finish(out, stats);
    stats_.finish(stats);
    trace::settle_statistics(stats, out);
    return out;
  }

 private:
  trace::ServerRules server_;
  trace::SleepRules sleeps_;
  trace::InvariantRules invariants_;
  trace::ServiceRules service_;
  trace::TrafficRules traffic_;
  trace::StatisticalRules stats_;
};

TraceReport report_of(const trace::TraceHeader& h, std::string format) {
  TraceReport report;
  report.format = std::move(format);
  report.declared = h.declared;
  report.seed = h.seed;
  report.unit = h.unit;
  report.attempt_duration = h.attempt_duration;
  return report;
}

// "line N: field" -> "row N: field", "line -1: key" -> "header: key": in-memory rows have no lines.
[[noreturn]] void rethrow_for_rows(const InputError& e) {
  const std::string& f = e.field();
  const std::string message = std::string(e.what()).substr(f.size() + 1);
  if (f.rfind("line -1: ", 0) == 0) throw InputError("header: " + f.substr(9), message);
  if (f.rfind("line ", 0) == 0) throw InputError("row " + f.substr(5), message);
  throw e;
}

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
  TraceReport report = report_of(reader.header(), reader.header().json ? "jsonl" : "csv");
  Rules rules(report.declared);
  const trace::ReadCounts counts = reader.read(rules);
  report.rows = counts.rows;
  report.runs = counts.runs;
  report.checks = rules.finish();
  return report;
}

TraceReport check_trace(const std::map<std::string, std::string>& header, const TraceColumns& rows,
                        std::span<const TraceRunEnd> run_ends) {
  try {
    const trace::TraceHeader h = trace::header_from_keys(header);
    TraceReport report = report_of(h, "rows");
    Rules rules(report.declared);
    const trace::ReadCounts counts = trace::feed_rows(h, rows, run_ends, rules);
    report.rows = counts.rows;
    report.runs = counts.runs;
    report.checks = rules.finish();
    return report;
  } catch (const InputError& e) {
    rethrow_for_rows(e);
  }
}

}  // namespace retrylab::validation
