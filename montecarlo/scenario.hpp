#pragma once
// Scenario: everything that decides what one simulated run does (models.md §1–§4), and nothing
// that does not (seed, run count and thread count live in RunPlan). Its canonical description is a
// pure function of its fields; the RNG key of a run is (seed, stable_hash(canonical), run index)
// (models.md §6), so adding runs or threads never changes an existing run.
// Invariants (check_scenario): backoff valid (analytic/strategy.hpp); 0 <= clients <= max_clients;
// rate >= 0 finite; clients > 0 or rate > 0; horizon > 0 finite (required when rate > 0; default 1e7
// for pure bursts); 0 <= warmup < horizon; 1 <= collapse <= max_collapse.
#include <cstdint>
#include <string>
#include <string_view>

#include "analytic/model.hpp"
#include "analytic/strategy.hpp"

namespace retrylab::montecarlo {

inline constexpr double default_burst_horizon = 1e7;
inline constexpr std::int64_t max_clients = 100'000'000;      // burst size N
inline constexpr std::int64_t max_collapse = 1'000'000'000;   // K (clients waiting at once)

struct Scenario {
  Model model = Model::collision;
  Backoff backoff{};              // strategy, base, cap (+inf = none), window
  std::int64_t clients = 0;       // burst of N clients at t = 0
  double rate = 0.0;              // steady Poisson arrivals on [0, horizon)
  double horizon = 0.0;           // 0 = unset: default_burst_horizon for pure bursts, an error with steady traffic
  double warmup = 0.0;            // rates are measured over [warmup, stop time)
  std::int64_t collapse = 3000;   // K: the run collapses when this many clients wait at once
  bool retries = true;            // false: each client makes exactly one attempt (validation)
};

// Throws InputError naming the field and the allowed range.
void check_scenario(const Scenario& s);

// The horizon actually used (applies the pure-burst default).
double effective_horizon(const Scenario& s);

// Canonical one-line description, e.g.
// "model=free strategy=full base=1 cap=1000 window=0 clients=100 rate=0 horizon=10000000 warmup=0 collapse=3000 retries=on"
// Every field, fixed order, shortest round-trip decimals; the input to the RNG key hash.
std::string canonical(const Scenario& s);

// 64-bit FNV-1a of canonical(s): stable across machines, compilers and runs.
std::uint64_t stable_hash(const Scenario& s);

// 64-bit FNV-1a of any text (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
std::uint64_t fnv1a64(std::string_view text) noexcept;

// How many runs, from which seed, on how many threads (threads never change a result).
struct RunPlan {
  std::int64_t runs = 20;
  std::uint64_t seed = 1;
  int threads = 0;  // 0 = all cores
};

void check_run_plan(const RunPlan& p);

}  // namespace retrylab::montecarlo
