#pragma once
// Progress of a study run on stderr: a one-line bar redrawn in place when stderr is a terminal
// (points done, runs per second, time left), plain log lines (at most one every few seconds, plus
// one per sweep) otherwise, nothing when quiet. Thread-safe: run_done() is called from the
// engine's worker threads.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace retrylab::papers {

class Progress {
 public:
  enum class Mode { bar, log, quiet };
  static Mode pick_mode(bool quiet);  // bar if stderr is a terminal, else log; quiet wins

  Progress(Mode mode, std::int64_t total_points, std::int64_t skipped_points);
  void start_sweep(const std::string& name, std::int64_t points, std::int64_t to_run);
  void start_point(const std::string& label);
  void run_done();
  void point_done();
  void finish();

 private:
  void draw(bool force);
  Mode mode_;
  std::int64_t total_, done_, skipped_, runs_ = 0, run_points_ = 0;
  std::string label_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  std::mutex mutex_;
};

}  // namespace retrylab::papers
