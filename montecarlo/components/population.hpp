#pragma once
// A mixed client population (docs/models.md §3): each arriving client is on the mixed-in backoff
// (mix_backoff) with probability `mix`, and ignores Retry-After with probability
// ignore_retry_after; independent draws from the population stream, in that order, each only when
// its fraction is above 0. A client on the mixed-in backoff draws its sleeps from that backoff's
// sampler (the sleeps stream), its decorrelated state starting at that backoff's base.
#include <cstdint>

#include "montecarlo/component.hpp"
#include "montecarlo/random.hpp"
#include "montecarlo/sampler.hpp"

namespace retrylab::montecarlo::detail {

class Population : public Component {
 public:
  struct ClientState {
    bool mixed = false, ignores = false;
  };
  static bool active(const Scenario& s) noexcept { return s.server.mix > 0.0 || s.server.ignore_retry_after > 0.0; }
  // Ignoring Retry-After changes nothing without rejections; a mixed-in backoff is not the
  // shortcut's.
  static bool allows_one_event(const Scenario& s) noexcept { return !(s.server.mix > 0.0); }
  template <class Faults>
  Population(const Scenario& s, const Faults& /*faults*/)
      : on_(active(s)), o_(&s.server), mix_sampler_(s.server.mix_backoff) {}

  template <class E>
  [[gnu::always_inline]] void on_new_client(E& e, std::int32_t c, double& base) {
    if (!on_) return;
    ClientState& mine = e.client_extra(c);
    Stream& rng = e.template stream<StreamId::population>();
    mine.mixed = o_->mix > 0.0 && rng.uniform() < o_->mix;
    mine.ignores = o_->ignore_retry_after > 0.0 && rng.uniform() < o_->ignore_retry_after;
    if (mine.mixed) base = o_->mix_backoff.base;
  }
  template <class E>
  [[gnu::always_inline]] bool heeds_retry_after(E& e, std::int32_t c) noexcept {
    return !static_cast<ClientState&>(e.client_extra(c)).ignores;
  }
  template <class E>
  [[gnu::always_inline]] bool draws_sleep(E& e, std::int32_t c, double& sleep) {
    if (!on_ || !static_cast<ClientState&>(e.client_extra(c)).mixed) return false;
    auto& client = e.client(c);
    sleep = mix_sampler_.sleep(client.failures, client.prev, e.template stream<StreamId::sleeps>());
    return true;
  }

 private:
  bool on_;
  const ServerOptions* o_;
  SleepSampler mix_sampler_;
};

}  // namespace retrylab::montecarlo::detail
