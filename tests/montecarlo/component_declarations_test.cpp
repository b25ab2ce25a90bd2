// What a component declares for itself instead of the core listing it (montecarlo/component.hpp):
// its random streams (the full build's are exactly the ids the engine owned by hand, so every
// number is the one it drew; a test-tree component declares a new id (200) and draws that id's numbers
// with no line in random.hpp or engine.hpp), its scratch storage (type-indexed by the component),
// and Scoped, the shared/per-client holder Breaker and Budget use (montecarlo/scoped.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "montecarlo/builds.hpp"
#include "montecarlo/random.hpp"
#include "montecarlo/scoped.hpp"

namespace retrylab::montecarlo::detail {
namespace {

std::set<std::uint32_t> ids_of(const auto& ids) {
  std::set<std::uint32_t> out;
  for (StreamId id : ids) out.insert(static_cast<std::uint32_t>(id));
  return out;
}

TEST(ComponentDeclarations, FullBuildStreamsAreTheIdsTheEngineHad) {
  // service, delay, population, rows, retry_after, failures, throttle, load: the engine's members
  // before the components declared them; and the replicas' balancer (18), the first declared so.
  EXPECT_EQ(ids_of(FullParts::Streams::ids), (std::set<std::uint32_t>{4, 5, 6, 7, 8, 9, 14, 17, 18}));
  EXPECT_EQ(FullParts::Streams::ids.size(), 9u);  // each declared once
  const auto full = ids_of(FullParts::Streams::ids), lean = ids_of(LeanParts::Streams::ids);
  EXPECT_TRUE(std::includes(full.begin(), full.end(), lean.begin(), lean.end()));  // a lean build's are the full's
  EXPECT_EQ(PlainParts::Streams::count, 0u);
  for (std::uint32_t core : {1u, 2u, 3u, 10u, 11u, 12u, 13u, 16u})
    EXPECT_FALSE(component_stream_id(StreamId{core})) << core;
}

// A component of the test tree: a stream of its own (an id no one has) and a container to lend.
struct Toy : Component {
  static constexpr StreamId mine{200};  // an id no component of the tree has
  static constexpr std::array streams{mine};
  struct Scratch {
    std::vector<int> kept;
  };
  void lend(Scratch& s) noexcept { std::swap(kept_, s.kept); }
  std::vector<int> kept_;
};

TEST(ComponentDeclarations, AComponentDrawsFromTheStreamItDeclares) {
  const std::uint64_t key = run_key(7, 0x1234), run = 3;
  ComponentStreams<Toy, Service, Budget> streams(key, run);
  Stream direct(key, Toy::mine, run), throttle(key, StreamId::throttle, run);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(streams.get<Toy::mine>().next_u64(), direct.next_u64()) << i;
    EXPECT_EQ(streams.get<StreamId::throttle>().next_u64(), throttle.next_u64()) << i;
  }
}

TEST(ComponentDeclarations, ScratchIsTypeIndexedByTheComponent) {
  ComponentScratch<Toy, Network, ServerView> scratch;
  scratch.of<Toy>().kept = {1, 2, 3};
  scratch.of<ServerView>().latencies = {0.5};
  Toy toy;
  toy.lend(scratch.of<Toy>());  // in for the run
  EXPECT_EQ(toy.kept_, (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(scratch.of<Toy>().kept.empty());
  toy.lend(scratch.of<Toy>());  // back out
  EXPECT_EQ(scratch.of<Toy>().kept.size(), 3u);
  EXPECT_EQ(scratch.of<ServerView>().latencies, (std::vector<double>{0.5}));
}

// A control that counts what it was asked and remembers the config it was made from.
struct Counter {
  explicit Counter(int start) : n(start) {}
  int n;
};

TEST(ComponentDeclarations, ScopedSharedIsOneControlForEveryClient) {
  Scoped<Counter, int> shared(10, false);
  shared.renew(0);
  shared.renew(5);
  ++shared.of(0).n;
  ++shared.of(5).n;
  EXPECT_EQ(&shared.of(0), &shared.of(5));
  EXPECT_EQ(shared.shared().n, 12);
  int visited = 0;
  shared.each([&](const Counter&) { ++visited; });
  EXPECT_EQ(visited, 1);
}

TEST(ComponentDeclarations, ScopedPerClientIsFreshWhenASlotIsReused) {
  Scoped<Counter, int> own(10, true);
  own.renew(2);  // slots 0..2 made
  own.renew(0);  // reused: its earlier control is retired
  ++own.of(2).n;
  own.of(0).n = 40;
  EXPECT_NE(&own.of(0), &own.of(2));
  std::vector<int> retired;
  own.renew(0, [&](const Counter& old) { retired.push_back(old.n); });
  EXPECT_EQ(retired, std::vector<int>{40});
  EXPECT_EQ(own.of(0).n, 10);
  EXPECT_EQ(own.of(2).n, 11);
  EXPECT_EQ(own.shared().n, 10);  // never asked with scope client
  int sum = 0;
  own.each([&](const Counter& c) { sum += c.n; });
  EXPECT_EQ(sum, 10 + 10 + 10 + 11);  // the shared one, then slots 0, 1, 2
}

}  // namespace
}  // namespace retrylab::montecarlo::detail
