#pragma once
// TraceReader: the syntax and order of an attempt trace (docs/traces.md), in one streaming pass.
// The constructor reads the header (CSV "# key=value" comments and the column line, or a JSON
// header object) into the declared scenario; read() then hands every record, in order, to a
// RecordSink. Invariants it enforces before a sink sees a record: lines are at most 64 KiB; runs
// never decrease and no row follows its run's end; within a run rows come in order of `end`; a
// run index stays below the header's runs=R. Anything else throws InputError("line N: field", ...).
// Times in the user's unit (time_unit=ms|s, attempt_duration=D) are divided by D as they are read,
// and rates multiplied by it: sinks see attempt-durations. Rows without a burst column are burst
// rows in a pure burst (no steady traffic), steady rows otherwise (Row::burst_given says so).
// In-memory rows (feed_rows) go through the same checks of syntax and order; "line" is then the
// row's index.
// The reader knows nothing of the rules: what a trace must satisfy is the sinks' business.
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "montecarlo/scenario.hpp"
#include "validation/trace/record.hpp"
#include "validation/trace_check.hpp"

namespace retrylab::validation::trace {

// Receives a trace's records in order. begin_run comes before the first record of a run, end_run
// once per run: with the run_end record, or empty when the trace has none for that run.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void begin_run(std::int64_t run, std::int64_t line) = 0;
  virtual void row(const Row& r, std::int64_t line, std::string_view text) = 0;
  virtual void end_run(const std::optional<RunEnd>& stop) = 0;
};

struct TraceHeader {
  montecarlo::Scenario declared;
  std::uint64_t seed = 0;
  bool json = false;                      // JSON lines, else CSV
  std::size_t columns = 9;                // CSV: 9 under the full column line, 8 without burst (+1 with kind)
  bool kinds = false;                     // version 3: rows end with the failure's kind
  std::optional<std::int64_t> runs;       // the header's runs=R
  std::int64_t line = 1;                  // the header's last line
  std::string unit = "attempt-duration";  // time_unit: attempt-duration, ms or s
  double attempt_duration = 1.0;          // one attempt-duration in `unit` (times are divided by it)
};

struct ReadCounts {
  std::int64_t rows = 0, runs = 0;
};

// The header of in-memory rows from its keys (the CSV header's: version, model, strategy, ...).
// Throws InputError("line -1: <key>", ...) on a bad key.
TraceHeader header_from_keys(const std::map<std::string, std::string>& keys);
// Hands in-memory rows and run_end records (times in the header's unit) to sink in the order a file
// gives them (each run_end after its run's rows): the checks of read(), with the row index as line.
ReadCounts feed_rows(const TraceHeader& h, const TraceColumns& rows, std::span<const TraceRunEnd> ends,
                     RecordSink& sink);

class TraceReader {
 public:
  explicit TraceReader(std::istream& in);  // reads the header
  const TraceHeader& header() const noexcept { return header_; }
  ReadCounts read(RecordSink& sink);  // the body, to its end

 private:
  bool next_line();
  void read_csv_header(std::map<std::string, std::string>& kv, std::map<std::string, std::int64_t>& key_line);
  void read_json_header(std::map<std::string, std::string>& kv);
  bool parse_record(std::optional<Row>& row, std::optional<RunEnd>& stop);

  bool refill();

  static constexpr std::size_t buffer_size = 1 << 20;
  std::streambuf* in_;
  std::vector<char> buf_ = std::vector<char>(buffer_size);
  std::size_t pos_ = 0, end_ = 0;  // the unread part of buf_
  std::string line_;
  std::int64_t n_ = 0;
  TraceHeader header_;
};

}  // namespace retrylab::validation::trace
