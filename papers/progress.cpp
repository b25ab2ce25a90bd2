#include "papers/progress.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <unistd.h>

namespace retrylab::papers {

namespace {
std::string hms(double s) {
  if (!(s >= 0) || s > 1e7) return "--:--";
  const auto t = static_cast<long>(s + 0.5);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60) : fmt::format("{:02}:{:02}", t / 60, t % 60);
}
}  // namespace

Progress::Mode Progress::pick_mode(bool quiet) {
  if (quiet) return Mode::quiet;
  return ::isatty(STDERR_FILENO) ? Mode::bar : Mode::log;
}

Progress::Progress(Mode mode, std::int64_t total_points, std::int64_t skipped_points)
    : mode_(mode), total_(total_points), done_(skipped_points), skipped_(skipped_points),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {
  if (mode_ == Mode::log && skipped_ > 0)
    std::fprintf(stderr, "retrylab: resuming: %lld of %lld points already recorded\n",
                 static_cast<long long>(skipped_), static_cast<long long>(total_));
}

void Progress::start_sweep(const std::string& name, std::int64_t points, std::int64_t to_run) {
  std::lock_guard lock(mutex_);
  if (mode_ == Mode::log)
    std::fprintf(stderr, "retrylab: sweep %s: %lld points (%lld to run)\n", name.c_str(),
                 static_cast<long long>(points), static_cast<long long>(to_run));
}

void Progress::start_point(const std::string& label) {
  std::lock_guard lock(mutex_);
  label_ = label;
  draw(false);
}

void Progress::run_done() {
  std::lock_guard lock(mutex_);
  ++runs_;
  draw(false);
}

void Progress::point_done() {
  std::lock_guard lock(mutex_);
  ++done_;
  ++run_points_;
  draw(done_ == total_);
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (mode_ == Mode::bar) std::fprintf(stderr, "\n");
  if (mode_ != Mode::quiet)
    std::fprintf(stderr, "retrylab: %lld points run, %lld resumed, %lld runs in %s\n",
                 static_cast<long long>(run_points_), static_cast<long long>(skipped_),
                 static_cast<long long>(runs_), hms(secs).c_str());
}

void Progress::draw(bool force) {
  if (mode_ == Mode::quiet) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_draw_).count();
  if (!force && since < (mode_ == Mode::bar ? 0.2 : 5.0)) return;
  last_draw_ = now;
  const double secs = std::chrono::duration<double>(now - start_).count();
  const double rate = secs > 0 ? static_cast<double>(runs_) / secs : 0.0;
  const double left = run_points_ > 0 ? secs / static_cast<double>(run_points_) * static_cast<double>(total_ - done_) : -1;
  if (mode_ == Mode::bar) {
    const int width = 30;
    const int fill = total_ > 0 ? static_cast<int>(width * done_ / total_) : width;
    std::string bar(static_cast<std::size_t>(fill), '#');
    bar.resize(width, '.');
    std::string label = label_.substr(0, 40);
    std::fprintf(stderr, "\r[%s] %lld/%lld points  %.0f runs/s  left %s  %-40s", bar.c_str(),
                 static_cast<long long>(done_), static_cast<long long>(total_), rate, hms(left).c_str(), label.c_str());
  } else {
    std::fprintf(stderr, "retrylab: %lld/%lld points, %.0f runs/s, about %s left (%s)\n",
                 static_cast<long long>(done_), static_cast<long long>(total_), rate, hms(left).c_str(), label_.c_str());
  }
  std::fflush(stderr);
}

}  // namespace retrylab::papers
