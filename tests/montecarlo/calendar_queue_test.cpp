// The calendar wake-up queue against the radix heap (montecarlo/calendar_queue.hpp against
// wake_queue.hpp): the same pops, entry by entry. A rapidcheck property drives both with any
// sequence of pushes (at, before and after the last pop's time, equal times, beyond the year, +inf),
// looks and pops, for years from tiny to huge and none; fixed-seed loops then run the event loop's
// pattern (a look at the next wake, pushes earlier than it) long enough to wrap the ring many times,
// and a queue reused across resets with other years. Exact comparisons, fixed seeds (the rapidcheck
// seed is set in CMakeLists.txt; replay with RC_PARAMS="seed=..."): no false failures.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "montecarlo/calendar_queue.hpp"
#include "montecarlo/random.hpp"
#include "montecarlo/wake_queue.hpp"

namespace mc = retrylab::montecarlo;
using mc::detail::CalendarWakeQueue;
using mc::detail::MonotoneWakeQueue;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// One step: kind 0 pushes at base + offset (base: the last popped time, or 0), 1 pops, 2 looks.
struct Op {
  int kind;
  int shape;
  double u;
};

// A push's time from its shape: equal times, grid steps, tiny and large steps, before the last pop
// (any push order), beyond any year, +inf.
double time_of(const Op& op, double now) {
  switch (op.shape) {
    case 0: return now;
    case 1: return now + static_cast<double>(static_cast<int>(op.u * 4));
    case 2: return now + op.u * 10.0;
    case 3: return now + 1e-310 * static_cast<double>(static_cast<int>(op.u * 3));
    case 4: return now * op.u;  // earlier than the last pop: outside monotone use
    case 5: return now + 1e9 * op.u;
    case 6: return inf;
    default: return static_cast<double>(static_cast<int>(op.u * 32));  // an absolute grid: ties
  }
}

// Checks that both queues agree on size, next time and next entry; reports where they do not.
void same_front(MonotoneWakeQueue& radix, CalendarWakeQueue& cal, bool look) {
  RC_ASSERT(radix.size() == cal.size());
  if (radix.empty()) return;
  if (look) RC_ASSERT(radix.top_time() == cal.top_time());
  RC_ASSERT(radix.top().client == cal.top().client);
  RC_ASSERT(radix.top().time == cal.top().time);
}

}  // namespace

RC_GTEST_PROP(CalendarWakeQueue, PopsInTheRadixHeapsOrder, ()) {
  const double year = *rc::gen::element(0.0, 1e-3, 1.0, 4.0, 7.5, 1000.0, 1e12, inf);
  const auto n = *rc::gen::element<std::size_t>(1, 10, 100, 5000);
  const double width = *rc::gen::element(0.0, 0.01, 1.0, 100.0);  // the bucket width asked for
  const auto count = *rc::gen::inRange<std::size_t>(0, 3000);     // long enough to wrap the ring
  const auto ops = *rc::gen::container<std::vector<Op>>(
      count,
      rc::gen::construct<Op>(rc::gen::weightedElement<int>({{5, 0}, {4, 1}, {1, 2}}), rc::gen::inRange(0, 8),
                             rc::gen::map(rc::gen::inRange(0, 1 << 20), [](int k) { return k / double(1 << 20); })));
  MonotoneWakeQueue radix;
  CalendarWakeQueue cal;
  radix.reset(n);
  cal.reset(n, year, width);
  double now = 0.0;
  std::int32_t id = 0;
  for (const Op& op : ops) {
    if (op.kind == 0) {
      const double t = time_of(op, now);
      radix.push(t, id);
      cal.push(t, id);
      ++id;
    } else if (op.kind == 1 && !radix.empty()) {
      same_front(radix, cal, false);
      now = radix.top().time == inf ? now : radix.top().time;
      radix.pop();
      cal.pop();
    } else {
      RC_ASSERT(radix.top_time() == cal.top_time());
    }
  }
  while (!radix.empty()) {  // drain: every entry in the same order
    same_front(radix, cal, true);
    radix.pop();
    cal.pop();
  }
  RC_ASSERT(cal.empty());
}

