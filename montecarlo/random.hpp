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

#include <cmath>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace retrylab::montecarlo {

// 4–8: the full tier's streams, drawn only when their feature is on: service times,
// network delays, client populations (mixed strategy, ignoring Retry-After), rows, Retry-After.
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
  // The layered amplification count's (montecarlo/amplification.hpp; its key differs from the
  // engine's, so the numbers never collide). 10, 12 and 16 were the streams of simulators since
  // replaced by engine scenarios.
  layered_failures = 11,
  layered_outage = 13,
};

inline constexpr double uniform_open(std::uint64_t x) noexcept {
  return static_cast<double>(x >> 12) * 0x1p-52 + 0x1p-53;
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

  // The conversions the engine uses (the planted-fault build can bias the uniform one).
  [[gnu::always_inline]] double uniform() noexcept {
#if RETRYLAB_PLANTED_FAULTS
    if (biased_) return std::pow(uniform_open(next_u64()), 1.05);  // planted fault: mean 1/2.05
#endif
    return uniform_open(next_u64());
  }
  double exponential() noexcept { return -std::log(uniform()); }
  std::uint64_t index(std::uint64_t m) noexcept { return uniform_index(next_u64(), m); }

#if RETRYLAB_PLANTED_FAULTS
  void set_biased(bool b) noexcept { biased_ = b; }
  bool biased() const noexcept { return biased_; }
#endif

 private:
  // The next `blocks` Philox blocks at once. Draw order: block by block, words (0,1) first, then
  // (2,3); next_u64 pops from the back. The sequence is the one-block-at-a-time one; only when it is
  // computed changes. block_ is a multiple of 8, so the 8 blocks share their counter's high words.
  [[gnu::noinline]] void refill() noexcept {
    std::uint32_t out[4][blocks];  // out[w][b]: word w of block b
#if defined(__SSE2__)
    philox_sse2(out);
#else
    for (std::uint32_t b = 0; b < blocks; ++b) {
      const std::uint64_t block = block_ + b;
      const Philox::ctr_type ctr{{static_cast<std::uint32_t>(block),
                                  stream_ | (static_cast<std::uint32_t>(block >> 32) & 0xffffffu), run_lo_, run_hi_}};
      const Philox::ctr_type o = Philox()(ctr, key_);
      for (int w = 0; w < 4; ++w) out[w][b] = o.v[w];
    }
#endif
    const auto word = [](std::uint32_t lo, std::uint32_t hi) { return std::uint64_t{lo} | std::uint64_t{hi} << 32; };
    for (std::uint32_t b = 0; b < blocks; ++b) {
      buffer_[2 * (blocks - b) - 1] = word(out[0][b], out[1][b]);
      buffer_[2 * (blocks - b) - 2] = word(out[2][b], out[3][b]);
    }
    have_ = 2 * blocks;
    block_ += blocks;
  }

#if defined(__SSE2__)
  // Random123's Philox4x32-10 round by round (philox.h: _philox4x32round, _philox4x32bumpkey), on
  // 4 blocks side by side in each of two register sets (lane b of c[w] is word w of block b), so
  // the two independent multiply chains overlap. SSE2 is part of x86-64, so every x86-64 build takes
  // this path; its words are those of r123::Philox4x32_R<10> (tests/montecarlo/random_test.cpp).
  [[gnu::always_inline]] void philox_sse2(std::uint32_t (&out)[4][8]) const noexcept {
    static_assert(blocks == 8, "two sets of 4 blocks, one SSE2 register per word of each");
    const auto lo32 = static_cast<int>(static_cast<std::uint32_t>(block_));
    __m128i a0 = _mm_add_epi32(_mm_set1_epi32(lo32), _mm_set_epi32(3, 2, 1, 0));
    __m128i b0 = _mm_add_epi32(_mm_set1_epi32(lo32), _mm_set_epi32(7, 6, 5, 4));
    __m128i a1 = _mm_set1_epi32(static_cast<int>(stream_ | (static_cast<std::uint32_t>(block_ >> 32) & 0xffffffu)));
    __m128i a2 = _mm_set1_epi32(static_cast<int>(run_lo_));
    __m128i a3 = _mm_set1_epi32(static_cast<int>(run_hi_));
    __m128i b1 = a1, b2 = a2, b3 = a3;
    __m128i k0 = _mm_set1_epi32(static_cast<int>(key_.v[0]));
    __m128i k1 = _mm_set1_epi32(static_cast<int>(key_.v[1]));
    const __m128i m0 = _mm_set1_epi32(static_cast<int>(PHILOX_M4x32_0));
    const __m128i m1 = _mm_set1_epi32(static_cast<int>(PHILOX_M4x32_1));
    const __m128i w0 = _mm_set1_epi32(static_cast<int>(PHILOX_W32_0));
    const __m128i w1 = _mm_set1_epi32(static_cast<int>(PHILOX_W32_1));
    // The 4 lanes' 32×32→64 products with m: low halves into lo, high halves into hi.
    const auto mulhilo = [](__m128i m, __m128i c, __m128i& lo, __m128i& hi) {
      const __m128i even = _mm_shuffle_epi32(_mm_mul_epu32(c, m), _MM_SHUFFLE(3, 1, 2, 0));  // lo0 lo2 hi0 hi2
      const __m128i odd =
          _mm_shuffle_epi32(_mm_mul_epu32(_mm_srli_epi64(c, 32), m), _MM_SHUFFLE(3, 1, 2, 0));  // lo1 lo3 hi1 hi3
      lo = _mm_unpacklo_epi32(even, odd);
      hi = _mm_unpackhi_epi32(even, odd);
    };
    const auto round = [&](__m128i& c0, __m128i& c1, __m128i& c2, __m128i& c3) {
      __m128i lo0, hi0, lo1, hi1;
      mulhilo(m0, c0, lo0, hi0);
      mulhilo(m1, c2, lo1, hi1);
      c0 = _mm_xor_si128(_mm_xor_si128(hi1, c1), k0);
      c1 = lo1;
      c2 = _mm_xor_si128(_mm_xor_si128(hi0, c3), k1);
      c3 = lo0;
    };
    for (int r = 0; r < 10; ++r) {
      if (r > 0) {
        k0 = _mm_add_epi32(k0, w0);
        k1 = _mm_add_epi32(k1, w1);
      }
      round(a0, a1, a2, a3);
      round(b0, b1, b2, b3);
    }
    const __m128i words[2][4] = {{a0, a1, a2, a3}, {b0, b1, b2, b3}};
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 4; ++w) _mm_storeu_si128(reinterpret_cast<__m128i*>(&out[w][4 * h]), words[h][w]);
  }
#endif

  static constexpr std::uint32_t blocks = 8;
  Philox::key_type key_;
  std::uint32_t stream_;
  std::uint32_t run_lo_, run_hi_;
  std::uint64_t block_ = 0;  // blocks computed so far
  std::uint64_t buffer_[2 * blocks] = {};
  std::uint32_t have_ = 0;
#if RETRYLAB_PLANTED_FAULTS
  bool biased_ = false;
#endif
};

}  // namespace retrylab::montecarlo
