#pragma once
// Wake-up queues (internal to the event loops): sleeping clients ordered by (time, push order), so
// equal times pop in push order, deterministically. Two with the same order and interface:
//  - WakeQueue: a 4-ary min-heap, for any push order (the full tier's queues);
//  - MonotoneWakeQueue: a radix heap on the bits of the double, O(1) amortised, made for event loops
//    whose pushes are never earlier than the last pop (the plain loop: a wake is pushed at
//    te + sleep, sleep >= 0, te the current time); other push orders stay exact, only slower.
//    Times must be >= +0.0 (the bits of a non-negative double order like the double).
// Both pop equal times in push order; tests/montecarlo check they pop the same sequence.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

namespace retrylab::montecarlo::detail {

// Wake-ups: an implicit 4-ary min-heap ordered by (time, sequence number) (ns-3 scheduler.h style).
// Entries are 16 bytes: the sequence number is 32 bits compared by serial-number arithmetic (a before
// b iff int32(a − b) < 0), exact as long as entries with equal times were pushed fewer than 2^31
// pushes apart (they are pushed within one round of a lock-step strategy). A 4-ary heap halves the
// depth of a binary one: fewer cache misses at N = 100,000.
class WakeQueue {
 public:
  struct Entry {
    double time;
    std::uint32_t seq;
    std::int32_t client;
  };
  void reserve(std::size_t n) { heap_.reserve(n); }
  bool empty() const noexcept { return heap_.empty(); }
  std::size_t size() const noexcept { return heap_.size(); }
  double top_time() const noexcept {
    return heap_.empty() ? std::numeric_limits<double>::infinity() : heap_.front().time;
  }
  const Entry& top() const noexcept { return heap_.front(); }

  void push(double time, std::int32_t client) {
    const Entry e{time, seq_++, client};
    std::size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      const std::size_t parent = (i - 1) >> 2;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  void pop() noexcept {
    const Entry last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return;
    Entry* h = heap_.data();
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = 4 * i + 1;
      std::size_t best;
      if (first + 3 < n) {
        // All four children: a branch-free tournament (the comparisons are data-dependent coin
        // flips, so branches would mispredict half the time).
        const std::size_t b01 = first + before(h[first + 1], h[first]);
        const std::size_t b23 = first + 2 + before(h[first + 3], h[first + 2]);
        best = before(h[b23], h[b01]) ? b23 : b01;
      } else {
        if (first >= n) break;
        best = first;
        for (std::size_t c = first + 1; c < n; ++c)
          if (before(h[c], h[best])) best = c;
      }
      if (!before(h[best], last)) break;
      h[i] = h[best];
      i = best;
    }
    h[i] = last;
  }

 private:
  static bool before(const Entry& a, const Entry& b) noexcept {
    // Bitwise, not short-circuit: lets the compiler emit flags and conditional moves, no branches.
    return (a.time < b.time) | ((a.time == b.time) & (static_cast<std::int32_t>(a.seq - b.seq) < 0));
  }
  std::vector<Entry> heap_;
  std::uint32_t seq_ = 0;
};

// Radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990) keyed on the 64 bits of a non-negative double,
// with a sorted run in front. Bucket b >= 1 holds the entries whose highest bit differing from
// `last_` (the smallest key of the current run) is bit b − 1; the run holds, sorted by (key, push
// order), every entry with key <= `run_max_`, and every bucket entry has a larger key. Invariants:
// every bucket entry is in the bucket its key and the current `last_` name (a refill moves `last_`
// only within the bits below the refilled bucket, so other buckets stay exact); entries with equal
// keys are therefore in one place, in push order (appends, refills and run insertions are stable),
// so equal times pop in push order, as in WakeQueue. A refill takes the lowest non-empty bucket: a
// small one is sorted into the run at once, a large one is spread over the buckets below it around
// its minimum. A push at or below `run_max_` is inserted into the run, so any push order gives the
// heap's order; the speed needs monotone use (no push earlier than the last entry popped or
// returned by top(): then pushes into the run are rare and land near its end). Pops are amortised
// O(1) (each entry moves at most 64 times, in practice a few).
class MonotoneWakeQueue {
 public:
  struct Entry {
    double time;
    std::int32_t client;
  };

