// The monotone wake-up queue (radix heap) against the 4-ary heap: the same pops, entry by entry, on
// monotone push sequences rich in equal times (coarse grids, zero sleeps, subnormal and huge
// offsets, +inf), so the (time, push order) tie rule is checked where it matters; pushes land
// between a look at the next time and the pop, earlier than that time (as in the event loop), and
// top() is also called cold; then on pushes in any order, and on a queue reset after earlier use.
// Exact comparisons, fixed seeds: no false failures.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "montecarlo/random.hpp"
#include "montecarlo/wake_queue.hpp"

namespace mc = retrylab::montecarlo;
using mc::detail::MonotoneWakeQueue;
using mc::detail::WakeQueue;

namespace {

// A sleep from a few shapes: 0 (an equal time), grid steps, tiny and large offsets, rarely +inf.
double sleep_of(mc::Stream& r) {
  switch (r.index(6)) {
    case 0: return 0.0;
    case 1: return static_cast<double>(r.index(4));
    case 2: return 0.5 * static_cast<double>(r.index(3));
    case 3: return 1e-310 * static_cast<double>(r.index(3));  // subnormal steps
    case 4: return r.uniform() * 1000.0;
    default: return r.index(50) == 0 ? std::numeric_limits<double>::infinity() : 1e12 * r.uniform();
  }
}

// look: whether to read top_time() before each top() (the event loop) or call top() cold.
// reused: a queue that held other entries (then reset), as the engine's queue lent from run to run.
void expect_same_pops(std::uint64_t seed, int initial, int steps, bool look = true,
                      MonotoneWakeQueue* reused = nullptr) {
  WakeQueue heap;
  MonotoneWakeQueue fresh;
  if (reused) reused->reset(64);
  MonotoneWakeQueue& radix = reused ? *reused : fresh;
  mc::Stream r(seed, mc::StreamId::ties, 0);
  std::int32_t id = 0;
  for (int i = 0; i < initial; ++i) {
    const double t = static_cast<double>(r.index(5));
    heap.push(t, id);
    radix.push(t, id);
    ++id;
  }
  for (int step = 0; step < steps && !heap.empty(); ++step) {
    ASSERT_EQ(heap.size(), radix.size());
    if (look) {
      ASSERT_EQ(heap.top_time(), radix.top_time()) << "seed " << seed << " step " << step;
    }
    ASSERT_EQ(heap.top().client, radix.top().client) << "seed " << seed << " step " << step;
    ASSERT_EQ(heap.top().time, radix.top().time) << "seed " << seed << " step " << step;
    const double now = heap.top_time();
    heap.pop();
    radix.pop();
    // The event loop's pattern: look at the next wake, then push wakes earlier than it.
    if (look) {
      ASSERT_EQ(heap.top_time(), radix.top_time()) << "seed " << seed << " step " << step;
    }
    const auto pushes = static_cast<int>(r.index(3));  // 0, 1 or 2: the queue grows and shrinks
    for (int k = 0; k < pushes && now < std::numeric_limits<double>::infinity(); ++k) {
      const double t = now + sleep_of(r);
      heap.push(t, id);
      radix.push(t, id);
      ++id;
    }
  }
  EXPECT_EQ(heap.size(), radix.size());
}

TEST(MonotoneWakeQueue, PopsLikeTheHeapWithTies) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) expect_same_pops(seed, 40, 3000);
}

TEST(MonotoneWakeQueue, PopsLikeTheHeapWithoutLooking) {
  for (std::uint64_t seed = 301; seed <= 400; ++seed) expect_same_pops(seed, 40, 3000, false);
  expect_same_pops(8, 20000, 60000, false);
}

// Outside its monotone use the queue is slower but still exact: pushes anywhere in [0, 100).
TEST(MonotoneWakeQueue, AnyPushOrderStillPopsLikeTheHeap) {
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    WakeQueue heap;
    MonotoneWakeQueue radix;
    mc::Stream r(seed, mc::StreamId::sleeps, 0);
    const auto draw = [&r] { return r.index(2) != 0 ? static_cast<double>(r.index(8)) : 100.0 * r.uniform(); };
    std::int32_t id = 0;
    for (int i = 0; i < (seed <= 95 ? 40 : 5000); ++i, ++id) {
      const double t = draw();
      heap.push(t, id);
      radix.push(t, id);
    }
    for (int step = 0; step < 20000 && !heap.empty(); ++step) {
      if (r.index(2) != 0) {
        ASSERT_EQ(heap.top_time(), radix.top_time()) << "seed " << seed << " step " << step;
      }
      ASSERT_EQ(heap.top().client, radix.top().client) << "seed " << seed << " step " << step;
      heap.pop();
      radix.pop();
      for (auto k = r.index(3); k > 0; --k, ++id) {
        const double t = draw();
        heap.push(t, id);
        radix.push(t, id);
      }
    }
    EXPECT_EQ(heap.size(), radix.size());
  }
}

TEST(MonotoneWakeQueue, PopsLikeTheHeapLarge) { expect_same_pops(9, 20000, 60000); }

// A queue reset after runs that stopped with entries left (in the run and in several buckets) pops
// like a fresh one.
TEST(MonotoneWakeQueue, ResetAfterAnyRunPopsLikeAFreshQueue) {
  MonotoneWakeQueue q;
  for (std::uint64_t seed = 500; seed <= 700; ++seed) {
    const bool stops_early = seed % 2 == 0;  // then entries are left for the reset to drop
    expect_same_pops(seed, seed % 7 == 0 ? 2000 : 40, stops_early ? static_cast<int>(seed % 300) : 3000, true, &q);
  }
}

TEST(MonotoneWakeQueue, EmptyAndRefill) {
  MonotoneWakeQueue q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.top_time(), std::numeric_limits<double>::infinity());
  q.push(2.0, 1);
  q.push(1.0, 2);
  q.push(1.0, 3);
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(q.top().client, 2);
  q.pop();
  q.push(1.0, 4);  // equal to the last pop: after 3
  EXPECT_EQ(q.top().client, 3);
  q.pop();
  EXPECT_EQ(q.top().client, 4);
  q.pop();
  EXPECT_EQ(q.top_time(), 2.0);
  q.pop();
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.top_time(), std::numeric_limits<double>::infinity());
}

}  // namespace
