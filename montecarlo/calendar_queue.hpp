#pragma once
// A calendar wake-up queue (internal to the event loops; Brown 1988): sleeping clients ordered by
// (time, push order) exactly as MonotoneWakeQueue and WakeQueue order them (wake_queue.hpp), with
// the same interface, sized from the sleep law's window: every sleep is at most the cap, so a wake
// pushed at now + sleep lands within one "year" (the cap) of now, and a ring of buckets of width
// year / buckets spreads the sleeping clients a few to a bucket. Pushes beyond the year (a
// Retry-After longer than the cap, a service end, +inf) wait in a radix heap, the overflow, and
// move into the ring when the year reaches them. reset(n, 0) (no year: an unbounded cap, or a
// window so wide that the first sleeps would crowd one bucket) leaves the ring unused: every entry
// is then in the radix heap, and the queue is the radix heap behind one predictable branch.
// Invariants (times >= +0.0; a(t) = min(floor(t · buckets / year), far) is monotone in t, whatever
// the rounding, so a(t1) < a(t2) implies t1 < t2):
//  - the run holds, sorted by (time, push order), entries with a <= cur_, each earlier than every
//    ring and overflow entry; the ring holds entries with cur_ < a < cur_ + buckets, in slot
//    a mod buckets, each slot in push order; the overflow holds entries with a >= cur_ + buckets;
//  - cur_ only grows, and each time it grows every overflow entry with a < cur_ + buckets moves
//    into its slot (in (time, push order), as the radix heap pops), before any push can reach that
//    slot: so an entry of the overflow was pushed before every ring entry of the same time, and a
//    slot's stable sort by time gives (time, push order).
// Any push order keeps the exact order (a push at or below cur_ is inserted into the run); the
// speed needs monotone use, as MonotoneWakeQueue's does. tests/montecarlo/calendar_queue_test.cpp
// pops it against the radix heap; bench/queue_bench.cpp times it.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "analytic/strategy.hpp"
#include "montecarlo/wake_queue.hpp"

namespace retrylab::montecarlo::detail {

class CalendarWakeQueue {
 public:
  using Entry = MonotoneWakeQueue::Entry;
  static constexpr std::size_t min_buckets = 64, max_buckets = std::size_t{1} << 16;

  void reserve(std::size_t n) { run_.reserve(std::min<std::size_t>(n, 64)); }
  // Empties the queue, keeping its storage, for about n entries whose pushes land within `year` of
  // the last pop (year <= 0 or not finite: no ring, the radix heap alone): a bucket per four
  // entries, or buckets about `width` wide (e.g. the base, the first sleeps' scale) when that is
  // finer, 64 to 65,536 buckets.
  void reset(std::size_t n, double year = 0.0, double width = 0.0) {
    clear();
    overflow_.reset(n);
    if (!(year > 0.0) || !std::isfinite(year)) {
      ring_on_ = false;
      return;
    }
    ring_on_ = true;
    std::size_t want = std::max<std::size_t>(n / 4, 1);
    if (width > 0.0 && year / width < static_cast<double>(max_buckets))
      want = std::max(want, static_cast<std::size_t>(year / width));
    const std::size_t buckets = std::clamp(std::bit_ceil(want), min_buckets, max_buckets);
    if (slots_.size() != buckets) {
      slots_ = std::vector<Slot>(buckets);
      occupied_.assign(buckets / 64, 0);
    }
    mask_ = buckets - 1;
    per_time_ = static_cast<double>(buckets) / year;
  }
  void clear() noexcept {
    run_.clear();
    head_ = 0;
    if (ring_count_ > 0)
      for (auto& s : slots_) s.clear();
    std::fill(occupied_.begin(), occupied_.end(), 0);
    ring_count_ = 0;
    overflow_.clear();
    cur_ = 0;
    size_ = 0;
  }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }
  bool uses_ring() const noexcept { return ring_on_; }

  // The earliest time (+inf when empty). May sort the next bucket into the run.
  [[gnu::always_inline]] double top_time() noexcept {
    if (!ring_on_) return overflow_.top_time();
    if (head_ != run_.size()) return run_[head_].time;
    if (size_ == 0) return std::numeric_limits<double>::infinity();
    advance();
    return run_[head_].time;
  }
  // The earliest entry (not empty).
  [[gnu::always_inline]] const Entry& top() noexcept {
    if (!ring_on_) return overflow_.top();
    if (head_ == run_.size()) advance();
    return run_[head_];
  }

  [[gnu::always_inline]] void push(double time, std::int32_t client) {
    ++size_;
    if (!ring_on_) {
      overflow_.push(time, client);
      return;
    }
    const std::uint64_t a = bucket_of(time);
    if (a <= cur_) [[unlikely]] {
      insert_into_run({time, client});
    } else if (a - cur_ <= mask_) {
      const std::size_t s = a & mask_;
      slots_[s].push_back({time, client});
      occupied_[s >> 6] |= std::uint64_t{1} << (s & 63);
      ++ring_count_;
    } else {
      overflow_.push(time, client);
    }
  }

  // Removes the earliest entry (not empty).
  [[gnu::always_inline]] void pop() noexcept {
    --size_;
    if (!ring_on_) {
      overflow_.pop();
      return;
    }
    if (head_ == run_.size()) advance();
    if (++head_ == run_.size()) {
      run_.clear();
      head_ = 0;
    }
  }

 private:
  static constexpr std::uint64_t far = std::uint64_t{1} << 62;  // the bucket of every later time

