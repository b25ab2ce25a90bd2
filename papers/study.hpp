#pragma once
// Running a study: every point of every sweep is simulated (or, for sleep sweeps, drawn) and
// appended to the results store as soon as it finishes; then the tables and figures are rendered
// from the store alone, so a resumed run and an uninterrupted one give the same bytes.
// The caller passes the validation certificate id (papers/gate.hpp finds or makes it; the CLI
// calls the gate first), and every output names it.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "montecarlo/progress.hpp"
#include "montecarlo/result.hpp"
#include "papers/spec.hpp"

namespace retrylab::papers {

struct StudyOptions {
  std::filesystem::path out;          // output folder (created)
  bool resume = false;                // skip points recorded in out/results.jsonl
  int threads = 0;                    // engine threads, 0 = all cores
  std::optional<std::uint64_t> seed;  // replaces every sweep's seed
  bool quiet = false;                 // no progress at all
  std::string certificate_id;         // the validation certificate the results rest on
  bool render = true;                 // render tables and figures at the end
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

// --- Pieces for a driver that splits a study across processes (papers/mpi.hpp) ---
// A point's record is a pure function of (sweep, point, certificate) and, for a splittable point,
// of its RunResults in run-index order, whichever process or thread computed them. So a driver may
// hand out runs [first, last) of a point to any process, gather them in index order and build the
// very record a single process would.

using montecarlo::Progress;  // montecarlo/progress.hpp: the one progress display

// True when a point's work is independent engine runs (every kind but sleep and the extension
// kinds of papers/kinds.hpp, which run as one unit).
bool is_splittable(const SweepSpec& sw) noexcept;

// Runs first .. last-1 of point `point` on `threads` threads (0 = all cores), in index order;
// run_done() is called once per finished run (from any thread; may be empty).
std::vector<montecarlo::RunResult> run_range(const SweepSpec& sw, std::int64_t point, std::int64_t first,
                                             std::int64_t last, int threads, const std::function<void()>& run_done);

// The record of a splittable point from all its runs (results.size() == sw.runs, index order).
nlohmann::json point_record(const SweepSpec& sw, std::int64_t point, const std::string& certificate_id,
                            const std::vector<montecarlo::RunResult>& results);

// The record of any point, computed whole in this process (what run_study does for each point).
// Its engine runs publish their progress to `pulse` when given (never changes the record).
nlohmann::json run_whole_point(const SweepSpec& sw, std::int64_t point, const StudyOptions& options,
                               const std::function<void()>& run_done, montecarlo::Pulse* pulse = nullptr);

struct PendingPoint {
  std::size_t sweep = 0;   // index into StudySpec::sweeps
  std::int64_t point = 0;  // index into its points
};

// Runs the points of `todo` (the unrecorded points, in study order) and calls record(rec) once per
// point, in todo order (a driver buffers points that finish early). Called on one process only.
using PointDriver =
    std::function<void(const StudySpec& spec, const std::vector<PendingPoint>& todo, const StudyOptions& options,
                       Progress& progress, const std::function<void(const nlohmann::json&)>& record)>;

// run_study with the points run by `driver` instead of one after the other in this process; the
// store, resume checks, progress and rendering are the same, so the outputs are the same bytes.
StudyOutcome run_study(StudySpec spec, const StudyOptions& options, const PointDriver& driver);

}  // namespace retrylab::papers