  void reserve(std::size_t n) { run_.reserve(n); }  // the buckets grow on first use
  // Empties the queue, keeping its storage (a queue reused run after run allocates once), and
  // reserves room for n.
  void reset(std::size_t n) {
    clear();
    reserve(n);
  }
  void clear() noexcept {
    run_.clear();
    head_ = 0;
    for (auto& b : buckets_) b.clear();
    mask_ = 0;
    last_ = 0;
    run_max_ = 0;
    size_ = 0;
  }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }

  // The earliest time (+inf when empty). Only looks (the loop then pushes wakes earlier than it).
  [[gnu::always_inline]] double top_time() noexcept {
    if (head_ != run_.size()) return run_[head_].time;
    if (mask_ == 0) return std::numeric_limits<double>::infinity();
    return time_of(upper_min());
  }
  // The earliest entry (not empty).
  [[gnu::always_inline]] const Entry& top() noexcept {
    if (head_ == run_.size()) refill();
    return run_[head_];
  }

  [[gnu::always_inline]] void push(double time, std::int32_t client) {
    ++size_;
    const std::uint64_t k = bits(time);
    if (k <= run_max_) [[unlikely]] {
      insert_into_run({time, client});
      return;
    }
    if (mask_ == 0 && run_.size() - head_ < tiny) {
      // No bucket in use and a short run: the new latest key extends the run (a small queue, as in
      // light steady traffic, then never touches the buckets).
      run_.push_back({time, client});
      run_max_ = k;
      return;
    }
    const int b = bucket(k);
    buckets_[b].push_back({time, client}, k);
    mask_ |= std::uint64_t{1} << (b - 1);
  }

  // Removes the earliest entry (not empty).
  [[gnu::always_inline]] void pop() noexcept {
    if (head_ == run_.size()) refill();
    --size_;
    if (++head_ == run_.size()) {
      run_.clear();
      head_ = 0;
    }
  }

 private:
  static constexpr std::uint64_t unknown = ~std::uint64_t{0};  // above every key (NaN bits)
  static constexpr std::size_t small = 32;                     // a bucket this small is sorted at once (16–64: alike)
  static constexpr std::size_t tiny = 4;  // a run this short grows at its end while no bucket is used

  static std::uint64_t bits(double t) noexcept {
    std::uint64_t k;
    std::memcpy(&k, &t, sizeof k);
    return k;
  }
  static double time_of(std::uint64_t k) noexcept {
    double t;
    std::memcpy(&t, &k, sizeof t);
    return t;
  }
  int bucket(std::uint64_t k) const noexcept { return 64 - std::countl_zero(k ^ last_); }

  // Into the run, after every entry with a key <= e's (out of line: the hot push is a bucket append).
  // A run grown past 2·small first gives its upper half back to the buckets (so an insertion moves
  // at most 2·small entries in monotone use): run_max_ drops to the last key kept (not below last_),
  // and the entries given back, all above it, go to their buckets in order (no bucket holds a key
  // they hold).
  [[gnu::noinline]] void insert_into_run(const Entry& e) {
    const std::uint64_t k = bits(e.time);
    if (run_.size() - head_ >= 2 * small) {
      std::size_t cut = head_ + small;  // keep [head_, cut): cut past every key equal to the last kept
      const std::uint64_t kept = bits(run_[cut - 1].time);
      while (cut < run_.size() && bits(run_[cut].time) == kept) ++cut;
      if (cut < run_.size() && kept >= last_) {  // (kept < last_ only outside monotone use)
        for (std::size_t j = cut; j < run_.size(); ++j) {
          const std::uint64_t kj = bits(run_[j].time);
          const int b = bucket(kj);
          buckets_[b].push_back(run_[j], kj);
          mask_ |= std::uint64_t{1} << (b - 1);
        }
        run_.truncate(cut);
        run_max_ = kept;
        if (k > run_max_) {  // now above the run: a bucket entry
          const int b = bucket(k);
          buckets_[b].push_back(e, k);
          mask_ |= std::uint64_t{1} << (b - 1);
          return;
        }
      }
    }
    run_.push_back(e);
    std::size_t i = run_.size() - 1;
    while (i > head_ && bits(run_[i - 1].time) > k) {
      run_[i] = run_[i - 1];
      --i;
    }
    run_[i] = e;
  }

