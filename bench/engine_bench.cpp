// Engine benchmarks: simulated attempts per second on the classic test (free, full
// jitter, N = 100 and N = 100,000), steady `shared` at 15% load and steady `collision` at 10%, both
// with full jitter, against an "ideal loop" that does only the unavoidable work per attempt: one
// random draw and one priority-queue operation (pop + push) on a queue of the same size (the
// engine's radix heap, and the 4-ary heap beside it). After the run it prints the ratios engine /
// ideal loop, N = 100 / N = 100,000, radix / 4-ary heap, and the full tier's against the
// original loop on the same steady `shared` scenario, and Brooker's test against its random draws
// alone; and the classic test's ns per attempt split into the sleep draw (BM_SleepDraw), the queue
// (ideal loop − draw) and the loop body (engine − ideal loop). Whole-process ratios against an
// independent peer simulator: bench/compare_naive.sh.
//   bench/engine_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>

#include "montecarlo/brooker_preset.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/legs.hpp"
#include "montecarlo/simulate.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::Model;
using retrylab::Strategy;

namespace {

// Runs as simulate() does them: the scenario hashed once, one worker's scratch (queues, job slots,
// client tables) lent to every run; forced: on the full tier even without a server-side option.
void run_scenario(benchmark::State& state, const mc::Scenario& s, bool forced = false) {
  std::uint64_t run = 0;
  std::int64_t attempts = 0;
  mc::detail::EngineScratch scratch;
  mc::detail::EngineOptions options;
  options.full_tier = forced;
  options.scenario_hash = mc::stable_hash(s);
  for (auto _ : state) {
    mc::detail::NullObserver observer;
    const mc::RunResult r = mc::detail::run_engine(s, 1, run++, options, observer, &scratch);
    attempts += r.attempts;
    benchmark::DoNotOptimize(r);
  }
  state.counters["attempts/s"] = benchmark::Counter(static_cast<double>(attempts), benchmark::Counter::kIsRate);
  state.counters["attempts/run"] = static_cast<double>(attempts) / static_cast<double>(run);
}

void BM_ClassicFreeFull(benchmark::State& state) {
  mc::Scenario s;
  s.model = Model::free;
  s.backoff = {Strategy::full, 1.0, 1000.0, 0.0};
  s.traffic.clients = state.range(0);
  s.measurement.collapse = s.traffic.clients + 1;  // the classic test must not collapse at t = 0
  run_scenario(state, s);
}
BENCHMARK(BM_ClassicFreeFull)->Arg(100)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_SteadySharedFull15(benchmark::State& state) {
  mc::Scenario s;
  s.model = Model::shared;
  s.backoff = {Strategy::full, 1.0, 1000.0, 0.0};
  s.traffic.rate = 0.15;
  s.measurement.horizon = 1e6;
  run_scenario(state, s);
}
BENCHMARK(BM_SteadySharedFull15)->Unit(benchmark::kMillisecond);

void BM_SteadyCollisionFull10(benchmark::State& state) {
  mc::Scenario s;
  s.model = Model::collision;
  s.backoff = {Strategy::full, 1.0, 1000.0, 0.0};
  s.traffic.rate = 0.10;
  s.measurement.horizon = 1e6;
  run_scenario(state, s);
}
BENCHMARK(BM_SteadyCollisionFull10)->Unit(benchmark::kMillisecond);

// The same steady `shared` scenario on the full tier (montecarlo/engine.hpp, forced:
// same counts and times as the original loop), and on it with a concurrency limit and with client
// timeouts and retry limits. Ratios against the original loop are printed after the table.
void run_forced(benchmark::State& state, const mc::Scenario& s) { run_scenario(state, s, true); }

mc::Scenario steady_shared(double rate) {
  mc::Scenario s;
  s.model = Model::shared;
  s.backoff = {Strategy::full, 1.0, 1000.0, 0.0};
  s.traffic.rate = rate;
  s.measurement.horizon = 1e6;
  return s;
}

void BM_ServerSteadySharedFull15(benchmark::State& state) { run_forced(state, steady_shared(0.15)); }
BENCHMARK(BM_ServerSteadySharedFull15)->Unit(benchmark::kMillisecond);

void BM_ServerSharedLimit2At50(benchmark::State& state) {
  mc::Scenario s = steady_shared(0.5);
  s.measurement.horizon = 2e5;
  s.admission.limit = 2;
  s.admission.reject_cost = 0.05;
  s.admission.retry_after = 2;
  run_forced(state, s);
}
BENCHMARK(BM_ServerSharedLimit2At50)->Unit(benchmark::kMillisecond);

void BM_ServerSharedTimeoutAt15(benchmark::State& state) {
  mc::Scenario s = steady_shared(0.15);
  s.client.timeout = 20;
  s.client.max_attempts = 5;
  run_forced(state, s);
}
BENCHMARK(BM_ServerSharedTimeoutAt15)->Unit(benchmark::kMillisecond);

// The unavoidable work per attempt: one uniform draw, one pop and one push on a wake-up queue
// holding N entries (the engine's own Stream, and its MonotoneWakeQueue; the 4-ary WakeQueue that
// the full tier uses beside it). Also the event queues' own benchmark.
template <class Queue>
void ideal_loop(benchmark::State& state) {
  const auto n = static_cast<std::int32_t>(state.range(0));
  Queue q;
  q.reserve(static_cast<std::size_t>(n));
  mc::Stream rng(1, mc::StreamId::sleeps, 0);
  for (std::int32_t i = 0; i < n; ++i) q.push(rng.uniform() * 1000.0, i);
  constexpr std::int64_t batch = 1 << 16;
  std::int64_t ops = 0;
  for (auto _ : state) {
    for (std::int64_t i = 0; i < batch; ++i) {
      const auto top = q.top();
      q.pop();
      q.push(top.time + 1.0 + rng.uniform() * 1000.0, top.client);
    }
    ops += batch;
  }
  benchmark::DoNotOptimize(q.top_time());
  state.counters["attempts/s"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsRate);
}
void BM_IdealLoop(benchmark::State& state) { ideal_loop<mc::detail::MonotoneWakeQueue>(state); }
BENCHMARK(BM_IdealLoop)->Arg(100)->Arg(100000)->Unit(benchmark::kMillisecond);
void BM_IdealLoopHeap(benchmark::State& state) { ideal_loop<mc::detail::WakeQueue>(state); }
BENCHMARK(BM_IdealLoopHeap)->Arg(100)->Arg(100000)->Unit(benchmark::kMillisecond);

// The ideal loop's draw alone (the same stream and scaling, no queue): with it the classic test's
// time per attempt splits into the draw, the queue (ideal loop − draw) and the loop body (engine −
// ideal loop), printed after the table.
void BM_SleepDraw(benchmark::State& state) {
  mc::Stream rng(1, mc::StreamId::sleeps, 0);
  constexpr std::int64_t batch = 1 << 16;
  std::int64_t ops = 0;
  double t = 0.0;
  for (auto _ : state) {
    for (std::int64_t i = 0; i < batch; ++i) t += 1.0 + rng.uniform() * 1000.0;
    ops += batch;
  }
  benchmark::DoNotOptimize(t);
  state.counters["attempts/s"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SleepDraw)->Unit(benchmark::kMillisecond);

// Brooker's OCC test (the `--model brooker` preset: full jitter, N = 100, normal legs) on the engine,
// against the random draws alone that any simulator of it makes per attempt: four network legs
// (|Normal(10, 2)| ms each: the read request, the service's two legs, the write reply) and one
// uniform for the sleep, from the engine's own streams and ziggurat. The draws bound how fast any
// simulator using these generators can run the test (docs/speed.md).
void BM_BrookerTest(benchmark::State& state) { run_scenario(state, mc::brooker_scenario(mc::BrookerTest{})); }
BENCHMARK(BM_BrookerTest)->Unit(benchmark::kMillisecond);

void BM_BrookerDraws(benchmark::State& state) {
  const mc::Scenario s = mc::brooker_scenario(mc::BrookerTest{});
  mc::Stream legs(1, mc::StreamId::delay, 0), service(1, mc::StreamId::service, 0), sleeps(1, mc::StreamId::sleeps, 0);
  constexpr std::int64_t batch = 1 << 16;
  std::int64_t ops = 0;
  double sink = 0.0;
  for (auto _ : state) {
    for (std::int64_t i = 0; i < batch; ++i) {
      sink +=
          mc::draw_leg(s.resource, legs) + mc::draw_round_trip(s.resource, service) + mc::draw_leg(s.resource, legs);
      sink += sleeps.uniform();
    }
    ops += batch;
  }
  benchmark::DoNotOptimize(sink);
  state.counters["attempts/s"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_BrookerDraws)->Unit(benchmark::kMillisecond);

// Records each benchmark's attempts/s to print the ratios after the table.
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

void print_ratio(const RatioReporter& rep, const char* label, const std::string& a, const std::string& b) {
  const auto ia = rep.rate.find(a), ib = rep.rate.find(b);
  if (ia == rep.rate.end() || ib == rep.rate.end() || ib->second == 0) return;
  std::printf("ratio %-44s %.3f  (%.3g / %.3g attempts/s)\n", label, ia->second / ib->second, ia->second, ib->second);
}

// ns per attempt of the classic test split into the sleep draw, the queue's pop and push (ideal loop
// − draw) and the loop body (engine − ideal loop), from the rates of one run.
void print_split(const RatioReporter& rep, const char* n) {
  const auto ns = [&](const std::string& name) {
    const auto it = rep.rate.find(name);
    return it == rep.rate.end() || it->second == 0 ? -1.0 : 1e9 / it->second;
  };
  const double engine = ns(std::string("BM_ClassicFreeFull/") + n), ideal = ns(std::string("BM_IdealLoop/") + n),
               draw = ns("BM_SleepDraw");
  if (engine < 0 || ideal < 0 || draw < 0) return;
  std::printf("split classic N=%-7s ns/attempt: engine %.1f = draw %.1f + queue %.1f + body %.1f\n", n, engine, draw,
              ideal - draw, engine - ideal);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  print_ratio(rep, "engine/ideal, classic N=100", "BM_ClassicFreeFull/100", "BM_IdealLoop/100");
  print_ratio(rep, "engine/ideal, classic N=100000", "BM_ClassicFreeFull/100000", "BM_IdealLoop/100000");
  print_ratio(rep, "classic N=100 / N=100000 (engine)", "BM_ClassicFreeFull/100", "BM_ClassicFreeFull/100000");
  print_ratio(rep, "ideal N=100 / N=100000", "BM_IdealLoop/100", "BM_IdealLoop/100000");
  print_ratio(rep, "ideal radix / 4-ary heap, N=100", "BM_IdealLoop/100", "BM_IdealLoopHeap/100");
  print_ratio(rep, "ideal radix / 4-ary heap, N=100000", "BM_IdealLoop/100000", "BM_IdealLoopHeap/100000");
  print_ratio(rep, "full tier / plain tier, shared 15%", "BM_ServerSteadySharedFull15", "BM_SteadySharedFull15");
  print_ratio(rep, "server + timeout 20 / original, shared 15%", "BM_ServerSharedTimeoutAt15", "BM_SteadySharedFull15");
  print_ratio(rep, "Brooker: engine / draws alone", "BM_BrookerTest", "BM_BrookerDraws");
  print_split(rep, "100");
  print_split(rep, "100000");
  benchmark::Shutdown();
  return 0;
}
