#include "montecarlo/trace.hpp"

#include "montecarlo/fields.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "analytic/error.hpp"
#include "montecarlo/atomic_file.hpp"
#include "montecarlo/entry.hpp"
#include "montecarlo/observed_run.hpp"
#include "montecarlo/result.hpp"

namespace retrylab::montecarlo {

TraceFormat trace_format_for(std::string_view path) noexcept {
  constexpr std::string_view ext = ".jsonl";
  return path.size() >= ext.size() && path.substr(path.size() - ext.size()) == ext ? TraceFormat::jsonl
                                                                                   : TraceFormat::csv;
}

namespace {

// The fields canonical(s) prints after the base ones, in its order and spelling (fields.hpp), their
// times and rates in the unit u; not the text fields (the load profile has its own line, before
// these: trace_profile_text).
std::vector<std::pair<std::string, std::string>> trace_server_fields(const Scenario& s, const TimeUnit& u) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Field& f : scenario_fields())
    if (f.kind != FieldKind::text && f.presence != Presence::always && field_shown(f, s))
      out.emplace_back(std::string(f.name), format_field(f, u.out(dim_of(f), field_value(f, s))));
  return out;
}

// A time of a row in the unit u (u.out(Dim::time, .) without the call on the plain path's bytes).
double in_unit(double t, const TimeUnit& u) { return u.plain() ? t : u.out(Dim::time, t); }

}  // namespace

std::vector<std::pair<std::string, std::string>> trace_server_fields(const Scenario& s) {
  return trace_server_fields(s, TimeUnit{});
}

namespace {
// A header value as JSON: a number when it reads as a finite one, else a string ("on", "none", ...).
std::string json_value(const std::string& v) {
  double x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec == std::errc() && p == v.data() + v.size() && std::isfinite(x)) return v;
  return fmt::format("\"{}\"", v);
}
}  // namespace

bool trace_has_kinds(const Scenario& s) noexcept {
  return s.failures.failure_kind != FailureKind::retryable || s.failures.outage_kind != FailureKind::retryable ||
         s.admission.reject_kind != FailureKind::retryable || s.client.retry_on != 0;
}

std::string trace_profile_text(const Scenario& s, const TimeUnit& u) {
  const LoadProfile& p = s.traffic.load_profile;
  if (!p.set()) return {};
  return u.plain() ? p.text() : p.scaled(1.0 / u.attempt_duration).text();
}

std::string trace_header(const Scenario& s, std::uint64_t seed, std::int64_t runs, TraceFormat f, const TimeUnit& u) {
  const auto server = trace_server_fields(s, u);
  const std::string profile = trace_profile_text(s, u);
  const bool kinds = trace_has_kinds(s) || !profile.empty();  // version 3: the kind column
  const int version = kinds            ? trace_kind_format_version
                      : server.empty() ? trace_format_version
                                       : trace_server_format_version;
  const double window = s.backoff.strategy == Strategy::window ? s.backoff.window : 0.0;
  const double base = in_unit(s.backoff.base, u), horizon = in_unit(effective_horizon(s), u),
               warmup = in_unit(s.measurement.warmup, u), rate = u.out(Dim::per_time, s.traffic.rate);
  const double cap = in_unit(s.backoff.cap, u);
  // time_unit, and after it attempt_duration when the unit is not attempt-durations
  const std::string unit = u.plain() ? std::string("attempt-duration") : u.name;
  const std::string length = u.plain() ? std::string() : fmt::format("{}", u.attempt_duration);
  if (f == TraceFormat::csv) {
    std::string h = fmt::format("# retrylab-trace version={}\n", version);
    h += fmt::format("# model={}\n# strategy={}\n# base={}\n# cap={}\n# window={}\n", to_string(s.model),
                     to_string(s.backoff.strategy), base, format_cap(cap), in_unit(window, u));
    h += fmt::format("# clients={}\n# rate={}\n# horizon={}\n# warmup={}\n# collapse={}\n# retries={}\n",
                     s.traffic.clients, rate, horizon, warmup, s.measurement.collapse, s.client.retries ? "on" : "off");
    if (!profile.empty()) h += fmt::format("# load_profile={}\n", profile);
    for (const auto& [key, value] : server) h += fmt::format("# {}={}\n", key, value);
    h += fmt::format("# time_unit={}\n", unit);
    if (!u.plain()) h += fmt::format("# attempt_duration={}\n", length);
    h += fmt::format("# seed={}\n# runs={}\n# order=end\n", seed, runs);
    h += kinds ? trace_csv_columns_kind : trace_csv_columns;
    h += '\n';
    return h;
  }
  const std::string cap_text = std::isinf(cap) ? std::string("\"none\"") : fmt::format("{}", cap);
  std::string fields;
  if (!profile.empty()) fields += fmt::format(",\"load_profile\":\"{}\"", profile);
  for (const auto& [key, value] : server) fields += fmt::format(",\"{}\":{}", key, json_value(value));
  return fmt::format(
      "{{\"retrylab_trace\":{},\"model\":\"{}\",\"strategy\":\"{}\",\"base\":{},\"cap\":{},\"window\":{},"
      "\"clients\":{},\"rate\":{},\"horizon\":{},\"warmup\":{},\"collapse\":{},\"retries\":\"{}\"{},"
      "\"time_unit\":\"{}\"{},\"seed\":{},\"runs\":{},\"order\":\"end\"}}\n",
      version, to_string(s.model), to_string(s.backoff.strategy), base, cap_text, in_unit(window, u), s.traffic.clients,
      rate, horizon, warmup, s.measurement.collapse, s.client.retries ? "on" : "off", fields, unit,
      u.plain() ? std::string() : ",\"attempt_duration\":" + length, seed, runs);
}

