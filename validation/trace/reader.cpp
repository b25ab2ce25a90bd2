#include "validation/trace/reader.hpp"

#include "validation/trace/declared.hpp"
#include "validation/trace/server_rules.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/fields.hpp"
#include "montecarlo/trace.hpp"

namespace retrylab::validation::trace {

namespace {

constexpr std::size_t max_line = 1 << 16;
constexpr std::int64_t max_retry = std::numeric_limits<std::int32_t>::max();  // the engine's own limit

void check_run_index(std::int64_t run, const std::optional<std::int64_t>& runs, std::int64_t n) {
  if (runs && run >= *runs) malformed(n, "run", fmt::format("must be below the header's runs={} (got {})", *runs, run));
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  for (;;) {
    const std::size_t at = s.find(sep, from);
    out.push_back(s.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
    if (at == std::string_view::npos) return out;
    from = at + 1;
  }
}

const char* csv_column(std::size_t i, bool burst) {
  constexpr const char* names[] = {"run", "client", "arrival", "start", "end", "outcome", "retry", "sleep", "burst"};
  if (i == 8 && !burst) return "kind";
  return i < 9 ? names[i] : i == 9 ? "kind" : "row";
}

// Version 3's last field: a failure's kind (index into failure_kind_names), empty on a success.
void parse_kind(Row& r, std::string_view v, std::int64_t n) {
  r.kind_given = true;
  if (r.success) {
    if (!v.empty()) malformed(n, "kind", fmt::format("must be empty on a success row (got \"{}\")", v.substr(0, 40)));
    return;
  }
  for (std::size_t k = 0; k < std::size(montecarlo::failure_kind_names); ++k)
    if (v == montecarlo::failure_kind_names[k]) {
      r.kind = static_cast<std::uint8_t>(k);
      return;
    }
  malformed(n, "kind",
            fmt::format("must be retryable, throttled or fatal on a failure row (got \"{}\")", v.substr(0, 40)));
}

// Retry 0 has no sleep before it (its field is empty / null); a retry k >= 1 has one.
void check_sleep_given(const Row& r, std::int64_t n) {
  if (r.retry == 0 && r.has_sleep)
    malformed(n, "sleep", "must be empty on a retry-0 row (no sleep precedes a first attempt)");
  if (r.retry > 0 && !r.has_sleep)
    malformed(n, "sleep", fmt::format("is required on a retry-{} row (the sleep before it)", r.retry));
}

// "# k=v k=v" comment -> pairs; tokens without '=' are kept with an empty value.
std::vector<std::pair<std::string, std::string>> comment_pairs(std::string_view line) {
  std::vector<std::pair<std::string, std::string>> out;
  line.remove_prefix(1);
  for (std::string_view tok : split(line, ' ')) {
    if (tok.empty()) continue;
    const std::size_t eq = tok.find('=');
    if (eq == std::string_view::npos)
      out.emplace_back(std::string(tok), std::string());
    else
      out.emplace_back(std::string(tok.substr(0, eq)), std::string(tok.substr(eq + 1)));
  }
  return out;
}

// A row's times in attempt-durations (d: one attempt-duration in the trace's unit).
void rescale(Row& r, double d) {
  if (d == 1.0) return;
  r.arrival /= d;
  r.start /= d;
  r.end /= d;
  r.sleep /= d;
}

// `columns`: 9 under the full column line, 8 under the one without burst; every row has exactly that many.
// A CSV row's fields, without allocating: the first 9 kept, `count` counting them all.
struct RowFields {
  std::array<std::string_view, 10> f;
  std::size_t count = 0;
  std::string_view operator[](std::size_t i) const { return f[i]; }
  std::size_t size() const { return count; }
};

RowFields split_row(std::string_view s) {
  RowFields out;
  for (std::size_t from = 0;;) {
    const std::size_t at = s.find(',', from);
    if (out.count < out.f.size())
      out.f[out.count] = s.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from);
    ++out.count;
    if (at == std::string_view::npos) return out;
    from = at + 1;
  }
}

Row parse_csv_row(std::string_view line, std::int64_t n, std::size_t columns, bool kinds) {
  const RowFields f = split_row(line);
  const bool burst = columns == (kinds ? 10U : 9U);
  if (f.size() != columns)
    malformed(n, f.size() < columns ? std::string(csv_column(f.size(), burst)) : "row",
              fmt::format("{}: a row has exactly the column line's {} comma-separated fields ({}{}) (got {})",
                          f.size() < columns ? "is missing" : "has too many fields", columns,
                          burst ? "run,client,arrival,start,end,outcome,retry,sleep,burst"
                                : "run,client,arrival,start,end,outcome,retry,sleep",
                          kinds ? ",kind" : "", f.size()));
  Row r;
  r.run = need_int(f[0], n, "run");
  r.client = need_int(f[1], n, "client");
  r.arrival = need_double(f[2], n, "arrival");
  r.start = need_double(f[3], n, "start");
  r.end = need_double(f[4], n, "end");
  if (f[5] == "success")
    r.success = true;
  else if (f[5] != "failure")
    malformed(n, "outcome", fmt::format("must be success or failure (got \"{}\")", f[5].substr(0, 40)));
  r.retry = need_int(f[6], n, "retry");
  if (r.retry > max_retry) malformed(n, "retry", fmt::format("must be at most {} (got {})", max_retry, r.retry));
  r.has_sleep = !f[7].empty();
  if (r.has_sleep) r.sleep = need_double(f[7], n, "sleep");
  check_sleep_given(r, n);
  r.burst_given = burst;
  if (r.burst_given) {
    if (f[8] == "1")
      r.burst = true;
    else if (f[8] != "0")
      malformed(n, "burst", fmt::format("must be 0 or 1 (got \"{}\")", f[8].substr(0, 40)));
  }
  if (kinds) parse_kind(r, f[columns - 1], n);
  return r;
}

const nlohmann::json& member(const nlohmann::json& j, const char* key, std::int64_t n) {
  const auto it = j.find(key);
  if (it == j.end()) malformed(n, key, "is required");
  return *it;
}

double json_double(const nlohmann::json& j, const char* key, std::int64_t n) {
  const auto& v = member(j, key, n);
  if (!v.is_number() || !std::isfinite(v.get<double>())) malformed(n, key, "must be a finite number");
  return v.get<double>();
}

std::int64_t json_int(const nlohmann::json& j, const char* key, std::int64_t n) {
  const auto& v = member(j, key, n);
  if (!v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0))
    malformed(n, key, "must be an integer >= 0");
  if (v.is_number_unsigned() &&
      v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    malformed(n, key, "must be an integer below 2^63");
  return v.get<std::int64_t>();
}

Row parse_json_row(const nlohmann::json& j, std::int64_t n, bool kinds) {
  Row r;
  r.run = json_int(j, "run", n);
  r.client = json_int(j, "client", n);
  r.arrival = json_double(j, "arrival", n);
  r.start = json_double(j, "start", n);
  r.end = json_double(j, "end", n);
  const auto& o = member(j, "outcome", n);
  if (o == "success")
    r.success = true;
  else if (o != "failure")
    malformed(n, "outcome", "must be \"success\" or \"failure\"");
  r.retry = json_int(j, "retry", n);
  if (r.retry > max_retry) malformed(n, "retry", fmt::format("must be at most {} (got {})", max_retry, r.retry));
  const auto it = j.find("sleep");
  r.has_sleep = it != j.end() && !it->is_null();
  if (r.has_sleep) r.sleep = json_double(j, "sleep", n);
  check_sleep_given(r, n);
  const auto b = j.find("burst");
  r.burst_given = b != j.end();
  if (r.burst_given) {
    if (!b->is_boolean()) malformed(n, "burst", "must be true or false");
    r.burst = b->get<bool>();
  }
  if (kinds) {  // version 3: "kind" null (or absent) on a success, a kind's name on a failure
    const auto k = j.find("kind");
    if (k != j.end() && !k->is_null() && !k->is_string()) malformed(n, "kind", "must be a string or null");
    parse_kind(
        r, k == j.end() || k->is_null() ? std::string_view() : std::string_view(k->get_ref<const std::string&>()), n);
  }
  return r;
}

// A line nesting deeper than this is refused before nlohmann parses it (bounded recursion).
void check_nesting(const std::string& line, std::int64_t n, const char* field) {
  if (std::count(line.begin(), line.end(), '[') + std::count(line.begin(), line.end(), '{') > 64)
    malformed(n, field, "nests too deeply");
}

RunEnd csv_run_end(const std::vector<std::pair<std::string, std::string>>& pairs, std::int64_t n) {
  RunEnd e;
  bool has_run = false, has_time = false;
  for (const auto& [k, v] : pairs) {
    if (k == "run")
      e.run = need_int(v, n, "run"), has_run = true;
    else if (k == "stop")
      e.stop = v;
    else if (k == "stop_time")
      e.stop_time = need_double(v, n, "stop_time"), has_time = true;
  }
  if (!has_run || !has_time) malformed(n, "run_end", "needs run= and stop_time=");
  return e;
}

RunEnd json_run_end(const nlohmann::json& j, std::int64_t n) {
  RunEnd e;
  e.run = json_int(j, "run_end", n);
  e.stop_time = json_double(j, "stop_time", n);
  const auto s = j.find("stop");
  if (s != j.end() && s->is_string()) e.stop = s->get<std::string>();
  return e;
}

// The order of runs and rows the body must keep, and the run boundaries it implies.
class RunOrder {
 public:
  RunOrder(RecordSink& sink, const std::optional<std::int64_t>& runs) : sink_(sink), runs_(runs) {}

