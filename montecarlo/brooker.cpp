#include "montecarlo/brooker.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "analytic/error.hpp"
#include "montecarlo/parallel_runs.hpp"
#include "montecarlo/sampler.hpp"

namespace retrylab::montecarlo {

namespace {
void check_legs(double leg_mean, double leg_sd) {
  if (!(leg_mean >= 0.0 && leg_mean <= brooker_max_time))
    throw InputError("leg_mean", fmt::format("must be in [0, {}] ms (got {})", brooker_max_time, leg_mean));
  if (!(leg_sd >= 0.0 && leg_sd <= brooker_max_time))
    throw InputError("leg_sd", fmt::format("must be in [0, {}] ms (got {})", brooker_max_time, leg_sd));
}
}  // namespace

void check_brooker(const BrookerScenario& s) {
  check_backoff(s.backoff);
  if (!(s.backoff.cap <= brooker_max_time))
    throw InputError("cap", fmt::format("must be finite and <= {} ms for the brooker model (got {})", brooker_max_time,
                                        format_cap(s.backoff.cap)));
  if (s.backoff.strategy == Strategy::window && !(s.backoff.window <= brooker_max_time))
    throw InputError("window", fmt::format("must be <= {} ms (got {})", brooker_max_time, s.backoff.window));
  if (s.clients < 1 || s.clients > brooker_max_clients)
    throw InputError("clients", fmt::format("must be in [1, {}] (got {})", brooker_max_clients, s.clients));
  check_legs(s.leg_mean, s.leg_sd);
}

std::string canonical(const BrookerScenario& s) {
  const double window = s.backoff.strategy == Strategy::window ? s.backoff.window : 0.0;
  return fmt::format("model=brooker strategy={} base={} cap={} window={} clients={} leg_mean={} leg_sd={} unit=ms",
                     to_string(s.backoff.strategy), s.backoff.base, format_cap(s.backoff.cap), window, s.clients,
                     s.leg_mean, s.leg_sd);
}

std::uint64_t stable_hash(const BrookerScenario& s) { return fnv1a64(canonical(s)); }

namespace {

// The legs' stream: Random123 Philox4x64-10 keyed like the engine's streams (key = (run_key, stream
// id), counter = (block, run index, 0, 0)), four 64-bit draws per call, used in word order 0…3.
// Legs take four draws per attempt; Philox4x64 makes them at about a third of the engine stream's
// (Philox4x32) cost per draw, which is most of an attempt's cost. Conversions are random.hpp's.
class LegStream {
 public:
  LegStream(std::uint64_t key, StreamId id, std::uint64_t run) noexcept
      : key_{{key, static_cast<std::uint64_t>(id)}}, run_(run) {}

  std::uint64_t next_u64() noexcept {
    if (have_ == 0) refill();
    --have_;
    return buffer_[have_];
  }
  double uniform() noexcept { return uniform_open(next_u64()); }

 private:
  using Philox = r123::Philox4x64_R<10>;
  void refill() noexcept {
    const Philox::ctr_type ctr{{block_, run_, 0, 0}};
    const Philox::ctr_type out = Philox()(ctr, key_);
    for (int w = 0; w < 4; ++w) buffer_[3 - w] = out.v[w];  // next_u64 pops from the back
    have_ = 4;
    ++block_;
  }

  Philox::key_type key_;
  std::uint64_t run_;
  std::uint64_t block_ = 0;
  std::uint64_t buffer_[4] = {0, 0, 0, 0};
  int have_ = 0;
};

// Standard normal draws by the ziggurat method with 128 layers (Marsaglia & Tsang 2000, "The
// Ziggurat Method for Generating Random Variables", J. Stat. Soft. 5(8); the floating-point form of
// Doornik 2005, "An Improved Ziggurat Method to Generate Normal Random Samples"): R = 3.442619855899,
// layer area V = 9.91256303526217e-3. One 64-bit draw per try: its low 7 bits pick the layer, its
// top 52 bits the position (uniform_open); about 98.8% of tries are accepted in a layer's rectangle,
// the rest go to the wedge or tail tests, which draw more uniforms. Exact in distribution.
class Ziggurat {
 public:
  static constexpr int layers = 128;
  static constexpr double r = 3.442619855899;
  static constexpr double v = 9.91256303526217e-3;

  Ziggurat() noexcept {
    const double f = std::exp(-0.5 * r * r);
    x_[0] = v / f;
    x_[1] = r;
    for (int i = 2; i < layers; ++i)
      x_[i] = std::sqrt(-2.0 * std::log(v / x_[i - 1] + std::exp(-0.5 * x_[i - 1] * x_[i - 1])));
    x_[layers] = 0.0;
    for (int i = 0; i < layers; ++i) ratio_[i] = x_[i + 1] / x_[i];
  }

