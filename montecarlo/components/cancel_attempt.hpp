#pragma once
// Cancelling one attempt where it is (docs/models.md §7): the one rule of every component that
// cancels (hedging's answered request, a deadline that cancels), read from the core's stage of the
// attempt (CoreJobState::stage). Queued at the server (the limit's queue, a row's lock): it leaves
// the queue, never to be served (E::withdraw). In service: abandoned (E::cancel: it leaves the
// server at once) or finished (E::orphan: the server completes it, its reply discarded), as the
// caller's in-service field says. Anywhere else (on the network either way, a rejection under way,
// its service just ended): its client stops waiting for it (E::orphan; the cancellation is not
// carried to the server). Each is one `cancelled` outcome every component hears. The caller passes
// an attempt still in flight for its client (its slot holds it, not orphaned).
#include <cstdint>

#include "montecarlo/component.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo::detail {

// Where the cancelled attempt was.
enum class Cancelled : std::uint8_t { queued, in_service, client_only };

template <class E>
Cancelled cancel_attempt(E& e, std::int32_t j, InService in_service) {
  const Stage stage = e.extra(j).stage;
  if (stage == Stage::sent && e.withdraw(j)) return Cancelled::queued;
  if (stage == Stage::in_service) {
    if (in_service == InService::abandon) {
      e.cancel(j);
    } else {
      e.orphan(j);
    }
    return Cancelled::in_service;
  }
  e.orphan(j);
  return Cancelled::client_only;
}

// Attempt j, when queued at the server, leaves its queue (E::withdraw): true. A caller that cancels
// several attempts at once takes the queued ones out first (the cancellations reach the server
// together: one leaving service does not let a queued sibling start).
template <class E>
bool withdraw_queued(E& e, std::int32_t j) {
  return e.extra(j).stage == Stage::sent && e.withdraw(j);
}

// Whether attempt j (slot and id as its sender recorded them) is still in flight for its client.
template <class E>
bool in_flight(E& e, std::int32_t j, std::int64_t id) {
  return j >= 0 && e.job(j).id == id && !e.job(j).orphaned;
}

}  // namespace retrylab::montecarlo::detail
