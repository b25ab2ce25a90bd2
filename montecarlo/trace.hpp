#pragma once
// Attempt traces (docs/traces.md): one row per attempt, written when the attempt ENDS, so within a
// run rows are ordered by end time (ties in the engine's processing order); runs follow each other
// in index order. A header declares the format version, model, strategy and its parameters, the
// traffic, retries, the server options that differ from their defaults (version 2, below), the
// time unit and the seed; after each run a run_end record gives why and when
// it stopped. Times are in attempt-durations, or in the user's unit (ms, s: time_unit and
// attempt_duration in the header), every time and rate of the header and the rows alike. Two encodings with the same
// fields: CSV (`#` key=value header lines, a column line) and JSON Lines (a header object, then one object per row).
// Invariants: the writer never holds a run's trace in memory (only the clients in flight: arrival,
// retry index, last sleep); the bytes depend only on (scenario, seed, runs), never on threads.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "montecarlo/metrics.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo {

inline constexpr int trace_format_version = 1;
// A trace of a scenario with server options declares version 2: the same columns, plus a
// header key for every server option that differs from its default (trace_server_fields), and rows
// in the client's view (start = send, end = when the outcome or the client's timeout came). A reader
// of version 1 would check such a trace against rules that do not hold there, so it must refuse it.
// Traces without server options are version 1, byte for byte as before.
inline constexpr int trace_server_format_version = 2;
// A trace of a scenario whose failures have kinds that matter (trace_has_kinds: failure_kind,
// outage_kind, reject_kind or retry_on other than their defaults) declares version 3: version 2's
// header and a last column `kind`, each failure's kind (retryable, throttled, fatal; empty on a
// success), so a checker can tell a request that ended on a kind its client does not retry from a
// client that vanished. Traces without them keep version 1 or 2, byte for byte.
inline constexpr int trace_kind_format_version = 3;

enum class TraceFormat { csv, jsonl };

// ".jsonl" -> jsonl, anything else -> csv.
TraceFormat trace_format_for(std::string_view path) noexcept;

// The CSV column line (without newline).
inline constexpr std::string_view trace_csv_columns = "run,client,arrival,start,end,outcome,retry,sleep,burst";
// Version 3's: the same, then the failure's kind.
inline constexpr std::string_view trace_csv_columns_kind =
    "run,client,arrival,start,end,outcome,retry,sleep,burst,kind";

// True when s's failures can be of a kind other than retryable or its clients retry only some kinds:
// its trace is version 3 (rows carry the kind).
bool trace_has_kinds(const Scenario& s) noexcept;

// A load profile makes the trace version 3 too: its header carries `load_profile`, the profile's
// canonical text in the trace's unit (montecarlo/profile.hpp), on one header line of at most 64 KiB
// (the reader's limit), so the text may have at most trace_max_profile_text characters.
inline constexpr std::size_t trace_max_profile_text = 60000;
std::string trace_profile_text(const Scenario& s, const TimeUnit& u = {});

// One attempt. retry = 0 for a client's first attempt; sleep is the sleep chosen before it (NaN for
// retry 0, written empty in CSV and null in JSON).
struct TraceRow {
  std::int64_t run = 0;
  std::int64_t client = 0;  // arrival order within the run, from 0
  double arrival = 0.0;
  double start = 0.0;
  double end = 0.0;
  bool success = false;
  std::int64_t retry = 0;
  double sleep = 0.0;
  bool burst = false;
  FailureKind kind = FailureKind::retryable;  // a failure's kind (written with version 3 only)
};

// The server options of s that differ from their defaults, as (key, value) in canonical(s)'s order
// and spelling (scenario.hpp: "rows"="4", "lock"="on", "timeout"="3", ...); empty without any.
std::vector<std::pair<std::string, std::string>> trace_server_fields(const Scenario& s);

// The header text (every line newline-terminated; CSV ends with the column line); version 3 when the
// scenario has kinds (trace_has_kinds) or a load profile. In a unit other
// than attempt-durations (u: ms or s, one attempt-duration = u.attempt_duration) the header says
// time_unit=ms and attempt_duration=D and gives every time (base, cap, window, horizon, warmup, the
// server options' times) times D and every rate divided by D; in attempt-durations it is byte for
// byte the header it always was.
std::string trace_header(const Scenario& s, std::uint64_t seed, std::int64_t runs, TraceFormat f,
                         const TimeUnit& u = {});
// One row / one run_end record as a newline-terminated line, its times (given in attempt-durations)
// written in the unit u; with `kinds` (version 3) the row ends with its failure's kind.
std::string trace_line(const TraceRow& r, TraceFormat f, const TimeUnit& u = {}, bool kinds = false);
std::string trace_run_end(std::int64_t run, std::string_view stop, double stop_time, TraceFormat f,
                          const TimeUnit& u = {});

// Simulates runs 0..runs−1 of s in index order (one thread: the file is the same for any --threads)
// and writes their trace to `path` through an AtomicFile (montecarlo/atomic_file.hpp). The lock-step
// shortcut is off, so every attempt is seen. Throws OutputError naming the file when it cannot be
// written or `path` is not a regular file.
// In the planted-fault library the fault comes from RETRYLAB_FAULT, as in simulate().
// u: the unit the trace is written in (simulate --unit ms|s --attempt-duration D); the engine runs
// in attempt-durations either way, so the attempts are the same, only their times are rescaled.
void write_trace(const Scenario& s, std::uint64_t seed, std::int64_t runs, const std::string& path,
                 const TimeUnit& u = {});

}  // namespace retrylab::montecarlo
