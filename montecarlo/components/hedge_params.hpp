#pragma once
// HedgeParams: hedging's parameters (components/hedge.hpp, its rows of the field table; gRPC's
// hedgingPolicy), held by value in the scenario's client policy (ClientPolicy::hedge): at most
// `attempts` attempts of a request in flight, the first included ([1, max_hedge_attempts]; 1 = no
// hedging), one more every `delay` (>= 0, finite) while none has succeeded; `cancel`: the first
// success cancels the others, and one already in service is then abandoned or finished
// (`in_service`; a queued one always leaves its queue); `percentile` in [0, 100): the tail-at-scale
// backup request, its delay the running estimate of that percentile of the answered requests'
// latencies (0 = off: `delay` throughout). Ranges: the rows; rules between them: Hedge::check.
#include <cstdint>
#include <string_view>

namespace retrylab::montecarlo {

// A cancelled attempt already in service (hedging's in_service, deadline_cancel's
// cancel_in_service): finished (the server is not stopped: it completes the work and its reply is
// discarded, as most servers do) or abandoned (it leaves the server at once, its work cut short).
enum class InService : std::uint8_t { finish, abandon };
inline constexpr std::string_view in_service_names[] = {"finish", "abandon"};  // its fields' choices

inline constexpr std::int64_t max_hedge_attempts = 5;  // gRPC caps maxAttempts at 5

struct HedgeParams {
  std::int64_t attempts = 1;
  double delay = 0.0;
  bool cancel = true;
  double percentile = 0.0;
  InService in_service = InService::abandon;  // the default, as before the field existed

  bool on() const noexcept { return attempts > 1; }
};

}  // namespace retrylab::montecarlo
