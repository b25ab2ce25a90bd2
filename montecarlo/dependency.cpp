#include "montecarlo/dependency.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <exception>
#include <numbers>
#include <queue>

#include "analytic/error.hpp"
#include "montecarlo/normal.hpp"
#include "montecarlo/parallel_runs.hpp"
#include "montecarlo/random.hpp"
#include "montecarlo/sampler.hpp"

namespace retrylab::montecarlo {

namespace {

// Streams of the dependency simulator (named in random.hpp's StreamId; the key differs
// anyway, since it hashes this simulator's canonical description).
constexpr auto stream_arrivals = StreamId::arrivals;
constexpr auto stream_sleeps = StreamId::sleeps;
constexpr auto stream_service = StreamId::dependency_service;
constexpr auto stream_failures = StreamId::dependency_failures;
constexpr auto stream_throttle = StreamId::dependency_throttle;
constexpr auto stream_outage = StreamId::dependency_outage;

void add_finite(MeanAccumulator& acc, double x) {
  if (std::isfinite(x)) acc.add(x);
}

}  // namespace

// ------------------------------------------------------------------------------------------ names

std::string_view to_string(ServiceDistribution d) noexcept {
  switch (d) {
    case ServiceDistribution::deterministic: return "deterministic";
    case ServiceDistribution::exponential: return "exponential";
    case ServiceDistribution::lognormal: return "lognormal";
  }
  return "?";
}

std::string_view to_string(Idempotency i) noexcept {
  switch (i) {
    case Idempotency::none: return "none";
    case Idempotency::per_attempt: return "per-attempt";
    case Idempotency::fixed: return "fixed";
  }
  return "?";
}

ServiceDistribution parse_service_distribution(std::string_view name) {
  for (auto d : {ServiceDistribution::deterministic, ServiceDistribution::exponential, ServiceDistribution::lognormal})
    if (name == to_string(d)) return d;
  throw InputError("service", fmt::format("must be one of deterministic, exponential, lognormal (got {})", name));
}

Idempotency parse_idempotency(std::string_view name) {
  for (auto i : {Idempotency::none, Idempotency::per_attempt, Idempotency::fixed})
    if (name == to_string(i)) return i;
  throw InputError("idempotency", fmt::format("must be one of none, per-attempt, fixed (got {})", name));
}

// ------------------------------------------------------------------------------------- the scenario

void check_dependency(const DependencyScenario& s) {
  if (!(s.rate > 0.0) || !std::isfinite(s.rate))
    throw InputError("rate", fmt::format("must be a finite number > 0 requests per ms (got {})", s.rate));
  if (!(s.horizon > 0.0) || !std::isfinite(s.horizon))
    throw InputError("horizon", fmt::format("must be a finite number > 0 ms (got {})", s.horizon));
  if (!(s.rate * s.horizon <= 1e8))
    throw InputError("rate",
                     fmt::format("times horizon must be <= 1e8 expected requests (got {})", s.rate * s.horizon));
  if (!(s.failure >= 0.0 && s.failure <= 1.0))
    throw InputError("failure", fmt::format("must be in [0, 1] (got {})", s.failure));
  double previous_end = 0.0;
  for (const Outage& o : s.outages) {
    if (!(o.start >= previous_end) || !std::isfinite(o.start))
      throw InputError("outage", fmt::format("start must be finite, >= 0 and >= the previous outage's end {} (got {})",
                                             previous_end, o.start));
    if (!(o.end > o.start) || !std::isfinite(o.end))
      throw InputError("outage", fmt::format("end must be finite and > its start {} (got {})", o.start, o.end));
    if (!(o.failure >= 0.0 && o.failure <= 1.0))
      throw InputError("outage", fmt::format("failure must be in [0, 1] (got {})", o.failure));
    previous_end = o.end;
  }
  if (!(s.service_mean > 0.0) || !std::isfinite(s.service_mean))
    throw InputError("service_mean", fmt::format("must be a finite number > 0 ms (got {})", s.service_mean));
  if (!(s.service_sigma >= 0.0 && s.service_sigma <= 5.0))
    throw InputError("service_sigma", fmt::format("must be in [0, 5] (got {})", s.service_sigma));
  if (s.capacity < 0 || s.capacity > 1'000'000'000)
    throw InputError("capacity", fmt::format("must be in [0, 1e9] (0 = unlimited) (got {})", s.capacity));
  if (!(s.timeout > 0.0)) throw InputError("timeout", fmt::format("must be > 0 ms (inf = none) (got {})", s.timeout));
  if (s.max_attempts < 1 || s.max_attempts > 10000)
    throw InputError("max_attempts", fmt::format("must be in [1, 10000] (got {})", s.max_attempts));
  check_backoff(s.backoff);
  if (!std::isfinite(s.backoff.cap))
    throw InputError("cap", "must be finite for the dependency simulator (sleeps must stay finite)");
  check_budget(s.budget);
  check_breaker(s.breaker);
  if (!(s.recovery_window > 0.0) || !std::isfinite(s.recovery_window))
    throw InputError("recovery_window", fmt::format("must be a finite number > 0 ms (got {})", s.recovery_window));
}

std::string canonical(const DependencyScenario& s) {
  std::string outages;
  for (const Outage& o : s.outages) {
    if (!outages.empty()) outages += ';';
    outages += fmt::format("{},{},{}", o.start, o.end, o.failure);
  }
  const double window = s.backoff.strategy == Strategy::window ? s.backoff.window : 0.0;
  const double sigma = s.service == ServiceDistribution::lognormal ? s.service_sigma : 0.0;
  return fmt::format(
      "model=dependency unit=ms rate={} horizon={} failure={} outages=[{}] service={} service_mean={} "
      "service_sigma={} capacity={} timeout={} max_attempts={} strategy={} base={} cap={} window={} {} {} "
      "idempotency={} recovery_window={}",
      s.rate, s.horizon, s.failure, outages, to_string(s.service), s.service_mean, sigma, s.capacity,
      std::isinf(s.timeout) ? std::string("none") : fmt::format("{}", s.timeout), s.max_attempts,
      to_string(s.backoff.strategy), s.backoff.base, format_cap(s.backoff.cap), window, canonical(s.budget),
      canonical(s.breaker), to_string(s.idempotency), s.recovery_window);
}

std::uint64_t stable_hash(const DependencyScenario& s) { return fnv1a64(canonical(s)); }

// -------------------------------------------------------------------------------------- the run

namespace {

enum class EventKind : std::uint8_t { arrival, try_start, server_complete, timeout };

struct Event {
  double time;
  std::uint64_t seq;
  EventKind kind;
  std::uint32_t index;  // request (try_start) or attempt (server_complete, timeout)
  bool operator>(const Event& o) const noexcept { return time != o.time ? time > o.time : seq > o.seq; }
};

struct Request {
  double arrival = 0.0;
  double prev_sleep = 0.0;  // decorrelated state
  double paid = 0.0;        // what the budget charged for the next try
  int tries = 0;
  int failures = 0;
  std::int32_t effects = 0;
  bool done = false;
  bool succeeded = false;
};

struct Attempt {
  std::uint32_t request = 0;
  double start = 0.0;
  double paid = 0.0;
  BreakerTicket ticket{};
  bool success = false;
  bool timed_out = false;
};

class DependencyRun {
 public:
  DependencyRun(const DependencyScenario& s, std::uint64_t seed, std::uint64_t run)
      : s_(s),
        key_(run_key(seed, stable_hash(s))),
        arrivals_(key_, stream_arrivals, run),
        sleeps_(key_, stream_sleeps, run),
        service_(key_, stream_service, run),
        failures_(key_, stream_failures, run),
        throttle_(key_, stream_throttle, run),
        sampler_(s.backoff),
        budget_(s.budget),
        breaker_(s.breaker) {}

  DependencyRunResult run() {
    schedule_arrival(0.0);
    while (!queue_.empty()) {
      const Event e = queue_.top();
      queue_.pop();
      now_ = e.time;
      switch (e.kind) {
        case EventKind::arrival: on_arrival(); break;
        case EventKind::try_start: on_try(e.index); break;
        case EventKind::server_complete: on_server_complete(e.index); break;
        case EventKind::timeout: on_timeout(e.index); break;
      }
    }
    return finish();
  }

 private:
  void push(double t, EventKind kind, std::uint32_t index) { queue_.push(Event{t, seq_++, kind, index}); }

  void schedule_arrival(double from) {
    const double t = from + arrivals_.exponential() / s_.rate;
    if (t < s_.horizon) push(t, EventKind::arrival, 0);
  }

  double failure_probability(double t) const {
    for (const Outage& o : s_.outages)
      if (t >= o.start && t < o.end) return o.failure;
    return s_.failure;
  }

  double service_time() {
    switch (s_.service) {
      case ServiceDistribution::deterministic: return s_.service_mean;
      case ServiceDistribution::exponential: return s_.service_mean * service_.exponential();
      case ServiceDistribution::lognormal: {
        // mean exp(mu + sigma²/2) = service_mean.
        const double z = standard_normal(service_);
        const double sigma = s_.service_sigma;
        return s_.service_mean * std::exp(sigma * z - 0.5 * sigma * sigma);
      }
    }
    return s_.service_mean;
  }

  void on_arrival() {
    if (requests_.size() >= 0xffffffffu) throw InputError("rate", "too many requests in one run (more than 2^32 − 1)");
    const auto r = static_cast<std::uint32_t>(requests_.size());
    Request req;
    req.arrival = now_;
    req.prev_sleep = s_.backoff.base;
    requests_.push_back(req);
    ++waiting_;
    result_.max_waiting = std::max(result_.max_waiting, waiting_);
    budget_.on_request(now_);
    schedule_arrival(now_);
    on_try(r);
  }

  void on_try(std::uint32_t r) {
    Request& req = requests_[r];
    ++req.tries;
    if (req.tries > 1) ++result_.retries;
    const BreakerTicket ticket = breaker_.admit(now_);
    if (!ticket.admitted()) {
      ++result_.rejected_by_breaker;
      after_failure(r, false);
      return;
    }
    const double u = s_.budget.kind == BudgetKind::adaptive ? throttle_.uniform() : 0.5;
    if (!budget_.admit(now_, u)) {
      ++result_.rejected_by_throttle;
      after_failure(r, false);
      return;
    }
    ++result_.attempts;
    if (s_.capacity > 0 && in_flight_ >= s_.capacity) {
      ++result_.rejected_by_capacity;
      record_completion(now_, false);
      breaker_.record(now_, ticket, false);
      budget_.on_failure(now_, false);
      after_failure(r, false);
      return;
    }
    if (attempts_.size() >= 0xffffffffu) throw InputError("rate", "too many attempts in one run (more than 2^32 − 1)");
    const auto a = static_cast<std::uint32_t>(attempts_.size());
    Attempt att;
    att.request = r;
    att.start = now_;
    att.paid = req.paid;
    att.ticket = ticket;
    const double p = failure_probability(now_);
    att.success = !(failures_.uniform() < p);
    attempts_.push_back(att);
    ++in_flight_;
    const double service = service_time();
    push(now_ + service, EventKind::server_complete, a);
    if (service > s_.timeout) push(now_ + s_.timeout, EventKind::timeout, a);
  }

  void on_server_complete(std::uint32_t a) {
    --in_flight_;
    Attempt& att = attempts_[a];
    Request& req = requests_[att.request];
    record_completion(now_, att.success);
    if (att.success) {
      if (!(s_.idempotency == Idempotency::fixed && req.effects > 0)) {
        ++req.effects;
        ++result_.effects;
      }
    }
    if (att.timed_out) return;
    breaker_.record(now_, att.ticket, att.success);
    if (att.success) {
      budget_.on_success(now_, att.paid);
      req.done = true;
      req.succeeded = true;
      --waiting_;
      ++result_.successes;
      latencies_.push_back(now_ - req.arrival);
    } else {
      budget_.on_failure(now_, false);
      after_failure(att.request, false);
    }
  }

  void on_timeout(std::uint32_t a) {
    Attempt& att = attempts_[a];
    att.timed_out = true;
    ++result_.timeouts;
    breaker_.record(now_, att.ticket, false);
    budget_.on_failure(now_, true);
    after_failure(att.request, true);
  }

  void after_failure(std::uint32_t r, bool timeout) {
    Request& req = requests_[r];
    ++req.failures;
    if (req.tries >= s_.max_attempts) {
      give_up(req);
      return;
    }
    const RetryGrant grant = budget_.try_retry(now_, timeout);
    if (!grant.allowed) {
      ++result_.retries_blocked;
      give_up(req);
      return;
    }
    req.paid = grant.paid;
    const double sleep = sampler_.sleep(req.failures, req.prev_sleep, sleeps_);
    push(now_ + sleep, EventKind::try_start, r);
  }

  void give_up(Request& req) {
    req.done = true;
    --waiting_;
    ++result_.failures;
  }

  // Attempt outcomes at the dependency, for recovery_time.
  void record_completion(double t, bool success) {
    if (s_.outages.empty()) return;
    const Outage& o = s_.outages.front();
    if (t < o.start) {
      ++baseline_done_;
      if (success) ++baseline_ok_;
    } else if (t >= o.end) {
      const double k = std::floor((t - o.end) / s_.recovery_window);
      if (k > 1e7) return;  // far beyond any study's horizon: not binned
      const auto bin = static_cast<std::size_t>(k);
      if (bins_.size() <= bin) bins_.resize(bin + 1, {0, 0});
      ++bins_[bin].first;
      if (success) ++bins_[bin].second;
    }
  }

  DependencyRunResult finish() {
    DependencyRunResult& r = result_;
    r.end_time = now_;
    r.requests = static_cast<std::int64_t>(requests_.size());
    const double n = static_cast<double>(r.requests);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.load_multiplier = r.requests > 0 ? static_cast<double>(r.attempts) / n : nan;
    r.success_fraction = r.requests > 0 ? static_cast<double>(r.successes) / n : nan;
    if (r.successes > 0)
      r.retries_per_success = static_cast<double>(r.retries) / static_cast<double>(r.successes);
    else
      r.retries_per_success = r.retries > 0 ? std::numeric_limits<double>::infinity() : nan;
    if (latencies_.empty()) {
      r.latency = r.latency_p99 = nan;
    } else {
      double sum = 0.0;
      for (double x : latencies_) sum += x;  // in success order: deterministic
      r.latency = sum / static_cast<double>(latencies_.size());
      // Nearest rank: the ceil(0.99·n)-th smallest.
      const auto rank = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(latencies_.size())));
      const auto idx = rank == 0 ? 0 : rank - 1;
      std::nth_element(latencies_.begin(), latencies_.begin() + static_cast<std::ptrdiff_t>(idx), latencies_.end());
      r.latency_p99 = latencies_[idx];
    }
    for (const Request& q : requests_) {
      if (q.effects > 1) r.duplicate_effects += q.effects - 1;
      if (!q.succeeded && q.effects > 0) ++r.hidden_effects;
    }
    r.breaker_opened = breaker_.times_opened();
    r.recovery_time = nan;
    if (!s_.outages.empty()) {
      const double baseline = baseline_done_ > 0
                                  ? static_cast<double>(baseline_ok_) / static_cast<double>(baseline_done_)
                                  : 1.0 - s_.failure;
      for (std::size_t k = 0; k < bins_.size(); ++k) {
        if (bins_[k].first == 0) continue;
        const double fraction = static_cast<double>(bins_[k].second) / static_cast<double>(bins_[k].first);
        if (fraction >= 0.95 * baseline) {
          r.recovery_time = static_cast<double>(k + 1) * s_.recovery_window;
          break;
        }
      }
    }
    return r;
  }

  const DependencyScenario& s_;
  std::uint64_t key_;
  Stream arrivals_, sleeps_, service_, failures_, throttle_;
  SleepSampler sampler_;
  RetryBudget budget_;
  CircuitBreaker breaker_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  std::uint64_t seq_ = 0;
  double now_ = 0.0;
  std::vector<Request> requests_;
  std::vector<Attempt> attempts_;
  std::vector<double> latencies_;
  std::int64_t in_flight_ = 0, waiting_ = 0;
  std::int64_t baseline_done_ = 0, baseline_ok_ = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> bins_;
  DependencyRunResult result_;
};

}  // namespace

