#pragma once
// Running a study: every point of every sweep is simulated (or, for sleep sweeps, drawn) and
// appended to the results store as soon as it finishes; then the tables and figures are rendered
// from the store alone, so a resumed run and an uninterrupted one give the same bytes.
// The caller passes the validation certificate id (the CLI gates on it; papers/ does not depend
// on validation/), and every output names it.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "papers/spec.hpp"

namespace retrylab::papers {

struct StudyOptions {
  std::filesystem::path out;                  // output folder (created)
  bool resume = false;                        // skip points recorded in out/results.jsonl
  int threads = 0;                            // engine threads, 0 = all cores
  std::optional<std::uint64_t> seed;          // replaces every sweep's seed
  bool quiet = false;                         // no progress at all
  std::string certificate_id;                 // the validation certificate the results rest on
  bool render = true;                         // render tables and figures at the end
};

struct StudyOutcome {
  std::int64_t points_run = 0;
  std::int64_t points_resumed = 0;
  double seconds = 0.0;
  std::vector<std::filesystem::path> outputs;  // tables and figures written
};

// Applies options.seed to the spec (every sweep), runs it, renders it.
StudyOutcome run_study(StudySpec spec, const StudyOptions& options);

// Renders every table and figure of a study from out/results.jsonl (all points must be recorded).
std::vector<std::filesystem::path> render_study(const StudySpec& spec, const std::filesystem::path& out);

}  // namespace retrylab::papers
