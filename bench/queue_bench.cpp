// The wake-up queues alone (montecarlo/wake_queue.hpp, calendar_queue.hpp): the event loop's
// unavoidable work per attempt, one sleep drawn from the engine's own stream and one pop and one push
// on a queue of N sleeping clients, for the radix heap (the engine's queue), the calendar queue sized
// to the sleep law's year (the cap), the calendar queue with no year (its radix heap alone: the cost
// of its one extra branch), the calendar queue with buckets one base wide (CalendarBase) and the
// 4-ary heap. Two sleep laws: every sleep uniform on [0, cap] (the
// capped stretch of full jitter, where the classic test spends most of its attempts), and full
// jitter from the first failure (U·min(cap, 2^k), k the client's failures, reset after 12: most
// wakes a short sleep ahead, as at the start of a burst). The ratios calendar / radix are printed
// after the table (> 1: the calendar is faster).
//   bench/queue_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "montecarlo/calendar_queue.hpp"
#include "montecarlo/random.hpp"
#include "montecarlo/wake_queue.hpp"

namespace mc = retrylab::montecarlo;
using mc::detail::CalendarWakeQueue;
using mc::detail::MonotoneWakeQueue;
using mc::detail::WakeQueue;

namespace {

constexpr double cap = 1000.0;

enum class Law { capped, jitter };
enum class Year { none, sized, base };  // base: buckets of about one base (1) wide, or a fourth of N

template <class Queue>
void reset(Queue& q, std::size_t n, Year year) {
  if constexpr (requires { q.reset(n, cap); }) {
    q.reset(n, year == Year::none ? 0.0 : cap, year == Year::base ? 1.0 : 0.0);
  } else {
    q.reserve(n);
  }
}

template <class Queue, Law law, Year year = Year::sized>
void BM_Queue(benchmark::State& state) {
  const auto n = static_cast<std::int32_t>(state.range(0));
  Queue q;
  reset(q, static_cast<std::size_t>(n), year);
  mc::Stream rng(1, mc::StreamId::sleeps, 0);
  std::vector<std::int32_t> failures(static_cast<std::size_t>(n), 0);
  for (std::int32_t i = 0; i < n; ++i) q.push(rng.uniform() * cap, i);
  constexpr std::int64_t batch = 1 << 16;
  std::int64_t ops = 0;
  for (auto _ : state) {
    for (std::int64_t i = 0; i < batch; ++i) {
      const double now = q.top_time();
      const std::int32_t c = q.top().client;
      q.pop();
      double window = cap;
      if constexpr (law == Law::jitter) {
        auto& k = failures[static_cast<std::size_t>(c)];
        k = k == 12 ? 0 : k + 1;
        window = std::min(cap, static_cast<double>(std::int64_t{1} << k));
      }
      q.push(now + rng.uniform() * window, c);
    }
    ops += batch;
  }
  benchmark::DoNotOptimize(q.top_time());
  state.counters["attempts/s"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsRate);
}

#define QUEUE_BENCH(NAME, ...) \
  BENCHMARK(__VA_ARGS__)->Name(NAME)->Arg(100)->Arg(1000)->Arg(100000)->Unit(benchmark::kMicrosecond)
QUEUE_BENCH("Radix/capped", BM_Queue<MonotoneWakeQueue, Law::capped>);
QUEUE_BENCH("Calendar/capped", BM_Queue<CalendarWakeQueue, Law::capped>);
QUEUE_BENCH("CalendarBase/capped", BM_Queue<CalendarWakeQueue, Law::capped, Year::base>);
QUEUE_BENCH("CalendarNoYear/capped", BM_Queue<CalendarWakeQueue, Law::capped, Year::none>);
QUEUE_BENCH("Heap4/capped", BM_Queue<WakeQueue, Law::capped>);
QUEUE_BENCH("Radix/jitter", BM_Queue<MonotoneWakeQueue, Law::jitter>);
QUEUE_BENCH("Calendar/jitter", BM_Queue<CalendarWakeQueue, Law::jitter>);
QUEUE_BENCH("CalendarBase/jitter", BM_Queue<CalendarWakeQueue, Law::jitter, Year::base>);
QUEUE_BENCH("Heap4/jitter", BM_Queue<WakeQueue, Law::jitter>);

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      const auto it = r.counters.find("attempts/s");
      if (it != r.counters.end() && r.run_type == Run::RT_Iteration) rate[r.benchmark_name()] = it->second.value;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> rate;
};

void print_ratio(const RatioReporter& rep, const std::string& a, const std::string& b) {
  const auto ia = rep.rate.find(a), ib = rep.rate.find(b);
  if (ia == rep.rate.end() || ib == rep.rate.end() || ib->second == 0) return;
  std::printf("ratio %-24s / %-24s %.3f  (%.3g / %.3g attempts/s)\n", a.c_str(), b.c_str(), ia->second / ib->second,
              ia->second, ib->second);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  for (const char* n : {"100", "1000", "100000"}) {
    const std::string N = std::string("/") + n;
    print_ratio(rep, "Calendar/capped" + N, "Radix/capped" + N);
    print_ratio(rep, "CalendarNoYear/capped" + N, "Radix/capped" + N);
    print_ratio(rep, "Calendar/jitter" + N, "Radix/jitter" + N);
    print_ratio(rep, "CalendarBase/capped" + N, "Radix/capped" + N);
    print_ratio(rep, "CalendarBase/jitter" + N, "Radix/jitter" + N);
    print_ratio(rep, "Radix/capped" + N, "Heap4/capped" + N);
  }
  benchmark::Shutdown();
  return 0;
}