  void stop(const RunEnd& e, std::int64_t n) {
    if (e.stop != "" && e.stop != "finished" && e.stop != "drained" && e.stop != "collapsed" && e.stop != "horizon")
      malformed(n, "stop",
                fmt::format("must be finished, drained, collapsed or horizon (got \"{}\")", e.stop.substr(0, 40)));
    if (e.run < run_ || (e.run == run_ && closed_))
      malformed(n, "run", fmt::format("run_end for run {} comes after run {} (runs in increasing order)", e.run, run_));
    if (e.run == run_ && e.stop_time < last_end_ - tol(last_end_))
      malformed(n, "stop_time",
                fmt::format("must be >= the end {} of the run's last row (got {})", last_end_, e.stop_time));
    check_run_index(e.run, runs_, n);
    ++run_ends_;
    if (e.run > run_) {
      if (run_ >= 0 && !closed_) close(std::nullopt);
      run_ = e.run;
      sink_.begin_run(run_, n);
    }
    close(e);
    last_end_ = -inf;
  }

  void row(const Row& r, std::int64_t n, std::string_view text) {
    if (r.run < run_ || (r.run == run_ && closed_))
      malformed(n, "run",
                fmt::format("must not decrease and no row follows its run_end (got {} after {})", r.run, run_));
    if (r.run > run_) {
      check_run_index(r.run, runs_, n);
      if (run_ >= 0 && !closed_) close(std::nullopt);
      run_ = r.run;
      closed_ = false;
      last_end_ = -inf;
      sink_.begin_run(run_, n);
    }
    if (r.end < last_end_)
      malformed(n, "end",
                fmt::format("must be >= the previous row's end {} (rows are written when attempts end)", last_end_));
    last_end_ = r.end;
    ++counts_.rows;
    sink_.row(r, n, text);
  }

