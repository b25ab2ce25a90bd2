#include "montecarlo/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <cstdio>

namespace retrylab::montecarlo {

namespace {

constexpr auto bar_period = std::chrono::milliseconds(100);  // at most 10 redraws a second
constexpr auto log_period = std::chrono::seconds(5);

std::string hms(double s) {
  if (!(s >= 0) || s > 1e7) return "--:--";
  const auto t = static_cast<long>(s + 0.5);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60)
                   : fmt::format("{:02}:{:02}", t / 60, t % 60);
}

// 950, 12.3k, 4.5M: rates and counts at a glance.
std::string si(double x) {
  if (x >= 1e9) return fmt::format("{:.1f}G", x / 1e9);
  if (x >= 1e6) return fmt::format("{:.1f}M", x / 1e6);
  if (x >= 1e4) return fmt::format("{:.1f}k", x / 1e3);
  return fmt::format("{:.3g}", x);
}

}  // namespace

struct Progress::Snapshot {
  double items;  // items done, the current one's finished share included
  double secs;
  std::int64_t runs, attempts;
};

Progress::Mode Progress::pick_mode(bool quiet) {
  if (quiet) return Mode::quiet;
  return ::isatty(STDERR_FILENO) ? Mode::bar : Mode::log;
}

Progress::Progress(Mode mode, std::string what, std::int64_t total, std::int64_t done)
    : mode_(mode),
      what_(std::move(what)),
      total_(total),
      resumed_(done),
      done_(done),
      start_(std::chrono::steady_clock::now()) {
  if (mode_ != Mode::quiet) ticker_ = std::thread([this] { tick(); });
}

Progress::~Progress() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void Progress::note(const std::string& line) {
  if (mode_ != Mode::log) return;
  const std::lock_guard lock(mutex_);
  std::fprintf(stderr, "retrylab: %s\n", line.c_str());
  std::fflush(stderr);
}

void Progress::start_item(const std::string& label, std::int64_t runs) {
  const std::lock_guard lock(mutex_);
  label_ = label;
  item_runs_.store(0);
  item_size_.store(runs);
}

void Progress::run_done() noexcept {
  runs_.fetch_add(1, std::memory_order_relaxed);
  item_runs_.fetch_add(1, std::memory_order_relaxed);
}

void Progress::item_done() noexcept {
  done_.fetch_add(1, std::memory_order_relaxed);
  item_runs_.store(0, std::memory_order_relaxed);
}

Progress::Snapshot Progress::snapshot() const {
  const auto done = static_cast<double>(done_.load(std::memory_order_relaxed));
  const double in_flight = static_cast<double>(pulse_.in_flight_ppm.load(std::memory_order_relaxed)) * 1e-6;
  const auto size = item_size_.load(std::memory_order_relaxed);
  double partial = size > 0 ? (static_cast<double>(item_runs_.load(std::memory_order_relaxed)) + in_flight) /
                                  static_cast<double>(size)
                   : runs_are_items_.load(std::memory_order_relaxed)
                       ? in_flight  // items are runs: each run in flight adds its fraction
                       : 0.0;
  partial = std::clamp(partial, 0.0, std::max(0.0, static_cast<double>(total_) - done));
  if (size > 0) partial = std::min(partial, 1.0);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return {done + partial, secs, runs_.load(std::memory_order_relaxed), pulse_.attempts.load(std::memory_order_relaxed)};
}

std::string Progress::status(bool last) const {
  const Snapshot s = snapshot();
  const double gained = s.items - static_cast<double>(resumed_);
  const double left = gained > 0 ? s.secs * (static_cast<double>(total_) - s.items) / gained : -1.0;
  std::string text = fmt::format("{}/{} {}", static_cast<std::int64_t>(s.items), total_, what_);
  if (s.secs > 0) {
    text += s.runs > 0 ? fmt::format(", {} runs/s", si(static_cast<double>(s.runs) / s.secs))
                       : fmt::format(", {} {}/s", si(gained / s.secs), what_);
    if (s.attempts > 0) text += fmt::format(", {} attempts/s", si(static_cast<double>(s.attempts) / s.secs));
  }
  return text + (last ? ", in " + hms(s.secs) : ", " + hms(left) + " left");
}

void Progress::tick() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (wake_.wait_for(lock,
                       mode_ == Mode::bar ? std::chrono::nanoseconds(bar_period) : std::chrono::nanoseconds(log_period),
                       [this] { return stop_; }))
      return;
    lock.unlock();
    draw(false);
    lock.lock();
  }
}

void Progress::draw(bool last) {
  const std::string text = status(last);
  const std::lock_guard lock(mutex_);
  if (mode_ == Mode::bar) {
    const double f = total_ > 0 ? std::clamp(snapshot().items / static_cast<double>(total_), 0.0, 1.0) : 1.0;
    constexpr int width = 24;
    std::string bar(static_cast<std::size_t>(f * width), '#');
    bar.resize(width, '.');
    if (last)
      std::fprintf(stderr, "\r\033[K");
    else
      std::fprintf(stderr, "\r[%s] %3.0f%% %s  %.30s\033[K", bar.c_str(), 100 * f, text.c_str(), label_.c_str());
  } else if (!last || printed_) {
    const std::string label = last || label_.empty() ? std::string() : " (" + label_ + ")";
    std::fprintf(stderr, "retrylab: %s%s\n", text.c_str(), label.c_str());
  }
  printed_ = true;
  std::fflush(stderr);
}

void Progress::finish() {
  if (mode_ == Mode::quiet || finished_) return;
  finished_ = true;
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  draw(true);
}

}  // namespace retrylab::montecarlo
