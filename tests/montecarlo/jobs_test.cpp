// The plain tier's job ring (montecarlo/jobs.hpp) against a std::deque: random sends and ends, in
// bursts that make it grow and lulls that make it shrink, checking that every live handle still
// names its job (the fields written at add()) and that the end order is the send order. Exact,
// fixed seeds: no false failures.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>

#include "montecarlo/jobs.hpp"
#include "montecarlo/random.hpp"

namespace mc = retrylab::montecarlo;
using mc::detail::JobRing;

namespace {

void check_against_deque(std::uint64_t seed, std::size_t initial_capacity) {
  JobRing ring(initial_capacity);
  std::deque<std::int64_t> model;  // the ids of the live jobs, in send order
  mc::Stream r(seed, mc::StreamId::ties, 0);
  std::int64_t next_id = 0;
  for (int phase = 0; phase < 40; ++phase) {
    // A burst (up to 5,000 sends, few ends) or a lull (ends outnumber sends).
    const bool burst = r.index(3) == 0;
    const auto steps = static_cast<int>(r.index(5000));
    for (int step = 0; step < steps; ++step) {
      const bool send = model.empty() || (burst ? r.index(10) != 0 : r.index(3) == 0);
      if (send) {
        const std::int32_t h = ring.add();
        ring[h].id = next_id;
        ring[h].client = static_cast<std::int32_t>(next_id % 977);
        model.push_back(next_id++);
      } else {
        ASSERT_FALSE(ring.ends_empty());
        const std::int32_t h = ring.top_job();
        ASSERT_EQ(ring[h].id, model.front()) << "seed " << seed << " phase " << phase;
        ASSERT_EQ(ring[h].client, model.front() % 977);
        ring.pop_end();
        model.pop_front();
      }
      ASSERT_EQ(ring.ends_size(), model.size());
    }
    for (std::size_t i = 0; i < model.size(); i += 1 + model.size() / 7)
      ASSERT_EQ(ring[ring.end_job_at(i)].id, model[i]) << "seed " << seed << " phase " << phase;
  }
}

// A burst of 70,000 sends (the ring grows to 131,072 slots), ends until 3,000 are live, one more
// send (the ring shrinks, to 16,384 slots): every live job is still found, in send order.
TEST(JobRing, ShrinksToARingThatHoldsEveryLiveJob) {
  JobRing ring(64);
  std::deque<std::int64_t> model;
  auto send = [&](std::int64_t id) {
    ring[ring.add()].id = id;
    model.push_back(id);
  };
  for (std::int64_t id = 0; id < 70000; ++id) send(id);
  while (model.size() > 3000) {
    ASSERT_EQ(ring[ring.top_job()].id, model.front());
    ring.pop_end();
    model.pop_front();
  }
  send(70000);
  ASSERT_EQ(ring.ends_size(), model.size());
  for (std::size_t i = 0; i < model.size(); ++i) ASSERT_EQ(ring[ring.end_job_at(i)].id, model[i]) << i;
}

TEST(JobRing, KeepsEveryLiveJobThroughGrowthAndShrinking) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    check_against_deque(seed, 64);
    check_against_deque(seed, 100000);  // sized for a large burst, then mostly idle
  }
}

}  // namespace