namespace {

// The event loop's pattern on a queue of `initial` entries: look, pop, look again, push 0–2 wakes at
// now + a sleep up to `cap` (sometimes 0, sometimes a grid step), so the ring wraps many times.
void expect_same_pops(CalendarWakeQueue& cal, std::uint64_t seed, int initial, int steps, double cap) {
  MonotoneWakeQueue radix;
  radix.reset(64);
  mc::Stream r(seed, mc::StreamId::ties, 0);
  std::int32_t id = 0;
  for (int i = 0; i < initial; ++i) {
    const double t = static_cast<double>(r.index(5));
    radix.push(t, id);
    cal.push(t, id);
    ++id;
  }
  for (int step = 0; step < steps && !radix.empty(); ++step) {
    ASSERT_EQ(radix.size(), cal.size());
    ASSERT_EQ(radix.top_time(), cal.top_time()) << "seed " << seed << " step " << step;
    ASSERT_EQ(radix.top().client, cal.top().client) << "seed " << seed << " step " << step;
    const double now = radix.top().time;
    radix.pop();
    cal.pop();
    ASSERT_EQ(radix.top_time(), cal.top_time()) << "seed " << seed << " step " << step;
    const auto pushes = static_cast<int>(r.index(3));
    for (int k = 0; k < pushes; ++k) {
      const std::uint64_t shape = r.index(8);
      const double sleep = shape == 0   ? 0.0
                           : shape == 1 ? static_cast<double>(r.index(3))
                           : shape == 2 ? 3.0 * cap  // beyond the year (a long Retry-After)
                                        : r.uniform() * cap;
      radix.push(now + sleep, id);
      cal.push(now + sleep, id);
      ++id;
    }
  }
  EXPECT_EQ(radix.size(), cal.size());
}

}  // namespace

TEST(CalendarWakeQueue, PopsLikeTheRadixHeapInTheEventLoopsPattern) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    CalendarWakeQueue cal;
    cal.reset(100, 1000.0);
    ASSERT_TRUE(cal.uses_ring());
    expect_same_pops(cal, seed, 100, 20000, 1000.0);
  }
}

TEST(CalendarWakeQueue, PopsLikeTheRadixHeapWhenTheYearIsWrong) {
  // A year far shorter or longer than the sleeps: slower, never another order.
  for (const double year : {0.01, 1e6}) {
    CalendarWakeQueue cal;
    cal.reset(300, year);
    expect_same_pops(cal, 7, 300, 20000, 50.0);
  }
}

TEST(CalendarWakeQueue, ResetWithAnotherYearPopsLikeAFreshQueue) {
  CalendarWakeQueue cal;
  cal.reset(100, 1000.0);
  expect_same_pops(cal, 3, 100, 3000, 1000.0);  // leaves entries behind
  cal.reset(5000, 10.0);
  expect_same_pops(cal, 4, 5000, 30000, 10.0);
  cal.reset(100, inf);  // no ring: the radix heap alone
  EXPECT_FALSE(cal.uses_ring());
  expect_same_pops(cal, 5, 100, 3000, 1000.0);
  cal.reset(100, 1000.0);
  EXPECT_TRUE(cal.uses_ring());
  expect_same_pops(cal, 6, 100, 3000, 1000.0);
}

TEST(CalendarWakeQueue, EmptyLooksAreInfinite) {
  CalendarWakeQueue cal;
  cal.reset(10, 5.0);
  EXPECT_TRUE(cal.empty());
  EXPECT_EQ(cal.top_time(), inf);
  cal.push(inf, 1);
  cal.push(2.0, 2);
  cal.push(2.0, 3);
  EXPECT_EQ(cal.top().client, 2);
  cal.pop();
  EXPECT_EQ(cal.top().client, 3);
  cal.pop();
  EXPECT_EQ(cal.top_time(), inf);
  EXPECT_EQ(cal.top().client, 1);
  cal.pop();
  EXPECT_TRUE(cal.empty());
  EXPECT_EQ(cal.top_time(), inf);
}

TEST(CalendarWakeQueue, TheYearComesFromTheSleepLaw) {
  using mc::detail::wake_year;
  using retrylab::Backoff;
  using retrylab::Strategy;
  EXPECT_EQ(wake_year(Backoff{Strategy::full, 1.0, 1000.0, 0.0}), 1000.0);
  EXPECT_EQ(wake_year(Backoff{Strategy::decorrelated, 0.5, 30.0, 0.0}), 30.0);
  EXPECT_EQ(wake_year(Backoff{Strategy::window, 1.0, 1000.0, 7.0}), 7.0);  // U(0, W)
  EXPECT_EQ(wake_year(Backoff{Strategy::none, 1.0, 1000.0, 0.0}), 0.0);    // every sleep 0
  EXPECT_EQ(wake_year(Backoff{Strategy::full, 1.0, inf, 0.0}), 0.0);       // no cap: the radix heap
  EXPECT_EQ(wake_year(Backoff{Strategy::full, 1.0, 65536.0, 0.0}), 65536.0);
  EXPECT_EQ(wake_year(Backoff{Strategy::full, 1.0, 65537.0, 0.0}), 0.0);  // a very wide window
  CalendarWakeQueue q;
  q.reset(100, wake_year(Backoff{Strategy::full, 1.0, inf, 0.0}));
  EXPECT_FALSE(q.uses_ring());
}
