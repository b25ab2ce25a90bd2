#pragma once
// Progress: the one progress display of retrylab (simulate, validate, run, reproduce), on stderr
// only, never in results. On a terminal a one-line bar redrawn in place at most 10 times a second
// (items done of total, runs per second, attempts per second, time left, the current item);
// otherwise a log line every 5 seconds plus notes (e.g. one per sweep), so short commands print
// nothing; with quiet nothing at all. Items are what a command counts (runs, points, cases). An
// item made of several runs advances by its finished runs, and the runs in flight by their Pulse
// (the engine's coarse within-run progress, montecarlo/pulse.hpp), so one long run still moves.
// Thread-safe: run_done() and item_done() may be called from worker threads; a ticker thread
// owned by the display does all the drawing (none in quiet mode).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "montecarlo/pulse.hpp"

namespace retrylab::montecarlo {

class Progress {
 public:
  enum class Mode { bar, log, quiet };
  static Mode pick_mode(bool quiet);  // bar if stderr is a terminal, else log; quiet wins

  // `what` names the items in the plural ("runs", "points", "cases"); `done` were done before
  // (resumed) and count neither in the rate nor in the time left.
  Progress(Mode mode, std::string what, std::int64_t total, std::int64_t done = 0);
  ~Progress();  // stops the ticker; call finish() first for the last line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // The engine's live counters for RunPlan::pulse; null when quiet (the engine then skips them).
  Pulse* pulse() noexcept { return mode_ == Mode::quiet ? nullptr : &pulse_; }
  // Items that are not runs and whose runs are not known in advance (advise: a strategy's search):
  // the runs in flight then add nothing to the items done (they still count in runs/s, attempts/s).
  void items_are_not_runs() noexcept { runs_are_items_ = false; }
  void note(const std::string& line);                                // log mode: one line now
  void start_item(const std::string& label, std::int64_t runs = 0);  // the next item, of `runs` runs
  void run_done() noexcept;                                          // a run of the current item
  void item_done() noexcept;
  void finish();  // bar: clears the line; log: a last line if any line was printed

 private:
  struct Snapshot;
  Snapshot snapshot() const;
  std::string status(bool last) const;
  void tick();
  void draw(bool last);

  Mode mode_;
  std::string what_;
  std::int64_t total_, resumed_;
  std::atomic<std::int64_t> done_, runs_{0}, item_runs_{0}, item_size_{0};
  Pulse pulse_;
  std::chrono::steady_clock::time_point start_;
  mutable std::mutex mutex_;  // label_, drawing, the ticker's wake-up
  std::string label_;
  bool printed_ = false, stop_ = false, finished_ = false;
  std::atomic<bool> runs_are_items_{true};
  std::condition_variable wake_;
  std::thread ticker_;
};

}  // namespace retrylab::montecarlo
