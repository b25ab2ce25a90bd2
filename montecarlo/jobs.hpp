#pragma once
// Where the event loop (engine.hpp) keeps the attempts the server holds ("jobs") and the order their
// service ends in. Two stores with one interface (a job is named by a 32-bit handle):
//  - JobRing, the plain tier: every attempt is served at once for exactly one unit, so jobs end in
//    the order they were sent (real time: t + 1; virtual time: V + 1, both nondecreasing; proofs/
//    Engine.v: ps_fifo_order). The jobs live by value in a FIFO ring, a handle is the job's position
//    counter (wrapping), and the ring is its own end queue: push_end is a no-op, the front ends first.
//  - JobSlab, the full tier: jobs in recycled slots (an intrusive free list through Extra::next),
//    the fields only components use in a parallel Extra (the components' composed per-attempt state,
//    montecarlo/builds.hpp), and the ends in an EndQueue: a FIFO ring
//    when every service is equal (deterministic service, free rejections), else the monotone radix
//    heap; both pop in (end key, push order).
// Invariants: a handle stays valid from add() until its job is freed (free_job) or, in the ring,
// popped from the end queue and the next add(); the slab allocates nothing once the peak number
// held is reached, the ring only when it grows past the most held or shrinks (see resize).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "montecarlo/engine_parts.hpp"
#include "montecarlo/wake_queue.hpp"

namespace retrylab::montecarlo::detail {

// One attempt at the server: what every tier reads (32 bytes: two to a cache line).
struct Job {
  double start = 0.0;   // when its service started (the plain tier: when it was sent)
  double end = 0.0;     // real (collision, free, none) or virtual (shared, ps) service end
  std::int64_t id = 0;  // attempt id (send order; the plain tier's service order too)
  std::int32_t client = 0;
  bool rejected = false, success = false;
  bool orphaned = false;   // its client timed out: the outcome is discarded
  bool cancelled = false;  // left the server unserved: cancelled in service (Engine::cancel: its end,
                           // still queued, is skipped) or withdrawn from a queue (Engine::withdraw)
};

class JobRing {
 public:
  explicit JobRing(std::size_t capacity) {
    const std::size_t c = std::bit_ceil(capacity < 64 ? std::size_t{64} : capacity);
    data_.resize(c);
    mask_ = static_cast<std::uint32_t>(c - 1);
  }
  // A new job at the back (send order = end order).
  [[gnu::always_inline]] std::int32_t add() {
    const std::uint32_t live = tail_ - head_;
    if (live > mask_) [[unlikely]] {
      resize(2 * (std::size_t{mask_} + 1));
    } else if (mask_ >= shrink_above && live < (mask_ + 1) / 16) [[unlikely]] {
      resize(std::max<std::size_t>(shrink_above, std::bit_ceil(4 * std::size_t{live})));
    }
    return static_cast<std::int32_t>(tail_++);  // rejected, orphaned, cancelled stay false in this tier
  }
  Job& operator[](std::int32_t h) noexcept { return data_[static_cast<std::uint32_t>(h) & mask_]; }
  void free_job(std::int32_t /*h*/) noexcept {}  // its slot was released when its end was popped

  // The end queue: the ring itself.
  void push_end(double /*time*/, std::int32_t /*h*/) noexcept {}
  bool ends_empty() const noexcept { return head_ == tail_; }
  std::size_t ends_size() const noexcept { return tail_ - head_; }
  double top_time() const noexcept { return data_[head_ & mask_].end; }  // needs !ends_empty()
  std::int32_t top_job() const noexcept { return static_cast<std::int32_t>(head_); }
  void pop_end() noexcept { ++head_; }
  std::int32_t end_job_at(std::size_t i) const noexcept { return static_cast<std::int32_t>(head_ + i); }

 private:
  // A ring of `capacity` slots (a power of two, above the live count) holding the live jobs: a
  // handle is a position, so it names the same job in any ring that holds [head, tail). The ring
  // grows when full and shrinks when a sixteenth of it is live: a burst of N clients sends N jobs
  // at once, but later few are in flight, and a ring left at N slots would cycle through all of
  // them (at N = 100,000, 4 MB: a cache miss every other attempt) instead of a few cache lines.
  [[gnu::noinline]] void resize(std::size_t capacity) {
    std::vector<Job> other(capacity);
    const auto mask = static_cast<std::uint32_t>(capacity - 1);
    for (std::uint32_t p = head_; p != tail_; ++p) other[p & mask] = data_[p & mask_];
    data_.swap(other);
    mask_ = mask;
  }
  static constexpr std::uint32_t shrink_above = 1024;  // slots: a ring this small is never shrunk
  std::vector<Job> data_;
  std::uint32_t head_ = 0, tail_ = 0;  // position counters (wrapping); live jobs are [head, tail)
  std::uint32_t mask_ = 0;
};

template <class Extra>
class JobSlab {
 public:
  // fifo_ends: every service is equal, so ends are pushed in nondecreasing key order.
  explicit JobSlab(bool fifo_ends) : fifo_(fifo_ends) {}
  // Empties the slab for a new run (as if constructed with fifo_ends), keeping its memory.
  void reset(bool fifo_ends) noexcept {
    jobs_.clear();
    extra_.clear();
    free_ = -1;
    fifo_ = fifo_ends;
    ring_.clear();
    heap_.clear();
  }
  [[gnu::always_inline]] std::int32_t add() {
    if (free_ >= 0) [[likely]] {
      const std::int32_t j = free_;
      free_ = extra_[j].next;
      // Only what may be read before it is written again (the loop and the components set the rest).
      jobs_[j].rejected = jobs_[j].success = jobs_[j].orphaned = jobs_[j].cancelled = false;
      return j;
    }
    jobs_.push_back(Job{});
    extra_.push_back(Extra{});
    return static_cast<std::int32_t>(jobs_.size() - 1);
  }
  Job& operator[](std::int32_t j) noexcept { return jobs_[static_cast<std::size_t>(j)]; }
  Extra& extra(std::int32_t j) noexcept { return extra_[static_cast<std::size_t>(j)]; }
  void free_job(std::int32_t j) noexcept {
    extra_[static_cast<std::size_t>(j)].next = free_;
    free_ = j;
  }

  [[gnu::always_inline]] void push_end(double time, std::int32_t j) {
    if (fifo_) {
      ring_.push_back({time, j});
    } else {
      heap_.push(time, j);
    }
  }
  bool ends_empty() const noexcept { return fifo_ ? ring_.empty() : heap_.empty(); }
  std::size_t ends_size() const noexcept { return fifo_ ? ring_.size() : heap_.size(); }
  double top_time() noexcept { return fifo_ ? ring_.front().time : heap_.top_time(); }  // needs !ends_empty()
  std::int32_t top_job() noexcept { return fifo_ ? ring_.front().job : heap_.top().client; }
  void pop_end() noexcept {
    if (fifo_) {
      ring_.pop_front();
    } else {
      heap_.pop();
    }
  }

 private:
  struct End {
    double time;
    std::int32_t job;
  };
  std::vector<Job> jobs_;
  std::vector<Extra> extra_;
  std::int32_t free_ = -1;  // head of the free slots (Extra::next)
  bool fifo_;
  Ring<End> ring_;
  MonotoneWakeQueue heap_;  // same (time, push order) as the 4-ary heap for any push order
};

}  // namespace retrylab::montecarlo::detail