  // The smallest key in the buckets (not all empty): the lowest non-empty bucket's, which each
  // bucket keeps as it is appended to.
  std::uint64_t upper_min() const noexcept { return buckets_[std::countr_zero(mask_) + 1].min(); }

  // The run is empty and some bucket is not: moves the lowest non-empty bucket (every bucket below it
  // is empty, so scan order keeps push order among equal keys) into the run, or around its minimum.
  void refill() noexcept {
    const int i = std::countr_zero(mask_);
    Bucket& src = buckets_[i + 1];
    if (src.size() > small) last_ = upper_min();  // before the bucket leaves the mask
    mask_ &= ~(std::uint64_t{1} << i);
    if (src.size() <= small) {
      for (const Entry& e : src) {  // stable insertion sort by key
        const std::uint64_t k = bits(e.time);
        run_.push_back(e);
        std::size_t j = run_.size() - 1;
        while (j > 0 && bits(run_[j - 1].time) > k) {
          run_[j] = run_[j - 1];
          --j;
        }
        run_[j] = e;
      }
      last_ = bits(run_.front().time);
      run_max_ = bits(run_.back().time);
    } else {
      run_max_ = last_;
      for (const Entry& e : src) {
        const std::uint64_t k = bits(e.time);
        if (k == last_) {
          run_.push_back(e);
        } else {
          const int b = bucket(k);
          buckets_[b].push_back(e, k);
          mask_ |= std::uint64_t{1} << (b - 1);
        }
      }
    }
    src.clear();
  }

  // A growable array of entries whose append is inlined (std::vector's push_back was not: a call
  // per push); growth, by doubling, stays out of line. Move-only. The run and the buckets use it.
  class Array {
   public:
    [[gnu::always_inline]] void push_back(const Entry& e) {
      if (size_ == capacity_) [[unlikely]]
        grow(size_ + 1);
      data_[size_++] = e;
    }
    std::size_t size() const noexcept { return size_; }
    void clear() noexcept { size_ = 0; }
    void truncate(std::size_t n) noexcept { size_ = n; }  // n <= size()
    void reserve(std::size_t n) {
      if (n > capacity_) grow(n);
    }
    Entry& operator[](std::size_t i) noexcept { return data_[i]; }
    const Entry& operator[](std::size_t i) const noexcept { return data_[i]; }
    const Entry& front() const noexcept { return data_[0]; }
    const Entry& back() const noexcept { return data_[size_ - 1]; }
    const Entry* begin() const noexcept { return data_.get(); }
    const Entry* end() const noexcept { return data_.get() + size_; }

   private:
    [[gnu::noinline]] void grow(std::size_t at_least) {
      std::size_t capacity = capacity_ == 0 ? 16 : 2 * capacity_;
      while (capacity < at_least) capacity *= 2;
      auto data = std::make_unique_for_overwrite<Entry[]>(capacity);
      std::copy(begin(), end(), data.get());
      data_ = std::move(data);
      capacity_ = capacity;
    }
    std::unique_ptr<Entry[]> data_;
    std::size_t size_ = 0, capacity_ = 0;
  };

  // A bucket: an array that also keeps the smallest key appended since it was last cleared (a
  // refill then needs no pass to find it).
  class Bucket : public Array {
   public:
    [[gnu::always_inline]] void push_back(const Entry& e, std::uint64_t key) {
      Array::push_back(e);
      min_ = key < min_ ? key : min_;
    }
    std::uint64_t min() const noexcept { return min_; }  // unknown when empty
    void clear() noexcept {
      Array::clear();
      min_ = unknown;
    }

   private:
    std::uint64_t min_ = unknown;
  };

  Array run_;  // sorted; entries before head_ are popped
  std::size_t head_ = 0;
  Bucket buckets_[65];      // buckets_[b] is bucket b (buckets_[0] unused)
  std::uint64_t mask_ = 0;  // bit b − 1 set: bucket b is not empty
  std::uint64_t last_ = 0;
  std::uint64_t run_max_ = 0;
  std::size_t size_ = 0;
};

}  // namespace retrylab::montecarlo::detail
