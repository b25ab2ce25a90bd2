#pragma once
// StudySpec: a study read from TOML (toml++): named sweeps, each expanded into an ordered list of
// points (a Scenario, or a strategy and retry k for sleep sweeps), at one scale (quick or full).
// Invariants: every point's scenario passed montecarlo::check_scenario; runs >= 1; sweeps keep file
// order; points are in a fixed order (grid blocks in file order, then fields in the order model,
// strategy, base, cap, window, clients, rate, horizon, warmup, collapse, retries, then the server
// fields below, last varying fastest), so a point's index names it for the results store.
// Any unknown key, wrong type or out-of-range value throws SpecError naming the key and its line.
//
// File layout (see papers/cap-is-doing-the-work/study.toml):
//   [study]  name, title, seed
//   [sweep.NAME]  kind (grid|checks|sleep|classic|frontier|steady|burst|drain, or one of paper 2's
//                 brooker|amplification|budget|idempotency|breaker), title, runs, seed,
//                 metrics = [...] (summaries kept), per_run = [...] (per-run values kept),
//                 draws, retry_max (sleep), thresholds = [K...] (steady), scenario fields
//                 (scalar or array: an array is a grid axis)
//   Server fields (montecarlo::ServerOptions; the CLI's flags with '_' for '-'), grid
//   kinds only, defaults as the CLI's: rows, service (deterministic|exponential|lognormal),
//   service_cv, delay, delay_dist (fixed|exponential), lock (true/false or "on"/"off"), limit,
//   overflow (reject|queue), reject_cost, retry_after, retry_after_rule (fixed|uniform),
//   ignore_retry_after, aimd (on/off), aimd_initial, aimd_min, aimd_max, aimd_backoff,
//   aimd_timeout (number or "none"), mix, mix_strategy, mix_base, mix_cap (number or "none"),
//   mix_window. Ranges and combinations are check_scenario's, reported against the key given.
//   [[sweep.NAME.grid]]  blocks of scenario fields overriding the sweep's; points = their union
//   [sweep.NAME.quick] / [sweep.NAME.full]  per-scale overrides of any key above (grid replaces)
// Paper 2's kinds (papers/kinds.hpp runs them) take kind, title, runs, seed, grid, quick, full and
// their own scenario fields (none of metrics, per_run, thresholds, draws, retry_max), in this order:
//   brooker (montecarlo/brooker.hpp, ms): strategy, base, cap, window, clients, leg_mean, leg_sd
//   amplification (LayeredScenario): layers, attempts, failure, outage_fraction, requests
//   budget | idempotency | breaker (DependencyScenario, ms): rate, horizon, failure, outage_start,
//     outage_end, outage_failure (one outage [start, end) when outage_end > 0), service, service_mean,
//     service_sigma, capacity, timeout ("none" = no timeout), max_attempts, strategy, base, cap,
//     window, budget (preset), breaker (preset), idempotency, recovery_window
//   The three dependency kinds differ only in their tables and figures (papers/report.hpp).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/brooker.hpp"
#include "montecarlo/dependency.hpp"
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
  breaker
};
std::string_view to_string(SweepKind k) noexcept;

struct SweepPoint {
  montecarlo::Scenario scenario;  // sleep sweeps: only scenario.backoff is meaningful
  int retry = 0;                  // sleep sweeps: the retry k (>= 1)
  // Paper 2's kinds: the one matching the sweep kind is meaningful (checked by its simulator's check).
  montecarlo::BrookerScenario brooker{};        // brooker
  montecarlo::LayeredScenario layered{};        // amplification
  montecarlo::DependencyScenario dependency{};  // budget, idempotency, breaker
};

// True for the kinds whose points are DependencyScenarios (budget, idempotency, breaker).
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
};

struct StudySpec {
  std::string name;
  std::string title;
  std::string scale;  // "quick" or "full"
  std::uint64_t seed = 1;
  std::uint64_t source_hash = 0;  // FNV-1a (montecarlo/hash.hpp) of the file text: a resume must use the same spec
  std::vector<SweepSpec> sweeps;
  std::int64_t total_points() const;
};

// Parses and validates the whole file (both scales), returns the requested one.
StudySpec parse_study_text(std::string_view text, const std::string& source_name, const std::string& scale);
StudySpec parse_study_file(const std::filesystem::path& file, const std::string& scale);

// Limits checked while parsing, before anything runs: the spec file's size, a sweep's points
// (the product of its grid arrays), a sleep sweep's backoffs (one panel each in its figure).
inline constexpr std::uintmax_t max_spec_bytes = 1u << 20;
inline constexpr std::int64_t max_sweep_points = 100'000;
inline constexpr std::ptrdiff_t max_sleep_panels = 60;

// The summary metrics the report of a sweep kind reads (papers/report/); a sweep that narrows
// `metrics` must keep them.
std::vector<const char*> required_metrics(SweepKind kind);

// The metric names a sweep may keep (docs/models.md §5 JSON keys).
const std::vector<std::string>& metric_names();

}  // namespace retrylab::papers
