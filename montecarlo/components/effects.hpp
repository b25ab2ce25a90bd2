#pragma once
// Effects at the server and idempotency keys (docs/models.md §4). With client timeouts a client can
// retry an attempt that still succeeds at the server, so what a request did there differs from what
// its client saw: each successful service end takes effect, unless the key is fixed and the request
// already took effect. A client's slot is kept until it has left and none of its attempts is still
// at the server, so a late success still finds its request. On exactly when timeouts are (without
// them every effect is a success its client saw: effects = successes, the others 0).
// Metrics: effects, duplicate_effects (Σ max(0, effects − 1)), hidden_effects (requests lost for
// their client that took effect).
#include <cstdint>

#include "montecarlo/component.hpp"

namespace retrylab::montecarlo::detail {

class Effects : public Component {
 public:
  struct ClientState {
    std::int32_t pending = 0, effects = 0;  // attempts at the server; effects taken
    bool left = false, lost = false;
  };
  // Its parameters (rows of the field table, montecarlo/fields.hpp).
  static constexpr std::array fields{Field{
      .name = "idempotency",
      .group = FieldGroup::client,
      .rank = 460,
      .kind = FieldKind::choice,
      .choices = idempotency_names,
      .meaning = "idempotency key: none or per-attempt (every successful attempt takes effect), fixed (only the first)",
      .access = member<&Scenario::client, &ClientPolicy::idempotency>()}};
  // Beside hedging each copy is an attempt at the server, counted in pending until it replies or
  // leaves the server cancelled (on_job_done).
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  static bool active(const Scenario& s) noexcept { return s.client.timeout < inf; }
  static constexpr std::array metrics{
      MetricDef{.key = "effects",
                .label = "successful attempts that took effect (per run)",
                .dim = Dim::count,
                .rank = 310,
                .shown = shown::effects,
                .when_absent = [](const RunResult& core) { return static_cast<double>(core.successes); },
                .integer = true},
      MetricDef{.key = "duplicate_effects",
                .label = "effects beyond a request's first (per run)",
                .dim = Dim::count,
                .rank = 320,
                .shown = shown::effects,
                .when_absent = absent::zero,
                .integer = true},
      MetricDef{.key = "hidden_effects",
                .label = "lost requests that took effect (per run)",
                .dim = Dim::count,
                .rank = 330,
                .shown = shown::effects,
                .when_absent = absent::zero,
                .integer = true}};
  template <class Faults>
  Effects(const Scenario& s, const Faults& /*faults*/)
      : on_(active(s)), fixed_(s.client.idempotency == Idempotency::fixed) {}

  template <class E>
  [[gnu::always_inline]] void on_send(E& e, std::int32_t c, std::int32_t /*j*/) {
    if (on_) ++mine(e, c).pending;
  }
  // A successful attempt of its client completes at the server: the request takes effect, unless a
  // fixed idempotency key has already taken it.
  template <class E>
  [[gnu::always_inline]] void on_served(E& e, std::int32_t j) {
    if (!on_ || !e.job(j).success) return;
    ClientState& c = mine(e, e.job(j).client);
    if (c.effects > 0 && fixed_) return;
    ++effects_;
    if (c.effects > 0) ++duplicates_;
    if (c.lost && c.effects == 0) ++hidden_;
    ++c.effects;
  }
  template <class E>
  [[gnu::always_inline]] bool on_reply(E& e, std::int32_t j) {
    if (!on_) return true;
    const auto& job = e.job(j);
    --mine(e, job.client).pending;
    if (!job.orphaned) return true;
    free_if_done(e, job.client);
    return false;
  }
  // An attempt that leaves the server unserved (job.cancelled: abandoned in service by E::cancel or
  // withdrawn from its queue by E::withdraw) is no longer pending there. One its client only stopped
  // waiting for (E::orphan) is still there: its reply comes to on_reply. Without this a cancelled copy
  // (hedging) or a request's attempt at its deadline (deadline_cancel) would keep its client's slot
  // forever.
  template <class E>
  void on_job_done(E& e, std::int32_t j) {
    if (!on_) return;
    const auto& job = e.job(j);
    if (!job.cancelled) return;
    --mine(e, job.client).pending;
    free_if_done(e, job.client);
  }
  template <class E>
  void on_give_up(E& e, std::int32_t c) {
    if (!on_) return;
    ClientState& mine_c = mine(e, c);
    mine_c.lost = true;
    if (mine_c.effects > 0) ++hidden_;
  }
  template <class E>
  [[gnu::always_inline]] bool keeps_client(E& e, std::int32_t c) {
    if (!on_) return false;
    mine(e, c).left = true;
    free_if_done(e, c);
    return true;
  }

  template <class E>
  void report(E& /*e*/, const RunResult& core, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(on_ ? effects_ : core.successes);  // off: every success took effect once
    out[1] = static_cast<double>(duplicates_);
    out[2] = static_cast<double>(hidden_);
  }

 private:
  template <class E>
  static ClientState& mine(E& e, std::int32_t c) noexcept {
    return e.client_extra(c);
  }
  template <class E>
  void free_if_done(E& e, std::int32_t c) {
    if (mine(e, c).left && mine(e, c).pending == 0) e.free_client(c);
  }

  bool on_, fixed_;
  std::int64_t effects_ = 0, duplicates_ = 0, hidden_ = 0;
};

}  // namespace retrylab::montecarlo::detail