  std::uint64_t bucket_of(double t) const noexcept {
    const double x = t * per_time_;
    return x < static_cast<double>(far) ? static_cast<std::uint64_t>(x) : far;
  }

  // After every entry of the run with a time <= e's (stable): from the back, or in front of head_
  // when e is earlier than the whole run.
  [[gnu::noinline]] void insert_into_run(const Entry& e) {
    if (head_ > 0 && head_ != run_.size() && e.time < run_[head_].time) {
      run_[--head_] = e;
      return;
    }
    run_.push_back(e);
    std::size_t i = run_.size() - 1;
    while (i > head_ && run_[i - 1].time > e.time) {
      run_[i] = run_[i - 1];
      --i;
    }
    run_[i] = e;
  }

  // The run is empty and the queue is not: moves cur_ to the next non-empty bucket (the ring's, or
  // the overflow's first when the ring is empty), brings the overflow up to the new year, and sorts
  // that bucket into the run.
  [[gnu::noinline]] void advance() noexcept {
    run_.clear();
    head_ = 0;
    if (ring_count_ == 0) {
      cur_ = bucket_of(overflow_.top_time());
    } else {
      cur_ += next_occupied(cur_ + 1);
    }
    while (!overflow_.empty()) {
      const Entry& e = overflow_.top();
      const std::uint64_t a = bucket_of(e.time);
      if (a - cur_ > mask_) break;  // a >= cur_ always holds here
      const std::size_t s = a & mask_;
      slots_[s].push_back(e);
      occupied_[s >> 6] |= std::uint64_t{1} << (s & 63);
      ++ring_count_;
      overflow_.pop();
    }
    const std::size_t s = cur_ & mask_;
    Slot& src = slots_[s];
    occupied_[s >> 6] &= ~(std::uint64_t{1} << (s & 63));
    ring_count_ -= src.size();
    for (const Entry& e : src) {  // stable insertion sort by time (a slot holds a few entries)
      run_.push_back(e);
      std::size_t j = run_.size() - 1;
      while (j > 0 && run_[j - 1].time > e.time) {
        run_[j] = run_[j - 1];
        --j;
      }
      run_[j] = e;
    }
    src.clear();
  }

  // The distance from cur_ to the first occupied bucket at or after `from` (the ring is not empty).
  std::uint64_t next_occupied(std::uint64_t from) const noexcept {
    std::size_t s = from & mask_;
    std::size_t w = s >> 6;
    std::uint64_t bits = occupied_[w] & (~std::uint64_t{0} << (s & 63));
    std::uint64_t skipped = 0;
    while (bits == 0) {
      skipped += 64 - (s & 63);
      w = (w + 1) & (occupied_.size() - 1);
      s = w << 6;
      bits = occupied_[w];
    }
    return 1 + skipped + (static_cast<std::size_t>(std::countr_zero(bits)) - (s & 63));
  }

  // A growable array whose append is inlined (growth out of line). Move-only.
  class Slot {
   public:
    [[gnu::always_inline]] void push_back(const Entry& e) {
      if (size_ == capacity_) [[unlikely]]
        grow();
      data_[size_++] = e;
    }
    std::size_t size() const noexcept { return size_; }
    void clear() noexcept { size_ = 0; }
    void reserve(std::size_t n) {
      while (capacity_ < n) grow();
    }
    Entry& operator[](std::size_t i) noexcept { return data_[i]; }
    const Entry* begin() const noexcept { return data_.get(); }
    const Entry* end() const noexcept { return data_.get() + size_; }

   private:
    [[gnu::noinline]] void grow() {
      const std::size_t capacity = capacity_ == 0 ? 4 : 2 * capacity_;
      auto data = std::make_unique_for_overwrite<Entry[]>(capacity);
      std::copy(begin(), end(), data.get());
      data_ = std::move(data);
      capacity_ = capacity;
    }
    std::unique_ptr<Entry[]> data_;
    std::size_t size_ = 0, capacity_ = 0;
  };

  Slot run_;  // sorted; entries before head_ are popped
  std::size_t head_ = 0;
  std::vector<Slot> slots_;              // the ring: slot a mod buckets holds bucket a
  std::vector<std::uint64_t> occupied_;  // bit s: slot s is not empty
  std::size_t ring_count_ = 0;
  std::uint64_t mask_ = 0;  // buckets − 1
  double per_time_ = 0.0;   // buckets per unit of time
  std::uint64_t cur_ = 0;   // the bucket of the run
  MonotoneWakeQueue overflow_;
  std::size_t size_ = 0;  // run, ring and overflow
  bool ring_on_ = false;
};

// The year a scenario's wake-up queue is sized to: the longest sleep its law draws but for a tail
// (the cap; the window W for `window`), or 0 (the radix heap alone) when that is unbounded, when
// sleeps are all 0 (`none`), or when the window is very wide: a cap more than 2^16 bases would put
// the first retries' sleeps (about a base) of a whole burst into one bucket. Speed only: any year
// gives the same order.
inline double wake_year(const Backoff& b) noexcept {
  if (b.strategy == Strategy::none) return 0.0;
  const double year = b.strategy == Strategy::window ? b.window : b.cap;
  if (!std::isfinite(year) || !(year > 0.0)) return 0.0;
  if (b.strategy != Strategy::window && year > 65536.0 * b.base) return 0.0;
  return year;
}

}  // namespace retrylab::montecarlo::detail
