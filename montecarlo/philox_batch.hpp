#pragma once
// Philox4x32-10 of 16 consecutive counters at once: the blocks a Stream (montecarlo/random.hpp)
// computes per refill. Counter b is (lo + b, hi, run_lo, run_hi) for b = 0..15, with lo a multiple
// of 16 (so lo + b never carries into hi); out[w][b] is word w of block b. The words are exactly
// r123::Philox4x32_R<10>'s (Random123's rounds, word for word), whichever kernel computes them:
// AVX2 (two sets of 8 lanes) when the processor has it, else SSE2 (four sets of 4), else
// Random123's scalar code. The choice is made per call and changes no bit
// (tests/montecarlo/random_test.cpp compares every kernel with Random123).
#include <cstdint>

namespace retrylab::montecarlo::detail {

struct PhiloxCounters {
  std::uint32_t lo, hi, run_lo, run_hi;  // the first block's counter; lo % 16 == 0
  std::uint32_t key0, key1;
};

inline constexpr int philox_batch = 16;
using PhiloxWords = std::uint32_t[4][philox_batch];

// The fastest kernel this processor runs.
void philox16(const PhiloxCounters& c, PhiloxWords& out) noexcept;

// Each kernel on its own, for the tests. The AVX2 one must only be called when philox16_has_avx2().
void philox16_scalar(const PhiloxCounters& c, PhiloxWords& out) noexcept;
void philox16_sse2(const PhiloxCounters& c, PhiloxWords& out) noexcept;  // scalar when not built with SSE2
bool philox16_has_avx2() noexcept;
void philox16_avx2(const PhiloxCounters& c, PhiloxWords& out) noexcept;  // scalar when not built for x86-64

}  // namespace retrylab::montecarlo::detail
