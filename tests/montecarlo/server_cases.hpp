#pragma once
// What the server tests share (tests/montecarlo/server_*_test.cpp): a pure burst with server
// options, and for the rapidcheck properties a random small scenario with random server options and
// client controls (gen_case) run on the full tier with a trace of every client-side and server-side
// event (ServerTrace). The seed rapidcheck prints on failure replays a case.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <ostream>
#include <tuple>
#include <utility>
#include <vector>

#include "montecarlo/engine.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/montecarlo/engine_instances.hpp"

namespace server_cases {

namespace mc = retrylab::montecarlo;
using retrylab::Model;
using retrylab::Strategy;

// A burst of `clients` on `model` with the given server options (pure burst: the run finishes).
inline mc::Scenario burst(Model model, std::int64_t clients, Strategy strategy = Strategy::nojitter) {
  mc::Scenario s;
  s.model = model;
  s.backoff = {strategy, 1.0, 1000.0, 0.0};
  s.traffic.clients = clients;
  return s;
}

// The server-view recorder of every server test (server_trace.hpp), its loops compiled once
// (engine_instances.hpp).
using mc::testing::Served;
using mc::testing::ServerTrace;

struct Case {
  mc::Scenario s;
  std::uint64_t seed;
};

// rapidcheck prints a counter-example with this (found by argument-dependent lookup).
inline void showValue(const Case& c, std::ostream& os) { os << mc::canonical(c.s) << " seed=" << c.seed; }

// Client-side controls and injected failures, drawn to combine with every server option.
inline void add_controls(mc::Scenario& s) {
  mc::Scenario& o = s;
  if (s.client.retries) {
    o.client.deadline = *rc::gen::element(INFINITY, INFINITY, 6.0);
    o.client.budget.preset = *rc::gen::inRange(0, 6);   // none, aws-standard, grpc, finagle, sre-adaptive, token-bucket
    o.client.breaker.preset = *rc::gen::inRange(0, 3);  // none, hystrix, resilience4j
    if (o.client.budget.preset != 0 || o.client.breaker.preset != 0) o.client.attempt_ms = *rc::gen::element(1.0, 20.0);
    if (std::isfinite(o.client.timeout))
      o.client.idempotency =
          *rc::gen::element(mc::Idempotency::none, mc::Idempotency::per_attempt, mc::Idempotency::fixed);
  }
  o.failures.failure_prob = *rc::gen::element(0.0, 0.0, 0.3);
  if (*rc::gen::element(false, false, true)) {
    o.failures.outage_start = 2.0;
    o.failures.outage_end = 8.0;
    o.failures.outage_fraction = *rc::gen::element(1.0, 0.5);
  }
}

inline rc::Gen<Case> gen_case() {
  return rc::gen::exec([] {
    Case c;
    mc::Scenario& s = c.s;
    s.model = *rc::gen::element(Model::collision, Model::free, Model::shared, Model::ps, Model::none);
    s.backoff.strategy = *rc::gen::element(Strategy::none, Strategy::nojitter, Strategy::full, Strategy::equal,
                                           Strategy::decorrelated, Strategy::window);
    s.backoff.base = *rc::gen::element(0.25, 1.0);
    s.backoff.multiplier = *rc::gen::element(2.0, 2.0, 1.0, 1.5);
    s.backoff.cap = s.backoff.base * *rc::gen::element(1.0, 10.0, retrylab::unbounded_cap);
    s.backoff.window = 2.0;
    s.traffic.clients = *rc::gen::inRange<std::int64_t>(0, 12);
    s.traffic.rate = *rc::gen::element(0.0, 0.4, 1.5);
    if (s.traffic.clients == 0 && s.traffic.rate == 0.0) s.traffic.clients = 1;
    s.measurement.horizon = *rc::gen::element(10.0, 40.0);
    s.measurement.warmup = *rc::gen::element(0.0, 2.5);
    s.measurement.collapse = *rc::gen::element<std::int64_t>(5, 3000);
    s.client.retries = *rc::gen::element(true, true, false);
    mc::Scenario& o = s;
    o.resource.rows = *rc::gen::element<std::int64_t>(1, 2, 5);
    o.resource.service =
        *rc::gen::element(mc::ServiceDist::deterministic, mc::ServiceDist::exponential, mc::ServiceDist::lognormal);
    if (o.resource.service == mc::ServiceDist::lognormal) o.resource.service_cv = *rc::gen::element(0.5, 2.0);
    o.resource.delay = *rc::gen::element(0.0, 0.0, 0.3);
    if (o.resource.delay > 0.0)
      o.resource.delay_dist = *rc::gen::element(mc::DelayDist::fixed, mc::DelayDist::exponential);
    o.resource.lock = *rc::gen::element(false, true);
    const int limit_kind = *rc::gen::inRange(0, 3);  // none, fixed, aimd
    if (limit_kind == 1) o.admission.limit = *rc::gen::element<std::int64_t>(1, 2, 4);
    if (limit_kind == 2) {
      o.admission.aimd = true;
      o.admission.aimd_params = {*rc::gen::element<std::int64_t>(1, 3), 1, *rc::gen::element<std::int64_t>(3, 6), 0.5,
                                 4.0};
    }
    if (limit_kind > 0) {
      o.admission.overflow = *rc::gen::element(mc::Overflow::reject, mc::Overflow::queue);
      if (o.admission.overflow == mc::Overflow::reject) {
        o.admission.reject_cost = *rc::gen::element(0.0, 0.25);
        o.admission.retry_after = *rc::gen::element(0.0, 1.5);
        if (o.admission.retry_after > 0.0) {
          o.admission.retry_after_rule = *rc::gen::element(mc::RetryAfterRule::fixed, mc::RetryAfterRule::uniform);
          o.client.ignore_retry_after = *rc::gen::element(0.0, 0.5);
        }
      }
    }
    if (s.client.retries) {  // client timeouts and retry limits (they need retries on)
      o.client.timeout = *rc::gen::element(INFINITY, INFINITY, 0.75, 3.0);
      o.client.max_attempts = *rc::gen::element<std::int64_t>(0, 0, 1, 3);
    }
    o.client.mix = *rc::gen::element(0.0, 0.5, 1.0);
    if (o.client.mix > 0.0) o.client.mix_backoff = {*rc::gen::element(Strategy::none, Strategy::full), 0.5, 8.0, 0.0};
    add_controls(s);
    if (s.model == Model::none && o.failures.failure_prob == 0.0 && o.failures.outage_end == 0.0)
      o.failures.failure_prob = 0.5;
    // Clients on `none` must not be rejected in no time (check_scenario refuses it): cost it, or give
    // them a retry limit when a breaker or adaptive throttling can reject them locally.
    for (int tries = 0; tries < 3; ++tries) {
      try {
        mc::check_scenario(s);
        break;
      } catch (const retrylab::InputError& e) {
        if (e.field() == "reject_cost") {
          o.admission.reject_cost = 0.25;
        } else if (e.field() == "breaker" || e.field() == "budget") {
          o.client.max_attempts = 3;
        } else {
          throw;
        }
      }
    }
    mc::check_scenario(s);
    c.seed = *rc::gen::inRange<std::uint64_t>(0, 1000);
    return c;
  });
}

struct Run {
  mc::RunResult r;
  ServerTrace t;
};

inline Run run(const Case& c) {
  Run out;
  mc::detail::EngineOptions o;
  o.lockstep_shortcut = false;  // cases without server options run engine.hpp: the trace must see every attempt
  out.r = mc::testing::run_engine(c.s, c.seed, 0, o, out.t);
  return out;
}

}  // namespace server_cases
