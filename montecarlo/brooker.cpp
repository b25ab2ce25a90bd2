#include "montecarlo/brooker.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <fmt/format.h>
#include <mutex>
#include <numbers>
#include <thread>

#include "analytic/error.hpp"
#include "montecarlo/sampler.hpp"

namespace retrylab::montecarlo {

void check_brooker(const BrookerScenario& s) {
  check_backoff(s.backoff);
  if (!(s.backoff.cap <= brooker_max_time))
    throw InputError("cap", fmt::format("must be finite and <= {} ms for the brooker model (got {})", brooker_max_time,
                                        format_cap(s.backoff.cap)));
  if (s.backoff.strategy == Strategy::window && !(s.backoff.window <= brooker_max_time))
    throw InputError("window", fmt::format("must be <= {} ms (got {})", brooker_max_time, s.backoff.window));
  if (s.clients < 1 || s.clients > brooker_max_clients)
    throw InputError("clients", fmt::format("must be in [1, {}] (got {})", brooker_max_clients, s.clients));
  if (!(s.leg_mean >= 0.0 && s.leg_mean <= brooker_max_time))
    throw InputError("leg_mean", fmt::format("must be in [0, {}] ms (got {})", brooker_max_time, s.leg_mean));
  if (!(s.leg_sd >= 0.0 && s.leg_sd <= brooker_max_time))
    throw InputError("leg_sd", fmt::format("must be in [0, {}] ms (got {})", brooker_max_time, s.leg_sd));
}

std::string canonical(const BrookerScenario& s) {
  const double window = s.backoff.strategy == Strategy::window ? s.backoff.window : 0.0;
  return fmt::format("model=brooker strategy={} base={} cap={} window={} clients={} leg_mean={} leg_sd={} unit=ms",
                     to_string(s.backoff.strategy), s.backoff.base, format_cap(s.backoff.cap), window, s.clients,
                     s.leg_mean, s.leg_sd);
}

std::uint64_t stable_hash(const BrookerScenario& s) { return fnv1a64(canonical(s)); }

namespace {

// One network leg: |Normal(mean, sd)| by Box–Muller; the second normal of each pair is kept for the
// next leg. sd = 0 draws nothing.
class LegSampler {
 public:
  LegSampler(double mean, double sd, Stream& rng) noexcept : mean_(mean), sd_(sd), rng_(rng) {}

  double next() noexcept {
    if (sd_ == 0.0) return mean_;
    double z;
    if (have_spare_) {
      have_spare_ = false;
      z = spare_;
    } else {
      const double u1 = rng_.uniform();
      const double u2 = rng_.uniform();
      const double r = std::sqrt(-2.0 * std::log(u1));
      const double a = 2.0 * std::numbers::pi * u2;
      z = r * std::cos(a);
      spare_ = r * std::sin(a);
      have_spare_ = true;
    }
    return std::fabs(mean_ + sd_ * z);
  }

 private:
  double mean_, sd_;
  Stream& rng_;
  double spare_ = 0.0;
  bool have_spare_ = false;
};

// Each client has exactly one event pending (the leg it is on), so the queue holds <= N entries and
// processing an event either replaces the top (its next leg) or removes it (done).
struct Event {
  double time;
  std::uint64_t tie;
  std::uint32_t client;
};

inline bool before(const Event& a, const Event& b) noexcept {
  if (a.time != b.time) return a.time < b.time;
  if (a.tie != b.tie) return a.tie < b.tie;
  return a.client < b.client;
}

class EventHeap {
 public:
  explicit EventHeap(std::size_t capacity) { heap_.reserve(capacity); }
  bool empty() const noexcept { return heap_.empty(); }
  const Event& top() const noexcept { return heap_.front(); }

  void push(const Event& e) {
    heap_.push_back(e);
    std::size_t i = heap_.size() - 1;
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  void replace_top(const Event& e) noexcept { sift_down(0, e); }

  void pop() noexcept {
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, last);
  }

