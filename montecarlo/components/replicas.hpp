#pragma once
// Replicas behind a load balancer (docs/models.md §9): the dependency is k = `replicas` independent
// copies of the server. Each attempt goes to one replica, chosen when it is sent (on_send, so a
// network leg or a queue never changes it) by the balancer: random (uniform), round-robin (a cursor
// shared by every client), least-outstanding (the fewest attempts sent to it whose outcome its
// client has not heard; ties uniform), p2c (two distinct replicas uniform, the one with fewer
// outstanding; a tie goes to the first drawn). With replica_retry = other, a request's later attempt
// (a retry or a hedge) goes to a replica the request has not tried; once it has tried every one, to
// any but the one its latest attempt went to (a per-client bitmask of the replicas tried, reset with
// each new request: a client is one request).
// What is per replica lives where it is used: the limit counts each replica's admitted attempts and
// keeps its own overflow queue (components/limit.hpp), the outage hits the replica outage_replica
// names (components/injection.hpp), both reading the attempt's `replica` written here.
// Invariants: replica in [0, k); with k = 1 the component is off (nothing drawn, nothing written) and
// every earlier scenario keeps its bytes; its draws come from its own stream (replicas).
// Supported: model `none` (each attempt served alone: k replicas of limit c are k M/M/c queues), a
// fixed limit or none; refused: the models whose attempts share a server's state (collision, free,
// shared, ps), the row lock (rows shared by every replica) and AIMD (one adaptive limit).
// Metrics: replica_attempts_max, replica_attempts_min, replica_imbalance (the window's attempts).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/random.hpp"

namespace retrylab::montecarlo::detail {

class Replicas : public Component {
 public:
  struct JobState {
    std::int32_t replica = 0;  // where the balancer sent it (read by the limit and the injection)
    bool outstanding = false;  // counted in its replica's outstanding attempts
  };
  struct ClientState {
    std::uint64_t tried = 0;  // bit r: the request has sent an attempt to replica r
    std::int32_t last = -1;   // its latest attempt's replica
  };
  static constexpr std::array fields{
      Field{.name = "replicas",
            .group = FieldGroup::resource,
            .rank = 1300,
            .kind = FieldKind::integer,
            .lo = 1,
            .hi = static_cast<double>(max_replicas),
            .meaning = "replicas of the dependency, each with its own limit and queue, behind a load balancer (1 = "
                       "one server)",
            .access = member<&Scenario::replicas, &ReplicaSet::count>()},
      Field{.name = "balancer",
            .group = FieldGroup::resource,
            .rank = 1310,
            .kind = FieldKind::choice,
            .choices = balancer_names,
            .meaning = "how an attempt's replica is chosen: random, round-robin, least-outstanding, p2c (power of "
                       "two choices) (needs replicas > 1)",
            .access = member<&Scenario::replicas, &ReplicaSet::balancer>()},
      Field{.name = "replica_retry",
            .group = FieldGroup::client,
            .rank = 1320,
            .kind = FieldKind::choice,
            .choices = replica_retry_names,
            .meaning = "a retry or hedge: to any replica the balancer picks, or to one its request has not tried "
                       "(other) (needs replicas > 1)",
            .access = member<&Scenario::replicas, &ReplicaSet::retry>()},
      Field{.name = "outage_replica",
            .group = FieldGroup::failures,
            .rank = 1330,
            .kind = FieldKind::integer,
            .hi = static_cast<double>(max_replicas),
            .meaning = "the replica the outage window hits, 1..replicas (0 = every replica)",
            .access = member<&Scenario::replicas, &ReplicaSet::outage_replica>()}};
  static constexpr std::array streams{StreamId::replicas};  // the balancer's draws (montecarlo/random.hpp)
  // A hedge may go to another replica than its request's earlier attempts (replica_retry other).
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  static bool active(const Scenario& s) noexcept { return s.replicas.count > 1; }
  static void check(const Scenario& s) {
    const ReplicaSet& o = s.replicas;
    const bool on = o.count > 1;
    if (!on && o.balancer != Balancer::random) throw InputError("balancer", "needs `replicas` > 1");
    if (!on && o.retry != ReplicaRetry::any) throw InputError("replica_retry", "needs `replicas` > 1");
    if (o.outage_replica > o.count)
      throw InputError("outage_replica", fmt::format("must be in [0, `replicas`={}] (0 = every replica) (got {})",
                                                     o.count, o.outage_replica));
    if (o.outage_replica > 0 && !on)
      throw InputError("outage_replica", "needs `replicas` > 1 (one server: the outage hits it, 0)");
    if (o.outage_replica > 0 && s.failures.outage_end == 0.0)
      throw InputError("outage_replica", "needs an outage (`outage_end` > `outage_start`)");
    if (!on) return;
    if (s.model != Model::none)
      throw InputError("replicas", fmt::format("> 1 needs `model=none`: under {} every attempt shares one server's "
                                               "state (rows, commits, processor) (got {} with `model={}`)",
                                               to_string(s.model), o.count, to_string(s.model)));
    if (s.resource.lock)
      throw InputError("replicas", fmt::format("> 1 cannot run with `lock=on`: a row's lock would be shared by every "
                                               "replica (got {})",
                                               o.count));
    if (s.admission.aimd)
      throw InputError("replicas",
                       fmt::format("> 1 cannot run with `aimd=on`: the adaptive limit is one for the whole server, not "
                                   "one per replica (got {})",
                                   o.count));
  }
  static bool shows(const Scenario& s, bool /*server_engine*/) { return s.replicas.count > 1; }
  static constexpr std::array metrics{MetricDef{.key = "replica_attempts_max",
                                                .label = "attempts to the busiest replica (per run)",
                                                .dim = Dim::count,
                                                .rank = 1300,
                                                .shown = shows,
                                                .when_absent = absent::undefined,
                                                .integer = true},
                                      MetricDef{.key = "replica_attempts_min",
                                                .label = "attempts to the least busy replica (per run)",
                                                .dim = Dim::count,
                                                .rank = 1310,
                                                .shown = shows,
                                                .when_absent = absent::undefined,
                                                .integer = true},
                                      MetricDef{.key = "replica_imbalance",
                                                .label = "busiest replica's attempts / mean (1 = even)",
                                                .dim = Dim::count,
                                                .rank = 1320,
                                                .shown = shows,
                                                .when_absent = absent::undefined,
                                                .lo = 1.0,
                                                .hi = static_cast<double>(max_replicas)}};