std::string trace_line(const TraceRow& r, TraceFormat f, const TimeUnit& u, bool kinds) {
  const bool first = r.retry == 0 || !std::isfinite(r.sleep);
  const double arrival = in_unit(r.arrival, u), start = in_unit(r.start, u), end = in_unit(r.end, u);
  const std::string sleep = first ? std::string() : fmt::format("{}", in_unit(r.sleep, u));
  // version 3: the failure's kind, empty (null) on a success
  const std::string_view kind = r.success ? std::string_view() : failure_kind_names[static_cast<int>(r.kind)];
  if (f == TraceFormat::csv) {
    if (kinds)
      return fmt::format("{},{},{},{},{},{},{},{},{},{}\n", r.run, r.client, arrival, start, end,
                         r.success ? "success" : "failure", r.retry, sleep, r.burst ? 1 : 0, kind);
    return fmt::format("{},{},{},{},{},{},{},{},{}\n", r.run, r.client, arrival, start, end,
                       r.success ? "success" : "failure", r.retry, sleep, r.burst ? 1 : 0);
  }
  return fmt::format(
      "{{\"run\":{},\"client\":{},\"arrival\":{},\"start\":{},\"end\":{},\"outcome\":\"{}\",\"retry\":{},"
      "\"sleep\":{},\"burst\":{}{}}}\n",
      r.run, r.client, arrival, start, end, r.success ? "success" : "failure", r.retry,
      first ? std::string("null") : sleep, r.burst ? "true" : "false",
      !kinds      ? std::string()
      : r.success ? std::string(",\"kind\":null")
                  : fmt::format(",\"kind\":\"{}\"", kind));
}

std::string trace_run_end(std::int64_t run, std::string_view stop, double stop_time, TraceFormat f, const TimeUnit& u) {
  if (f == TraceFormat::csv)
    return fmt::format("# run_end run={} stop={} stop_time={}\n", run, stop, in_unit(stop_time, u));
  return fmt::format("{{\"run_end\":{},\"stop\":\"{}\",\"stop_time\":{}}}\n", run, stop, in_unit(stop_time, u));
}

void write_trace(const Scenario& s, std::uint64_t seed, std::int64_t runs, const std::string& path, const TimeUnit& u) {
  check_scenario(s);
  if (runs < 1) throw InputError("runs", fmt::format("must be >= 1 (got {})", runs));
  if (const std::size_t n = trace_profile_text(s, u).size(); n > trace_max_profile_text)
    throw InputError("load_profile", fmt::format("has a text of {} characters: a trace's header carries at most {} "
                                                 "(one line of at most 64 KiB)",
                                                 n, trace_max_profile_text));
  const detail::EngineOptions options;
  const auto faults = detail::entry_faults();
  const TraceFormat f = trace_format_for(path);
  AtomicFile sink(path);  // the trace is streamed through it (buffered, every write checked), never held
  sink.write(trace_header(s, seed, runs, f, u));
  for (std::int64_t run = 0; run < runs; ++run) {
    detail::TraceObserver trace(sink, f, run, s.client.retries, u, trace_has_kinds(s) || s.traffic.load_profile.set());
    detail::RunObserver observer(&trace, nullptr, nullptr);
    const RunResult r = detail::run_engine_plain_or_full(
        detail::full_tier(s, options), s, seed, static_cast<std::uint64_t>(run), options, observer, nullptr, faults);
    sink.write(trace_run_end(run, to_string(r.stop), r.stop_time, f, u));
  }
  sink.commit();
}

}  // namespace retrylab::montecarlo
