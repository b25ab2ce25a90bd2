#pragma once
// A mixed client population (docs/models.md §3): each arriving client is on the mixed-in backoff
// (mix_backoff) with probability `mix`, and ignores Retry-After with probability
// ignore_retry_after; independent draws from the population stream, in that order, each only when
// its fraction is above 0. A client on the mixed-in backoff draws its sleeps from that backoff's
// sampler (the sleeps stream), its decorrelated state starting at that backoff's base.
#include <cstdint>
#include <string>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/random.hpp"
#include "montecarlo/sampler.hpp"

namespace retrylab::montecarlo::detail {

class Population : public Component {
 public:
  struct ClientState {
    bool mixed = false, ignores = false;
  };
  // Its parameters (rows of the field table, montecarlo/fields.hpp).
  static constexpr std::array fields{
      Field{.name = "ignore_retry_after",
            .group = FieldGroup::client,
            .rank = 230,
            .kind = FieldKind::number,
            .hi = 1,
            .meaning = "fraction of clients that ignore Retry-After",
            .access = member<&Scenario::client, &ClientPolicy::ignore_retry_after>()},
      Field{.name = "mix",
            .group = FieldGroup::client,
            .rank = 300,
            .kind = FieldKind::number,
            .hi = 1,
            .meaning = "fraction of clients on the mixed-in backoff (mix_*)",
            .access = member<&Scenario::client, &ClientPolicy::mix>()},
      Field{.name = "mix_strategy",
            .group = FieldGroup::client,
            .rank = 310,
            .kind = FieldKind::choice,
            .presence = Presence::with_mix,
            .choices = strategy_names,
            .meaning = "backoff of the mixed-in clients",
            .access = member<&Scenario::client, &ClientPolicy::mix_backoff, &Backoff::strategy>()},
      Field{.name = "mix_base",
            .group = FieldGroup::client,
            .rank = 320,
            .kind = FieldKind::number,
            .unit = FieldUnit::time,
            .presence = Presence::with_mix,
            .hi = inf,
            .lo_open = true,
            .hi_open = true,
            .meaning = "base of the mixed-in clients' backoff",
            .access = member<&Scenario::client, &ClientPolicy::mix_backoff, &Backoff::base>()},
      Field{.name = "mix_cap",
            .group = FieldGroup::client,
            .rank = 330,
            .kind = FieldKind::number_or_none,
            .unit = FieldUnit::time,
            .presence = Presence::with_mix,
            .hi = inf,
            .lo_open = true,
            .meaning = "cap of the mixed-in clients' backoff, or none",
            .access = member<&Scenario::client, &ClientPolicy::mix_backoff, &Backoff::cap>()},
      Field{.name = "mix_window",
            .group = FieldGroup::client,
            .rank = 340,
            .kind = FieldKind::number,
            .unit = FieldUnit::time,
            .presence = Presence::with_mix,
            .hi = inf,
            .hi_open = true,
            .meaning = "window of the mixed-in clients (window strategy)",
            .access = member<&Scenario::client, &ClientPolicy::mix_backoff, &Backoff::window>(),
            .canonical_value = [](const Scenario& s) {
              return s.client.mix_backoff.strategy == Strategy::window ? s.client.mix_backoff.window : 0.0;
            }}};
  static constexpr std::array streams{StreamId::population};  // its draws (montecarlo/random.hpp)
  static bool active(const Scenario& s) noexcept { return s.client.mix > 0.0 || s.client.ignore_retry_after > 0.0; }
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  // The rules between its parameters and the rest of the scenario (InputError naming the field).
  static void check(const Scenario& s) {
    const ClientPolicy& o = s.client;
    if (o.ignore_retry_after > 0.0 && s.admission.retry_after == 0.0)
      throw InputError("ignore_retry_after", "needs retry_after > 0");
    const Backoff& d = ClientPolicy{}.mix_backoff;
    const Backoff& b = o.mix_backoff;
    if (o.mix == 0.0 && !(b.strategy == d.strategy && b.base == d.base && b.cap == d.cap && b.window == d.window))
      throw InputError("mix", "must be > 0 for the mixed population's strategy, base, cap or window to apply");
    if (o.mix == 0.0) return;
    try {
      check_backoff(o.mix_backoff);
    } catch (const InputError& e) {
      // Same rule, the mixed population's field: "mix_base must be ...".
      const std::string what = e.what();
      throw InputError("mix_" + e.field(), what.substr(e.field().size() + 1));
    }
  }
  // Ignoring Retry-After changes nothing without rejections; a mixed-in backoff is not the
  // shortcut's.
  static bool allows_one_event(const Scenario& s) noexcept { return !(s.client.mix > 0.0); }
  template <class Faults>
  Population(const Scenario& s, const Faults& /*faults*/)
      : on_(active(s)), o_(&s.client), mix_sampler_(s.client.mix_backoff) {}

  template <class E>
  [[gnu::always_inline]] void on_new_client(E& e, std::int32_t c, double& base) {
    if (!on_) return;
    ClientState& mine = e.client_extra(c);
    Stream& rng = e.template stream<StreamId::population>();
    mine.mixed = o_->mix > 0.0 && rng.uniform() < o_->mix;
    mine.ignores = o_->ignore_retry_after > 0.0 && rng.uniform() < o_->ignore_retry_after;
    if (mine.mixed) base = o_->mix_backoff.base;
  }
  // The decision's sleep step: a client that ignores Retry-After drops it; a mixed-in client draws
  // its sleep from its own backoff.
  template <class E>
  [[gnu::always_inline]] void decide(E& e, Decision& d) {
    if (!on_ || d.ask != Ask::sleep) return;
    const ClientState& mine = e.client_extra(d.client);
    if (mine.ignores) d.retry_after = 0.0;
    if (!mine.mixed) return;
    auto& client = e.client(d.client);
    d.sleep = mix_sampler_.sleep(client.failures, client.prev, e.template stream<StreamId::sleeps>());
    d.drawn = true;
  }

 private:
  bool on_;
  const ClientPolicy* o_;
  SleepSampler mix_sampler_;
};

}  // namespace retrylab::montecarlo::detail