  template <class Faults>
  Replicas(const Scenario& s, const Faults& /*faults*/)
      : on_(active(s)), k_(static_cast<std::int32_t>(s.replicas.count)), o_(&s.replicas) {
    if (!on_) return;
    all_ = k_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << k_) - 1;
    outstanding_.assign(static_cast<std::size_t>(k_), 0);
    attempts_.assign(static_cast<std::size_t>(k_), 0);
  }

  // The balancer picks attempt j's replica among those its request may use.
  template <class E>
  [[gnu::always_inline]] void on_send(E& e, std::int32_t c, std::int32_t j) {
    if (!on_) return;
    ClientState& me = e.client_extra(c);
    std::uint64_t allowed = all_;
    if (o_->retry == ReplicaRetry::other && me.tried != 0) {
      allowed = all_ & ~me.tried;
      if (allowed == 0) allowed = all_ & ~(std::uint64_t{1} << me.last);
    }
    const std::int32_t r = pick(e, allowed);
    me.tried |= std::uint64_t{1} << r;
    me.last = r;
    JobState& mine = e.extra(j);
    mine.replica = r;
    mine.outstanding = true;
    ++outstanding_[static_cast<std::size_t>(r)];
    if (e.now() >= e.warmup()) ++attempts_[static_cast<std::size_t>(r)];
  }
  // The attempt's outcome reached its client (or it ended without one): no longer outstanding.
  template <class E>
  void on_outcome(E& e, const Outcome& o) noexcept {
    if (on_ && o.job >= 0) settle(e, o.job);
  }
  template <class E>
  void on_job_done(E& e, std::int32_t j) noexcept {
    if (on_) settle(e, j);
  }

  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    if (!on_) return;
    const auto [lo, hi] = std::minmax_element(attempts_.begin(), attempts_.end());
    std::int64_t total = 0;
    for (const std::int64_t a : attempts_) total += a;
    out[0] = static_cast<double>(*hi);
    out[1] = static_cast<double>(*lo);
    out[2] = total > 0 ? static_cast<double>(*hi) * static_cast<double>(k_) / static_cast<double>(total)
                       : std::numeric_limits<double>::quiet_NaN();
  }

 private:
  template <class E>
  void settle(E& e, std::int32_t j) noexcept {
    JobState& mine = e.extra(j);
    if (!mine.outstanding) return;
    mine.outstanding = false;
    --outstanding_[static_cast<std::size_t>(mine.replica)];
  }
  // The n-th replica (from 0) of set `allowed`.
  static std::int32_t nth(std::uint64_t allowed, std::uint64_t n) noexcept {
    for (; n > 0; --n) allowed &= allowed - 1;
    return static_cast<std::int32_t>(std::countr_zero(allowed));
  }
  template <class E>
  std::int32_t pick(E& e, std::uint64_t allowed) {
    const auto n = static_cast<std::uint64_t>(std::popcount(allowed));
    auto& draws = e.template stream<StreamId::replicas>();
    switch (o_->balancer) {
      case Balancer::random: return nth(allowed, draws.index(n));
      case Balancer::round_robin:
        for (std::int32_t i = 0; i < k_; ++i) {
          const std::int32_t r = (cursor_ + i) % k_;
          if (allowed >> r & 1U) {
            cursor_ = (r + 1) % k_;
            return r;
          }
        }
        return 0;  // unreachable: allowed is never empty
      case Balancer::least_outstanding: {
        std::int64_t best = std::numeric_limits<std::int64_t>::max();
        std::uint64_t ties = 0;
        for (std::uint64_t m = allowed; m != 0; m &= m - 1) {
          const int r = std::countr_zero(m);
          const std::int64_t x = outstanding_[static_cast<std::size_t>(r)];
          if (x < best) {
            best = x;
            ties = 0;
          }
          if (x == best) ties |= std::uint64_t{1} << r;
        }
        const auto t = static_cast<std::uint64_t>(std::popcount(ties));
        return t == 1 ? nth(ties, 0) : nth(ties, draws.index(t));
      }
      case Balancer::p2c: {
        if (n == 1) return nth(allowed, 0);
        const std::uint64_t a = draws.index(n);
        std::uint64_t b = draws.index(n - 1);
        if (b >= a) ++b;
        const std::int32_t ra = nth(allowed, a), rb = nth(allowed, b);
        return outstanding_[static_cast<std::size_t>(rb)] < outstanding_[static_cast<std::size_t>(ra)] ? rb : ra;
      }
    }
    return 0;
  }

  bool on_;
  std::int32_t k_;
  const ReplicaSet* o_;
  std::uint64_t all_ = 0;
  std::int32_t cursor_ = 0;                // round-robin: the next replica to look at
  std::vector<std::int64_t> outstanding_;  // per replica: attempts sent, outcome not yet heard
  std::vector<std::int64_t> attempts_;     // per replica: attempts sent in the window
};

}  // namespace retrylab::montecarlo::detail
