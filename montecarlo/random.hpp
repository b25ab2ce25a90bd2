#pragma once
// The engine's randomness (docs/models.md §6): Random123 Philox4x32-10, keyed by the run's
// identity, never by event order. key = mix(seed, scenario hash); counter = (draw block, stream id,
// run index). Each purpose (arrivals, sleeps, tie-breaks) has its own stream, so adding a draw in one
// never shifts another. One Philox call gives 128 bits = two 64-bit draws.
// Conversions are ours and pinned by known-answer tests (tests/montecarlo/kat_vectors.txt):
//   uniform_open(x) = (floor(x / 2^12) + 1/2) · 2^−52  ∈ [2^−53, 1 − 2^−53], exact, never 0 or 1;
//   exponential(x)  = −log(uniform_open(x))            ∈ (0, 37.5], finite;
//   uniform_index(x, m) = floor(x · m / 2^64)           ∈ [0, m), bias <= m / 2^64.
// Poisson arrivals draw their gaps by a ziggurat instead (montecarlo/exponential.hpp).
#include <Random123/philox.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "montecarlo/philox_batch.hpp"

namespace retrylab::montecarlo {

// A stream's id is the Philox counter's stream word, so its seed: an id, once used, is never given
// to another purpose (that would change its numbers). 1–3 are the core's; the others are the
// components' (each declares the ids it draws from in its own `streams`, montecarlo/component.hpp),
// named here for the components that had them before they declared their own: service times,
// network delays, client populations (mixed strategy, ignoring Retry-After), rows, Retry-After,
// injected failures, adaptive throttling, a load profile's thinning. A new component declares a
// new id in its own file (StreamId{N}, N above every id in use), without a line here.
enum class StreamId : std::uint32_t {
  arrivals = 1,
  sleeps = 2,
  ties = 3,
  service = 4,
  delay = 5,
  population = 6,
  rows = 7,
  retry_after = 8,
  failures = 9,   // injected failures (full tier)
  throttle = 14,  // adaptive throttling's draws (full tier)
  load = 17,      // a load profile's thinning: whether each candidate arrival is kept (full tier)
  replicas = 18,  // the load balancer's choices among replicas (full tier)
  // The layered amplification count's (montecarlo/amplification.hpp; its key differs from the
  // engine's, so the numbers never collide). 10, 12 and 16 were the streams of simulators since
  // replaced by engine scenarios.
  layered_failures = 11,
  layered_outage = 13,
};

// Whether a component may declare id: not the core's (1–3), not the layered count's (11, 13), not
// a retired simulator's (10, 12, 16), and below 2^8 (the stream word's top byte).
inline constexpr bool component_stream_id(StreamId id) noexcept {
  const auto v = static_cast<std::uint32_t>(id);
  return v >= 4 && v < 256 && v != 10 && v != 11 && v != 12 && v != 13 && v != 16;
}

// Computed as (1 + k·2^−52) − (1 − 2^−53), k = floor(x / 2^12): the first term is k's bits under
// 1.0's exponent, and the difference is exact (Sterbenz: the operands are within a factor of 2), so
// it equals k·2^−52 + 2^−53 bit for bit without an integer-to-double conversion or a multiply.
[[gnu::always_inline]] inline constexpr double uniform_open(std::uint64_t x) noexcept {
  return std::bit_cast<double>((x >> 12) | 0x3ff0000000000000ULL) - (1.0 - 0x1p-53);
}

inline double exponential(std::uint64_t x) noexcept { return -std::log(uniform_open(x)); }

__extension__ using uint128 = unsigned __int128;  // GCC/Clang: the 64×64→128 multiply

inline std::uint64_t uniform_index(std::uint64_t x, std::uint64_t m) noexcept {
  return static_cast<std::uint64_t>((static_cast<uint128>(x) * m) >> 64);
}

// splitmix64 finaliser (Steele, Lea, Flood 2014): a bijection on 64 bits that spreads the seed.
inline constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The 64-bit Philox key of a run family: (seed, scenario hash). Runs differ by counter.
inline constexpr std::uint64_t run_key(std::uint64_t seed, std::uint64_t scenario_hash) noexcept {
  return mix64(seed) ^ scenario_hash;
}

using Philox = r123::Philox4x32_R<10>;

// One stream: raw 64-bit draws from Philox(key; counter = (block lo, stream<<24 | block hi, run lo, run hi)).
// Up to 2^56 blocks (2^57 draws) per stream and run.
class Stream {
 public:
  Stream(std::uint64_t key, StreamId id, std::uint64_t run) noexcept
      : key_{{static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)}},
        stream_(static_cast<std::uint32_t>(id) << 24),
        run_lo_(static_cast<std::uint32_t>(run)),
        run_hi_(static_cast<std::uint32_t>(run >> 32)) {}

  [[gnu::always_inline]] std::uint64_t next_u64() noexcept {
    if (have_ == 0) refill();
    --have_;
    return buffer_[have_];
  }

  std::uint64_t draws() const noexcept { return block_ * 2 - have_; }

  // The conversions the engine uses (montecarlo/faults.hpp's BiasedStream can skew the uniform one).
  [[gnu::always_inline]] double uniform() noexcept { return uniform_open(next_u64()); }
  double exponential() noexcept { return -std::log(uniform()); }
  std::uint64_t index(std::uint64_t m) noexcept { return uniform_index(next_u64(), m); }

 private:
  // The next `blocks` Philox blocks at once (montecarlo/philox_batch.hpp picks the kernel). Draw
  // order: block by block, words (0,1) first, then (2,3); next_u64 pops from the back. The sequence
  // is the one-block-at-a-time one; only when it is computed changes. block_ is a multiple of
  // `blocks`, so a refill's blocks share their counter's high words.
  [[gnu::noinline]] void refill() noexcept {
    detail::PhiloxWords out;  // out[w][b]: word w of block b
    const detail::PhiloxCounters c{static_cast<std::uint32_t>(block_),
                                   stream_ | (static_cast<std::uint32_t>(block_ >> 32) & 0xffffffu),
                                   run_lo_,
                                   run_hi_,
                                   key_.v[0],
                                   key_.v[1]};
    detail::philox16(c, out);
    const auto word = [](std::uint32_t lo, std::uint32_t hi) { return std::uint64_t{lo} | std::uint64_t{hi} << 32; };
    for (std::uint32_t b = 0; b < blocks; ++b) {
      buffer_[2 * (blocks - b) - 1] = word(out[0][b], out[1][b]);
      buffer_[2 * (blocks - b) - 2] = word(out[2][b], out[3][b]);
    }
    have_ = 2 * blocks;
    block_ += blocks;
  }

  static constexpr std::uint32_t blocks = detail::philox_batch;
  Philox::key_type key_;
  std::uint32_t stream_;
  std::uint32_t run_lo_, run_hi_;
  std::uint64_t block_ = 0;  // blocks computed so far
  std::uint64_t buffer_[2 * blocks] = {};
  std::uint32_t have_ = 0;
};

}  // namespace retrylab::montecarlo
