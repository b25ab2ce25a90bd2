#include "validation/trace/reader.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <cmath>
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

// ---- parsing ------------------------------------------------------------------------------

std::optional<double> to_double(std::string_view s) {
  double x = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

std::optional<std::int64_t> to_int(std::string_view s) {
  std::int64_t x = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return x;
}

double need_double(std::string_view s, std::int64_t line, const char* field) {
  const auto x = to_double(s);
  if (!x) malformed(line, field, fmt::format("must be a finite number (got \"{}\")", s.substr(0, 40)));
  return *x;
}

std::int64_t need_int(std::string_view s, std::int64_t line, const char* field) {
  const auto x = to_int(s);
  if (!x || *x < 0) malformed(line, field, fmt::format("must be an integer >= 0 (got \"{}\")", s.substr(0, 40)));
  return *x;
}

// The header as key=value strings (CSV comments or the JSON header object), then a Scenario.
struct Header {
  std::map<std::string, std::string> kv;
  std::map<std::string, std::int64_t> key_line;  // where each key was given (CSV: its own line)
  std::int64_t line = 1;
};

// The fields a version-2 header may carry beyond the version-1 ones: every field of the scenario
// field table after the base ones (montecarlo/fields.hpp; montecarlo::trace_server_fields writes
// them in canonical()'s spelling). Reads them into s; each error names the key and its line.
void declared_server(const Header& h, montecarlo::Scenario& s, bool version2) {
  for (const montecarlo::Field& f : montecarlo::scenario_fields()) {
    if (f.presence == montecarlo::Presence::always) continue;
    const std::string key(f.name);
    const auto it = h.kv.find(key);
    if (it == h.kv.end()) continue;
    const std::int64_t line = h.key_line.count(key) ? h.key_line.at(key) : h.line;
    const std::string& v = it->second;
    if (!version2)
      malformed(line, key, "is a server option: the header must declare version=2 (version 1 traces have none)");
    try {
      f.set(s, montecarlo::parse_field(f, v));
    } catch (const InputError&) {
      malformed(line, key, fmt::format("{} (got \"{}\")", montecarlo::field_rule(f), v.substr(0, 40)));
    }
  }
}

montecarlo::Scenario declared_scenario(const Header& h, std::uint64_t& seed) {
  const auto get = [&](const char* key) -> std::optional<std::string> {
    const auto it = h.kv.find(key);
    if (it == h.kv.end()) return std::nullopt;
    return it->second;
  };
  const auto need = [&](const char* key) {
    auto v = get(key);
    if (!v) malformed(h.line, key, "is required in the header");
    return *v;
  };
  const auto num = [&](const char* key, double fallback) {
    const auto v = get(key);
    return v ? need_double(*v, h.line, key) : fallback;
  };
  const std::string version = need("version");
  if (version != "1" && version != "2")
    malformed(h.line, "version", fmt::format("must be 1, or 2 with server options (got \"{}\")", version));
  montecarlo::Scenario s;
  const auto model = parse_model(need("model"));
  if (!model)
    malformed(h.line, "model", fmt::format("must be collision, free, shared or ps (got \"{}\")", need("model")));
  const auto strategy = parse_strategy(need("strategy"));
  if (!strategy)
    malformed(
        h.line, "strategy",
        fmt::format("must be none, nojitter, full, equal, decorrelated or window (got \"{}\")", need("strategy")));
  s.model = *model;
  s.backoff.strategy = *strategy;
  s.backoff.base = num("base", 1.0);
  const auto cap = get("cap");
  s.backoff.cap = !cap || *cap == "none" ? (cap ? unbounded_cap : 1000.0) : need_double(*cap, h.line, "cap");
  s.backoff.window = num("window", 0.0);
  const auto clients = get("clients");
  s.traffic.clients = clients ? need_int(*clients, h.line, "clients") : 0;
  s.traffic.rate = num("rate", 0.0);
  s.measurement.horizon = num("horizon", 0.0);
  s.measurement.warmup = num("warmup", 0.0);
  const auto collapse = get("collapse");
  s.measurement.collapse = collapse ? need_int(*collapse, h.line, "collapse") : 3000;
  const std::string retries = need("retries");
  if (retries != "on" && retries != "off")
    malformed(h.line, "retries", fmt::format("must be on or off (got \"{}\")", retries));
  s.client.retries = retries == "on";
  const auto unit = get("time_unit");
  if (unit && *unit != "attempt-duration")
    malformed(
        h.line, "time_unit",
        fmt::format("must be attempt-duration (got \"{}\"): rescale times so one attempt served alone takes 1", *unit));
  const auto seed_text = get("seed");
  seed = 0;
  if (seed_text) {
    std::uint64_t x = 0;
    const auto [p, ec] = std::from_chars(seed_text->data(), seed_text->data() + seed_text->size(), x);
    if (ec != std::errc() || p != seed_text->data() + seed_text->size())
      malformed(h.line, "seed", fmt::format("must be an integer >= 0 (got \"{}\")", seed_text->substr(0, 40)));
    seed = x;
  }
  declared_server(h, s, version == "2");
  try {
    montecarlo::check_scenario(s);
  } catch (const InputError& e) {
    const auto at = h.key_line.find(e.field());
    malformed(at == h.key_line.end() ? h.line : at->second, e.field(),
              std::string(e.what()).substr(e.field().size() + 1));
  }
  return s;
}

// The header's optional runs=R: an integer >= 1; every run index is then below it.
std::optional<std::int64_t> runs_in_header(const Header& h) {
  const auto it = h.kv.find("runs");
  if (it == h.kv.end()) return std::nullopt;
  const auto line = h.key_line.count("runs") ? h.key_line.at("runs") : h.line;
  const auto v = to_int(it->second);
  if (!v || *v < 1)
    malformed(line, "runs", fmt::format("must be an integer >= 1 (got \"{}\")", it->second.substr(0, 40)));
  return v;
}

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

const char* csv_column(std::size_t i) {
  constexpr const char* names[] = {"run", "client", "arrival", "start", "end", "outcome", "retry", "sleep", "burst"};
  return i < 9 ? names[i] : "row";
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

// `columns`: 9 under the full column line, 8 under the one without burst; every row has exactly that many.
Row parse_csv_row(std::string_view line, std::int64_t n, std::size_t columns) {
  const auto f = split(line, ',');
  if (f.size() != columns)
    malformed(n, f.size() < columns ? std::string(csv_column(f.size())) : "row",
              fmt::format("{}: a row has exactly the column line's {} comma-separated fields ({}) (got {})",
                          f.size() < columns ? "is missing" : "has too many fields", columns,
                          columns == 9 ? "run,client,arrival,start,end,outcome,retry,sleep,burst"
                                       : "run,client,arrival,start,end,outcome,retry,sleep",
                          f.size()));
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
  if (f.size() == 9) {
    if (f[8] == "1")
      r.burst = true;
    else if (f[8] != "0")
      malformed(n, "burst", fmt::format("must be 0 or 1 (got \"{}\")", f[8].substr(0, 40)));
  }
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

Row parse_json_row(const nlohmann::json& j, std::int64_t n) {
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
  if (b != j.end()) {
    if (!b->is_boolean()) malformed(n, "burst", "must be true or false");
    r.burst = b->get<bool>();
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

bool TraceReader::next_line() {
  line_.clear();
  if (!in_) return false;
  bool any = false;
  for (;;) {
    const int c = in_->sbumpc();
    if (c == std::char_traits<char>::eof()) break;
    any = true;
    if (c == '\n') break;
    if (line_.size() >= max_line) malformed(n_ + 1, "line", fmt::format("must be at most {} bytes", max_line));
    line_.push_back(static_cast<char>(c));
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
  for (;;) {
    if (line_.empty() || line_[0] != '#') {
      if (line_ == montecarlo::trace_csv_columns) return;
      if (line_ == montecarlo::trace_csv_columns.substr(0, montecarlo::trace_csv_columns.size() - 6)) {
        header_.columns = 8;
        return;
      }
      malformed(n_, "header",
                fmt::format("must be '# key=value' lines then the column line \"{}\"", montecarlo::trace_csv_columns));
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
  Header h;
  if (!next_line()) malformed(1, "header", "is missing (empty trace)");
  if (!line_.empty() && line_[0] == '{') {
    header_.json = true;
    read_json_header(h.kv);
    header_.line = n_;
  } else {
    read_csv_header(h.kv, h.key_line);
  }
  h.line = header_.line;
  header_.declared = declared_scenario(h, header_.seed);
  header_.runs = runs_in_header(h);
}

// One body line: a row, a run's end, or nothing (a blank line, another comment). False at the end.
bool TraceReader::parse_record(std::optional<Row>& row, std::optional<RunEnd>& stop) {
  if (!next_line()) return false;
  if (line_.empty()) return true;
  if (!header_.json) {
    if (line_[0] != '#') {
      row = parse_csv_row(line_, n_, header_.columns);
      return true;
    }
    const auto pairs = comment_pairs(line_);
    if (!pairs.empty() && pairs[0].first == "run_end") stop = csv_run_end(pairs, n_);
    return true;  // other comments are ignored
  }
  check_nesting(line_, n_, "row");
  const auto j = nlohmann::json::parse(line_, nullptr, false);
  if (j.is_discarded() || !j.is_object()) malformed(n_, "row", "must be a JSON object");
  if (j.contains("run_end"))
    stop = json_run_end(j, n_);
  else
    row = parse_json_row(j, n_);
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

}  // namespace retrylab::validation::trace