  // The common case (a point inside its layer's rectangle) inline; the rest out of line.
  template <class Rng>
  double operator()(Rng& rng) const noexcept {
    const std::uint64_t bits = rng.next_u64();
    const auto i = static_cast<int>(bits & (layers - 1));
    const double u = 2.0 * uniform_open(bits) - 1.0;  // (−1, 1), never 0
    if (std::fabs(u) < ratio_[i]) [[likely]]
      return u * x_[i];
    return rare(i, u, rng);
  }

 private:
  // Wedge or tail of the first try, then whole tries until one is accepted.
  template <class Rng>
  [[gnu::noinline]] double rare(int i, double u, Rng& rng) const noexcept {
    for (;;) {
      if (i == 0) return tail(u < 0.0, rng);
      const double x = u * x_[i];
      const double f0 = std::exp(-0.5 * (x_[i] * x_[i] - x * x));          // f(x_i) / f(x)
      const double f1 = std::exp(-0.5 * (x_[i + 1] * x_[i + 1] - x * x));  // f(x_(i+1)) / f(x)
      if (f1 + rng.uniform() * (f0 - f1) < 1.0) return x;
      const std::uint64_t bits = rng.next_u64();
      i = static_cast<int>(bits & (layers - 1));
      u = 2.0 * uniform_open(bits) - 1.0;
      if (std::fabs(u) < ratio_[i]) return u * x_[i];
    }
  }

  // Beyond R (Marsaglia 1964): x = −ln(U1)/R, y = −ln(U2), accepted when 2y >= x².
  template <class Rng>
  static double tail(bool negative, Rng& rng) noexcept {
    double x, y;
    do {
      x = -std::log(rng.uniform()) / r;
      y = -std::log(rng.uniform());
    } while (2.0 * y < x * x);
    return negative ? -(r + x) : r + x;
  }

  std::array<double, layers + 1> x_{};
  std::array<double, layers> ratio_{};
};

// One network leg: |Normal(mean, sd)|. sd = 0 draws nothing.
class LegSampler {
 public:
  // mean + 0.0 turns a -0 into +0, whose bits order correctly in the event keys.
  // The ziggurat's tables are built once per simulate_brooker call and shared read-only by runs.
  LegSampler(double mean, double sd, const Ziggurat& normal, LegStream& rng) noexcept
      : mean_(mean + 0.0), sd_(sd), rng_(rng), normal_(normal) {}

  [[gnu::always_inline]] double next() noexcept {
    if (sd_ == 0.0) return mean_;
    return std::fabs(mean_ + sd_ * normal_(rng_));
  }

 private:
  double mean_, sd_;
  LegStream& rng_;
  const Ziggurat& normal_;
};

// Each waiting client has exactly one event pending (its next write's arrival), so the queue holds
// <= N entries and processing an event either replaces the top (its next attempt) or removes it.
// An entry is one 128-bit key: the time's bits (a double >= 0 orders like its bit pattern) above a
// 64-bit tie word = 44 bits of mix64(salt + sequence) above the client's 20-bit index. Queued keys
// are unique (one per client), so the order is total; comparisons are integer compares.
inline constexpr int client_bits = 20;
static_assert((std::int64_t{1} << client_bits) >= brooker_max_clients);
inline constexpr std::uint64_t client_mask = (std::uint64_t{1} << client_bits) - 1;

inline uint128 make_key(double time, std::uint64_t random, std::uint32_t client) noexcept {
  const std::uint64_t tie = (random & ~client_mask) | client;
  return static_cast<uint128>(std::bit_cast<std::uint64_t>(time)) << 64 | tie;
}
inline double key_time(uint128 k) noexcept { return std::bit_cast<double>(static_cast<std::uint64_t>(k >> 64)); }
inline std::uint32_t key_client(uint128 k) noexcept { return static_cast<std::uint32_t>(k & client_mask); }

// Binary min-heap with bottom-up replacement (Floyd): descend to a leaf along smaller children
// (one compare per level), then sift the new key up (it is usually late, so it rises little).
class EventHeap {
 public:
  explicit EventHeap(std::size_t capacity) { heap_.reserve(capacity); }
  bool empty() const noexcept { return heap_.empty(); }
  uint128 top() const noexcept { return heap_.front(); }

  void push(uint128 e) {
    heap_.push_back(e);
    sift_up(heap_.size() - 1, e);
  }

  void replace_top(uint128 e) noexcept {
    const std::size_t n = heap_.size();
    uint128* h = heap_.data();
    std::size_t i = 0;
    for (;;) {
      std::size_t c = 2 * i + 1;
      if (c + 1 < n) {
        c += h[c + 1] < h[c] ? 1 : 0;
      } else if (c >= n) {
        break;
      }
      h[i] = h[c];
      i = c;
    }
    sift_up(i, e);
  }

  void pop() noexcept {
    const uint128 last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) replace_top(last);
  }

 private:
  void sift_up(std::size_t i, uint128 e) noexcept {
    uint128* h = heap_.data();
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!(e < h[parent])) break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = e;
  }

  std::vector<uint128> heap_;
};