 private:
  void sift_down(std::size_t i, const Event& e) noexcept {
    const std::size_t n = heap_.size();
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], e)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
};

enum class Phase : std::uint8_t { read_request, read_reply, write_request, write_reply };

struct Client {
  std::int64_t version_read = 0;
  double prev_sleep = 0.0;  // decorrelated state s_(k−1)
  std::int32_t failures = 0;
  Phase phase = Phase::read_request;
  bool succeeded = false;  // outcome of the write in flight (write_reply phase)
};

BrookerResult run_brooker(const BrookerScenario& s, std::uint64_t seed, std::uint64_t run_index) {
  const std::uint64_t key = run_key(seed, stable_hash(s));
  Stream network(key, brooker_network_stream, run_index);
  Stream sleeps(key, StreamId::sleeps, run_index);
  Stream ties(key, StreamId::ties, run_index);
  LegSampler leg(s.leg_mean, s.leg_sd, network);
  const SleepSampler sampler(s.backoff, 1);  // w_k = min(c, b·2^k): Brooker's expo(k)

  const auto n = static_cast<std::size_t>(s.clients);
  std::vector<Client> clients(n);
  EventHeap queue(n);
  for (std::size_t c = 0; c < n; ++c) {
    clients[c].prev_sleep = s.backoff.base;
    queue.push({leg.next(), ties.next_u64(), static_cast<std::uint32_t>(c)});
  }

  BrookerResult r;
  std::int64_t version = 0;
  double latency_sum = 0.0;
  while (!queue.empty()) {
    const Event e = queue.top();
    Client& cl = clients[e.client];
    double next_time = 0.0;
    switch (cl.phase) {
      case Phase::read_request:  // reaches the server: read the version
        ++r.reads;
        cl.version_read = version;
        cl.phase = Phase::read_reply;
        next_time = e.time + leg.next();
        break;
      case Phase::read_reply:  // the client has the version: send the write
        cl.phase = Phase::write_request;
        next_time = e.time + leg.next();
        break;
      case Phase::write_request:  // reaches the server: check and apply
        ++r.attempts;
        cl.succeeded = cl.version_read == version;
        if (cl.succeeded) ++version;
        cl.phase = Phase::write_reply;
        next_time = e.time + leg.next();
        break;
      case Phase::write_reply:
        if (cl.succeeded) {
          ++r.successes;
          r.makespan = e.time;  // events come in time order: the last one is the latest
          latency_sum += e.time;
          r.max_attempts = std::max<std::int64_t>(r.max_attempts, cl.failures + 1);
          queue.pop();
          continue;
        }
        ++cl.failures;
        cl.phase = Phase::read_request;
        {
          const double pause = sampler.sleep(cl.failures, cl.prev_sleep, sleeps);
          next_time = e.time + pause + leg.next();
        }
        break;
    }
    queue.replace_top({next_time, ties.next_u64(), e.client});
  }
  r.calls = r.reads + r.attempts;
  r.latency = latency_sum / static_cast<double>(s.clients);
  return r;
}

}  // namespace

BrookerResult simulate_brooker_run(const BrookerScenario& s, std::uint64_t seed, std::uint64_t run_index) {
  check_brooker(s);
  return run_brooker(s, seed, run_index);
}

std::vector<BrookerResult> simulate_brooker(const BrookerScenario& s, const RunPlan& plan,
                                            const std::function<void(std::int64_t, std::int64_t)>& progress) {
  check_brooker(s);
  check_run_plan(plan);
  const std::int64_t runs = plan.runs;
  std::vector<BrookerResult> results(static_cast<std::size_t>(runs));
  std::int64_t threads = plan.threads > 0 ? plan.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, runs);

  std::atomic<std::int64_t> next{0}, done{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    try {
      for (;;) {
        const std::int64_t i = next.fetch_add(1);
        if (i >= runs) return;
        results[static_cast<std::size_t>(i)] = run_brooker(s, plan.seed, static_cast<std::uint64_t>(i));
        const std::int64_t d = done.fetch_add(1) + 1;
        if (progress) progress(d, runs);
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      next.store(runs);
    }
  };
  if (threads == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(threads));
    for (std::int64_t t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
  return results;
}

BrookerSummary summarize_brooker(const std::vector<BrookerResult>& results) {
  MeanAccumulator attempts, reads, calls, per_client, makespan, latency, max_attempts;
  for (const BrookerResult& r : results) {
    attempts.add(static_cast<double>(r.attempts));
    reads.add(static_cast<double>(r.reads));
    calls.add(static_cast<double>(r.calls));
    per_client.add(r.successes > 0 ? static_cast<double>(r.attempts) / static_cast<double>(r.successes) : 0.0);
    makespan.add(r.makespan);
    latency.add(r.latency);
    max_attempts.add(static_cast<double>(r.max_attempts));
  }
  BrookerSummary s;
  s.runs = static_cast<std::int64_t>(results.size());
  s.attempts = attempts.summary();
  s.reads = reads.summary();
  s.calls = calls.summary();
  s.attempts_per_client = per_client.summary();
  s.makespan = makespan.summary();
  s.latency = latency.summary();
  s.max_attempts = max_attempts.summary();
  return s;
}

}  // namespace retrylab::montecarlo
