#pragma once
// StudySpec: a study read from TOML (toml++): named sweeps, each expanded into an ordered list of
// points (a Scenario, or a strategy and retry k for sleep sweeps), at one scale (quick or full).
// Invariants: every point's scenario passed montecarlo::check_scenario; runs >= 1; sweeps keep file
// order; points are in a fixed order (grid blocks in file order, then fields in the order model,
// strategy, base, cap, window, clients, rate, horizon, warmup, collapse, retries, last varying
// fastest), so a point's index names it for the results store.
// Any unknown key, wrong type or out-of-range value throws SpecError naming the key and its line.
//
// File layout (see papers/cap-is-doing-the-work/study.toml):
//   [study]  name, title, seed
//   [sweep.NAME]  kind (grid|checks|sleep|classic|frontier|steady|burst|drain), title, runs, seed,
//                 metrics = [...] (summaries kept), per_run = [...] (per-run values kept),
//                 draws, retry_max (sleep), thresholds = [K...] (steady), scenario fields
//                 (scalar or array: an array is a grid axis)
//   [[sweep.NAME.grid]]  blocks of scenario fields overriding the sweep's; points = their union
//   [sweep.NAME.quick] / [sweep.NAME.full]  per-scale overrides of any key above (grid replaces)
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analytic/error.hpp"
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

enum class SweepKind { grid, checks, sleep, classic, frontier, steady, burst, drain };
std::string_view to_string(SweepKind k) noexcept;

struct SweepPoint {
  montecarlo::Scenario scenario;  // sleep sweeps: only scenario.backoff is meaningful
  int retry = 0;                  // sleep sweeps: the retry k (>= 1)
};

// Canonical description of a point, stored with its result so a resume can check it.
std::string canonical(const SweepPoint& p, SweepKind kind);

struct SweepSpec {
  std::string name;
  SweepKind kind = SweepKind::grid;
  std::string title;
  std::int64_t runs = 20;                  // runs per point (grid kinds)
  std::uint64_t seed = 1;
  std::int64_t draws = 200000;             // sleep: draws per (strategy, k)
  std::vector<std::string> metrics;        // summary metrics kept (empty = all)
  std::vector<std::string> per_run;        // per-run values kept in the store
  std::vector<std::int64_t> thresholds;    // steady: collapse thresholds K' to report (<= collapse)
  std::vector<SweepPoint> points;
};

struct StudySpec {
  std::string name;
  std::string title;
  std::string scale;          // "quick" or "full"
  std::uint64_t seed = 1;
  std::uint64_t source_hash = 0;  // FNV-1a of the file text: a resume must use the same spec
  std::vector<SweepSpec> sweeps;
  std::int64_t total_points() const;
};

// Parses and validates the whole file (both scales), returns the requested one.
StudySpec parse_study_text(std::string_view text, const std::string& source_name, const std::string& scale);
StudySpec parse_study_file(const std::filesystem::path& file, const std::string& scale);

// The metric names a sweep may keep (models.md §5 JSON keys).
const std::vector<std::string>& metric_names();

std::uint64_t fnv1a(std::string_view text) noexcept;

}  // namespace retrylab::papers