  ReadCounts finish(std::int64_t header_line) {
    if (run_ >= 0 && !closed_) close(std::nullopt);
    if (runs_ && run_ends_ > 0 && run_ends_ != *runs_)
      malformed(header_line, "runs",
                fmt::format("is {} in the header but the trace ends {} runs (run_end records)", *runs_, run_ends_));
    return counts_;
  }

 private:
  void close(const std::optional<RunEnd>& stop) {
    sink_.end_run(stop);
    ++counts_.runs;
    closed_ = true;
  }

  RecordSink& sink_;
  const std::optional<std::int64_t>& runs_;
  std::int64_t run_ = -1, run_ends_ = 0;
  double last_end_ = -inf;
  bool closed_ = false;
  ReadCounts counts_;
};

}  // namespace

// The stream is read in blocks of buffer_size and lines found with memchr (reading it a character
// at a time was a quarter of a check's time).
bool TraceReader::refill() {
  const std::streamsize got = in_->sgetn(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  pos_ = 0;
  end_ = got > 0 ? static_cast<std::size_t>(got) : 0;
  return end_ > 0;
}

bool TraceReader::next_line() {
  line_.clear();
  if (!in_) return false;
  bool any = false;
  for (;;) {
    if (pos_ == end_ && !refill()) break;
    const char* from = buf_.data() + pos_;
    const auto* nl = static_cast<const char*>(std::memchr(from, '\n', end_ - pos_));
    const std::size_t len = nl ? static_cast<std::size_t>(nl - from) : end_ - pos_;
    if (line_.size() + len > max_line) malformed(n_ + 1, "line", fmt::format("must be at most {} bytes", max_line));
    line_.append(from, len);
    any = true;
    pos_ += len + (nl ? 1 : 0);
    if (nl) break;
  }
  if (!any) return false;
  ++n_;
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  return true;
}

void TraceReader::read_json_header(std::map<std::string, std::string>& kv) {
  check_nesting(line_, n_, "header");
  const auto j = nlohmann::json::parse(line_, nullptr, false);
  if (j.is_discarded() || !j.is_object()) malformed(n_, "header", "must be a JSON object");
  for (const auto& [k, v] : j.items()) {
    const std::string key = k == "retrylab_trace" ? "version" : k;
    kv[key] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  if (!kv.count("version")) malformed(n_, "retrylab_trace", "is required in the header (the format version, 1)");
}

void TraceReader::read_csv_header(std::map<std::string, std::string>& kv,
                                  std::map<std::string, std::int64_t>& key_line) {
  using montecarlo::trace_csv_columns;
  const std::string_view no_burst = trace_csv_columns.substr(0, trace_csv_columns.size() - 6);
  for (;;) {
    if (line_.empty() || line_[0] != '#') {
      // versions 1 and 2: the columns, burst optional; version 3: then kind (checked in the constructor)
      if (line_ == trace_csv_columns) return;
      if (line_ == no_burst) {
        header_.columns = 8;
        return;
      }
      if (line_ == montecarlo::trace_csv_columns_kind || line_ == fmt::format("{},kind", no_burst)) {
        header_.kinds = true;
        header_.columns = line_ == montecarlo::trace_csv_columns_kind ? 10 : 9;
        return;
      }
      malformed(n_, "header",
                fmt::format("must be '# key=value' lines then the column line \"{}\" (version 3: \"{}\")",
                            trace_csv_columns, montecarlo::trace_csv_columns_kind));
    }
    for (auto& [k, v] : comment_pairs(line_)) {
      if (k == "retrylab-trace") continue;
      kv[k] = v;
      key_line[k] = n_;
    }
    header_.line = n_;
    if (!next_line()) malformed(n_ + 1, "header", "ends before the column line");
  }
}

TraceReader::TraceReader(std::istream& in) : in_(in.rdbuf()) {
  HeaderKeys h;
  if (!next_line()) malformed(1, "header", "is missing (empty trace)");
  if (!line_.empty() && line_[0] == '{') {
    header_.json = true;
    read_json_header(h.kv);
    header_.line = n_;
  } else {
    read_csv_header(h.kv, h.key_line);
  }
  h.line = header_.line;
  declare(h, header_);
  // Version 3 rows end with the kind (CSV: the column line says so; JSON: every row's "kind").
  const bool v3 = h.kv.at("version") == "3";
  if (header_.json) header_.kinds = v3;
  if (v3 != header_.kinds)
    malformed(header_.line, "header",
              v3 ? fmt::format("version 3 needs the column line \"{}\" (burst may be left out)",
                               montecarlo::trace_csv_columns_kind)
                 : "the kind column needs version=3 (versions 1 and 2 have no kind)");
}

// One body line: a row, a run's end, or nothing (a blank line, another comment). False at the end.
bool TraceReader::parse_record(std::optional<Row>& row, std::optional<RunEnd>& stop) {
  if (!next_line()) return false;
  if (line_.empty()) return true;
  if (!header_.json) {
    if (line_[0] != '#') {
      row = parse_csv_row(line_, n_, header_.columns, header_.kinds);
    } else {
      const auto pairs = comment_pairs(line_);
      if (!pairs.empty() && pairs[0].first == "run_end") stop = csv_run_end(pairs, n_);
      // other comments are ignored
    }
  } else {
    check_nesting(line_, n_, "row");
    const auto j = nlohmann::json::parse(line_, nullptr, false);
    if (j.is_discarded() || !j.is_object()) malformed(n_, "row", "must be a JSON object");
    if (j.contains("run_end"))
      stop = json_run_end(j, n_);
    else
      row = parse_json_row(j, n_, header_.kinds);
  }
  const double d = header_.attempt_duration;
  if (row) {
    rescale(*row, d);
    if (!row->burst_given) row->burst = !steady_traffic(header_.declared);  // a pure burst: every client is in it
  }
  if (stop) stop->stop_time /= d;
  return true;
}

ReadCounts TraceReader::read(RecordSink& sink) {
  RunOrder order(sink, header_.runs);
  for (;;) {
    std::optional<Row> row;
    std::optional<RunEnd> stop;
    if (!parse_record(row, stop)) break;
    if (stop)
      order.stop(*stop, n_);
    else if (row)
      order.row(*row, n_, line_);
  }
  return order.finish(header_.line);
}

namespace {

// Row i of in-memory columns, checked as a CSV row is (integers >= 0, finite times, a sleep exactly
// on retries), in attempt-durations.
Row column_row(const TraceHeader& h, const TraceColumns& c, std::size_t i) {
  const auto n = static_cast<std::int64_t>(i);
  Row r;
  const auto count = [&](std::span<const std::int64_t> v, const char* field) {
    if (v[i] < 0) malformed(n, field, fmt::format("must be an integer >= 0 (got {})", v[i]));
    return v[i];
  };
  const auto time = [&](std::span<const double> v, const char* field) {
    if (!std::isfinite(v[i])) malformed(n, field, "must be a finite number");
    return v[i];
  };
  r.run = count(c.run, "run");
  r.client = count(c.client, "client");
  r.retry = count(c.retry, "retry");
  if (r.retry > max_retry) malformed(n, "retry", fmt::format("must be at most {} (got {})", max_retry, r.retry));
  r.arrival = time(c.arrival, "arrival");
  r.start = time(c.start, "start");
  r.end = time(c.end, "end");
  if (c.success[i] > 1) malformed(n, "outcome", "must be 1 (success) or 0 (failure)");
  r.success = c.success[i] == 1;
  r.has_sleep = !std::isnan(c.sleep[i]);
  if (r.has_sleep) r.sleep = time(c.sleep, "sleep");
  check_sleep_given(r, n);
  r.burst_given = !c.burst.empty();
  if (r.burst_given && c.burst[i] > 1) malformed(n, "burst", "must be 0 or 1");
  r.burst = r.burst_given ? c.burst[i] == 1 : !steady_traffic(h.declared);
  if (h.kinds) {  // 0, 1, 2: retryable, throttled, fatal on a failure; none (255) on a success
    r.kind_given = true;
    const std::uint8_t k = c.kind[i];
    if (r.success && k != trace_no_kind) malformed(n, "kind", "must be none on a success row");
    if (!r.success && k > 2) malformed(n, "kind", "must be retryable, throttled or fatal on a failure row");
    r.kind = r.success ? 0 : k;
  }
  return r;
}

void check_lengths(const TraceColumns& c) {
  const std::size_t n = c.run.size();
  const std::pair<const char*, std::size_t> sizes[] = {
      {"client", c.client.size()}, {"retry", c.retry.size()}, {"arrival", c.arrival.size()}, {"start", c.start.size()},
      {"end", c.end.size()},       {"sleep", c.sleep.size()}, {"outcome", c.success.size()}};
  for (const auto& [name, size] : sizes)
    if (size != n) malformed(-1, name, fmt::format("must have one entry per row: {} (got {})", n, size));
  if (!c.burst.empty() && c.burst.size() != n)
    malformed(-1, "burst", fmt::format("must have one entry per row: {}, or none (got {})", n, c.burst.size()));
  if (!c.kind.empty() && c.kind.size() != n)
    malformed(-1, "kind", fmt::format("must have one entry per row: {}, or none (got {})", n, c.kind.size()));
}

}  // namespace

ReadCounts feed_rows(const TraceHeader& h, const TraceColumns& rows, std::span<const TraceRunEnd> ends,
                     RecordSink& sink) {
  check_lengths(rows);
  if (h.kinds != !rows.kind.empty())
    malformed(-1, "kind",
              h.kinds ? "a version 3 trace needs the kind column" : "the kind column needs version 3 (a header key)");
  RunOrder order(sink, h.runs);
  std::size_t k = 0;
  const auto stop = [&](std::int64_t n) {
    RunEnd e{ends[k].run, ends[k].stop, ends[k].stop_time / h.attempt_duration};
    if (!std::isfinite(ends[k].stop_time)) malformed(n, "stop_time", "must be a finite number");
    ++k;
    order.stop(e, n);
  };
  for (std::size_t i = 0; i < rows.run.size(); ++i) {
    Row r = column_row(h, rows, i);
    while (k < ends.size() && ends[k].run < r.run) stop(static_cast<std::int64_t>(i));
    const std::string text =
        row_text({r.run, r.client, r.retry, rows.arrival[i], rows.start[i], rows.end[i],
                  r.has_sleep ? rows.sleep[i] : 0.0, r.success, r.has_sleep, r.burst, true, r.kind, r.kind_given});
    rescale(r, h.attempt_duration);
    order.row(r, static_cast<std::int64_t>(i), text);
  }
  while (k < ends.size()) stop(static_cast<std::int64_t>(rows.run.size()));
  return order.finish(-1);
}

}  // namespace retrylab::validation::trace