// One event per attempt: the write request's arrival at the server. The read needs no event of its
// own: the version it sees is fixed by the successful writes processed before it in (time, tie)
// order, and the write succeeds iff no successful write came between the read and the write, i.e.
// iff the last success's key is below the read's key (every write before this one in key order has
// been processed). So a client's read instant and tie word are drawn when its attempt is scheduled,
// and only the write is queued. Client-side arrivals (replies) touch no shared state either.
struct Client {
  uint128 read_key = 0;     // (time, tie word, client) of the attempt's read at the server
  double prev_sleep = 0.0;  // decorrelated state s_(k−1)
  std::int32_t failures = 0;
};

BrookerResult run_brooker(const BrookerScenario& s, const Ziggurat& normal, std::uint64_t seed,
                          std::uint64_t run_index) {
  const std::uint64_t key = run_key(seed, stable_hash(s));
  LegStream network(key, brooker_network_stream, run_index);
  Stream sleeps(key, StreamId::sleeps, run_index);
  Stream ties(key, StreamId::ties, run_index);
  LegSampler leg(s.leg_mean, s.leg_sd, normal, network);
  const SleepSampler sampler(s.backoff, 1);  // w_k = min(c, b·2^k): Brooker's expo(k)
  // Tie words: mix64(salt + sequence number), the salt one draw of the ties stream.
  const std::uint64_t tie_salt = ties.next_u64();
  std::uint64_t sequence = 0;

  const auto n = static_cast<std::size_t>(s.clients);
  std::vector<Client> clients(n);
  EventHeap queue(n);
  // The key of a client's server instant at time t that follows its instant `prev` (or none). An
  // instant at exactly the time of the client's previous one (zero legs and sleep, or a leg too
  // small to change t) keeps its tie word, so no other instant is ordered between the two and cause
  // never follows effect; otherwise a fresh tie word.
  auto next_key = [&](double t, std::uint32_t c, const uint128* prev) {
    if (prev != nullptr && key_time(*prev) == t) return *prev;
    return make_key(t, mix64(tie_salt + sequence++), c);
  };
  // An attempt whose read request reaches the server at `read_at`: its write arrives two legs later.
  auto schedule = [&](Client& cl, std::uint32_t c, double read_at, const uint128* prev) {
    cl.read_key = next_key(read_at, c, prev);
    const double reply = leg.next();
    return next_key(read_at + reply + leg.next(), c, &cl.read_key);
  };
  for (std::size_t c = 0; c < n; ++c) {
    clients[c].prev_sleep = s.backoff.base;
    queue.push(schedule(clients[c], static_cast<std::uint32_t>(c), leg.next(), nullptr));
  }

  BrookerResult r;
  bool any_success = false;
  uint128 last_success = 0;
  double latency_sum = 0.0;
  while (!queue.empty()) {
    const uint128 top = queue.top();
    const std::uint32_t client = key_client(top);
    Client& cl = clients[client];
    ++r.attempts;
    const double reply_at = key_time(top) + leg.next();  // the write reply reaches the client
    if (!any_success || last_success < cl.read_key) {    // version unchanged since the read
      any_success = true;
      last_success = top;
      ++r.successes;
      r.makespan = std::max(r.makespan, reply_at);
      latency_sum += reply_at;
      r.max_attempts = std::max<std::int64_t>(r.max_attempts, cl.failures + 1);
      queue.pop();
      continue;
    }
    ++cl.failures;
    const double pause = sampler.sleep(cl.failures, cl.prev_sleep, sleeps);
    queue.replace_top(schedule(cl, client, reply_at + pause + leg.next(), &top));  // sleep, then read again
  }
  r.reads = r.attempts;  // each attempt is one read followed by one write
  r.calls = r.reads + r.attempts;
  r.latency = latency_sum / static_cast<double>(s.clients);
  return r;
}

}  // namespace

BrookerResult simulate_brooker_run(const BrookerScenario& s, std::uint64_t seed, std::uint64_t run_index) {
  check_brooker(s);
  const Ziggurat normal;
  return run_brooker(s, normal, seed, run_index);
}

std::vector<BrookerResult> simulate_brooker(const BrookerScenario& s, const RunPlan& plan,
                                            const std::function<void(std::int64_t, std::int64_t)>& progress) {
  check_brooker(s);
  const Ziggurat normal;
  return detail::run_in_order<BrookerResult>(
      plan, [&](std::uint64_t i) { return run_brooker(s, normal, plan.seed, i); }, progress);
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

std::vector<double> draw_brooker_legs(double leg_mean, double leg_sd, std::int64_t n, std::uint64_t seed) {
  check_legs(leg_mean, leg_sd);
  if (n < 0) throw InputError("n", fmt::format("must be >= 0 (got {})", n));
  const std::string id = fmt::format("draw_brooker_legs leg_mean={} leg_sd={}", leg_mean, leg_sd);
  LegStream rng(run_key(seed, fnv1a64(id)), brooker_network_stream, 0);
  const Ziggurat normal;
  LegSampler leg(leg_mean, leg_sd, normal, rng);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (auto& x : out) x = leg.next();
  return out;
}

}  // namespace retrylab::montecarlo
