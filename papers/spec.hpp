#pragma once
// StudySpec: a study read from TOML (toml++): named sweeps, each expanded into an ordered list of
// points (a Scenario, or a strategy and retry k for sleep sweeps), at one scale (quick or full).
// Invariants: every point's scenario passed montecarlo::check_scenario; runs >= 1; sweeps keep file
// order; points are in a fixed order (grid blocks in file order, then fields in the order model,
// strategy, base, cap, window, clients, rate, horizon, warmup, collapse, retries, then the server
// fields below, last varying fastest), so a point's index names it for the results store.
// Any unknown key, wrong type or out-of-range value throws SpecError naming the key and its line;
// so does a study or sweep name that is not a plain file name (1 to 64 letters, digits, '_' or '-',
// not starting with '-') and a sweep whose output files would have another's names (output_stems).
//
// File layout (see papers/cap-is-doing-the-work/study.toml):
//   [study]  name, title, seed, replica_seed (a second seed: each sweep is run again under it
//            as NAME@2 unless it says replicate = false)
//   [sweep.NAME]  kind (grid|checks|sleep|classic|frontier|steady|burst|drain, or one of paper 2's
//                 brooker|amplification|budget|idempotency|breaker), title, runs, seed, replicate, unit
//                 (attempt, or ms / s with attempt_duration: the unit of every time and rate given),
//                 metrics = [...] (summaries kept), per_run = [...] (per-run values kept),
//                 draws, retry_max (sleep), thresholds = [K...] (steady), scenario fields
//                 (scalar or array: an array is a grid axis)
//   Server fields (montecarlo::Scenario; the CLI's flags with '_' for '-'), grid
//   kinds only, defaults as the CLI's: rows, service (deterministic|exponential|lognormal),
//   service_cv, delay, delay_dist (fixed|exponential|normal), delay_sd, lock (true/false or "on"/"off"), limit,
//   overflow (reject|queue), reject_cost, retry_after, retry_after_rule (fixed|uniform),
//   ignore_retry_after, aimd (on/off), aimd_initial, aimd_min, aimd_max, aimd_backoff,
//   aimd_timeout (number or "none"), mix, mix_strategy, mix_base, mix_cap (number or "none"),
//   mix_window. Ranges and combinations are check_scenario's, reported against the key given.
//   [[sweep.NAME.grid]]  blocks of scenario fields overriding the sweep's; points = their union
//   [sweep.NAME.quick] / [sweep.NAME.full]  per-scale overrides of any key above (grid replaces)
// Paper 2's kinds keep summaries of their own (papers/kinds.hpp; none of metrics, per_run,
// thresholds, draws, retry_max):
//   brooker, budget, idempotency, breaker: engine scenarios (the fields above), written in ms
//     (unit = "ms" and attempt_duration are required); brooker is Brooker's OCC test
//     (montecarlo/brooker_preset.hpp), the other three the failing dependency (model none); they
//     differ only in their summaries, tables and figures (papers/report.hpp).
//   amplification (LayeredScenario, montecarlo/amplification.hpp): layers, attempts, failure,
//     outage_fraction, requests (no time).
// series (papers/spec_series.hpp): one point per [[sweep.NAME.policies]] table (name + scenario
//   fields over the sweep's), each run with its time series (montecarlo/series.hpp); unit ms or s.
// Engine kinds also take load_profile = "TEXT" (montecarlo/profile.hpp's forms in the sweep's unit,
// or a CSV file inside the spec's folder), set on every point.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/amplification.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::papers {

// An InputError that also knows where in the spec file it happened; what() reads
// "<file>:<line>: <key> <rule> (got <value>)".
class SpecError : public InputError {
 public:
  SpecError(std::string key, const std::string& message, std::string file, std::int64_t line);
  std::int64_t line() const noexcept { return line_; }
  const std::string& file() const noexcept { return file_; }
  const std::string& message() const noexcept { return message_; }

 private:
  std::string file_;
  std::int64_t line_;
  std::string message_;
};

enum class SweepKind {
  grid,
  checks,
  sleep,
  classic,
  frontier,
  steady,
  burst,
  drain,
  brooker,
  amplification,
  budget,
  idempotency,
  breaker,
  series
};
std::string_view to_string(SweepKind k) noexcept;

struct SweepPoint {
  montecarlo::Scenario scenario;          // sleep sweeps: only scenario.backoff is meaningful
  int retry = 0;                          // sleep sweeps: the retry k (>= 1)
  montecarlo::LayeredScenario layered{};  // amplification sweeps only (checked by check_layered)
  std::string label{};                    // series sweeps: the client policy's name (any text)
};