DependencyRunResult simulate_dependency_run(const DependencyScenario& s, std::uint64_t seed, std::uint64_t run_index) {
  check_dependency(s);
  return DependencyRun(s, seed, run_index).run();
}

std::vector<DependencyRunResult> simulate_dependency(const DependencyScenario& s, const RunPlan& plan,
                                                     const std::function<void(std::int64_t, std::int64_t)>& progress) {
  check_dependency(s);
  return detail::run_in_order<DependencyRunResult>(
      plan, [&](std::uint64_t i) { return DependencyRun(s, plan.seed, i).run(); }, progress);
}

DependencySummary summarize(const std::vector<DependencyRunResult>& results) {
  DependencySummary out;
  out.runs = static_cast<std::int64_t>(results.size());
  MeanAccumulator requests, attempts, retries, load, rps, success, latency, p99, timeouts, dups, hidden, blocked,
      breaker, throttle, capacity, opened, recovery, waiting;
  std::int64_t recovered = 0;
  for (const auto& r : results) {
    add_finite(requests, static_cast<double>(r.requests));
    add_finite(attempts, static_cast<double>(r.attempts));
    add_finite(retries, static_cast<double>(r.retries));
    add_finite(load, r.load_multiplier);
    add_finite(rps, r.retries_per_success);
    add_finite(success, r.success_fraction);
    add_finite(latency, r.latency);
    add_finite(p99, r.latency_p99);
    add_finite(timeouts, static_cast<double>(r.timeouts));
    add_finite(dups, static_cast<double>(r.duplicate_effects));
    add_finite(hidden, static_cast<double>(r.hidden_effects));
    add_finite(blocked, static_cast<double>(r.retries_blocked));
    add_finite(breaker, static_cast<double>(r.rejected_by_breaker));
    add_finite(throttle, static_cast<double>(r.rejected_by_throttle));
    add_finite(capacity, static_cast<double>(r.rejected_by_capacity));
    add_finite(opened, static_cast<double>(r.breaker_opened));
    add_finite(recovery, r.recovery_time);
    add_finite(waiting, static_cast<double>(r.max_waiting));
    if (std::isfinite(r.recovery_time)) ++recovered;
  }
  out.requests = requests.summary();
  out.attempts = attempts.summary();
  out.retries = retries.summary();
  out.load_multiplier = load.summary();
  out.retries_per_success = rps.summary();
  out.success_fraction = success.summary();
  out.latency = latency.summary();
  out.latency_p99 = p99.summary();
  out.timeouts = timeouts.summary();
  out.duplicate_effects = dups.summary();
  out.hidden_effects = hidden.summary();
  out.retries_blocked = blocked.summary();
  out.rejected_by_breaker = breaker.summary();
  out.rejected_by_throttle = throttle.summary();
  out.rejected_by_capacity = capacity.summary();
  out.breaker_opened = opened.summary();
  out.recovery_time = recovery.summary();
  out.max_waiting = waiting.summary();
  out.recovered = summarize_proportion(recovered, out.runs);
  return out;
}

}  // namespace retrylab::montecarlo
