#pragma once
// Planted faults ("a gate that can fail") as a policy type of the event loop, as Boost.Math passes
// its policies: the engine, the sleep sampler and the streams take a Faults type whose default,
// NoFaults, answers every question with a constant false, so the real engine compiles every fault's
// branch away; PlantedFaults, instantiated only by the planted-fault build's entry points
// (montecarlo/entry.hpp, retrylab_montecarlo_faulty), answers from the fault chosen at run time by the
// environment variable RETRYLAB_FAULT:
//   window_exponent               w_k = min(c, b·2^k) instead of b·2^(k−1) (nojitter, full, equal)
//   free_ties_all_fail            in `free`, simultaneous eligible commits all fail
//   shared_doomed_leave_at_commit in `shared`, doomed attempts leave the server at the winning commit
//   decorrelated_uncapped_growth  decorrelated jitter grows from the uncapped draw
//   biased_uniform                every uniform variate u of the arrivals, sleeps and ties streams
//                                 becomes u^1.05 (mean 1/2.05, not 1/2)
// In the full tier, which the faults above leave alone:
//   rows_ignored                  each attempt draws its row, then the server puts it on row 0: as if M = 1
//   lognormal_sigma_is_cv         lognormal service with σ = cv, not sqrt(ln(1+cv²)) (mean still 1)
//   exponential_service_rate      exponential service of mean 1/2 (rate 2), not 1
//   lock_released_early           a row's lock passes on when service starts, so attempts never wait
//   retry_limit_off_by_one        a client gives up after max_attempts + 1 attempts, not max_attempts
// Unset or empty: no fault. Any other value: InputError.
#include <cmath>
#include <limits>
#include <string_view>

#include "montecarlo/exponential.hpp"
#include "montecarlo/random.hpp"

namespace retrylab::montecarlo {

enum class Fault {
  none,
  window_exponent,
  free_ties_all_fail,
  shared_doomed_leave_at_commit,
  decorrelated_uncapped_growth,
  biased_uniform,
  rows_ignored,
  lognormal_sigma_is_cv,
  exponential_service_rate,
  lock_released_early,
  retry_limit_off_by_one
};

// Defined in faults.cpp, which only the planted-fault build compiles.
Fault parse_fault(std::string_view name);  // throws InputError("RETRYLAB_FAULT", ...)
Fault fault_from_env();

// A stream whose uniform variates the biased_uniform fault can skew (the planted-fault build's
// arrivals, sleeps and ties streams); every draw is the plain Stream's otherwise.
class BiasedStream : public Stream {
 public:
  using Stream::Stream;
  [[gnu::always_inline]] double uniform() noexcept {
    if (biased_) return std::pow(Stream::uniform(), 1.05);  // planted fault: mean 1/2.05
    return Stream::uniform();
  }
  double exponential() noexcept { return -std::log(uniform()); }
  void set_biased(bool b) noexcept { biased_ = b; }
  bool biased() const noexcept { return biased_; }

 private:
  bool biased_ = false;
};

// Poisson gaps from a biased stream: −ln of the biased uniform (the ziggurat draws no uniform the
// fault could skew).
inline double standard_exponential_ziggurat(BiasedStream& s) noexcept {
  if (s.biased()) return s.exponential();
  return standard_exponential_ziggurat(static_cast<Stream&>(s));
}

// The real engine's policy: no fault, decided at compile time.
struct NoFaults {
  static constexpr bool planted = false;
  using BiasableStream = Stream;
  constexpr bool operator()(Fault /*f*/) const noexcept { return false; }
  constexpr Fault fault() const noexcept { return Fault::none; }
};

// The planted-fault build's policy: the fault chosen at run time.
class PlantedFaults {
 public:
  static constexpr bool planted = true;
  using BiasableStream = BiasedStream;
  explicit PlantedFaults(Fault f = Fault::none) noexcept : fault_(f) {}
  bool operator()(Fault f) const noexcept { return fault_ == f; }
  Fault fault() const noexcept { return fault_; }

 private:
  Fault fault_;
};

// Skews a biasable stream when the policy's fault is biased_uniform (nothing for NoFaults).
template <class F>
void apply_bias(typename F::BiasableStream& s, const F& faults) noexcept {
  if constexpr (F::planted) s.set_biased(faults(Fault::biased_uniform));
}

}  // namespace retrylab::montecarlo