// A series sweep's own settings (papers/spec_series.hpp), times in attempt-durations: the bin width,
// the event window [event_start, event_end) (an outage or a load spike) the tables measure around,
// and recovery: goodput back to within recover_within (a fraction) of its level before the event,
// averaged over recover_over.
struct SeriesSettings {
  double bin = 0.0;
  double event_start = 0.0, event_end = 0.0;
  double recover_within = 0.1;
  double recover_over = 0.0;
};

// True for the failing-dependency kinds (budget, idempotency, breaker).
bool is_dependency_kind(SweepKind k) noexcept;

// Canonical description of a point, stored with its result so a resume can check it.
std::string canonical(const SweepPoint& p, SweepKind kind);

struct SweepSpec {
  std::string name;
  SweepKind kind = SweepKind::grid;
  std::string title;
  std::int64_t runs = 20;  // runs per point (grid kinds)
  std::uint64_t seed = 1;
  std::int64_t draws = 200000;           // sleep: draws per (strategy, k)
  std::vector<std::string> metrics;      // summary metrics kept (empty = all)
  std::vector<std::string> per_run;      // per-run values kept in the store
  std::vector<std::int64_t> thresholds;  // steady: collapse thresholds K' to report (<= collapse)
  std::vector<SweepPoint> points;
  // The unit the sweep was written in: empty (attempt-durations), or "ms" / "s" with the length of
  // one attempt-duration in it; points hold attempt-durations, records and tables show this unit.
  std::string unit;
  double attempt_duration = 1.0;
  // A replica: the same points as sweep `replica_of`, run under the study's replica_seed, so that a
  // statement's verdict rests on two independent seeds (papers/published.hpp). Replicas are named
  // NAME@2 (a name no spec can give: '@' is not allowed), come after every primary sweep, and
  // write no tables or figures of their own. Empty for a primary sweep.
  std::string replica_of;
  SeriesSettings series;  // series sweeps only
};

struct StudySpec {
  std::string name;
  std::string title;
  std::string scale;  // "quick" or "full"
  std::uint64_t seed = 1;
  std::optional<std::uint64_t>
      replica_seed;               // [study] replica_seed: every sweep with replicate = true runs again under it
  std::uint64_t source_hash = 0;  // FNV-1a (montecarlo/hash.hpp) of the file text: a resume must use the same spec
  std::vector<SweepSpec> sweeps;
  std::int64_t total_points() const;
};

// The replica of primary sweep NAME (NAME@2), or null when it has none.
const SweepSpec* replica_of(const StudySpec& spec, const std::string& name);

// Gives every primary sweep `seed` and every replica `seed + 1` (`--seed`): the replicas stay on a
// seed of their own, so the two seeds remain independent.
void reseed(StudySpec& spec, std::uint64_t seed);

// Parses and validates the whole file (both scales), returns the requested one.
StudySpec parse_study_text(std::string_view text, const std::string& source_name, const std::string& scale);
StudySpec parse_study_file(const std::filesystem::path& file, const std::string& scale);

// Limits checked while parsing, before anything runs: the spec file's size, a sweep's points
// (the product of its grid arrays), a sleep sweep's backoffs (one panel each in its figure), and at
// each scale the study's points and attempts over all its sweeps (montecarlo/resources.hpp).
inline constexpr std::uintmax_t max_spec_bytes = 1u << 20;
inline constexpr std::int64_t max_sweep_points = 100'000;
inline constexpr std::int64_t max_study_points = 100'000;  // summed over a study's sweeps, at each scale
inline constexpr std::ptrdiff_t max_sleep_panels = 60;

// The summary metrics the report of a sweep kind reads (papers/report/) for a point under model; a
// sweep that narrows `metrics` must keep them for each of its points.
std::vector<const char*> required_metrics(SweepKind kind, Model model);

// The file names (stems: NAME.md, NAME.csv, NAME.svg, ...) a sweep's report may write into the
// output folder (papers/report/), and those the study writes itself (README.md, results.jsonl,
// figure1.*, the published table, validation/, and study.toml when --out is the paper folder). The
// parser refuses a spec in which two of them are equal ignoring case.
std::vector<std::string> output_stems(const SweepSpec& sweep);
const std::vector<const char*>& reserved_output_names();

// The metric names a sweep may keep (docs/models.md §5 JSON keys).
const std::vector<std::string>& metric_names();

}  // namespace retrylab::papers
