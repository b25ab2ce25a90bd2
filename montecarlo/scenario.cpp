#include "montecarlo/scenario.hpp"

#include <cmath>
#include <fmt/format.h>

#include "analytic/error.hpp"

namespace retrylab::montecarlo {

void check_scenario(const Scenario& s) {
  check_backoff(s.backoff);
  // Client slots are 32-bit indices and each costs memory: bounds far above any study's needs.
  if (s.clients < 0 || s.clients > max_clients)
    throw InputError("clients", fmt::format("must be in [0, {}] (got {})", max_clients, s.clients));
  if (!(s.rate >= 0.0) || !std::isfinite(s.rate))
    throw InputError("rate", fmt::format("must be a finite number >= 0 (got {})", s.rate));
  if (s.clients == 0 && s.rate == 0.0)
    throw InputError("clients", "must be > 0 when --rate is 0 (no traffic: give a burst, steady traffic or both)");
  if (std::isnan(s.horizon) || s.horizon < 0.0 || std::isinf(s.horizon))
    throw InputError("horizon", fmt::format("must be a finite number > 0 (got {})", s.horizon));
  if (s.rate > 0.0 && s.horizon == 0.0)
    throw InputError("horizon", fmt::format("is required with steady traffic (rate={}): give a finite time > 0", s.rate));
  const double h = effective_horizon(s);
  if (!(s.warmup >= 0.0) || !(s.warmup < h))
    throw InputError("warmup", fmt::format("must be >= 0 and < the horizon {} (got {})", h, s.warmup));
  if (s.collapse < 1 || s.collapse > max_collapse)
    throw InputError("collapse", fmt::format("must be in [1, {}] (got {})", max_collapse, s.collapse));
}

double effective_horizon(const Scenario& s) {
  return s.horizon == 0.0 && s.rate == 0.0 ? default_burst_horizon : s.horizon;
}

std::string canonical(const Scenario& s) {
  // The window only means something to the window strategy; elsewhere it is canonically 0, so a
  // stray --window does not change a scenario's random numbers.
  const double window = s.backoff.strategy == Strategy::window ? s.backoff.window : 0.0;
  return fmt::format("model={} strategy={} base={} cap={} window={} clients={} rate={} horizon={} warmup={} "
                     "collapse={} retries={}",
                     to_string(s.model), to_string(s.backoff.strategy), s.backoff.base, format_cap(s.backoff.cap),
                     window, s.clients, s.rate, effective_horizon(s), s.warmup, s.collapse,
                     s.retries ? "on" : "off");
}

std::uint64_t fnv1a64(std::string_view text) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;  // FNV prime
  }
  return h;
}

std::uint64_t stable_hash(const Scenario& s) { return fnv1a64(canonical(s)); }

void check_run_plan(const RunPlan& p) {
  if (p.runs < 1) throw InputError("runs", fmt::format("must be >= 1 (got {})", p.runs));
  if (p.threads < 0) throw InputError("threads", fmt::format("must be >= 0 (0 = all cores) (got {})", p.threads));
}

}  // namespace retrylab::montecarlo
